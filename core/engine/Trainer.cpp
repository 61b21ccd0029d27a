#include "engine/Trainer.h"

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

#include "common/InputError.h"
#include "models/ModelFactory.h"
#include "models/TorchScriptModel.h"
#include "precision/Autocast.h"

namespace ampscope {

GradScaler::Kind resolveScalerKind(const PrecisionConfig& precision) {
    const std::string kind = resolvedScalerKind(precision.mode, precision.scaler.kind);
    if (kind == "dynamic") return GradScaler::Kind::Dynamic;
    if (kind == "static") return GradScaler::Kind::Static;
    return GradScaler::Kind::Off;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
    return text;
}

}  // namespace

Trainer::Trainer(const RunConfig& config, const DataBundle& data, const c10::Device& device)
    : config_(config), device_(device), policy_(makeComputePolicy(config.precision, device)) {
    shape_.task = data.task;
    shape_.num_classes = data.num_classes;
    shape_.input_shape = data.input_shape;
    shape_.description = data.description;
    // No samples, but the targets' shape: a twin sizes its output from it.
    if (data.train.targets.defined()) shape_.train.targets = data.train.targets.slice(0, 0, 0);
    classification_ = data.task == "classification";
    if (config.model.name == "torchscript") {
        model_ = TorchScriptModel::load(config.model, device_, config.train.loss == "model");
    } else {
        const int64_t outputs = modelOutputs(data);  // classes, or values per regression sample
        model_ = std::make_shared<ZooModel>(buildModel(config.model, data.input_shape, outputs));
    }
    chooseLoss();
    keepLayersInFp32();
    model_->moveTo(device_);
    if (policy_.pureWeights) {
        // Pure modes hold the weights themselves in half; kept layers stay fp32.
        for (size_t i = 0; i < model_->layerCount(); ++i)
            if (!policy_.keeps(model_->layerName(i))) model_->layerTo(i, policy_.lowDtype);
    }
    if (policy_.pureEmulated) {
        torch::NoGradGuard noGrad;
        for (size_t i = 0; i < model_->layerCount(); ++i) {
            if (policy_.keeps(model_->layerName(i))) continue;
            for (auto& p : model_->layerParameters(i)) p.copy_(roundTo(p, policy_.pureRounding));
        }
    }
    policy_.registerLayers(model_->layerNames());
    // Stochastic rounding draws from the run's seed: a rerun rounds the same way.
    if (policy_.quantizesFormats()) policy_.seedStochasticRounding(config.seed);
    for (size_t i = 0; i < model_->layerCount(); ++i) {
        for (auto& p : model_->layerParameters(i)) {
            parameters_.push_back(p);
            parameterLayers_.push_back(i);
        }
    }
    if (config.model.name == "torchscript" && data.train.inputs.defined()) checkModelFitsData(data);
    optimizer_ = std::make_unique<MultiTensorOptimizer>(config.optim, parameters_);
    const auto& s = config.precision.scaler;
    const auto kind = resolveScalerKind(config.precision);
    if (policy_.mode == PrecisionMode::Fp16Pure && kind != GradScaler::Kind::Off)
        // torch.amp.GradScaler refuses fp16 gradients, and pure fp16 has no others.
        throw InputError("precision.scaler.kind: Attempting to unscale FP16 gradients. (pure fp16 "
                         "keeps no fp32 master weights; use scaler off, or mode fp16)");
    scaler_ = std::make_unique<GradScaler>(kind, s.init_scale,
                                           ScaleUpdateRule{s.growth_factor, s.backoff_factor, s.growth_interval});
}

void Trainer::chooseLoss() {
    const std::string& loss = config_.train.loss;
    if (loss == "model") {
        loss_ = LossKind::Model;
    } else if (loss == "cross_entropy") {
        if (!classification_)
            throw InputError("train.loss: cross_entropy needs class targets (integers); data.dataset " +
                             config_.data.dataset + " has float targets (use mse)");
        loss_ = LossKind::CrossEntropy;
    } else if (loss == "mse") {
        if (classification_)
            throw InputError("train.loss: mse needs float targets of the output's shape; data.dataset " +
                             config_.data.dataset + " has class targets (use cross_entropy)");
        loss_ = LossKind::Mse;
    } else if (config_.model.name == "log_sum") {
        loss_ = LossKind::LogSum;
    } else {
        loss_ = classification_ ? LossKind::CrossEntropy : LossKind::Mse;
    }
}

