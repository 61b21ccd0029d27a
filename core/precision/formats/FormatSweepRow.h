#pragma once
// Plain (no torch). One row of the format sweep: how one fp32 tensor would
// fare in one format (see FormatSweep.h).
#include <string>

#include "precision/formats/QuantizationStats.h"

namespace ampscope {

struct FormatSweepRow {
    std::string format;  // "fp16", "bf16", "e4m3", "e5m2", "mxfp8", "mxfp4", "nvfp4"
    QuantizationStats stats;
    double underflowFraction() const { return stats.underflowFraction(); }
    double saturatedFraction() const { return stats.saturatedFraction(); }
    double snrDb() const { return stats.snrDb(); }
};

}  // namespace ampscope
