#pragma once
// INTERNAL (includes torch). One training step and one evaluation pass for a
// RunConfig, with every precision rule in one place:
//   zero grads -> [autocast] forward + loss [/autocast] -> scale(loss) ->
//   backward -> (unscale_ -> clip) or (clip scaled: the pitfall) ->
//   scaler step (skips on non-finite grads) -> update -> (pure emulation:
//   round the weights to fp16, so updates below half an ulp are lost).
// Autocast is entered here, in the calling (engine) thread, around the forward
// and the loss only; leaving it clears the autocast cache.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "config/RunConfig.h"
#include "data/Dataset.h"
#include "engine/MultiTensorOptimizer.h"
#include "engine/StepMetrics.h"
#include "models/TrainableModel.h"
#include "precision/ComputePolicy.h"
#include "precision/GradScaler.h"

namespace ampscope {

// Points inside one step where probes look. Every hook sees the trainer; the
// gradients are in parameters()[i].grad(). Called on the engine thread.
class StepProbe {
public:
    virtual ~StepProbe() = default;
    // The step's (or a replay's) forward is about to start.
    virtual void beforeForward() {}
    virtual void afterLoss(const torch::Tensor& loss) {}
    // Gradients as backward left them: multiplied by `scale` (what fp16 holds).
    virtual void afterBackward(double scale) {}
    // Gradients unscaled (true gradients), before clipping.
    virtual void afterUnscale() {}
    // The step's loss and gradients are known finite or not, from what the step reads
    // anyway (the loss, the scaler's found-inf or the gradient norm); no weight and no
    // optimizer state has changed yet, so the step can still be run again as it was.
    virtual void stepChecked(bool nonFinite) {}
    virtual void beforeOptimizerStep() {}
    // The optimizer ran; in emulated pure modes the weights are not yet rounded
    // back to fp16, so this is the update the optimizer intended.
    virtual void afterOptimizerUpdate() {}
    virtual void afterOptimizerStep(bool stepRan) {}
};

struct Evaluation {
    double loss = 0.0;
    double accuracy = 0.0;  // NaN for regression
};

class Trainer {
public:
    Trainer(const RunConfig& config, const DataBundle& data, const c10::Device& device);

    // Runs one step on a batch; fills loss, lr, grad norms and the scaler fields.
    StepMetrics step(const torch::Tensor& inputs, const torch::Tensor& targets);
    // Forward, loss and backward on a batch, no scaler and no optimizer: leaves
    // the true gradients in parameters() and returns the loss (the fp32 shadow).
    double computeGradients(const torch::Tensor& inputs, const torch::Tensor& targets);
    // Makes this model's weights and buffers (BatchNorm running stats) equal to
    // `other`'s, converted to this model's dtypes. The models must be built from
    // the same model config and data shape.
    void copyStateFrom(const Trainer& other);
    // A second trainer for the same data shape built from `config` (another
    // mode). The global CPU generator is left as it was found; with
    // `initialRng` (a state from captureCpuRng()) the twin's weights are drawn
    // from it, so a twin built from the state the main run was built from
    // starts with the same weights.
    std::unique_ptr<Trainer> twin(const RunConfig& config, const torch::Tensor& initialRng = {}) const;
    // Runs the last step's forward and backward again: the same batch, loss factor and
    // loss scale, through the observer and the probe's afterLoss/afterBackward. Only
    // between stepChecked() and the optimizer step. It leaves the replay's gradients and
    // BatchNorm statistics; StepReplay puts the step's own back.
    void replayForwardBackward();
    // The same for a reference model (the precision map's): `source`'s last step (its
    // batch, loss factor and loss scale) forward and backward on this trainer's model in
    // this trainer's mode, the batch's floating values in `dtype` when given (fp64).
    // Leaves the gradients.
    void replayStepOf(const Trainer& source, std::optional<c10::ScalarType> dtype = std::nullopt);
    // cancelled() is asked between batches; a cancelled evaluation returns NaNs.
    Evaluation evaluate(const TensorDataset& data, int64_t batchSize,
                        const std::function<bool()>& cancelled = {});

