#pragma once
// Plain (no torch). The field list of an ExponentHistogram inside a record
// (run/RecordCodec.h), shared by the records that carry one: the histogram probe
// record and the precision map's per-op histograms.
//
// The bins are written from 2^min_exponent up; a writer with another bin range still
// reads: bins outside ours fold into below/above, which is what those bins mean (so
// below and above are read before the bins). A trimmed histogram is written from its
// lowest to its highest non-empty bin (many per record stay small).
#include <nlohmann/json.hpp>

#include "probes/ExponentHistogram.h"
#include "run/RecordCodec.h"

namespace ampscope::histogram_fields {

// The exponent bins from the lowest to the highest non-empty one; [0, 0) when empty.
inline std::pair<size_t, size_t> nonEmptyBins(const ExponentHistogram& h) {
    size_t first = 0, last = h.counts.size();
    while (first < last && h.counts[first] == 0) ++first;
    while (last > first && h.counts[last - 1] == 0) --last;
    return first < last ? std::pair{first, last} : std::pair<size_t, size_t>{0, 0};
}

template <class V, class H>
void visitBins(V& v, H& h, bool trimmed = false) {
    using record_codec::json;
    v.field("below", h.below);
    v.field("above", h.above);
    const auto [first, last] = trimmed ? nonEmptyBins(h) : std::pair<size_t, size_t>{0, h.counts.size()};
    int64_t minExponent = kMinExponent + static_cast<int64_t>(first);
    v.field("min_exponent", minExponent);
    v.custom(
        "counts", h,
        [first = first, last = last](const ExponentHistogram& written) {
            return json(std::vector<int64_t>(written.counts.begin() + static_cast<std::ptrdiff_t>(first),
                                             written.counts.begin() + static_cast<std::ptrdiff_t>(last)));
        },
        // Generic in the counts: JSON's array, or the text reader's list of numbers.
        [&minExponent](const auto& counts, auto& read, auto& reader) {
            if (!counts.is_array()) return reader.fail("field \"counts\" must be an array");
            for (size_t i = 0; i < counts.size(); ++i) {
                if (!counts[i].is_number_integer()) return reader.fail("\"counts\" must hold integers");
                const int64_t c = counts[i].template get<int64_t>();
                const int64_t e = minExponent + static_cast<int64_t>(i);
                if (e < kMinExponent)
                    read.below += c;
                else if (e > kMaxExponent)
                    read.above += c;
                else
                    read.counts[static_cast<size_t>(e - kMinExponent)] += c;
            }
        });
}

// The bins and the bins without an exponent.
template <class V, class H>
void visitHistogram(V& v, H& h, bool trimmed = false) {
    visitBins(v, h, trimmed);
    v.field("zero", h.zero);
    v.field("nan", h.nan);
    v.field("pos_inf", h.posInf);
    v.field("neg_inf", h.negInf);
}

}  // namespace ampscope::histogram_fields
