#pragma once
// Plain (no torch). What a number format's rounding did to the elements of one or more
// tensors, as the number-format records carry it: the counts and error sums that the
// `format_sweep` record (FormatSweepRecord.h) and the `format_quant` record
// (FormatQuantRecord.h) both hold, with their one sum and their one field list.
// (The quantizers' own, fuller statistics: precision/formats/QuantizationStats.h.)
#include <cmath>
#include <cstdint>
#include <limits>

namespace ampscope {

struct FormatElementStats {
    int64_t elements = 0;
    int64_t underflowed = 0;     // finite non-zero before, zero after
    int64_t saturated = 0;       // rounded past the format's largest finite value
    int64_t nonFinite = 0;       // NaN or Inf before
    double squaredError = 0.0;   // sum (q - x)^2
    double squaredSignal = 0.0;  // sum x^2

    // Another tensor's statistics added: every field is a sum over the tensors.
    FormatElementStats& operator+=(const FormatElementStats& other) {
        elements += other.elements;
        underflowed += other.underflowed;
        saturated += other.saturated;
        nonFinite += other.nonFinite;
        squaredError += other.squaredError;
        squaredSignal += other.squaredSignal;
        return *this;
    }

    double underflowFraction() const { return elements ? double(underflowed) / double(elements) : 0.0; }
    double saturatedFraction() const { return elements ? double(saturated) / double(elements) : 0.0; }
    // +inf when the rounding changed nothing.
    double snrDb() const {
        if (squaredError == 0.0) return std::numeric_limits<double>::infinity();
        if (squaredSignal == 0.0) return -std::numeric_limits<double>::infinity();
        return 10.0 * std::log10(squaredSignal / squaredError);
    }
};

// Its fields in a record (run/RecordCodec.h), in the order both records list them.
template <class V, class S>
void visitFormatElementStats(V& v, S& s) {
    v.field("elements", s.elements);
    v.field("underflowed", s.underflowed);
    v.field("saturated", s.saturated);
    v.field("non_finite", s.nonFinite);
    v.number("squared_error", s.squaredError);
    v.number("squared_signal", s.squaredSignal);
}

// Derived, written for a reader without arithmetic (jq, a spreadsheet, the CSV export).
template <class V, class S>
void visitFormatElementFractions(V& v, S& s) {
    v.writeOnlyNumber("underflow_fraction", s.underflowFraction());
    v.writeOnlyNumber("saturated_fraction", s.saturatedFraction());
    v.writeOnlyNumber("snr_db", s.snrDb());
}

}  // namespace ampscope
