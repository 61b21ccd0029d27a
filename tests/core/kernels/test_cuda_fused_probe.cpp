// The fused CUDA probe kernel on a real GPU (built when the CUDA kernels are on;
// every test skips with "no CUDA device" where there is none, as on CI):
// - the kernel library alone: data uploaded with cudaMemcpy, counted on the GPU and
//   compared with the LibTorch probes on the CPU (any LibTorch, CPU-only included);
// - through core: with a CUDA LibTorch, the fused path against the torch-ops path
//   of the same probes on the same CUDA tensors.
#include <QtTest/QtTest>
#include <torch/torch.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ExactCompare.h"
#include "WideRandomGradients.h"
#include "kernels/FusedProbeKernel.h"
#include "kernels/ProbeElementRules.h"
#include "probes/Fp16Classifier.h"
#include "probes/GradientProbe.h"
#include "probes/HistogramProbe.h"

using namespace ampscope;
namespace rules = ampscope::probe_rules;

namespace {

// Owns one device allocation.
struct DeviceBuffer {
    void* ptr = nullptr;
    explicit DeviceBuffer(size_t bytes) {
        if (cudaMalloc(&ptr, bytes == 0 ? 1 : bytes) != cudaSuccess) ptr = nullptr;
    }
    ~DeviceBuffer() {
        if (ptr) cudaFree(ptr);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

cuda_kernels::ElementType elementTypeOf(const torch::Tensor& t) {
    if (t.scalar_type() == torch::kHalf) return cuda_kernels::ElementType::Float16;
    if (t.scalar_type() == torch::kBFloat16) return cuda_kernels::ElementType::BFloat16;
    return cuda_kernels::ElementType::Float32;
}

// Uploads each CPU tensor, counts them into one output (accumulating after the first)
// and reads the counters back.
std::vector<unsigned long long> countOnGpu(const std::vector<torch::Tensor>& tensors,
                                           const std::vector<double>& multipliers, std::string& error) {
    std::vector<rules::Fp16Plan> plans;
    for (double m : multipliers) plans.push_back(rules::planFp16(m));
    const int slots = rules::fusedSlotCount(static_cast<int>(plans.size()));
    std::vector<unsigned long long> host(static_cast<size_t>(slots), 0);
    DeviceBuffer out(host.size() * sizeof(unsigned long long));
    if (!out.ptr) {
        error = "cudaMalloc failed";
        return host;
    }
    bool first = true;
    for (const auto& tensor : tensors) {
        const auto t = tensor.contiguous();
        const size_t bytes = static_cast<size_t>(t.numel()) * t.element_size();
        DeviceBuffer in(bytes);
        if (!in.ptr || cudaMemcpy(in.ptr, t.data_ptr(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
            error = "upload failed";
            return host;
        }
        cuda_kernels::FusedProbeLaunch launch;
        launch.data = in.ptr;
        launch.count = t.numel();
        launch.type = elementTypeOf(t);
        launch.plans = plans.data();
        launch.planCount = static_cast<int>(plans.size());
        launch.out = static_cast<unsigned long long*>(out.ptr);
        launch.accumulate = !first;
        error = cuda_kernels::launchFusedProbe(launch);
        if (!error.empty()) return host;
        // The input is freed below: wait for the kernel that reads it.
        if (const auto e = cudaDeviceSynchronize(); e != cudaSuccess) {
            error = cudaGetErrorString(e);
            return host;
        }
        first = false;
    }
    if (cudaMemcpy(host.data(), out.ptr, host.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
        error = "download failed";
    return host;
}

// The GPU's counters against LibTorch's slots of the same tensors on the CPU.
void expectSameAsCpu(const std::vector<unsigned long long>& gpu, const std::vector<torch::Tensor>& tensors,
                     const std::vector<double>& multipliers) {
    const auto h = histogramSlots(tensors);
    const auto c = fp16ClassSlots(tensors, multipliers).contiguous();
    for (int64_t k = 0; k < rules::kHistogramSlots; ++k)
        QVERIFY2(h[k].item<double>() == static_cast<double>(gpu[static_cast<size_t>(k)]),
                 qPrintable(QString("histogram slot %1: CPU %2, GPU %3").arg(k).arg(h[k].item<double>()).arg(gpu[static_cast<size_t>(k)])));
    for (int64_t p = 0; p < c.size(0); ++p) {
        const double* row = c.data_ptr<double>() + p * fp16_class_slot::kCount;
        const unsigned long long* mine = gpu.data() + rules::kHistogramSlots + p * rules::kClassCount;
        for (int64_t k = 0; k < rules::kClassPosInf; ++k)
            QVERIFY2(row[k] == static_cast<double>(mine[k]),
                     qPrintable(QString("multiplier %1, class %2: CPU %3, GPU %4").arg(p).arg(k).arg(row[k]).arg(mine[k])));
        QCOMPARE_BITS(row[fp16_class_slot::kInf], static_cast<double>(mine[rules::kClassPosInf] + mine[rules::kClassNegInf]));
    }
}

torch::Tensor wideRandom(int64_t n, uint64_t seed) {
    return wideRandomGradients(n, seed, 89);
}

}  // namespace

class CudaFusedProbeTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        if (cuda_kernels::cudaDeviceCount() == 0) QSKIP("no CUDA device");
    }

    void kernelMatchesLibTorchOnCpu_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<qint64>("elements");
        QTest::newRow("float32, one block") << int(torch::kFloat) << qint64(200);
        QTest::newRow("float32, many blocks") << int(torch::kFloat) << qint64(3000017);
        QTest::newRow("float16") << int(torch::kHalf) << qint64(1000003);
        QTest::newRow("bfloat16") << int(torch::kBFloat16) << qint64(1000003);
        QTest::newRow("empty") << int(torch::kFloat) << qint64(0);
    }

    void kernelMatchesLibTorchOnCpu() {
        QFETCH(int, dtype);
        QFETCH(qint64, elements);
        const auto x = wideRandom(elements, 21).to(static_cast<torch::ScalarType>(dtype));
        for (const std::vector<double>& multipliers :
             {std::vector<double>{}, std::vector<double>{1.0}, std::vector<double>{32768.0, 65536.0, 131072.0},
              std::vector<double>{1000.0, 3.0, 0x1p-20, 0x1p128}}) {
            std::string error;
            const auto gpu = countOnGpu({x}, multipliers, error);
            QVERIFY2(error.empty(), error.c_str());
            expectSameAsCpu(gpu, {x}, multipliers);
            if (QTest::currentTestFailed()) return;
        }
    }

    // A layer's weight and bias gradients counted as one (accumulate).
    void tensorsAccumulateIntoOneOutput() {
        const auto weight = wideRandom(40000, 22);
        const auto bias = wideRandom(300, 23).to(torch::kHalf);
        const std::vector<double> multipliers = {0.5, 1.0, 2.0};
        std::string error;
        const auto gpu = countOnGpu({weight, bias}, multipliers, error);
        QVERIFY2(error.empty(), error.c_str());
        expectSameAsCpu(gpu, {weight, bias}, multipliers);
    }

    void badArgumentsAreRefusedWithAMessage() {
        cuda_kernels::FusedProbeLaunch launch;
        launch.count = 10;
        QVERIFY(!cuda_kernels::launchFusedProbe(launch).empty());  // null pointers
        launch.planCount = rules::kMaxPlans + 1;
        QVERIFY(cuda_kernels::launchFusedProbe(launch).find("multipliers") != std::string::npos);
    }

    // Through core, with a CUDA LibTorch: the fused path and the torch-ops path of the
    // same probes give the same slots for the same CUDA tensors.
    void fusedPathMatchesTorchOpsOnTheGpu() {
        if (!fusedProbeBuilt()) QSKIP("this build does not dispatch to the fused kernel (LibTorch without CUDA)");
        if (!torch::cuda::is_available()) QSKIP("no CUDA device for LibTorch");
        const auto device = torch::Device(torch::kCUDA, 0);
        const auto weight = wideRandom(250000, 24).to(device);
        const auto bias = wideRandom(1000, 25).to(device);
        for (const auto type : {torch::kFloat, torch::kHalf, torch::kBFloat16, torch::kDouble}) {
            const std::vector<torch::Tensor> grads = {weight.to(type), torch::Tensor(), bias.to(type)};
            const std::vector<double> multipliers = {32768.0, 65536.0, 131072.0};
            const auto fused = probe_detail::fusedProbeSlots(grads, multipliers);
            QCOMPARE(fused.histogram.device().type(), torch::kCUDA);
            const auto viaOps = probe_detail::histogramSlotsWithTorchOps(grads[0]) +
                                probe_detail::histogramSlotsWithTorchOps(grads[2]);
            const auto classesViaOps = probe_detail::fp16ClassSlotsWithTorchOps(grads[0], multipliers) +
                                       probe_detail::fp16ClassSlotsWithTorchOps(grads[2], multipliers);
            QVERIFY(torch::equal(fused.histogram.cpu(), viaOps.cpu()));
            QVERIFY(torch::equal(fused.classes.cpu(), classesViaOps.cpu()));
            // And what the engine calls picks the fused path for CUDA tensors.
            const auto dispatched = gradientProbeSlots(grads, multipliers);
            QVERIFY(torch::equal(dispatched.histogram.cpu(), fused.histogram.cpu()));
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, probe_detail::fusedProbeSlots({weight.cpu()}, {1.0}));
    }
};

QTEST_GUILESS_MAIN(CudaFusedProbeTest)
#include "test_cuda_fused_probe.moc"
