// Where a format-mode training step's time goes, in one process: a trainer per
// variant (fp32 and the format modes) on FashionMNIST-shaped random images, their
// steps taken in turn (fp32, fp8, mxfp8, ..., fp32, fp8, ...), so that a busy machine
// slows every variant alike; per variant the median step time (wall and process CPU)
// and its ratio to fp32's. With --parts, each step's time is split by operator (a
// RecordFunction observer on the top-level operators and the lab's quantizer spans).
//
//   format_step_bench [--model simple_cnn] [--batch 128] [--steps 40] [--threads 2]
//                     [--variants fp32,fp8,mxfp8,mxfp4,nvfp4,nvfp4-sr] [--parts] [--memory] [--smoke]
//
// --memory: instead of times, each variant's tensor memory (the CPU block cache's
// large blocks) at its peak in a training step and in an evaluation pass (batch 1000),
// one variant after another with the cache emptied between them: in use (what the
// tensors need) and held (in use + idle blocks kept for reuse).
//
// The table in docs/guide/performance.md comes from tests/bench/emulation_cost.py
// (ampscope-cli runs, as a user's are); this one is for finding what to make faster.
#include <torch/torch.h>

#include <ATen/record_function.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "BenchRows.h"
#include "engine/CpuBlockCache.h"
#include "engine/Trainer.h"

using namespace ampscope;

namespace {

using Clock = std::chrono::steady_clock;

double processCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

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

RunConfig configFor(const std::string& variant, const std::string& model) {
    RunConfig config;
    config.model.name = model;
    config.probes.every = 0;
    std::string mode = variant;
    if (variant == "nvfp4-sr") {
        mode = "nvfp4";
        config.precision.nvfp4.stochastic_gradients = true;
    }
    if (variant == "fp8-current") {
        mode = "fp8";
        config.precision.fp8.recipe = "current";
    }
    config.precision.mode = mode;
    return config;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// Top-level operator time of the current step, by name (the quantizers' spans and
// the autograd nodes included).
struct Parts {
    std::map<std::string, double> seconds;
    thread_local static int depth;
    thread_local static Clock::time_point start;
};
thread_local int Parts::depth = 0;
thread_local Clock::time_point Parts::start;
Parts* activeParts = nullptr;

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction&) {
    if (Parts::depth++ == 0) Parts::start = Clock::now();
    return nullptr;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext*) {
    if (--Parts::depth == 0 && activeParts)
        activeParts->seconds[fn.name()] += std::chrono::duration<double>(Clock::now() - Parts::start).count();
}

}  // namespace

