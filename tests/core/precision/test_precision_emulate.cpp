// precision.emulate: "auto" (the default: real on CUDA, emulated where the device lacks
// the format) or "always" (tf32, fp16 and fp16-pure emulated on CUDA as on the CPU, so
// that the GPU can compare emulation with the real thing on the same seed and batches).
// On the CPU "always" must change nothing.
#include <QtTest/QtTest>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "RunSupport.h"
#include "TestSupport.h"
#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "config/ConfigValidation.h"
#include "precision/ComputePolicy.h"
#include "precision/PrecisionMode.h"

using namespace ampscope;

namespace {

PrecisionConfig precisionFor(const std::string& mode, const std::string& emulate) {
    PrecisionConfig p;
    p.mode = mode;
    p.emulate = emulate;
    return p;
}

bool sameCompute(const LayerCompute& a, const LayerCompute& b) {
    return a.operandForward == b.operandForward && a.operandBackward == b.operandBackward &&
           a.resultForward == b.resultForward && a.resultBackward == b.resultBackward &&
           a.promotedForward == b.promotedForward && a.promotedBackward == b.promotedBackward;
}

// Everything a policy decides, compared field by field.
void expectSamePolicy(const ComputePolicy& a, const ComputePolicy& b) {
    QVERIFY(sameCompute(a.emulation, b.emulation));
    QCOMPARE(a.realAutocast, b.realAutocast);
    QCOMPARE(a.realTf32, b.realTf32);
    QCOMPARE(a.lowDtype, b.lowDtype);
    QCOMPARE(a.pureWeights, b.pureWeights);
    QCOMPARE(a.pureEmulated, b.pureEmulated);
    QVERIFY(a.pureRounding == b.pureRounding);
    QCOMPARE(a.execution.emulated, b.execution.emulated);
    QCOMPARE(QString::fromStdString(a.execution.how), QString::fromStdString(b.execution.how));
}

}  // namespace

class PrecisionEmulateTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void defaultIsAutoAndAlwaysLoads() {
        QCOMPARE(QString::fromStdString(RunConfig{}.precision.emulate), QString("auto"));
        QCOMPARE(QString::fromStdString(configFromJson(nlohmann::json::object()).precision.emulate), QString("auto"));
        const auto always = configFromJson(nlohmann::json{{"precision", {{"emulate", "always"}}}});
        QCOMPARE(QString::fromStdString(always.precision.emulate), QString("always"));
        QVERIFY(emulationForced("always"));
        QVERIFY(!emulationForced("auto"));
    }

    void anotherValueIsOneLineNamingTheField() {
        try {
            configFromJson(nlohmann::json{{"precision", {{"emulate", "yes"}}}});
            QFAIL("accepted precision.emulate \"yes\"");
        } catch (const InputError& e) {
            QCOMPARE(QString(e.what()), QString("precision.emulate: must be one of auto, always (got \"yes\")"));
        }
    }

    // On the CPU, tf32 and fp16 are emulated anyway and the rest run for real: "always"
    // builds the very same policy for every mode.
    void alwaysOnCpuIsTheDefaultBehaviour() {
        const c10::Device cpu(c10::kCPU);
        for (const auto& mode : allowedModes()) {
            const auto automatic = makeComputePolicy(precisionFor(mode, "auto"), cpu);
            const auto always = makeComputePolicy(precisionFor(mode, "always"), cpu);
            expectSamePolicy(automatic, always);
            if (QTest::currentTestFailed()) QFAIL(mode.c_str());
        }
    }

    // On a CUDA device (no GPU needed to build the policy): "auto" runs fp16 for real,
    // "always" takes exactly the CPU's emulation; modes without an emulation stay real.
    void alwaysOnCudaTakesTheCpuEmulation() {
        const c10::Device cuda(c10::kCUDA, 0);
        const c10::Device cpu(c10::kCPU);
        const auto real = makeComputePolicy(precisionFor("fp16", "auto"), cuda);
        QVERIFY(real.realAutocast);
        QVERIFY(!real.execution.emulated);
        QVERIFY(real.emulation.identity());
        for (const char* mode : {"tf32", "fp16", "fp16-pure"}) {
            const auto emulated = makeComputePolicy(precisionFor(mode, "always"), cuda);
            const auto onCpu = makeComputePolicy(precisionFor(mode, "auto"), cpu);
            QVERIFY2(sameCompute(emulated.emulation, onCpu.emulation), mode);
            QCOMPARE(emulated.realAutocast, false);
            QCOMPARE(emulated.realTf32, false);
            QCOMPARE(emulated.pureWeights, false);
            QCOMPARE(emulated.pureEmulated, onCpu.pureEmulated);
            QVERIFY2(emulated.execution.emulated, mode);
            QVERIFY2(QString::fromStdString(emulated.execution.how).contains("emulated") &&
                         QString::fromStdString(emulated.execution.how).contains("on CUDA"),
                     emulated.execution.how.c_str());
        }
        QVERIFY(makeComputePolicy(precisionFor("tf32", "auto"), cuda).realTf32);
        for (const char* mode : {"fp32", "bf16", "bf16-pure"}) {
            const auto forced = makeComputePolicy(precisionFor(mode, "always"), cuda);
            expectSamePolicy(forced, makeComputePolicy(precisionFor(mode, "auto"), cuda));
            QVERIFY2(!forced.execution.emulated, mode);
        }
    }

    // docs/guide/precision-modes.md: scaler.kind "auto" is dynamic for fp16 and off for
    // every other mode; a kind named outright is the kind, whatever the mode.
    void scalerKindAutoIsDynamicForFp16Only() {
        QCOMPARE(QString::fromStdString(resolvedScalerKind("fp16", "auto")), QString("dynamic"));
        for (const char* mode : {"fp32", "tf32", "bf16", "fp16-pure", "bf16-pure", "fp8", "nvfp4"})
            QCOMPARE(QString::fromStdString(resolvedScalerKind(mode, "auto")), QString("off"));
        for (const char* mode : {"fp16", "bf16", "fp32"})
            for (const char* kind : {"dynamic", "static", "off"})
                QCOMPARE(QString::fromStdString(resolvedScalerKind(mode, kind)), QString(kind));
    }

    // A whole fp16 run on the CPU: the same losses, step for step, either way.
    void cpuRunWithAlwaysTrainsTheSame() {
        RunConfig config = test::spiralsMlpConfig();
        config.precision.mode = "fp16";
        config.train.max_steps = 8;
        config.probes.every = 4;
        QTemporaryDir tmp;
        const auto automatic = test::runAndRead(config, tmp, "auto");
        config.precision.emulate = "always";
        const auto always = test::runAndRead(config, tmp, "always");
        const auto lossesAuto = test::stepLosses(automatic);
        QCOMPARE(lossesAuto.size(), size_t{8});
        QVERIFY(lossesAuto == test::stepLosses(always));
        QVERIFY(always.summary.has_value());
        QCOMPARE((*always.summary)["precision"]["emulated"].get<bool>(), true);
        QCOMPARE(QString::fromStdString(always.config["precision"]["emulate"].get<std::string>()), QString("always"));
    }
};

QTEST_GUILESS_MAIN(PrecisionEmulateTest)
#include "test_precision_emulate.moc"
