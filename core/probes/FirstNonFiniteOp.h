#pragma once
// Plain (no torch; FirstNonFiniteOp.cpp watches torch's dispatcher). Names the first
// operator whose output was not finite, while it is watching: a thread-local
// RecordFunction callback looks at every op the dispatcher runs on this thread (the
// TorchScript interpreter's ops included) and checks its floating outputs. One reduction per op: meant for the replay of the step
// that went non-finite (StepReplay), never for clean steps.
//
// Every op whose output holds a NaN or an Inf is kept, in dispatch order, forward then
// backward (autograd runs a CPU backward on the calling thread; a GPU backward on its
// own threads is not seen, and then only forward ops can be named). explaining() picks
// the first one of the event's phase and kind: a NaN event is explained by the first op
// that made a NaN, an Inf event by the first that made an Inf, so an attention mask
// filled with -inf does not stand in for the NaN that came later. Allocations and views
// (transpose, resolve_conj, detach) compute nothing and are never named: what they show
// was made by an earlier op or is memory not yet written. An op run inside one
// of the ops the TorchScript graph pass inserts (a rounding, a module's output) is
// reported as that op, the step a user can act on. In the forward of a TorchScript
// model the submodule is known too.
#include <optional>
#include <string>
#include <vector>

#include "probes/NonFiniteEvent.h"

namespace ampscope {

struct NonFiniteOp {
    std::string op;      // "aten::div", "ampscope::op_result"
    std::string phase;   // nonfinite_phase
    std::string module;  // the submodule it ran in (forward of a TorchScript model, "(model)" for
                         // its own forward), or "" (a built-in model, or backward)
    std::string node;    // backward: the autograd node it ran in ("DivBackward0"), or ""
    bool nan = false;    // its output holds a NaN
    bool inf = false;    // ... an Inf
};

class FirstNonFiniteOp {
public:
    FirstNonFiniteOp();  // starts watching this thread
    ~FirstNonFiniteOp();
    FirstNonFiniteOp(const FirstNonFiniteOp&) = delete;
    FirstNonFiniteOp& operator=(const FirstNonFiniteOp&) = delete;

    // In dispatch order; at most kMaxHits.
    const std::vector<NonFiniteOp>& hits() const;
    // The first hit of the event's phase that made what the event found (a NaN for an
    // event with NaNs, an Inf otherwise).
    std::optional<NonFiniteOp> explaining(const NonFiniteEvent& event) const;

    static constexpr size_t kMaxHits = 256;

private:
    uint64_t handle_;
};

}  // namespace ampscope