void Trainer::keepLayersInFp32() {
    // keep_fp32 names layers, or (a user's model) a module around some: its layers are
    // kept too, so every view that asks "is this layer kept?" agrees with the run.
    for (const auto& name : config_.precision.keep_fp32) {
        if (name == "loss") continue;
        const auto layers = model_->layersWithin(name);
        if (layers.empty())
            throw InputError("precision.keep_fp32: no layer named \"" + name +
                             "\" (layers: " + joined(model_->layerNames()) + ", loss)");
        policy_.keepFp32.insert(layers.begin(), layers.end());
        policy_.keepFp32.insert(name);  // the module itself, for the ops directly in it
    }
}

void Trainer::checkModelFitsData(const DataBundle& data) {
    const int64_t n = std::min<int64_t>(3, data.train.size());
    if (n < 1) return;
    torch::NoGradGuard noGrad;
    model_->setTraining(false);
    const auto x = data.train.inputs.slice(0, 0, n).to(device_);
    const auto y = data.train.targets.slice(0, 0, n).to(device_);
    auto shapeText = [](const torch::Tensor& t) {
        std::string text = "[";
        for (int64_t d = 0; d < t.dim(); ++d) text += (d ? ", " : "") + std::to_string(t.size(d));
        return text + "]";
    };
    const std::string file = "model.path: " + config_.model.path + ": ";
    torch::Tensor out;
    try {
        std::optional<AutocastScope> autocast;
        if (policy_.realAutocast) autocast.emplace(device_.type(), policy_.lowDtype, true);
        auto input = x;
        if (policy_.pureWeights && input.is_floating_point()) input = input.to(policy_.lowDtype);
        out = loss_ == LossKind::Model ? model_->forwardLoss(input, y, policy_, nullptr)
                                       : model_->forward(input, policy_, nullptr);
    } catch (const InputError& error) {
        model_->setTraining(true);
        throw InputError(std::string(error.what()) + " (on " + std::to_string(n) +
                         " training samples of shape " + shapeText(x) + ")");
    }
    model_->setTraining(true);
    const std::string gives = "forward gives " + shapeText(out) + " for inputs " + shapeText(x);
    if (loss_ == LossKind::Model) {
        if (out.dim() != 0)
            throw InputError(file + "forward(inputs, targets) gives " + shapeText(out) +
                             "; train.loss \"model\" needs the scalar loss");
    } else if (loss_ == LossKind::CrossEntropy) {
        if (out.dim() != 2 || out.size(0) != n || out.size(1) < data.num_classes)
            throw InputError(file + gives + "; cross_entropy needs [" + std::to_string(n) + ", classes] with " +
                             std::to_string(data.num_classes) + " classes or more");
    } else if (loss_ == LossKind::Mse) {
        if (out.sizes() != y.sizes())
            throw InputError(file + gives + "; mse needs the targets' shape " + shapeText(y));
    }
    if (!out.is_floating_point())
        throw InputError(file + gives + " of " + std::string(c10::toString(out.scalar_type())) +
                         "; a loss needs floating-point outputs");
}

torch::Tensor Trainer::forwardLoss(const torch::Tensor& x, const torch::Tensor& y, LayerObserver* observer) {
    if (loss_ != LossKind::Model) return computeLoss(model_->forward(x, policy_, observer), y);
    // The model's own loss: "loss" in keep_fp32 cannot reach inside it; the pure-mode
    // rounding of the loss applies as to any loss.
    auto loss = model_->forwardLoss(x, y, policy_, observer);
    if (policy_.pureRounding != Rounding::None && !policy_.keeps("loss"))
        loss = roundWithGradient(loss, policy_.pureRounding, policy_.pureRounding);
    return loss;
}

torch::Tensor Trainer::computeLoss(const torch::Tensor& output, const torch::Tensor& targets) {
    const bool kept = policy_.keeps("loss");
    std::optional<AutocastScope> fp32Region;
    if (kept && policy_.realAutocast) fp32Region.emplace(device_.type(), policy_.lowDtype, false);
    const torch::Tensor out = kept ? output.to(torch::kFloat) : output;
    torch::Tensor loss;
    switch (loss_) {
        case LossKind::LogSum:
            loss = -torch::log(out.abs().sum());  // a log of a tiny sum: fp32 keeps it finite
            break;
        case LossKind::CrossEntropy:
            loss = torch::cross_entropy_loss(out, targets);
            break;
        case LossKind::Mse:
        case LossKind::Model:
            loss = torch::mse_loss(out, targets.to(out.scalar_type()));
            break;
    }
    if (policy_.pureRounding != Rounding::None && !kept)
        loss = roundWithGradient(loss, policy_.pureRounding, policy_.pureRounding);
    return loss;
}

