// probe_reference: the C++ core's probe results for given values, so the Python
// recorder's probe definitions (python/ampscope/probes.py) can be checked against the
// core on the same tensors (tests/python/test_probe_definitions.py). No CLI command
// computes probes of arbitrary values, hence this small test-only helper.
//
//   probe_reference VALUES.f32 [MULTIPLIER...]
//
// VALUES.f32 holds raw little-endian float32 values. Prints one JSON object:
// {"histogram": <histogram record>, "histogram_torch_ops": <the same, by the
// non-CPU devices' torch-ops path>, "underflow": [<underflow record per multiplier>]},
// the records built by the core's own ProbeRecords writer. Bad usage: one line on
// stderr, exit code 2.
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probes/Fp16Classifier.h"
#include "probes/HistogramProbe.h"
#include "probes/ProbeRecords.h"

namespace {

int fail(const std::string& message) {
    std::cerr << "probe_reference: " << message << "\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace ampscope;
    if (argc < 2) return fail("usage: probe_reference VALUES.f32 [MULTIPLIER...]");
    std::ifstream file(argv[1], std::ios::binary);
    if (!file) return fail(std::string(argv[1]) + ": cannot read");
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (bytes.size() % sizeof(float) != 0)
        return fail(std::string(argv[1]) + ": size is not a multiple of 4 bytes (float32 values)");
    std::vector<double> multipliers;
    for (int i = 2; i < argc; ++i) {
        char* end = nullptr;
        const double m = std::strtod(argv[i], &end);
        if (end == argv[i] || *end != '\0') return fail(std::string("not a number: ") + argv[i]);
        multipliers.push_back(m);
    }
    const auto count = static_cast<int64_t>(bytes.size() / sizeof(float));
    const torch::Tensor values = torch::empty({count}, torch::kFloat);
    std::memcpy(values.data_ptr<float>(), bytes.data(), bytes.size());

    try {
        const std::string kind(probe_kind::kParamGrad);
        nlohmann::json out;
        out["histogram"] = toJson(HistogramRecord{0, "values", kind, computeExponentHistogram(values)});
        const torch::Tensor viaOps = probe_detail::histogramSlotsWithTorchOps(values).contiguous();
        out["histogram_torch_ops"] =
            toJson(HistogramRecord{0, "values", kind, histogramFromSlots(viaOps.data_ptr<double>())});
        out["underflow"] = nlohmann::json::array();
        for (double m : multipliers)
            out["underflow"].push_back(toJson(UnderflowRecord{0, "values", kind, m, classifyForFp16(values, m)}));
        std::cout << out.dump() << "\n";
    } catch (const std::exception& error) {
        return fail(error.what());
    }
    return 0;
}
