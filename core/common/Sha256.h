#pragma once
// SHA-256 (FIPS 180-4) of a file, as lowercase hex: what a run records about the
// model file it trained, so a report says exactly which file it was.
#include <cstdint>
#include <string>
#include <string_view>

namespace ampscope {

std::string sha256Hex(std::string_view bytes);
// Reads the file in chunks; throws InputError naming the file when it cannot be read.
std::string sha256OfFile(const std::string& path, uint64_t* bytesRead = nullptr);

}  // namespace ampscope