torch::Tensor Trainer::gradNormOnDevice() const {
    // torch.nn.utils.clip_grad_norm_'s total norm: the norm of the per-gradient norms,
    // in float32. All-float32 gradients (every mode but the pure ones) take one
    // multi-tensor norm; others are widened first, so no fp16 norm overflows at 65504.
    std::vector<torch::Tensor> gradients;
    bool allFloat = true;
    for (const auto& p : parameters_) {
        if (!p.grad().defined()) continue;
        gradients.push_back(p.grad());
        allFloat = allFloat && p.grad().scalar_type() == torch::kFloat;
    }
    if (gradients.empty()) return torch::zeros({}, torch::TensorOptions().device(device_));
    std::vector<torch::Tensor> norms;
    if (allFloat) {
        norms = at::_foreach_norm(gradients);
    } else {
        for (const auto& g : gradients) norms.push_back(g.to(torch::kFloat).norm());
    }
    return torch::stack(norms).norm();
}

double Trainer::globalGradNorm() const { return gradNormOnDevice().item<double>(); }

void Trainer::clipTo(double maxNorm, double currentNorm) {
    // torch.nn.utils.clip_grad_norm_: coefficient max_norm / (total_norm + 1e-6),
    // applied only when below 1. A non-finite norm leaves the gradients alone.
    if (!std::isfinite(currentNorm)) return;
    const double coefficient = maxNorm / (currentNorm + 1e-6);
    if (coefficient >= 1.0) return;
    torch::NoGradGuard noGrad;
    for (auto& p : parameters_)
        if (p.grad().defined()) p.mutable_grad().mul_(coefficient);
}

std::string Trainer::firstNonFiniteLayer() const {
    // Gradients flow from the loss backwards: the non-finite gradient nearest
    // the loss is the first one that appeared.
    const auto& flags = scaler_->nonFiniteParameters();
    for (size_t k = flags.size(); k-- > 0;)
        if (flags[k]) return model_->layerName(parameterLayers_[k]);
    return "";
}

bool Trainer::stepOptimizer() {
    if (probe_) probe_->beforeOptimizerStep();
    const bool ran = scaler_->step([this] { optimizer_->step(); }, parameters_);
    if (ran && probe_) probe_->afterOptimizerUpdate();
    if (ran && policy_.pureEmulated) {
        // No fp32 master copy: the stored weight is the fp16 value, so an update
        // smaller than half an ulp rounds back to the old weight and is lost.
        torch::NoGradGuard noGrad;
        for (size_t k = 0; k < parameters_.size(); ++k)
            if (!policy_.keeps(model_->layerName(parameterLayers_[k])))
                parameters_[k].copy_(roundTo(parameters_[k], policy_.pureRounding));
    }
    if (probe_) probe_->afterOptimizerStep(ran);
    return ran;
}

std::optional<float> Trainer::lossScale() const {
    return scaler_->enabled() ? std::optional<float>(scaler_->scale()) : std::nullopt;
}

torch::Tensor Trainer::forwardBackward(torch::Tensor x, const torch::Tensor& y, double lossFactor,
                                       std::optional<float> lossScale) {
    if (probe_) probe_->beforeForward();
    if (policy_.pureWeights && x.is_floating_point()) x = x.to(policy_.lowDtype);
    torch::Tensor loss;
    {
        std::optional<AutocastScope> autocast;
        if (policy_.realAutocast) autocast.emplace(device_.type(), policy_.lowDtype, true);
        loss = forwardLoss(x, y, observer_);
    }
    if (lossFactor != 1.0) loss = loss * lossFactor;
    if (probe_) probe_->afterLoss(loss);
    (lossScale ? scaleLoss(loss, *lossScale) : loss).backward();
    if (probe_) probe_->afterBackward(lossScale.value_or(1.0f));
    return loss.detach().to(torch::kFloat);
}