void printMemory(const std::vector<std::string>& variants, std::vector<std::unique_ptr<Trainer>>& trainers,
                 const DataBundle& data, int64_t batch, BenchRows& rows) {
    std::printf("| variant | train step: in use MiB | held MiB | evaluation: in use MiB | held MiB |\n|---|---|---|---|---|\n");
    const auto mib = [](int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
    for (size_t v = 0; v < variants.size(); ++v) {
        cpu_block_cache::releaseIdle();
        const auto x = data.train.inputs.slice(0, 0, batch), y = data.train.targets.slice(0, 0, batch);
        trainers[v]->step(x, y);  // optimizer state created
        cpu_block_cache::resetPeaks();
        const int64_t base = cpu_block_cache::stats().inUseBytes;
        trainers[v]->step(x, y);
        trainers[v]->step(x, y);
        const auto train = cpu_block_cache::stats();
        cpu_block_cache::releaseIdle();
        cpu_block_cache::resetPeaks();
        trainers[v]->evaluate(data.val, 1000);
        const auto eval = cpu_block_cache::stats();
        std::printf("| %s | %.1f | %.1f | %.1f | %.1f |\n", variants[v].c_str(), mib(train.peakInUseBytes - base),
                    mib(train.peakHeldBytes - base), mib(eval.peakInUseBytes - base), mib(eval.peakHeldBytes - base));
        rows.measured(variants[v] + ": train step in use", mib(train.peakInUseBytes - base));
    }
}

int main(int argc, char** argv) {
    std::string model = "simple_cnn", variantList = "fp32,fp8,mxfp8,mxfp4,nvfp4,nvfp4-sr";
    int64_t batch = 128, steps = 40, threads = 2;
    bool parts = false, memory = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "format_step_bench: %s needs a value\n", arg.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--model") model = value();
        else if (arg == "--batch") batch = std::stoll(value());
        else if (arg == "--steps") steps = std::stoll(value());
        else if (arg == "--threads") threads = std::stoll(value());
        else if (arg == "--variants") variantList = value();
        else if (arg == "--parts") parts = true;
        else if (arg == "--memory") memory = true;
        else if (arg == "--smoke") { batch = 4; steps = 2; }
        else {
            std::fprintf(stderr, "format_step_bench: unknown argument %s\n", arg.c_str());
            return 2;
        }
    }
    std::vector<std::string> variants;
    {
        std::stringstream list(variantList);
        for (std::string v; std::getline(list, v, ',');)
            if (!v.empty()) variants.push_back(v);
    }
    if (variants.empty() || variants.front() != "fp32") variants.insert(variants.begin(), "fp32");
    at::set_num_threads(static_cast<int>(threads));
    cpu_block_cache::install();
    const int64_t batches = 8;
    DataBundle data = randomImages(std::max<int64_t>(batch * batches, 2000));
    std::vector<std::unique_ptr<Trainer>> trainers;
    for (const auto& v : variants) {
        torch::manual_seed(1);
        trainers.push_back(std::make_unique<Trainer>(configFor(v, model), data, c10::Device(c10::kCPU)));
    }
    BenchRows rows("format_step_bench");
    if (memory && !cpu_block_cache::installed()) {
        // LibTorch 2.x, a sanitizer build or AMPSCOPE_CPU_BLOCK_CACHE=0: nothing counts the
        // tensors' bytes. Exit 3 says "not measurable here" to emulation_cost.py.
        std::fprintf(stderr, "format_step_bench: --memory counts tensors in the CPU block cache, which "
                             "this build (LibTorch %s) does not install\n", TORCH_VERSION);
        return 3;
    }
    if (memory) {
        data.val.inputs = data.train.inputs.slice(0, 0, 2000);
        data.val.targets = data.train.targets.slice(0, 0, 2000);
        std::printf("%s, batch %lld, %lld threads: tensor memory above the weights\n\n", model.c_str(),
                    static_cast<long long>(batch), static_cast<long long>(threads));
        printMemory(variants, trainers, data, batch, rows);
        return rows.exitCode(variants.size());
    }
    std::vector<std::vector<double>> wall(variants.size()), cpu(variants.size());
    std::vector<Parts> partsOf(variants.size());
    at::CallbackHandle handle = 0;
    if (parts) handle = at::addGlobalCallback(at::RecordFunctionCallback(&onStart, &onEnd));
    for (int64_t s = -2; s < steps; ++s) {  // two warm-up steps each
        const int64_t b = ((s + 2) % batches) * batch;
        const auto x = data.train.inputs.slice(0, b, b + batch), y = data.train.targets.slice(0, b, b + batch);
        for (size_t v = 0; v < variants.size(); ++v) {
            activeParts = s >= 0 && parts ? &partsOf[v] : nullptr;
            const double c0 = processCpuSeconds();
            const auto t0 = Clock::now();
            trainers[v]->step(x, y);
            const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
            const double cpuSeconds = processCpuSeconds() - c0;
            if (s >= 0) {
                wall[v].push_back(seconds);
                cpu[v].push_back(cpuSeconds);
            }
        }
    }
    activeParts = nullptr;
    if (parts) at::removeCallback(handle);
    std::printf("%s, batch %lld, %lld threads, %lld steps per variant taken in turn\n\n", model.c_str(),
                static_cast<long long>(batch), static_cast<long long>(threads), static_cast<long long>(steps));
    std::printf("| variant | step ms (median wall) | x fp32 | step CPU ms (median) | x fp32 |\n|---|---|---|---|---|\n");
    const double wall32 = median(wall[0]), cpu32 = median(cpu[0]);
    for (size_t v = 0; v < variants.size(); ++v) {
        std::printf("| %s | %.1f | %.2f | %.1f | %.2f |\n", variants[v].c_str(), 1e3 * median(wall[v]),
                    median(wall[v]) / wall32, 1e3 * median(cpu[v]), median(cpu[v]) / cpu32);
        rows.measured(variants[v] + ": step", median(wall[v]));
    }
    if (parts) {
        for (size_t v = 0; v < variants.size(); ++v) {
            std::vector<std::pair<double, std::string>> operators;
            double total = 0;
            for (const auto& [name, seconds] : partsOf[v].seconds) {
                operators.emplace_back(seconds / static_cast<double>(steps), name);
                total += seconds;
            }
            std::sort(operators.rbegin(), operators.rend());
            std::printf("\n%s: top-level operators, ms per step (all: %.1f)\n", variants[v].c_str(),
                        1e3 * total / static_cast<double>(steps));
            for (size_t k = 0; k < operators.size() && k < 14; ++k)
                std::printf("  %8.2f  %s\n", 1e3 * operators[k].first, operators[k].second.c_str());
        }
    }
    return rows.exitCode(variants.size());
}
