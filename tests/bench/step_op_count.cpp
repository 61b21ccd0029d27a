// Operator calls per training step, by phase, as the dispatcher sees them: what a GPU
// turns into kernel launches, counted on any machine. A model with dozens of
// parameter tensors at a small batch waits on launches on a GPU, so the count of the
// phases around forward and backward (unscale, gradient norm, reads, optimizer) is what
// separates a step from a plain PyTorch loop's there.
//
//   step_op_count [--model deep_cnn] [--mode fp32] [--batch 32] [--steps 3] [--smoke]
//
// Counts top-level operator calls (RecordFunction, function scope, not nested in
// another operator; a multi-tensor _foreach_ call counts once, as it launches once per
// group of tensors on a GPU). Prints the engine's phases, then torch::optim's
// per-parameter Adam and SGD on the same parameters for comparison; exits 1 when a phase
// the trainer always reports, or a count that cannot be 0, is missing.
#include <torch/torch.h>

#include <ATen/record_function.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "BenchRows.h"
#include "engine/Trainer.h"

using namespace ampscope;

namespace {

thread_local int64_t topLevelCalls = 0;
thread_local int depth = 0;

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
    if (fn.scope() == at::RecordScope::FUNCTION) {
        if (depth == 0) ++topLevelCalls;
        ++depth;
    }
    return nullptr;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext*) {
    if (fn.scope() == at::RecordScope::FUNCTION) --depth;
}

// The counter's value at each point of a step the trainer reports.
class PhaseMarks : public StepProbe {
public:
    std::vector<std::pair<std::string, int64_t>> marks;
    void afterLoss(const torch::Tensor&) override { mark("forward + loss"); }
    void afterBackward(double) override { mark("backward"); }
    void afterUnscale() override { mark("unscale"); }
    void stepChecked(bool) override { mark("gradient norm + one read"); }
    void afterOptimizerStep(bool) override { mark("optimizer"); }

private:
    void mark(const char* name) { marks.emplace_back(name, topLevelCalls); }
};

DataBundle randomImages(int64_t samples) {
    torch::manual_seed(0);
    DataBundle data;
    data.train.inputs = torch::randn({samples, 1, 28, 28});
    data.train.targets = torch::randint(0, 10, {samples}, torch::kLong);
    data.val = data.train;
    data.task = "classification";
    data.num_classes = 10;
    data.input_shape = {1, 28, 28};
    data.description = "random images";
    return data;
}

int64_t countCalls(const std::function<void()>& run) {
    const int64_t before = topLevelCalls;
    run();
    return topLevelCalls - before;
}

}  // namespace

int main(int argc, char** argv) {
    std::string model = "deep_cnn", mode = "fp32";
    int64_t batch = 32, steps = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "step_op_count: %s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--model") model = value();
        else if (arg == "--mode") mode = value();
        else if (arg == "--batch") batch = std::stoll(value());
        else if (arg == "--steps") steps = std::stoll(value());
        else if (arg == "--smoke") { model = "simple_cnn"; batch = 4; steps = 1; }
        else {
            std::fprintf(stderr, "step_op_count: unknown argument %s\n", arg.c_str());
            return 2;
        }
    }
    at::set_num_threads(1);
    RunConfig config;
    config.model.name = model;
    config.precision.mode = mode;
    config.probes.every = 0;
    const DataBundle data = randomImages(batch);
    Trainer trainer(config, data, c10::Device(c10::kCPU));
    PhaseMarks marks;
    trainer.setStepProbe(&marks);
    auto handle = at::addThreadLocalCallback(at::RecordFunctionCallback(&onStart, &onEnd));
    trainer.step(data.train.inputs, data.train.targets);  // first step: optimizer state is created
    std::vector<int64_t> totals;
    std::vector<std::string> names;
    for (int64_t s = 0; s < steps; ++s) {
        marks.marks.clear();
        const int64_t start = topLevelCalls;
        trainer.step(data.train.inputs, data.train.targets);
        int64_t previous = start;
        for (size_t k = 0; k < marks.marks.size(); ++k) {
            if (s == 0) {
                names.push_back(marks.marks[k].first);
                totals.push_back(0);
            }
            totals[k] += marks.marks[k].second - previous;
            previous = marks.marks[k].second;
        }
    }
    std::printf("%s, %s, batch %lld, %zu parameter tensors; operator calls per step (mean of %lld)\n\n",
                model.c_str(), mode.c_str(), static_cast<long long>(batch), trainer.parameters().size(),
                static_cast<long long>(steps));
    std::printf("| phase | calls |\n|---|---|\n");
    // Every step runs forward and loss, backward and the optimizer, each calling operators;
    // the other phases (unscale, the norm and read) may call none in some modes.
    BenchRows rows("step_op_count");
    int64_t sum = 0;
    for (const char* phase : {"forward + loss", "backward", "optimizer"}) {
        const auto it = std::find(names.begin(), names.end(), phase);
        rows.measured(std::string("engine: ") + phase,
                      it == names.end() ? 0.0 : static_cast<double>(totals[static_cast<size_t>(it - names.begin())]));
    }
    for (size_t k = 0; k < names.size(); ++k) {
        std::printf("| engine: %s | %lld |\n", names[k].c_str(), static_cast<long long>(totals[k] / steps));
        sum += totals[k];
    }
    std::printf("| engine: whole step | %lld |\n", static_cast<long long>(sum / steps));
    rows.measured("engine: whole step", static_cast<double>(sum));

    // The same parameters and gradients through LibTorch's per-parameter optimizers.
    std::vector<torch::Tensor> copies;
    for (const auto& p : trainer.parameters()) {
        auto c = p.detach().clone().requires_grad_(true);
        c.mutable_grad() = p.grad().defined() ? p.grad().clone() : torch::zeros_like(p);
        copies.push_back(c);
    }
    torch::optim::Adam adam(copies, torch::optim::AdamOptions(1e-3));
    adam.step();  // state created
    const int64_t adamCalls = countCalls([&] { adam.step(); });
    std::printf("| torch::optim::Adam step (one parameter at a time) | %lld |\n", static_cast<long long>(adamCalls));
    rows.measured("torch::optim::Adam step", static_cast<double>(adamCalls));
    torch::optim::SGD sgd(copies, torch::optim::SGDOptions(1e-3).momentum(0.9));
    sgd.step();
    const int64_t sgdCalls = countCalls([&] { sgd.step(); });
    std::printf("| torch::optim::SGD step, momentum | %lld |\n", static_cast<long long>(sgdCalls));
    rows.measured("torch::optim::SGD step", static_cast<double>(sgdCalls));
    at::removeCallback(handle);
    return rows.exitCode(6);
}