StepMetrics Trainer::step(const torch::Tensor& inputs, const torch::Tensor& targets) {
    StepMetrics m;
    applyDeviceMathMode();
    model_->setTraining(true);
    for (auto& p : parameters_) p.mutable_grad().reset();

    lastInputs_ = toDevice(inputs);
    lastTargets_ = toDevice(targets);
    stepLossFactor_ = std::exchange(nextLossFactor_, 1.0);
    m.scale = scaler_->enabled() ? static_cast<double>(scaler_->scale()) : 1.0;
    const torch::Tensor loss = forwardBackward(lastInputs_, lastTargets_, stepLossFactor_, lossScale());

    const double clip = config_.optim.clip_norm;
    if (clip > 0.0 && scaler_->enabled() && !config_.optim.clip_after_unscale) {
        // The pitfall: without unscaling, the threshold is compared with the scaled norm.
        m.loss = loss.item<double>();
        const double scaledNorm = globalGradNorm();
        clipTo(clip, scaledNorm);
        m.gradNorm = scaledNorm / m.scale;
        m.gradNormClipped = std::min(scaledNorm, clip) / m.scale;
        scaler_->unscale(parameters_);
        gradientsUnscaled();
        reportStepChecked(m);
        m.stepSkipped = !stepOptimizer();
    } else {
        if (scaler_->enabled()) scaler_->unscaleWithoutReading(parameters_);
        gradientsUnscaled();
        readLossNormAndFoundInf(loss, m);
        m.gradNormClipped = m.gradNorm;
        if (clip > 0.0) {
            clipTo(clip, m.gradNorm);
            if (std::isfinite(m.gradNorm) && m.gradNorm > clip) m.gradNormClipped = clip;
        }
        reportStepChecked(m);
        m.stepSkipped = !stepOptimizer();
    }
    m.foundInf = scaler_->enabled() ? scaler_->foundInf() : !std::isfinite(m.gradNorm);
    if (scaler_->enabled() && scaler_->foundInf()) m.firstNonFiniteLayer = firstNonFiniteLayer();
    m.scaleChange = scaler_->update();
    m.growthTracker = scaler_->enabled() ? scaler_->growthTracker() : 0;
    m.scaleAfter = scaler_->enabled() ? static_cast<double>(scaler_->scale()) : 1.0;

    m.lr = config_.optim.lr;
    return m;
}

torch::Tensor Trainer::toDevice(const torch::Tensor& batch) const {
    if (!device_.is_cuda() || batch.device().is_cuda()) return batch.to(device_);
    // A copy from pageable memory first waits for the GPU to finish the previous step;
    // from pinned memory it is queued behind it, and the host goes on launching.
    return batch.pin_memory().to(torch::TensorOptions().device(device_), /*non_blocking=*/true);
}

void Trainer::readLossNormAndFoundInf(const torch::Tensor& loss, StepMetrics& m) {
    // One copy to the host per step for the three values a step must know: on a GPU
    // each separate read would wait for the device to drain.
    std::vector<torch::Tensor> values{loss.reshape({}), gradNormOnDevice()};
    if (scaler_->enabled()) values.push_back(scaler_->foundInfFlag().to(loss.device()));
    const auto host = torch::stack(values).to(torch::kCPU);
    const auto read = host.accessor<float, 1>();
    m.loss = read[0];
    m.gradNorm = read[1];
    if (scaler_->enabled()) scaler_->setFoundInfRead(read[2] != 0.0f);
}

void Trainer::reportStepChecked(const StepMetrics& m) {
    if (!probe_) return;
    // All read already: the loss, and the scaler's found-inf (a scaled step) or the
    // gradient norm (any non-finite gradient makes it non-finite).
    const bool gradientsFinite = scaler_->enabled() ? !scaler_->foundInf() : std::isfinite(m.gradNorm);
    probe_->stepChecked(!(std::isfinite(m.loss) && gradientsFinite));
}

void Trainer::replayForwardBackward() {
    applyDeviceMathMode();
    model_->setTraining(true);
    for (auto& p : parameters_) p.mutable_grad().reset();
    forwardBackward(lastInputs_, lastTargets_, stepLossFactor_, lossScale());
}

void Trainer::replayStepOf(const Trainer& source, std::optional<c10::ScalarType> dtype) {
    applyDeviceMathMode();
    model_->setTraining(true);
    for (auto& p : parameters_) p.mutable_grad().reset();
    auto x = source.lastInputs_;
    auto y = source.lastTargets_;
    if (dtype && x.is_floating_point()) x = x.to(*dtype);
    if (dtype && y.is_floating_point()) y = y.to(*dtype);
    forwardBackward(x, y, source.stepLossFactor_, source.lossScale());
}

void Trainer::gradientsUnscaled() {
    if (probe_) probe_->afterUnscale();
    if (!captureGradients_) return;
    capturedGradients_.clear();
    for (const auto& p : parameters_)
        capturedGradients_.push_back(p.grad().defined() ? p.grad().detach().clone() : torch::Tensor());
}

