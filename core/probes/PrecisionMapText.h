#pragma once
// Plain (no torch). A precision map in words, as the CLI prints it and the report
// states it: what was compared, the first op past the tolerance, the ops that add the
// most error, and per module the error entering and leaving.
#include <string>
#include <vector>

#include "probes/PrecisionMapRecord.h"

namespace ampscope {

// "step 7: bf16 against fp32, 93 ops (47 forward, 46 backward); errors in bf16 ulps,
// unit roundoff 2^-8"
std::string precisionMapHeadline(const PrecisionMapRecord& map);
// "#12 aten::conv2d in conv2 (forward)"
std::string precisionMapOpName(const PrecisionMapRecord& map, size_t index);
// "rel error 1.2e-02 (3.1 u), its own 4.1e-03, 3.5 ulps max, 2% flushed, 1 new Inf"
std::string precisionMapOpErrors(const PrecisionMapRecord& map, size_t index);
// The lines ampscope-cli precision-map prints: the headline, the first op past the
// tolerance, the ten ops that add the most error, unmatched ops, and per module the
// error entering and leaving.
std::vector<std::string> precisionMapSummary(const PrecisionMapRecord& map);

}  // namespace ampscope