    TrainableModel& model() { return *model_; }
    const TrainableModel& model() const { return *model_; }
    const ComputePolicy& policy() const { return policy_; }
    const GradScaler& scaler() const { return *scaler_; }
    const std::vector<torch::Tensor>& parameters() const { return parameters_; }
    // Layer index (in model().layerNames()) of each parameter.
    const std::vector<size_t>& parameterLayers() const { return parameterLayers_; }
    const c10::Device& device() const { return device_; }
    const RunConfig& config() const { return config_; }
    // The last step's batch, on the device, before any pure-mode cast.
    const torch::Tensor& lastInputs() const { return lastInputs_; }
    const torch::Tensor& lastTargets() const { return lastTargets_; }
    // When on, the next steps keep a copy of the unscaled gradients (before
    // clipping), for comparisons after the step (lock-step A/B).
    void setGradientCapture(bool on) { captureGradients_ = on; }
    const std::vector<torch::Tensor>& capturedGradients() const { return capturedGradients_; }

    // Hook for fault injection and probes: sees each layer's output.
    void setObserver(LayerObserver* observer) { observer_ = observer; }
    // Probes for the next steps (null: none); not owned.
    void setStepProbe(StepProbe* probe) { probe_ = probe; }
    // Loss multiplier for the next step only (fault kind scale_loss).
    void scaleNextLoss(double factor) { nextLossFactor_ = factor; }

private:
    enum class LossKind { CrossEntropy, Mse, LogSum, Model };

    void chooseLoss();
    void keepLayersInFp32();
    // A user's model meets the data: a forward on a few training samples, so a shape
    // that does not fit the loss is refused before the run starts.
    void checkModelFitsData(const DataBundle& data);
    // Forward and loss under the precision policy (autocast is the caller's).
    torch::Tensor forwardLoss(const torch::Tensor& x, const torch::Tensor& y, LayerObserver* observer);
    torch::Tensor computeLoss(const torch::Tensor& output, const torch::Tensor& targets);
    // Forward (under the precision policy), loss times lossFactor, backward of the loss
    // times lossScale (none: unscaled); returns the loss (float32, still on the device).
    torch::Tensor forwardBackward(torch::Tensor x, const torch::Tensor& y, double lossFactor,
                                  std::optional<float> lossScale);
    std::optional<float> lossScale() const;  // the scaler's, when it scales
    // A batch on the run's device (on a GPU through pinned memory, without waiting).
    torch::Tensor toDevice(const torch::Tensor& batch) const;
    // Fills m.loss and m.gradNorm and hands the scaler its found_inf, in one host read.
    void readLossNormAndFoundInf(const torch::Tensor& loss, StepMetrics& m);
    void reportStepChecked(const StepMetrics& m);
    torch::Tensor gradNormOnDevice() const;  // the global gradient norm, a float32 scalar
    double globalGradNorm() const;
    void clipTo(double maxNorm, double currentNorm);
    std::string firstNonFiniteLayer() const;
    bool stepOptimizer();  // scaler step (skips on non-finite gradients), with probe hooks
    void gradientsUnscaled();  // probe hook and gradient capture, at the unscale point
    void applyDeviceMathMode() const;

    RunConfig config_;
    c10::Device device_;
    ComputePolicy policy_;
    bool classification_ = true;
    LossKind loss_ = LossKind::CrossEntropy;
    std::shared_ptr<TrainableModel> model_;
    std::unique_ptr<MultiTensorOptimizer> optimizer_;
    std::unique_ptr<GradScaler> scaler_;
    std::vector<torch::Tensor> parameters_;
    std::vector<size_t> parameterLayers_;
    LayerObserver* observer_ = nullptr;
    StepProbe* probe_ = nullptr;
    double nextLossFactor_ = 1.0;
    double stepLossFactor_ = 1.0;  // the current step's, kept for a replay
    DataBundle shape_;  // the data's task and shapes, without tensors (for twins)
    torch::Tensor lastInputs_, lastTargets_;
    bool captureGradients_ = false;
    std::vector<torch::Tensor> capturedGradients_;
};

// The global CPU generator's state (model initialisation draws from it), to
// build extra models without moving the main run's random stream.
torch::Tensor captureCpuRng();
void restoreCpuRng(const torch::Tensor& state);

GradScaler::Kind resolveScalerKind(const PrecisionConfig& precision);

}  // namespace ampscope