void Trainer::applyDeviceMathMode() const {
    // The TF32 switches are process-wide; with a shadow or lock-step model in
    // another mode, each trainer sets them for its own step.
    if (!device_.is_cuda()) return;
    at::globalContext().setAllowTF32CuBLAS(policy_.realTf32);
    at::globalContext().setAllowTF32CuDNN(policy_.realTf32);
}

double Trainer::computeGradients(const torch::Tensor& inputs, const torch::Tensor& targets) {
    applyDeviceMathMode();
    model_->setTraining(true);
    for (auto& p : parameters_) p.mutable_grad().reset();
    auto x = inputs.to(device_);
    if (policy_.pureWeights && x.is_floating_point()) x = x.to(policy_.lowDtype);
    torch::Tensor loss;
    {
        std::optional<AutocastScope> autocast;
        if (policy_.realAutocast) autocast.emplace(device_.type(), policy_.lowDtype, true);
        loss = forwardLoss(x, targets.to(device_), nullptr);
    }
    loss.backward();
    return loss.detach().to(torch::kFloat).item<double>();
}

void Trainer::copyStateFrom(const Trainer& other) {
    torch::NoGradGuard noGrad;
    const auto source = other.model_->parameters();
    auto target = model_->parameters();
    const auto sourceBuffers = other.model_->buffers();
    auto targetBuffers = model_->buffers();
    if (source.size() != target.size() || sourceBuffers.size() != targetBuffers.size())
        throw std::logic_error("Trainer::copyStateFrom: the models differ");
    for (size_t k = 0; k < target.size(); ++k) target[k].copy_(source[k].detach());
    for (size_t k = 0; k < targetBuffers.size(); ++k) targetBuffers[k].copy_(sourceBuffers[k]);
}

std::unique_ptr<Trainer> Trainer::twin(const RunConfig& config, const torch::Tensor& initialRng) const {
    const auto current = captureCpuRng();
    if (initialRng.defined()) restoreCpuRng(initialRng);
    std::unique_ptr<Trainer> other;
    try {
        other = std::make_unique<Trainer>(config, shape_, device_);
    } catch (...) {
        restoreCpuRng(current);
        throw;
    }
    restoreCpuRng(current);
    return other;
}

torch::Tensor captureCpuRng() {
    at::Generator generator = at::detail::getDefaultCPUGenerator();  // a handle on the global one
    std::lock_guard<std::mutex> lock(generator.mutex());
    return generator.get_state();
}

void restoreCpuRng(const torch::Tensor& state) {
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
}

Evaluation Trainer::evaluate(const TensorDataset& data, int64_t batchSize,
                             const std::function<bool()>& cancelled) {
    torch::NoGradGuard noGrad;
    applyDeviceMathMode();
    model_->setTraining(false);
    double lossSum = 0.0;
    int64_t correct = 0, count = 0;
    const int64_t n = data.size();
    for (int64_t start = 0; start < n; start += batchSize) {
        if (cancelled && cancelled()) {
            model_->setTraining(true);
            return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
        }
        const int64_t end = std::min(n, start + batchSize);
        auto x = data.inputs.slice(0, start, end).to(device_);
        auto y = data.targets.slice(0, start, end).to(device_);
        if (policy_.pureWeights && x.is_floating_point()) x = x.to(policy_.lowDtype);
        const auto batch = end - start;
        std::optional<AutocastScope> autocast;
        if (policy_.realAutocast) autocast.emplace(device_.type(), policy_.lowDtype, true);
        if (loss_ == LossKind::Model) {
            lossSum += model_->forwardLoss(x, y, policy_, nullptr).to(torch::kFloat).item<double>() * batch;
            count += batch;
            continue;
        }
        const auto output = model_->forward(x, policy_, nullptr).to(torch::kFloat);
        autocast.reset();
        if (loss_ == LossKind::LogSum) {
            lossSum += -torch::log(output.abs().sum()).item<double>() * batch;
        } else if (loss_ == LossKind::CrossEntropy) {
            lossSum += torch::cross_entropy_loss(output, y).item<double>() * batch;
            correct += output.argmax(1).eq(y).sum().item<int64_t>();
        } else {
            lossSum += torch::mse_loss(output, y.to(torch::kFloat)).item<double>() * batch;
        }
        count += batch;
    }
    model_->setTraining(true);
    Evaluation e;
    e.loss = count ? lossSum / static_cast<double>(count) : 0.0;
    e.accuracy = loss_ == LossKind::CrossEntropy && count ? static_cast<double>(correct) / static_cast<double>(count)
                                          : std::numeric_limits<double>::quiet_NaN();
    return e;
}

}  // namespace ampscope
