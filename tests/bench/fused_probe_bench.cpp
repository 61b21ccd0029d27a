// Probe cost both ways: the fused CUDA kernel (one read of the gradient for the
// histogram and the fp16 classes at scale/2, scale, 2*scale) against the LibTorch
// probes it replaces on the GPU (histogramSlotsWithTorchOps + fp16ClassSlotsWithTorchOps),
// on gradient-like tensors of several sizes. Times are medians of --repeats, each
// closed by a device synchronisation, so they include the launch costs a probe step pays.
//
//   fused_probe_bench [--repeats 50] [--smoke]
//
// Without a CUDA device or without the fused kernel in this build it times the CPU:
// the single-pass CPU probes against the torch-ops path (the fused column says why
// it is empty). --smoke: tiny sizes, 3 repeats: every row must print with its times
// (exit 1 otherwise).
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "BenchRows.h"
#include "probes/Fp16Classifier.h"
#include "probes/GradientProbe.h"
#include "probes/HistogramProbe.h"

using namespace ampscope;

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double medianMicroseconds(int repeats, bool cuda, F&& run) {
    std::vector<double> times;
    run();  // warm-up: allocator, kernel load
    if (cuda) torch::cuda::synchronize();
    for (int i = 0; i < repeats; ++i) {
        const auto start = Clock::now();
        run();
        if (cuda) torch::cuda::synchronize();
        times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = 50;
    bool smoke = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--smoke") == 0) smoke = true;
        else if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = std::stoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: fused_probe_bench [--repeats N] [--smoke]\n");
            return 2;
        }
    }
    if (smoke) repeats = 3;
    const bool cuda = torch::cuda::is_available();
    const bool fused = cuda && fusedProbeBuilt();
    const torch::Device device = cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    const std::vector<double> whatIf = {32768.0, 65536.0, 131072.0};
    const std::vector<int64_t> sizes =
        smoke ? std::vector<int64_t>{1000, 100000} : std::vector<int64_t>{10000, 100000, 1000000, 10000000, 100000000};

    std::printf("Probe cost on %s: histogram + fp16 classes at 3 multipliers, median of %d\n",
                cuda ? "CUDA device 0" : "the CPU", repeats);
    if (!fused)
        std::printf("fused kernel: %s\n", !cuda ? "no CUDA device (CPU rows: single-pass loop vs torch ops)"
                                                : "not in this build (LibTorch without CUDA or kernels off)");
    std::printf("\n| elements | dtype | LibTorch probes us | %s us | speedup |\n",
                fused ? "fused kernel" : (cuda ? "fused kernel" : "CPU single pass"));
    std::printf("|---|---|---|---|---|\n");
    torch::manual_seed(0);
    BenchRows rows("fused_probe_bench");
    for (const int64_t n : sizes) {
        for (const auto type : {torch::kFloat, torch::kHalf}) {
            // Gradient-like: log-normal magnitudes around 2^-12, both signs.
            const auto x = (torch::randn({n}) * 3.0 - 12.0).exp2() * (torch::rand({n}) - 0.5).sign();
            const auto grad = x.to(type).to(device);
            const double viaOps = medianMicroseconds(repeats, cuda, [&] {
                probe_detail::histogramSlotsWithTorchOps(grad);
                probe_detail::fp16ClassSlotsWithTorchOps(grad, whatIf);
            });
            double other = -1.0;
            if (fused) {
                other = medianMicroseconds(repeats, true, [&] { probe_detail::fusedProbeSlots({grad}, whatIf); });
            } else if (!cuda) {
                other = medianMicroseconds(repeats, false, [&] {
                    histogramSlots(grad);
                    fp16ClassSlots(grad, whatIf);
                });
            }
            const char* name = type == torch::kFloat ? "float32" : "float16";
            const std::string row = std::to_string(n) + " " + name;
            rows.measured(row + ", LibTorch probes", viaOps);
            if (fused || !cuda) rows.measured(row + ", the other path", other);
            if (other > 0)
                std::printf("| %lld | %s | %.1f | %.1f | %.2f |\n", static_cast<long long>(n), name, viaOps, other,
                            viaOps / other);
            else
                std::printf("| %lld | %s | %.1f | - | - |\n", static_cast<long long>(n), name, viaOps);
        }
    }
    return rows.exitCode(sizes.size() * 2 * (fused || !cuda ? 2 : 1));
}
