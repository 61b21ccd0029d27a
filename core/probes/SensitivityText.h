#pragma once
// Plain (no torch). A sensitivity record in words, as `ampscope-cli sensitivity` prints
// it and writes sensitivity.txt: what was measured, then per format the layers ranked by
// score with their share of the model's matmul/conv FLOPs and the saturated and flushed
// shares of their quantized operands.
#include <string>
#include <vector>

#include "probes/SensitivityRecord.h"

namespace ampscope {

// passes: how many passes the record combines (one: a single batch).
std::vector<std::string> sensitivityTable(const SensitivityRecord& record, size_t passes);

}  // namespace ampscope
