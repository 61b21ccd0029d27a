#include "engine/StepReplay.h"

#include <mutex>

#include <ATen/Context.h>

#include "engine/Trainer.h"

namespace ampscope {
namespace {

// The generators a step can draw from: the CPU's, and the device's when it has its own.
std::vector<at::Generator> generatorsOf(const c10::Device& device) {
    std::vector<at::Generator> generators = {at::globalContext().defaultGenerator(c10::Device(c10::kCPU))};
    if (!device.is_cpu()) generators.push_back(at::globalContext().defaultGenerator(device));
    return generators;
}

}  // namespace

StepReplay::StepReplay(Trainer& trainer) : trainer_(trainer) {}

std::vector<torch::Tensor> StepReplay::randomStates() const {
    std::vector<torch::Tensor> states;
    for (auto generator : generatorsOf(trainer_.device())) {
        std::lock_guard<std::mutex> lock(generator.mutex());
        states.push_back(generator.get_state());
    }
    return states;
}

void StepReplay::restoreRandomStates(const std::vector<torch::Tensor>& states) const {
    auto generators = generatorsOf(trainer_.device());
    for (size_t k = 0; k < generators.size() && k < states.size(); ++k) {
        std::lock_guard<std::mutex> lock(generators[k].mutex());
        generators[k].set_state(states[k]);
    }
}

void StepReplay::beginStep(bool buffers) {
    stepStartRandomStates_ = randomStates();
    stepStartBuffers_.clear();
    if (buffers)
        for (const auto& b : trainer_.model().buffers()) stepStartBuffers_.push_back(b.detach().clone());
    if (trainer_.policy().quantizesFormats()) stepStartFormatState_ = trainer_.policy().saveFormatState();
}

void StepReplay::run() {
    // The step's own gradients are moved aside (the replay makes new tensors) and
    // moved back; nothing is copied but the small BatchNorm buffers.
    std::vector<torch::Tensor> gradients;
    for (const auto& p : trainer_.parameters()) gradients.push_back(p.grad());
    std::vector<torch::Tensor> buffers;
    for (const auto& b : trainer_.model().buffers()) buffers.push_back(b.detach().clone());
    const auto stepEndRandomStates = randomStates();

    const bool formats = trainer_.policy().quantizesFormats();
    const auto stepEndFormatState = formats ? trainer_.policy().saveFormatState() : ComputePolicy::FormatState{};

    restoreRandomStates(stepStartRandomStates_);
    if (formats) trainer_.policy().restoreFormatState(stepStartFormatState_);
    struct PutBack {
        StepReplay& replay;
        std::vector<torch::Tensor>& gradients;
        std::vector<torch::Tensor>& buffers;
        const std::vector<torch::Tensor>& randomStates;
        const ComputePolicy::FormatState* formatState;
        ~PutBack() {
            torch::NoGradGuard noGrad;
            auto parameters = replay.trainer_.parameters();
            for (size_t k = 0; k < parameters.size(); ++k) parameters[k].mutable_grad() = gradients[k];
            auto current = replay.trainer_.model().buffers();
            for (size_t k = 0; k < current.size() && k < buffers.size(); ++k) current[k].copy_(buffers[k]);
            replay.restoreRandomStates(randomStates);
            if (formatState) replay.trainer_.policy().restoreFormatState(*formatState);
        }
    } putBack{*this, gradients, buffers, stepEndRandomStates, formats ? &stepEndFormatState : nullptr};
    trainer_.replayForwardBackward();
}

}  // namespace ampscope

namespace ampscope {

void StepReplay::runFromStepStart(const std::function<void()>& work) {
    const auto stepEndRandomStates = randomStates();
    restoreRandomStates(stepStartRandomStates_);
    struct PutBack {
        const StepReplay& replay;
        const std::vector<torch::Tensor>& states;
        ~PutBack() { replay.restoreRandomStates(states); }
    } putBack{*this, stepEndRandomStates};
    work();
}

}  // namespace ampscope
