// GradScaler against hand-computed scale/tracker sequences and PyTorch's
// documented behaviour (torch/amp/grad_scaler.py, _amp_update_scale_).
#include <QtTest/QtTest>

#include <cmath>
#include <limits>

#include "ExactCompare.h"
#include "precision/GradScaler.h"
#include "precision/ScaleUpdateRule.h"

using namespace ampscope;

namespace {

struct Expected {
    float scale;
    int32_t tracker;
};

void runPattern(ScaleState state, const ScaleUpdateRule& rule, const std::vector<bool>& infs,
                const std::vector<Expected>& expected) {
    QCOMPARE(infs.size(), expected.size());
    for (size_t i = 0; i < infs.size(); ++i) {
        applyScaleUpdate(state, rule, infs[i]);
        QVERIFY2(state.scale == expected[i].scale && state.growthTracker == expected[i].tracker,
                 qPrintable(QString("step %1: got scale %2 tracker %3, expected %4 / %5")
                                .arg(i + 1)
                                .arg(state.scale)
                                .arg(state.growthTracker)
                                .arg(expected[i].scale)
                                .arg(expected[i].tracker)));
    }
}

std::vector<torch::Tensor> paramsWithGrads(const std::vector<std::vector<float>>& grads) {
    std::vector<torch::Tensor> params;
    for (const auto& g : grads) {
        auto p = torch::zeros({int64_t(g.size())}, torch::requires_grad());
        p.mutable_grad() = torch::tensor(g);
        params.push_back(p);
    }
    return params;
}

}  // namespace

class GradScalerTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void growsAfterIntervalAndBacksOffOnInf() {
        // interval 3, init 8: clean, clean, clean (grow), inf (backoff), clean x3 (grow)
        runPattern({8.0f, 0}, {2.0, 0.5, 3}, {false, false, false, true, false, false, false},
                   {{8, 1}, {8, 2}, {16, 0}, {8, 0}, {8, 1}, {8, 2}, {16, 0}});
    }

    void growthIntervalOneGrowsEveryCleanStep() {
        runPattern({1.0f, 0}, {2.0, 0.5, 1}, {false, false, true, false},
                   {{2, 0}, {4, 0}, {2, 0}, {4, 0}});
    }

    void infOnTheGrowthStepBacksOffInstead() {
        runPattern({64.0f, 0}, {2.0, 0.5, 2}, {false, true, false, false},
                   {{64, 1}, {32, 0}, {32, 1}, {64, 0}});
    }

    // A loaded state may hold a tracker past the interval (a checkpoint saved with a longer
    // interval). PyTorch's kernel grows only when tracker + 1 == growth_interval, so such a
    // tracker keeps counting without growth until an inf step resets it; then the interval
    // counts again from 0.
    void aTrackerPastTheIntervalNeverGrows() {
        runPattern({8.0f, 5}, {2.0, 0.5, 3}, {false, false, true, false, false, false},
                   {{8, 6}, {8, 7}, {4, 0}, {4, 1}, {4, 2}, {8, 0}});
        GradScaler scaler(GradScaler::Kind::Dynamic, 1.0, {});
        scaler.loadStateDict({8.0f, 2.0, 0.5, 3, 5});
        auto params = paramsWithGrads({{1.0f}});
        scaler.unscale(params);
        QVERIFY(scaler.update() == ScaleChange::None);
        QCOMPARE_BITS(scaler.scale(), 8.0f);
        QCOMPARE(scaler.growthTracker(), 6);
    }

    void growthNeverPassesFloatRange() {
        // 2^127 * 2 = 2^128 is not a float: scale stays, tracker still resets.
        const float big = std::ldexp(1.0f, 127);
        runPattern({big, 0}, {2.0, 0.5, 1}, {false, false}, {{big, 0}, {big, 0}});
        // Repeated backoffs have no lower bound: the scale halves through the smallest
        // normal (2^-126) and every subnormal down to 2^-149, then rounds to +0 (2^-150 is a
        // tie between 0 and 2^-149: to even).
        ScaleState s{1.0f, 0};
        for (int k = 1; k <= 160; ++k) {
            applyScaleUpdate(s, {2.0, 0.5, 2000}, true);
            const float expected = k <= 149 ? std::ldexp(1.0f, -k) : 0.0f;
            QCOMPARE_BITS(s.scale, expected);
        }
    }

    // The new scale is the product in double (scale * backoff_factor as PyTorch's
    // _amp_update_scale_ computes it) narrowed once to float, not float * float: 3 * 0.3
    // narrowed is 0x1.cccccc p-1, float(3) * float(0.3) rounds to 0x1.ccccce p-1.
    void productIsNarrowedFromDouble() {
        QVERIFY(3.0f * 0.3f != static_cast<float>(3.0 * 0.3));  // the two routes differ here
        ScaleState s{3.0f, 0};
        applyScaleUpdate(s, {2.0, 0.3, 2000}, true);
        QCOMPARE_BITS(s.scale, 0x1.ccccccp-1f);
        ScaleState grown{7.0f, 0};
        applyScaleUpdate(grown, {1.3, 0.5, 1}, false);  // 7 * 1.3 = 9.1
        QVERIFY(7.0f * 1.3f != static_cast<float>(7.0 * 1.3));
        QCOMPARE_BITS(grown.scale, static_cast<float>(7.0 * 1.3));
        // The reciprocal: float(1 / double(s)) is the correctly rounded 1/s (a double
        // quotient rounded again to float is never off, 53 >= 2 * 24 + 2 bits).
        QCOMPARE_BITS(inverseScale(3.0f), 0x1.555556p-2f);
    }

    void unscaleMultipliesEvenWhenInfFound() {
        GradScaler scaler(GradScaler::Kind::Dynamic, 4.0, {});
        auto params = paramsWithGrads({{8.0f, 4.0f}, {INFINITY, 2.0f}});
        QVERIFY(scaler.unscale(params));
        QCOMPARE_BITS(params[0].grad()[0].item<float>(), 2.0f);
        QCOMPARE_BITS(params[1].grad()[1].item<float>(), 0.5f);  // multiplied despite the inf
        QVERIFY(std::isinf(params[1].grad()[0].item<float>()));
        QCOMPARE(scaler.nonFiniteParameters(), std::vector<bool>({false, true}));
    }

    void foundInfCanBeReadWithOtherValues() {
        // unscaleWithoutReading leaves found_inf on the device as a float 0/1 scalar;
        // a value handed over by the caller is what foundInf() and step() then use.
        GradScaler scaler(GradScaler::Kind::Dynamic, 2.0, {2.0, 0.5, 2000});
        auto params = paramsWithGrads({{4.0f}, {NAN, 6.0f}, {2.0f}});
        params.insert(params.begin() + 1, torch::zeros({1}, torch::requires_grad()));  // no gradient
        scaler.unscaleWithoutReading(params);
        QCOMPARE(scaler.foundInfFlag().dim(), int64_t(0));
        QCOMPARE_BITS(scaler.foundInfFlag().item<float>(), 1.0f);
        QCOMPARE_BITS(params[0].grad()[0].item<float>(), 2.0f);  // unscaled already
        scaler.setFoundInfRead(true);
        QVERIFY(scaler.foundInf());
        // Parameter 1 has no gradient; the list keeps the parameters' indices.
        QCOMPARE(scaler.nonFiniteParameters(), std::vector<bool>({false, false, true, false}));
        torch::optim::SGD sgd(params, torch::optim::SGDOptions(1.0));
        QVERIFY(!scaler.step(sgd, params));
        QVERIFY(scaler.update() == ScaleChange::Backoff);
        QCOMPARE_BITS(scaler.scale(), 1.0f);

        // A clean step, found_inf read lazily by step().
        auto clean = paramsWithGrads({{3.0f}});
        scaler.unscaleWithoutReading(clean);
        QCOMPARE_BITS(scaler.foundInfFlag().item<float>(), 0.0f);
        int ran = 0;
        QVERIFY(scaler.step([&] { ++ran; }, clean));
        QCOMPARE(ran, 1);
        QCOMPARE(scaler.nonFiniteParameters(), std::vector<bool>({false}));
    }

    void cudaUnscaleMatchesTheCpu() {
        // On a GPU the check and multiply are PyTorch's multi-tensor kernel; its results
        // must be the CPU path's: the same unscaled values, found_inf and flagged parameters.
        if (!torch::cuda::is_available()) QSKIP("no CUDA device");
        const std::vector<std::vector<float>> grads{{8.0f, -3.0f, 1e-30f}, {2.0f, INFINITY}, {NAN}, {0.5f}};
        GradScaler onCpu(GradScaler::Kind::Dynamic, 1024.0, {});
        GradScaler onGpu(GradScaler::Kind::Dynamic, 1024.0, {});
        auto cpu = paramsWithGrads(grads);
        std::vector<torch::Tensor> gpu;
        for (const auto& p : cpu) {
            auto q = p.detach().to(torch::kCUDA).requires_grad_(true);
            q.mutable_grad() = p.grad().to(torch::kCUDA);
            gpu.push_back(q);
        }
        QVERIFY(onCpu.unscale(cpu));
        QVERIFY(onGpu.unscale(gpu));
        QCOMPARE(onGpu.nonFiniteParameters(), onCpu.nonFiniteParameters());
        for (size_t i = 0; i < cpu.size(); ++i)
            QVERIFY(torch::equal(gpu[i].grad().cpu().nan_to_num(0, 1, -1), cpu[i].grad().nan_to_num(0, 1, -1)));
        auto finite = paramsWithGrads({{1.0f, 2.0f}});
        GradScaler clean(GradScaler::Kind::Dynamic, 2.0, {});
        auto q = finite[0].detach().to(torch::kCUDA).requires_grad_(true);
        q.mutable_grad() = finite[0].grad().to(torch::kCUDA);
        QVERIFY(!clean.unscale({q}));
        QCOMPARE_BITS(q.grad()[1].item<float>(), 1.0f);
    }

    void secondUnscaleIsAnError() {
        GradScaler scaler(GradScaler::Kind::Dynamic, 4.0, {});
        auto params = paramsWithGrads({{1.0f}});
        scaler.unscale(params);
        try {
            scaler.unscale(params);
            QFAIL("second unscale did not throw");
        } catch (const ScalerUsageError& e) {
            QCOMPARE(QString(e.what()),
                     QString("unscale_() has already been called on this optimizer since the last update()."));
        }
        scaler.update();
        scaler.unscale(params);  // allowed again after update()
    }

    void fp16GradientsAreRefused() {
        GradScaler scaler(GradScaler::Kind::Dynamic, 4.0, {});
        auto p = torch::zeros({2}, torch::TensorOptions().dtype(torch::kHalf).requires_grad(true));
        p.mutable_grad() = torch::ones({2}, torch::kHalf);
        QVERIFY_THROWS_EXCEPTION(ScalerUsageError, scaler.unscale({p}));
    }

    void stepSkipsOptimizerOnInfAndUpdateBacksOff() {
        auto p = torch::ones({2}, torch::requires_grad());
        torch::optim::SGD sgd({p}, torch::optim::SGDOptions(1.0));
        GradScaler scaler(GradScaler::Kind::Dynamic, 1024.0, {2.0, 0.5, 2000});
        p.mutable_grad() = torch::tensor({NAN, 1.0f});
        QVERIFY(!scaler.step(sgd, {p}));
        QCOMPARE_BITS(p[1].item<float>(), 1.0f);  // untouched
        QVERIFY(scaler.update() == ScaleChange::Backoff);
        QCOMPARE_BITS(scaler.scale(), 512.0f);
        p.mutable_grad() = torch::tensor({512.0f, 1024.0f});
        QVERIFY(scaler.step(sgd, {p}));  // unscales itself, then steps
        QCOMPARE_BITS(p[0].item<float>(), 0.0f);
        QCOMPARE_BITS(p[1].item<float>(), -1.0f);
        QVERIFY(scaler.update() == ScaleChange::None);
        QCOMPARE(scaler.growthTracker(), 1);
    }

    void updateWithNewScaleLeavesTracker() {
        GradScaler scaler(GradScaler::Kind::Dynamic, 8.0, {2.0, 0.5, 10});
        auto params = paramsWithGrads({{1.0f}});
        scaler.unscale(params);
        scaler.update();
        QCOMPARE(scaler.growthTracker(), 1);
        scaler.update(3.5f);
        QCOMPARE_BITS(scaler.scale(), 3.5f);
        QCOMPARE(scaler.growthTracker(), 1);
    }

    void staticScaleNeverChanges() {
        GradScaler scaler(GradScaler::Kind::Static, 128.0, {2.0, 0.5, 1});
        for (bool inf : {false, true, false}) {
            auto params = paramsWithGrads({{inf ? INFINITY : 1.0f}});
            scaler.unscale(params);
            QVERIFY(scaler.update() == ScaleChange::None);
            QCOMPARE_BITS(scaler.scale(), 128.0f);
        }
    }

    void stateDictRoundTrip() {
        GradScaler a(GradScaler::Kind::Dynamic, 256.0, {3.0, 0.25, 7});
        auto params = paramsWithGrads({{1.0f}});
        a.unscale(params);
        a.update();
        GradScaler b(GradScaler::Kind::Dynamic, 1.0, {});
        b.loadStateDict(a.stateDict());
        const auto d = b.stateDict();
        QCOMPARE_BITS(d.scale, 256.0f);
        QCOMPARE_BITS(d.growthFactor, 3.0);
        QCOMPARE_BITS(d.backoffFactor, 0.25);
        QCOMPARE(d.growthInterval, int64_t(7));
        QCOMPARE(d.growthTracker, 1);
    }

    void constructorChecksFactorsLikePyTorch() {
        QVERIFY_THROWS_EXCEPTION(ScalerUsageError, GradScaler(GradScaler::Kind::Dynamic, 1.0, {1.0, 0.5, 10}));
        QVERIFY_THROWS_EXCEPTION(ScalerUsageError, GradScaler(GradScaler::Kind::Dynamic, 1.0, {2.0, 1.0, 10}));
    }

    void offPassesThrough() {
        GradScaler scaler(GradScaler::Kind::Off, 65536.0, {});
        auto loss = torch::tensor(2.0f);
        QCOMPARE_BITS(scaler.scale(loss).item<float>(), 2.0f);
        QVERIFY(!scaler.enabled());
    }
};

QTEST_APPLESS_MAIN(GradScalerTest)
#include "test_grad_scaler.moc"
