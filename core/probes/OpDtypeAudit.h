#pragma once
// INTERNAL (includes torch). Records which op of each layer ran in which dtype
// during one forward pass: what autocast actually did, seen from LibTorch's
// dispatcher (a thread-local RecordFunction callback, installed only while a
// probe step's forward runs, so other steps pay nothing).
//
// - Only the compute ops a reader cares about are listed (linear, conv2d,
//   matmul, softmax, norms, activations, pools, losses, ...), and only the
//   outermost of them: linear's inner addmm, or cross_entropy_loss's inner
//   log_softmax, are its implementation. When autocast re-dispatches an op
//   with cast arguments (linear(fp32) -> linear(bf16)), the inner call's
//   argument dtypes are the ones reported.
// - The caller marks layer boundaries (layerEnded, after each layer's
//   forward): ops since the previous boundary belong to that layer; ops after
//   the last boundary, up to end(), to "loss".
// - Ops run while paused (the probes' own work inside the forward) are not
//   listed.
// - Emulation (fp32 tensors holding fp16/tf32-rounded values) is invisible to
//   the dispatcher: the caller says per layer what LayerCompute rounds
//   (setEmulation), and matmul/conv ops of that layer report the rounded
//   format with emulated = true.
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "precision/Rounding.h"
#include "probes/StepAudit.h"

namespace ampscope {

class OpDtypeAudit {
public:
    OpDtypeAudit();
    ~OpDtypeAudit();
    OpDtypeAudit(const OpDtypeAudit&) = delete;
    OpDtypeAudit& operator=(const OpDtypeAudit&) = delete;

    // Starts listening on this thread; clears the previous result.
    void begin();
    // What LayerCompute rounds in the layer whose ops come next (None: nothing).
    void setEmulation(Rounding operands, Rounding result);
    void layerEnded(const std::string& layer);
    // Stops listening; the remaining ops belong to "loss".
    void end();
    bool active() const { return active_; }
    // The probes' own ops (statistics on a layer's output, emulation counts)
    // are not the model's: they run between pause() and resume().
    void pause() { ++paused_; }
    void resume() { --paused_; }
    bool listening() const { return active_ && paused_ == 0; }
    const std::vector<LayerOps>& layers() const { return layers_; }

    // Called by the dispatcher callbacks (internal).
    struct Frame;
    void opStarted(Frame& frame);
    void opEnded(Frame& frame);

private:
    void flushLayer(const std::string& layer);

    bool active_ = false;
    int paused_ = 0;
    uint64_t handle_ = 0;
    std::vector<Frame*> stack_;
    std::vector<OpDtype> pending_;
    std::vector<LayerOps> layers_;
    Rounding operandRounding_ = Rounding::None;
    Rounding resultRounding_ = Rounding::None;
};

std::string dtypeName(c10::ScalarType type);  // "float32", "bfloat16", "float16", "int64", ...

}  // namespace ampscope
