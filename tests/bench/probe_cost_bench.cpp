// Probe cost, measured side by side: the same model, data, seed and steps run
// with probes off (no cadence, no non-finite locator), at the default cadence
// (the locator by replay), at the default cadence with the locator checking every
// layer on every step, and with every probe on every step, interleaved A B C D A B
// C D so that machine drift hits all alike. Prints samples/s (median of the
// rounds) and the ratio to "off".
//
//   probe_cost_bench [--steps N] [--rounds R] [--mode fp32|bf16|fp16] [--model simple_cnn|mlp]
//                    [--json] [--smoke]
//
// --model mlp: the small MLP 784-128-10 at batch 32, where per-step work shows most.
//
// --json: the rows as JSON (benchmark, measurement, value, ratio, target, met),
// the form run_benchmarks.py collects into its one table.
// --smoke: spirals + a small MLP, a few steps: checks the benchmark runs and
// prints every row (CI runs this; the numbers mean nothing there).
#include <algorithm>
#include <iterator>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "engine/Engine.h"
#include "engine/SystemInfo.h"

using namespace ampscope;

namespace {

struct Variant {
    const char* name;
    int64_t every;
    const char* locate;  // probes.locate_nonfinite
};

double samplesPerSecond(RunConfig config) {
    Engine engine(config, "");
    engine.start();
    engine.wait();
    const auto summary = engine.summary();
    if (summary.status != "finished") {
        std::fprintf(stderr, "probe_cost_bench: run failed: %s\n", summary.error.c_str());
        std::exit(1);
    }
    return summary.samplesPerSecond;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    int64_t steps = 150;
    int rounds = 3;
    std::string mode = "fp32";
    std::string model = "simple_cnn";
    bool smoke = false;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::atoll(argv[++i]);
        else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--mode") && i + 1 < argc) mode = argv[++i];
        else if (!std::strcmp(argv[i], "--model") && i + 1 < argc) model = argv[++i];
        else if (!std::strcmp(argv[i], "--smoke")) smoke = true;
        else if (!std::strcmp(argv[i], "--json")) json = true;
        else {
            std::fprintf(stderr, "usage: probe_cost_bench [--steps N] [--rounds R] [--mode M] [--model simple_cnn|mlp] "
                                 "[--json] [--smoke]\n");
            return 2;
        }
    }
    if (model != "simple_cnn" && model != "mlp") {
        std::fprintf(stderr, "probe_cost_bench: --model %s: expected simple_cnn or mlp\n", model.c_str());
        return 2;
    }
    RunConfig base;
    base.precision.mode = mode;
    base.model.name = model;
    if (model == "mlp") {
        base.model.hidden = {128};
        base.train.batch_size = 32;
    }
    base.train.epochs = 1;
    base.train.max_steps = steps;
    base.train.eval_batch_size = 10000;
    if (smoke) {
        base.data.dataset = "spirals";
        base.data.synthetic_samples = 512;
        base.data.validation = "split";
        base.model.name = "mlp";
        base.model.hidden = {16};
        base.train.batch_size = 32;
        base.train.max_steps = steps = 8;
        rounds = 1;
    }
    const Variant variants[] = {{"off", 0, "off"},
                                {"default (every 50)", ProbeConfig{}.every, "replay"},
                                {"every 50, locator on every step", ProbeConfig{}.every, "always"},
                                {"every step", 1, "always"}};
    constexpr int kVariants = static_cast<int>(std::size(variants));
    std::vector<std::vector<double>> results(kVariants);
    for (int r = 0; r < rounds; ++r)
        for (int v = 0; v < kVariants; ++v) {
            RunConfig c = base;
            c.probes.every = variants[v].every;
            c.probes.locate_nonfinite = variants[v].locate;
            results[v].push_back(samplesPerSecond(c));
        }
    const double off = median(results[0]);
    if (json) {
        std::printf("[");
        for (int v = 0; v < kVariants; ++v) {
            const double sps = median(results[v]);
            const double ratio = sps / off;
            // The budget is on the default cadence: at most 3 % slower than off.
            const bool budgeted = v == 1;
            std::printf("%s{\"benchmark\": \"probe cadence\", \"measurement\": \"%s %s %s, samples/s\", "
                        "\"value\": \"%.0f\", \"ratio\": \"%.3fx of off\", \"target\": \"%s\", "
                        "\"met\": \"%s\"}",
                        v ? ", " : "", variants[v].name, base.model.name.c_str(), mode.c_str(), sps, ratio,
                        budgeted ? ">= 0.97x of off" : "", budgeted ? (ratio >= 0.97 ? "yes" : "NO") : "");
        }
        std::printf("]\n");
        return 0;
    }
    std::printf("probe cost: %s %s, batch %lld, %lld steps x %d rounds, %d threads, %s\n",
                base.model.name.c_str(), mode.c_str(), static_cast<long long>(base.train.batch_size),
                static_cast<long long>(steps), rounds, hardwareThreads(), cpuModelName().c_str());
    std::printf("%-34s %12s %10s\n", "probes", "samples/s", "vs off");
    for (int v = 0; v < kVariants; ++v) {
        const double sps = median(results[v]);
        std::printf("%-34s %12.1f %9.3fx\n", variants[v].name, sps, sps / off);
    }
    return 0;
}
