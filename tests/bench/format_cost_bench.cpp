// Cost of the format emulation per element against a plain fp32 copy (x.clone()),
// on gradient-like tensors [rows, 1024] on the CPU: each quantizer without and with
// its statistics, and the whole format sweep; and the sweep of what one sweep step of
// simple_cnn (batch 128) measures, in seconds. Times are medians of --repeats.
//
//   format_cost_bench [--repeats 20] [--threads N] [--cpu-time] [--smoke]
//
// Tensors are allocated from the engine's CPU block cache, as in a training run.
//
// --smoke: a small tensor and 3 repeats: every row must print with its time (exit 1
// otherwise).
#include <torch/torch.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "BenchRows.h"
#include "engine/CpuBlockCache.h"
#include "precision/BlockLayout.h"
#include "precision/formats/FormatSweep.h"
#include "precision/formats/TensorQuantizers.h"

using namespace ampscope;

namespace {

using Clock = std::chrono::steady_clock;

// Wall time, or with --cpu-time the process's CPU time (on a machine others share, a
// long measurement is preempted more often than a short one; CPU time is not).
bool cpuTime = false;

double now() {
    if (!cpuTime) return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double medianSeconds(int repeats, const std::function<void()>& run) {
    std::vector<double> times;
    run();  // warm-up: allocator
    for (int i = 0; i < repeats; ++i) {
        const double start = now();
        run();
        times.push_back(now() - start);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = 20;
    int threads = 1;
    bool smoke = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--smoke")) smoke = true;
        else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--cpu-time")) cpuTime = true;
        else {
            std::fprintf(stderr, "usage: format_cost_bench [--repeats N] [--threads N] [--cpu-time] [--smoke]\n");
            return 2;
        }
    }
    if (smoke) repeats = 3;
    torch::set_num_threads(threads);
    // Large blocks reused as in a training run (the engine installs the cache): without
    // it every fresh output tensor pays its page faults, which a run does not.
    cpu_block_cache::install();
    torch::manual_seed(0);
    const int64_t rows = smoke ? 16 : 1024;
    const auto x = torch::randn({rows, 1024}) * 1e-3f;
    const double n = static_cast<double>(x.numel());

    QuantizeOptions fast;
    fast.collectStats = false;
    QuantizeOptions measured;
    QuantizeOptions stochastic;
    stochastic.collectStats = false;
    stochastic.generator = at::detail::createCPUGenerator(1);
    DelayedScaling delayed(NumberFormat::E4M3);

    struct Row { const char* name; std::function<void()> run; };
    const std::vector<Row> rowsToTime = {
        {"fp32 copy", [&] { (void)x.clone(); }},
        {"fp16 cast", [&] { (void)quantizeUnscaled(x, NumberFormat::Fp16, fast); }},
        {"e4m3 current", [&] { (void)quantizeCurrentScaling(x, NumberFormat::E4M3, 0, fast); }},
        {"e4m3 delayed", [&] { (void)quantizeDelayedScaling(x, delayed, NumberFormat::E4M3, fast); }},
        {"e5m2 current", [&] { (void)quantizeCurrentScaling(x, NumberFormat::E5M2, 0, fast); }},
        {"mxfp8 floor", [&] { (void)quantizeMx(x, NumberFormat::E4M3, MxScaleRule::Floor, fast); }},
        {"mxfp4 floor", [&] { (void)quantizeMx(x, NumberFormat::E2M1, MxScaleRule::Floor, fast); }},
        {"nvfp4", [&] { (void)quantizeNvfp4(x, fast); }},
        {"nvfp4 stochastic", [&] { (void)quantizeNvfp4(x, stochastic); }},
        {"e4m3 current + stats", [&] { (void)quantizeCurrentScaling(x, NumberFormat::E4M3, 0, measured); }},
        {"mxfp4 floor + stats", [&] { (void)quantizeMx(x, NumberFormat::E2M1, MxScaleRule::Floor, measured); }},
        {"nvfp4 + stats", [&] { (void)quantizeNvfp4(x, measured); }},
        {"format sweep (7 formats)", [&] { (void)sweepFormats(x); }},
    };
    std::printf("| bench | elements | quantizer | ns/element | x fp32 copy |\n|---|---|---|---|---|\n");
    // The sweep of one sweep step of simple_cnn at batch 128 on FashionMNIST: the three
    // matmul/conv inputs and the three weight gradients, blocked as the engine blocks
    // them (a conv input along its channels, a kernel along C x k x k, a linear operand
    // along its last dimension), what the engine sweeps per sweep step
    // (probes.format_sweep_every).
    const int64_t batch = smoke ? 4 : 128;
    const std::vector<std::pair<torch::Tensor, BlockLayout>> simpleCnn = {
        {torch::randn({batch, 1, 28, 28}), BlockLayout::Channels},
        {torch::randn({batch, 64, 14, 14}).relu_(), BlockLayout::Channels},
        {torch::randn({batch, 128 * 7 * 7}).relu_(), BlockLayout::LastDim},
        {torch::randn({64, 1, 3, 3}) * 1e-3f, BlockLayout::FlattenTrailing},
        {torch::randn({128, 64, 3, 3}) * 1e-4f, BlockLayout::FlattenTrailing},
        {torch::randn({10, 128 * 7 * 7}) * 1e-4f, BlockLayout::LastDim}};
    BenchRows printed("format_cost_bench");
    int64_t simpleCnnElements = 0;
    for (const auto& [t, layout] : simpleCnn) simpleCnnElements += t.numel();
    {
        const double seconds = medianSeconds(std::max(1, repeats / 5), [&] {
            for (const auto& [t, layout] : simpleCnn) (void)sweepFormats(t, layout);
        });
        std::printf("| format cost | %lld | format sweep of a simple_cnn sweep step (batch %lld): %.3f s | %.2f | |\n",
                    static_cast<long long>(simpleCnnElements), static_cast<long long>(batch), seconds,
                    seconds / static_cast<double>(simpleCnnElements) * 1e9);
        printed.measured("format sweep of a simple_cnn sweep step", seconds);
    }
    double copy = 0;
    for (const Row& row : rowsToTime) {
        const double seconds = medianSeconds(repeats, row.run);
        if (copy == 0) copy = seconds;
        std::printf("| format cost | %lld | %s | %.2f | %.1f |\n", static_cast<long long>(x.numel()), row.name,
                    seconds / n * 1e9, seconds / copy);
        printed.measured(row.name, seconds);
    }
    return printed.exitCode(1 + rowsToTime.size());
}
