#pragma once
// `ampscope-cli formats` and `ampscope-cli cast`: the number formats of
// core/precision/formats as text, one line per format or per value.
#include <cstdio>
#include <string>

#include "CliArguments.h"

namespace ampscope::app {

// name, bits, largest finite value, smallest normal and subnormal: one line each.
void printFormatTable(std::FILE* out);

// One line per value: as typed, what it rounds to, the bits in hex. Every value
// is checked first, so a value the format has no code for (nan in e2m1, 0 in
// e8m0) is an InputError before anything is printed.
void printCasts(const CliRequest& request, std::FILE* out);

// The shortest decimal that reads back as the same double; nan, inf, -inf.
std::string shortestDecimal(double value);

}  // namespace ampscope::app
