#pragma once
// INTERNAL (includes torch). Keeps every op's output of one forward and backward, for
// the precision map (PrecisionMapCompare.h): while it watches, a thread-local
// RecordFunction callback (as FirstNonFiniteOp's) sees each op the dispatcher runs on
// this thread, the TorchScript interpreter's and a CPU backward's included, and keeps
// the floating outputs of the ops the model's code calls itself (the top level: an
// op's inner ops, autocast's casts among them, belong to it). They are kept without a
// copy; a value that something then writes over (an op in place or into an out=
// argument, watched or not: the scaler's unscale, clipping) is copied first. With a
// sink (CaptureSink, below) each op is handed over as it is kept, and the sink may drop
// its values: the reference side of a map is compared op by op and held no longer.
//
// What one side of a comparison has and the other not is folded, never listed as an op:
// - the lab's roundings and module-boundary casts (precision/InsertedOps.h: the graph
//   pass's ops, the zoo's scopes of the same names) and plain dtype casts. One that
//   rounds an op's result (op_result, a module's output) is the result as the run holds
//   it: it replaces the copy of the op that made the value. One that rounds what enters
//   an op (an operand, a module input, a cast) belongs to the op it feeds: that op is
//   run again from the value before the rounding. In backward the roles turn round (a
//   rounding of an operand rounds that operand's gradient, a result).
// - allocations and constants (empty, zeros, full, ones_like...), which compute nothing.
//
// Each op is attributed to the module it ran in (a zoo layer, a TorchScript model's
// innermost submodule, "(model)" for a model's own code, "loss" outside the model); a
// backward op to the module whose forward op created its autograd node (matched by the
// nodes' sequence numbers). Each copy notes which earlier copies its inputs were
// (dataflow, for the error entering an op).
//
// With rerunIn set, each op whose inputs are the run's own is run a second time, in that
// dtype (fp32 or fp64), outside autocast, from the same input values (before any
// rounding that feeds it): the difference is the error the op itself adds. Ops that
// change their inputs or draw random numbers are not run again. An op that already ran
// in that dtype on unrounded inputs outside autocast would give its own output again:
// it is not run, its output stands for the rerun (its own error 0).
//
// The capture watches a training step itself: what probes compute in it is no op of the
// model and is left out (OutsideCapture around probe work).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace ampscope {

struct CapturedOutput {
    int index = 0;        // which output of the op (tensors of its outputs in order)
    torch::Tensor value;  // as the run holds it (after any rounding of the result)
    torch::Tensor rerun;  // the op again in rerunIn's dtype; undefined when not run again
    // The op ran as the rerun would (in that dtype, unrounded inputs, no autocast): the
    // value stands for the rerun.
    bool rerunIsValue = false;
};

struct CapturedOp {
    std::string op;          // "aten::conv2d"
    std::string module;      // see above
    bool backward = false;
    std::string node;        // backward: the autograd node it ran in ("ConvolutionBackward0")
    std::vector<CapturedOutput> outputs;
    // Which earlier copies its inputs were: (op index, output index).
    std::vector<std::pair<size_t, int>> inputsFrom;
};

// Told of each op as a capture keeps it, and of a kept value that a later rounding of
// the result replaced (the value as the run holds it from then on): a comparison that
// runs while the reference is captured (PrecisionMapStream) and may drop what it has
// compared. Its own torch work is not watched.
class CaptureSink {
public:
    virtual ~CaptureSink() = default;
    virtual void opKept(std::vector<CapturedOp>& ops, size_t index) = 0;
    virtual void valueReplaced(std::vector<CapturedOp>& ops, size_t index, size_t output) = 0;
};

// While one is alive on a thread, no capture there keeps an op (probe work inside a
// captured step: histograms, non-finite checks, the format sweep).
class OutsideCapture {
public:
    OutsideCapture();
    ~OutsideCapture();
    OutsideCapture(const OutsideCapture&) = delete;
    OutsideCapture& operator=(const OutsideCapture&) = delete;
};

// The module name of ops outside the model (the loss, the loss scale).
inline constexpr const char* kOutsideModelModule = "loss";

class OpCapture {
public:
    // Starts watching this thread (with watching false: from watch(true) on). A sink is
    // told of each op kept (and outlives the capture's watching).
    explicit OpCapture(std::optional<c10::ScalarType> rerunIn = std::nullopt, bool watching = true,
                       CaptureSink* sink = nullptr);
    ~OpCapture();
    OpCapture(const OpCapture&) = delete;
    OpCapture& operator=(const OpCapture&) = delete;

    // Ops are kept only while watching: a step's forward and backward, not the work
    // around them (the replay's saving and putting back).
    void watch(bool on);
    // The ops from here on are the backward's (called once the loss is computed).
    void startBackward();
    // The ops so far, in execution order.
    const std::vector<CapturedOp>& ops() const;
    std::vector<CapturedOp> takeOps();

    struct State;

private:
    std::unique_ptr<State> state_;
    uint64_t handle_ = 0;
};

}  // namespace ampscope
