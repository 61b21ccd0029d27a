#pragma once
// Plain (no torch). The one sentence that says where a run's first NaN/Inf appeared,
// for the CLI summary and whoever else prints it in text:
//   "step 10: 2048 NaN in the activation of blocks.1.fc1 (forward); first op
//    ampscope::leave_module in blocks.1.fc1 (forward); found by replaying the step"
#include <string>

#include "probes/NonFiniteEvent.h"

namespace ampscope {

std::string describeFirstNonFinite(const NonFiniteEvent& event);

// The part about the first operator alone: "aten::log in act (forward)", the lab's own
// inserted ops explained in words; empty when the event names no operator.
std::string describeFirstOperator(const NonFiniteEvent& event);

}  // namespace ampscope
