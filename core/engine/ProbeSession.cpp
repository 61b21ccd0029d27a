#include "engine/ProbeSession.h"

#include <ATen/record_function.h>

#include "probes/FirstNonFiniteOp.h"

#include <algorithm>
#include <array>
#include <utility>

#include "engine/DeviceMemory.h"
#include "engine/SystemInfo.h"
#include "precision/Autocast.h"
#include "precision/FormatQuantizer.h"
#include "precision/formats/FormatSweep.h"
#include "precision/formats/FormatTable.h"
#include "probes/Fp16Classifier.h"
#include "probes/GradientProbe.h"
#include "probes/HistogramProbe.h"

namespace ampscope {
namespace {

// The part of a quantizer's statistics that the number-format records carry.
FormatElementStats elementStatsOf(const QuantizationStats& stats) {
    return {stats.elements, stats.underflowed, stats.saturated,
            stats.nonFinite, stats.squaredError, stats.squaredSignal};
}

}  // namespace

// Adds the wall time of a probe's work to the step's probe time, and names the work
// as a span in a step trace (StepTrace), so a traced step shows what each probe costs.
// The work is no op of the model: a precision map's capture of the step leaves it out.
struct ProbeSession::Timer {
    Timer(double& sink, const char* part) : sink_(sink), span_(at::RecordScope::USER_SCOPE), start_(Clock::now()) {
        if (span_.isActive()) span_.before(part);
    }
    ~Timer() { sink_ += std::chrono::duration<double>(Clock::now() - start_).count(); }
    double& sink_;
    OutsideCapture probeWork_;
    at::RecordFunction span_;
    Clock::time_point start_;
};

ProbeSession::ProbeSession(Trainer& trainer, const ProbeConfig& config, LayerObserver* faults)
    : trainer_(trainer),
      config_(config),
      locator_(static_cast<size_t>(config.ring_steps)),
      updates_(trainer.model().layerNames(), trainer.parameterLayers()),
      replay_(trainer) {
    locateAlways_ = config_.locate_nonfinite == "always";
    locateByReplay_ = config_.locate_nonfinite == "replay";
    const auto& model = trainer.model();
    parametersOfLayer_.resize(model.layerCount());
    for (size_t k = 0; k < trainer.parameterLayers().size(); ++k)
        parametersOfLayer_[trainer.parameterLayers()[k]].push_back(k);
    for (size_t i = 0; i < model.layerCount(); ++i) layerIndex_[model.layerName(i)] = i;
    const auto& policy = trainer.policy();
    emulatedRounding_ = policy.emulation.resultBackward == Rounding::Half;
    realHalfGradients_ = policy.lowDtype == c10::ScalarType::Half && !emulatedRounding_;
    emulatedHalfValues_ = policy.emulation.resultForward == Rounding::Half || policy.pureRounding == Rounding::Half;
    formatRounding_ = policy.quantizesFormats();
    if (config_.shadow_every > 0) shadow_ = std::make_unique<ShadowRun>(trainer);
    auditBoundary_.audit = &audit_;
    faults_ = faults;
    chain_.add(&auditBoundary_);
    chain_.add(faults);
    if (locateAlways_ || locateByReplay_) chain_.add(&locator_);
    chain_.add(this);
    trainer_.setObserver(&chain_);
    trainer_.setStepProbe(this);
}

ProbeSession::~ProbeSession() {
    audit_.end();
    trainer_.policy().setRoundingObserver(nullptr);
    trainer_.setObserver(nullptr);
    trainer_.setStepProbe(nullptr);
}

std::vector<torch::Tensor> ProbeSession::layerGrads(size_t layer) const {
    std::vector<torch::Tensor> grads;
    for (size_t k : parametersOfLayer_[layer]) {
        const auto& g = trainer_.parameters()[k].grad();
        if (g.defined()) grads.push_back(g);
    }
    return grads;
}

void ProbeSession::beginStep(int64_t step) {
    step_ = step;
    probeStep_ = config_.every > 0 && (step == 1 || step % config_.every == 0);
    shadowStep_ = shadow_ && (step == 1 || step % config_.shadow_every == 0);
    const bool sweeps = probeStep_ && config_.format_sweep_every > 0;
    // The last probe step: the largest multiple of the cadence within the run, or step 1.
    const int64_t lastProbeStep =
        config_.every > 0 && totalSteps_ >= config_.every ? totalSteps_ - totalSteps_ % config_.every : 1;
    sweepStep_ = sweeps && (step % config_.format_sweep_every == 0 || (!swept_ && step == lastProbeStep && totalSteps_ > 0));
    swept_ = swept_ || sweepStep_;
    shadowResult_.reset();
    mapResult_.reset();
    const auto& mapSteps = config_.precision_map_steps;
    mapStep_ = std::exchange(mapRequested_, false) || std::find(mapSteps.begin(), mapSteps.end(), step) != mapSteps.end();
    newFirst_.reset();
    stepProbeSeconds_ = 0.0;
    Timer timer(stepProbeSeconds_, "probes: begin step");
    readout_.clear();
    slots_.assign(trainer_.model().layerCount(), LayerSlots{});
    updateResults_.assign(trainer_.model().layerCount(), std::nullopt);
    gradientSweep_.assign(sweepStep_ ? trainer_.model().layerCount() : 0, {});
    activationSweep_.assign(sweepStep_ ? trainer_.model().layerCount() : 0, {});
    // Checking every step gives frames of consecutive steps; by replay, the frames
    // are the probe steps' (and the event step's, from the replay).
    const bool searching = !locator_.firstEvent();
    locateThisStep_ = locateAlways_ || (locateByReplay_ && searching && (probeStep_ || replayMissedStep_ > 0));
    if (locateThisStep_) locator_.beginStep(step, true);
    if ((locateByReplay_ && searching && !locateThisStep_) || mapStep_) replay_.beginStep(mapStep_);
    if (mapStep_) {
        if (!map_) map_ = std::make_unique<PrecisionMapRun>(trainer_, config_.precision_map_reference);
        mapCapture_ = std::make_unique<OpCapture>(map_->rerunDtype(), false);
        mapFraming_.capture = mapCapture_.get();
    }
    if (listensAtRoundingPoints()) trainer_.policy().setRoundingObserver(this);
    formatPoints_.clear();
    formatPointIndex_.clear();
    if (probeStep_) {
        activationBytes_.clear();
        activationBytesReal_.clear();
        pendingHalfChecks_.clear();
        audit_.begin();
        if (trainer_.model().layerCount() > 0) {
            const auto compute = trainer_.policy().forLayer(trainer_.model().layerName(0));
            audit_.setEmulation(compute.operandForward.rounding, compute.resultForward.rounding);
        }
    }
}

std::optional<ShadowRecord> ProbeSession::takeShadow() {
    auto result = std::move(shadowResult_);
    shadowResult_.reset();
    return result;
}

std::optional<PrecisionMapRecord> ProbeSession::takePrecisionMap() {
    auto result = std::move(mapResult_);
    mapResult_.reset();
    return result;
}

void ProbeSession::beforeForward() {
    if (!replaying_) mapFraming_.beforeForward();
}

void ProbeSession::afterLoss(const torch::Tensor& loss) {
    if (replaying_) {
        locator_.checkLoss(loss);
        return;
    }
    mapFraming_.afterLoss();
    if (!probeStep_ && !locateThisStep_) return;
    Timer timer(stepProbeSeconds_, "probes: after loss");
    audit_.end();  // the forward and the loss are done: backward's ops are not audited
    if (locateThisStep_) locator_.checkLoss(loss);
}

void ProbeSession::afterBackward(double scale) {
    if (replaying_) return;
    mapFraming_.afterBackward();
    scale_ = scale;
    if (!probeStep_) return;
    Timer timer(stepProbeSeconds_, "probes: after backward");
    for (size_t i = 0; i < slots_.size(); ++i) {
        const auto grads = layerGrads(i);
        if (grads.empty()) continue;
        auto& s = slots_[i];
        s.hasParamGrads = true;
        // With fp32 gradients in hand, "what fp16 would do" to them is exact; under
        // emulation the rounding points count instead; real fp16 is estimated.
        const bool classes = !emulatedRounding_ && !realHalfGradients_;
        const auto probe = gradientProbeSlots(grads, classes ? std::vector<double>{1.0} : std::vector<double>{});
        s.paramGradScaled = readout_.add(probe.histogram);
        if (classes) {
            s.gradClasses = readout_.add(probe.classes);
            s.hasGradClasses = true;
        }
    }
}

void ProbeSession::afterUnscale() {
    if (!probeStep_ && !shadowStep_) return;
    Timer timer(stepProbeSeconds_, "probes: after unscale");
    if (shadowStep_) shadowResult_ = ShadowRecord{step_, shadow_->compare(trainer_)};
    if (!probeStep_) return;
    if (sweepStep_) {
        // The weight: the layer's first parameter that is a matrix or a kernel (a
        // matmul/conv operand); a layer with only vectors (a norm) has none.
        for (size_t i = 0; i < gradientSweep_.size(); ++i) {
            for (size_t k : parametersOfLayer_[i]) {
                const auto& p = trainer_.parameters()[k];
                if (p.dim() < 2) continue;
                // Blocked as the weight itself is in the modes: a kernel along C x k x k.
                const auto layout = p.dim() > 2 ? BlockLayout::FlattenTrailing : BlockLayout::LastDim;
                if (p.grad().defined())
                    gradientSweep_[i] = sweepRecords(i, format_sweep_tensor::kGradient, p.grad(), layout);
                break;
            }
        }
    }
    for (size_t i = 0; i < slots_.size(); ++i) {
        if (!slots_[i].hasParamGrads) continue;
        const auto grads = layerGrads(i);
        // One read of the gradient on a GPU (the fused kernel), two probes on the CPU.
        const auto probe = gradientProbeSlots(grads, {scale_ / 2, scale_, scale_ * 2});
        slots_[i].paramGrad = readout_.add(probe.histogram);
        slots_[i].whatIf = readout_.add(probe.classes);
    }
}

void ProbeSession::stepChecked(bool nonFinite) {
    if (nonFinite && locateByReplay_ && !locateThisStep_ && !locator_.firstEvent()) locateByReplay();
    if (mapStep_) runPrecisionMap();
}

void ProbeSession::locateByReplay() {
    Timer timer(stepProbeSeconds_, "probes: replay of a non-finite step");
    // On a probe step the rounding counts must not see the replay's values.
    trainer_.policy().setRoundingObserver(nullptr);
    locator_.beginStep(step_, true);
    replaying_ = true;
    struct EndReplay {
        ProbeSession& session;
        ~EndReplay() {
            session.replaying_ = false;
            if (session.listensAtRoundingPoints()) session.trainer_.policy().setRoundingObserver(&session);
        }
    } endReplay{*this};
    FirstNonFiniteOp watch;  // the replay alone pays for checking every op
    replay_.run();
    const auto hit = locator_.endStep();
    if (hit) {
        takeFirstEvent(hit, nonfinite_located_by::kReplay);
        const auto firstOp = newFirst_ ? watch.explaining(*newFirst_) : std::nullopt;
        if (firstOp) {
            newFirst_->op = firstOp->op;
            newFirst_->opPhase = firstOp->phase;
            newFirst_->opModule = firstOp->module;
            newFirst_->opNode = firstOp->node;
        }
    } else if (!replayMissedStep_) {
        // Not reproduced: a kernel that does not give the same result twice (some GPU
        // reductions). The checks run on every step from the next one until one hits.
        replayMissedStep_ = step_;
    }
}

void ProbeSession::runPrecisionMap() {
    // Not a Timer: the reference's capture must see the reference's ops.
    const auto start = Clock::now();
    std::vector<CapturedOp> runOps = mapCapture_->takeOps();
    mapFraming_.capture = nullptr;
    mapCapture_.reset();
    mapResult_ = map_->map(trainer_, replay_, step_, std::move(runOps));
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    stepProbeSeconds_ += seconds;
}

void ProbeSession::takeFirstEvent(const std::optional<NonFiniteEvent>& hit, std::string_view locatedBy) {
    if (!hit || !locator_.firstEvent() || !(*locator_.firstEvent() == *hit)) return;
    newFirst_ = hit;
    newFirst_->locatedBy = std::string(locatedBy);
    newFirst_->replayMissedStep = replayMissedStep_;
}

void ProbeSession::beforeOptimizerStep() {
    if (!probeStep_) return;
    Timer timer(stepProbeSeconds_, "probes: before optimizer");
    updates_.captureBefore(trainer_.parameters());
}

void ProbeSession::afterOptimizerUpdate() {
    if (!probeStep_ || !trainer_.policy().pureEmulated) return;
    Timer timer(stepProbeSeconds_, "probes: pure-mode update loss");
    updates_.captureIntended(trainer_.parameters());
}

void ProbeSession::afterOptimizerStep(bool stepRan) {
    if (!probeStep_ || !updates_.captured()) return;
    Timer timer(stepProbeSeconds_, "probes: update ratios");
    if (!stepRan) {
        updates_.discard();
        return;
    }
    for (auto& ratio : updates_.measure(trainer_.parameters()))
        if (ratio.layerIndex >= 0 && static_cast<size_t>(ratio.layerIndex) < updateResults_.size())
            updateResults_[static_cast<size_t>(ratio.layerIndex)] = ratio;
}

void ProbeSession::beforeRounding(const RoundingTag& tag, bool backward, const torch::Tensor& values,
                                  Rounding rounding) {
    if (rounding != Rounding::Half || replaying_) return;
    auto it = layerIndex_.find(tag.layer);
    if (it == layerIndex_.end()) return;
    Timer timer(stepProbeSeconds_, "probes: fp16 rounding counts");
    audit_.pause();  // the counting below is not the layer's work
    struct Resume {
        OpDtypeAudit& audit;
        ~Resume() { audit.resume(); }
    } resume{audit_};
    auto& s = slots_[it->second];
    torch::Tensor* target = nullptr;
    if (tag.operand == RoundingOperand::Weight && backward) target = &s.weightGradClasses;
    if (tag.operand == RoundingOperand::Output) target = backward ? &s.activationGradClasses : &s.activationClasses;
    if (!target) return;
    auto slots = fp16ClassSlots(values, {1.0});
    *target = target->defined() ? *target + slots : slots;
}

void ProbeSession::afterQuantizing(const RoundingTag& tag, bool backward, const FormatQuantizer& quantizer,
                                   const QuantizationStats& stats) {
    if (replaying_) return;
    static constexpr const char* kOperands[] = {"input", "weight", "output"};
    const auto key = std::make_tuple(tag.layer, static_cast<int>(tag.operand), backward);
    auto [it, created] = formatPointIndex_.try_emplace(key, formatPoints_.size());
    if (created) {
        FormatQuantMeasurement point;
        point.layer = tag.layer;
        point.operand = kOperands[static_cast<int>(tag.operand)];
        point.direction = backward ? "backward" : "forward";
        point.format = describe(quantizer.element).name;
        point.recipe = formatRecipeName(quantizer.recipe);
        formatPoints_.push_back(std::move(point));
    }
    auto& point = formatPoints_[it->second];
    point.tensors += 1;
    static_cast<FormatElementStats&>(point) += elementStatsOf(stats);
    point.magnitudeError += stats.magnitudeError;
    point.absoluteSignal += stats.absoluteSignal;
    point.amax = std::max(point.amax, stats.amax);
    point.scale = stats.scale;
    point.scaleAmax = stats.scaleAmax;
    point.blocks += stats.blocks;
    point.zeroScaleBlocks += stats.zeroScaleBlocks;
    point.crushedByOutlier += stats.crushedByOutlier;
    for (const auto& [exponent, blocks] : stats.blockScaleExponents) point.blockScaleExponents[exponent] += blocks;
}

std::vector<FormatSweepRecord> ProbeSession::sweepRecords(size_t layer, std::string_view tensor,
                                                         const torch::Tensor& values, BlockLayout layout) const {
    std::vector<FormatSweepRecord> records;
    for (const auto& row : sweepFormats(values, layout)) {
        records.push_back(FormatSweepRecord{elementStatsOf(row.stats), step_, trainer_.model().layerName(layer),
                                            std::string(tensor), row.format});
    }
    return records;
}

void ProbeSession::matmulInput(const RoundingTag& tag, const torch::Tensor& values, BlockLayout layout) {
    if (!sweepStep_ || replaying_ || !values.is_floating_point()) return;
    auto it = layerIndex_.find(tag.layer);
    if (it == layerIndex_.end()) return;
    auto& records = activationSweep_[it->second];
    // The layer's first matmul/conv input of the step: for an attention layer the
    // input of its projection, for a layer run twice its first call.
    if (!records.empty()) return;
    Timer timer(stepProbeSeconds_, "probes: format sweep (activation)");
    audit_.pause();  // the sweep is not the layer's work
    struct Resume {
        OpDtypeAudit& audit;
        ~Resume() { audit.resume(); }
    } resume{audit_};
    // Measured now rather than kept for later: no activation outlives its forward.
    // The sweep's ops run outside autocast, on the values as they are.
    AutocastScope noAutocast(values.device().type(), values.scalar_type(), false);
    records = sweepRecords(it->second, format_sweep_tensor::kActivation, values, layout);
}

void ProbeSession::countActivationBytes(size_t index, const torch::Tensor& output) {
    const int64_t bytes = output.numel() * static_cast<int64_t>(output.element_size());
    const std::string stored = dtypeName(output.scalar_type());
    activationBytes_[stored] += bytes;
    if (!emulatedHalfValues_ || output.scalar_type() != torch::kFloat ||
        trainer_.policy().keeps(trainer_.model().layerName(index))) {
        activationBytesReal_[stored] += bytes;
        return;
    }
    // Under fp16 emulation an fp32 output whose every value is an fp16 value is
    // one real fp16 hardware would hold in 2 bytes (a rounded matmul result, or
    // a ReLU of one); anything else it would hold in fp32 (norms, softmax).
    // The test stays on the device and is read with the step's other probe results
    // (a read here would synchronise once per layer on a GPU).
    torch::NoGradGuard noGrad;
    const auto detached = output.detach();
    pendingHalfChecks_.push_back(
        {readout_.add(detached.eq(roundToHalf(detached)).all()), stored, bytes, output.numel()});
}

void ProbeSession::resolveHalfChecks() {
    for (const auto& check : pendingHalfChecks_) {
        if (readout_.data(check.allHalf)[0] != 0.0)
            activationBytesReal_["float16"] += check.elements * 2;
        else
            activationBytesReal_[check.stored] += check.bytes;
    }
    pendingHalfChecks_.clear();
}

void ProbeSession::afterLayer(size_t index, const std::string& name, torch::Tensor& output) {
    if (!probeStep_ || replaying_) return;
    {
        Timer timer(stepProbeSeconds_, "probes: layer output");
        if (audit_.active()) audit_.resume();  // paused by auditBoundary_, first in the chain
        if (index + 1 < trainer_.model().layerCount()) {
            const auto compute = trainer_.policy().forLayer(trainer_.model().layerName(index + 1));
            audit_.setEmulation(compute.operandForward.rounding, compute.resultForward.rounding);
        } else {
            audit_.setEmulation(Rounding::None, Rounding::None);
        }
        audit_.pause();
        countActivationBytes(index, output);
        audit_.resume();
    }
    if (!output.requires_grad()) return;
    // The hook runs during backward, inside this step, before endStep() reads.
    output.register_hook([this, index](torch::Tensor grad) {
        Timer timer(stepProbeSeconds_, "probes: activation-gradient histogram");
        auto& s = slots_[index];
        // The fused kernel on a GPU (one pass), the histogram probe elsewhere.
        s.activationGrad = readout_.add(gradientProbeSlots({grad}, {}).histogram);
        s.hasActivationGrad = true;
        return torch::Tensor();
    });
}

std::shared_ptr<ProbeSnapshot> ProbeSession::endStep() {
    std::shared_ptr<ProbeSnapshot> snapshot;
    {
    Timer timer(stepProbeSeconds_, "probes: end step (readout)");
    trainer_.policy().setRoundingObserver(nullptr);
    mapFraming_.capture = nullptr;
    mapCapture_.reset();  // a step that threw before it was checked
    if (locateThisStep_) takeFirstEvent(locator_.endStep(), nonfinite_located_by::kCheck);
    audit_.end();  // a step that threw before its loss
    if (probeStep_) snapshot = buildSnapshot();
    }
    totalSeconds_ += stepProbeSeconds_;
    if (snapshot) snapshot->probeSeconds = stepProbeSeconds_;
    return snapshot;
}

std::shared_ptr<ProbeSnapshot> ProbeSession::buildSnapshot() {
    std::shared_ptr<ProbeSnapshot> snapshot;
    {
        std::vector<std::array<ProbeReadout::Handle, 3>> emulation(slots_.size());
        for (size_t i = 0; i < slots_.size(); ++i) {
            auto& s = slots_[i];
            if (s.weightGradClasses.defined()) emulation[i][0] = readout_.add(s.weightGradClasses);
            if (s.activationClasses.defined()) emulation[i][1] = readout_.add(s.activationClasses);
            if (s.activationGradClasses.defined()) emulation[i][2] = readout_.add(s.activationGradClasses);
        }
        readout_.read();
        resolveHalfChecks();
        snapshot = std::make_shared<ProbeSnapshot>();
        snapshot->step = step_;
        snapshot->scale = scale_;
        snapshot->opDtypes = audit_.layers();
        snapshot->formatPoints = formatPoints_;
        for (size_t i = 0; i < gradientSweep_.size(); ++i) {
            for (const auto* rows : {&gradientSweep_[i], &activationSweep_[i]})
                snapshot->formatSweep.insert(snapshot->formatSweep.end(), rows->begin(), rows->end());
        }
        const ProcessMemory process = readProcessMemory();
        snapshot->memory.rssBytes = process.residentBytes;
        snapshot->memory.peakRssBytes = process.peakResidentBytes;
        snapshot->memory.cudaPeakAllocatedBytes = cudaPeakAllocatedBytes(trainer_.device());
        snapshot->memory.activationBytes = activationBytes_;
        snapshot->memory.activationBytesReal = activationBytesReal_;
        const auto& model = trainer_.model();
        for (size_t i = 0; i < slots_.size(); ++i) {
            const auto& s = slots_[i];
            LayerProbe layer;
            layer.layer = model.layerName(i);
            layer.hasParameters = s.hasParamGrads;
            if (s.hasParamGrads) {
                layer.paramGradScaled = histogramFromSlots(readout_.data(s.paramGradScaled));
                layer.paramGrad = histogramFromSlots(readout_.data(s.paramGrad));
                layer.whatIfMultipliers = {scale_ / 2, scale_, scale_ * 2};
                for (int k = 0; k < 3; ++k)
                    layer.whatIf.push_back(fp16ClassesFromSlots(readout_.data(s.whatIf) + k * fp16_class_slot::kCount));
                if (s.weightGradClasses.defined()) {
                    layer.gradClasses = fp16ClassesFromSlots(readout_.data(emulation[i][0]));
                } else if (s.hasGradClasses) {
                    layer.gradClasses = fp16ClassesFromSlots(readout_.data(s.gradClasses));
                } else {
                    layer.gradClasses = estimateFromHistogram(layer.paramGradScaled);
                }
            }
            if (s.hasActivationGrad) layer.activationGrad = histogramFromSlots(readout_.data(s.activationGrad));
            if (s.activationClasses.defined())
                layer.activationClasses = fp16ClassesFromSlots(readout_.data(emulation[i][1]));
            if (s.activationGradClasses.defined())
                layer.activationGradClasses = fp16ClassesFromSlots(readout_.data(emulation[i][2]));
            layer.update = updateResults_[i];
            snapshot->layers.push_back(std::move(layer));
        }
    }
    return snapshot;
}

}  // namespace ampscope
