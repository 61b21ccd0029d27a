// The non-finite locator on a tiny layered model (an observer ahead of it
// injects the fault, as the engine's FaultInjector will): which layer, which
// phase, which tensor, first in execution order; the ring buffer of stats
// frames; and the update-ratio probe on tensors with known answers.
#include <QtTest/QtTest>
#include <cmath>
#include <limits>

#include "ExactCompare.h"
#include "config/RunConfig.h"
#include "models/BasicLayers.h"
#include "models/LayeredModel.h"
#include "models/ModelFactory.h"
#include "probes/FirstNonFiniteOp.h"
#include "probes/NonFiniteLocator.h"
#include "probes/ObserverChain.h"
#include "probes/TensorStatsProbe.h"
#include "probes/UpdateRatioProbe.h"

using namespace ampscope;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// layer1 (linear 4->8), layer2 (relu), layer3 (linear 8->3).
std::shared_ptr<LayeredModel> tinyModel() {
    torch::manual_seed(1);
    auto model = std::make_shared<LayeredModel>();
    model->addLayer("layer1", std::make_shared<LinearLayer>(4, 8));
    model->addLayer("layer2", std::make_shared<ActivationLayer>("relu"));
    model->addLayer("layer3", std::make_shared<LinearLayer>(8, 3));
    return model;
}

// Replaces the first element of one layer's forward output, keeping the graph.
class ForwardFault : public LayerObserver {
public:
    ForwardFault(size_t layer, float value) : layer_(layer), value_(value) {}
    int64_t step = -1;  // the only step it fires on; -1: every step
    int64_t current = 0;
    void afterLayer(size_t index, const std::string&, torch::Tensor& output) override {
        if (index != layer_ || (step >= 0 && current != step)) return;
        auto mask = torch::zeros_like(output, torch::kBool);
        mask.view({-1})[0] = true;
        output = torch::where(mask, torch::full_like(output, value_), output);
    }

private:
    size_t layer_;
    float value_;
};

// Makes the first element of the gradient arriving at one layer's output non-finite.
class GradientFault : public LayerObserver {
public:
    GradientFault(size_t layer, float value) : layer_(layer), value_(value) {}
    void afterLayer(size_t index, const std::string&, torch::Tensor& output) override {
        if (index != layer_ || !output.requires_grad()) return;
        const float value = value_;
        output.register_hook([value](torch::Tensor grad) {
            auto copy = grad.clone();
            copy.view({-1})[0].fill_(value);
            return copy;
        });
    }

private:
    size_t layer_;
    float value_;
};

// Keeps each layer's forward output, to check the frames against.
class Recorder : public LayerObserver {
public:
    std::vector<torch::Tensor> outputs;
    void afterLayer(size_t, const std::string&, torch::Tensor& output) override {
        outputs.push_back(output.detach().clone());
    }
};

struct Batch {
    torch::Tensor x = torch::randn({5, 4});
    torch::Tensor y = torch::randn({5, 3});
};

std::optional<NonFiniteEvent> runStep(LayeredModel& model, NonFiniteLocator& locator,
                                      LayerObserver& observer, int64_t step, bool stats,
                                      const Batch& batch) {
    locator.beginStep(step, stats);
    const auto out = model.forward(batch.x, ComputePolicy{}, &observer);
    const auto loss = torch::mse_loss(out, batch.y);
    locator.checkLoss(loss);
    loss.backward();
    return locator.endStep();
}

void checkEvent(const std::optional<NonFiniteEvent>& e, int64_t step, const std::string& layer,
                int64_t index, const std::string& phase, const std::string& tensor, int64_t nan,
                int64_t posInf, int64_t negInf) {
    QVERIFY(e.has_value());
    QCOMPARE(e->step, step);
    QCOMPARE(e->layer, layer);
    QCOMPARE(e->layerIndex, index);
    QCOMPARE(e->phase, phase);
    QCOMPARE(e->tensor, tensor);
    QCOMPARE(e->nan, nan);
    QCOMPARE(e->posInf, posInf);
    QCOMPARE(e->negInf, negInf);
}

}  // namespace

class ProbeLocatorTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(2); }

    void cleanStepsFindNothing() {
        auto model = tinyModel();
        NonFiniteLocator locator;
        const Batch batch;
        for (int64_t step = 0; step < 3; ++step)
            QVERIFY(!runStep(*model, locator, locator, step, step == 1, batch).has_value());
        QVERIFY(!locator.firstEvent().has_value());
        QVERIFY(!locator.lastStepHit().has_value());
        QCOMPARE(locator.frames().size(), size_t(1));
    }

    void infInLayer2ForwardIsAForwardActivationEvent() {
        auto model = tinyModel();
        NonFiniteLocator locator;
        ForwardFault fault(1, kInf);
        fault.step = 3;
        ObserverChain chain;
        chain.add(&fault);  // before the locator: it must see what training sees
        chain.add(&locator);
        const Batch batch;
        for (int64_t step = 0; step < 3; ++step) {
            fault.current = step;
            QVERIFY(!runStep(*model, locator, chain, step, false, batch).has_value());
        }
        fault.current = 3;
        const auto event = runStep(*model, locator, chain, 3, false, batch);
        // layer3's output and every gradient go non-finite too; layer2's output came first.
        checkEvent(event, 3, "layer2", 1, "forward", "activation", 0, 1, 0);
        QCOMPARE(event->numel, int64_t(5 * 8));
        QVERIFY(locator.firstEvent() == event);

        // The run's first event is reported once; later hits are still seen per step.
        fault.step = -1;
        fault.current = 4;
        QVERIFY(!runStep(*model, locator, chain, 4, false, batch).has_value());
        QVERIFY(locator.lastStepHit().has_value());
        QCOMPARE(locator.lastStepHit()->step, int64_t(4));
        QCOMPARE(locator.firstEvent()->step, int64_t(3));
    }

    void nanGradientAtLayer1IsABackwardGradientEvent() {
        auto model = tinyModel();
        NonFiniteLocator locator;
        GradientFault fault(0, kNaN);
        ObserverChain chain;
        chain.add(&fault);
        chain.add(&locator);
        const auto event = runStep(*model, locator, chain, 7, false, Batch{});
        checkEvent(event, 7, "layer1", 0, "backward", "gradient", 1, 0, 0);
        QCOMPARE(event->numel, int64_t(5 * 8));
    }

    void backwardOrderPutsTheLayerNearestTheLossFirst() {
        // NaN enters at layer3's incoming gradient and flows back to layer2 and
        // layer1; the first in execution order is layer3, though its index is last.
        auto model = tinyModel();
        NonFiniteLocator locator;
        GradientFault fault(2, -kInf);
        ObserverChain chain;
        chain.add(&fault);
        chain.add(&locator);
        const auto event = runStep(*model, locator, chain, 0, true, Batch{});
        checkEvent(event, 0, "layer3", 2, "backward", "gradient", 0, 0, 1);
        const auto frames = locator.frames();
        QCOMPARE(frames.size(), size_t(1));
        QVERIFY(frames[0].layers[0].gradient.has_value());
        QVERIFY(!frames[0].layers[0].gradient->finite());  // it did propagate
        QVERIFY(frames[0].layers[0].activation->finite());
    }

    void nanLossIsALossEvent() {
        auto model = tinyModel();
        NonFiniteLocator locator;
        Batch batch;
        batch.y[0][0] = kNaN;
        const auto event = runStep(*model, locator, locator, 2, false, batch);
        checkEvent(event, 2, "loss", -1, "forward", "loss", 1, 0, 0);
        QCOMPARE(event->numel, int64_t(1));
    }

    void ringBufferKeepsTheLastFramesBeforeTheEvent() {
        auto model = tinyModel();
        NonFiniteLocator locator(3);
        ForwardFault fault(2, kNaN);
        fault.step = 6;
        Recorder recorder;
        ObserverChain chain;
        chain.add(&fault);
        chain.add(&recorder);
        chain.add(&locator);
        const Batch batch;
        for (int64_t step = 0; step < 6; ++step) {
            fault.current = step;
            recorder.outputs.clear();
            // Step 5 is not a stats step: it must not enter the ring.
            QVERIFY(!runStep(*model, locator, chain, step, step != 5, batch).has_value());
        }
        auto frames = locator.frames();
        QCOMPARE(frames.size(), size_t(3));
        QCOMPARE(frames[0].step, int64_t(2));
        QCOMPARE(frames[1].step, int64_t(3));
        QCOMPARE(frames[2].step, int64_t(4));
        for (const auto& f : frames) {
            QCOMPARE(f.layers.size(), size_t(3));
            QCOMPARE(f.layers[1].layer, std::string("layer2"));
            QCOMPARE(f.layers[1].layerIndex, int64_t(1));
            QVERIFY(f.layers[1].activation && f.layers[1].gradient);
            QCOMPARE(f.layers[1].activation->numel, int64_t(40));
            QVERIFY(f.loss.has_value());
        }

        fault.current = 6;
        recorder.outputs.clear();
        const auto event = runStep(*model, locator, chain, 6, true, batch);
        checkEvent(event, 6, "layer3", 2, "forward", "activation", 1, 0, 0);
        const auto& before = locator.framesAtFirstEvent();
        QCOMPARE(before.size(), size_t(3));
        QCOMPARE(before.back().step, int64_t(6));
        // The event step's frame still shows the finite range of the hit tensor.
        const auto& hit = *before.back().layers[2].activation;
        QCOMPARE(hit.nan, int64_t(1));
        const auto finitePart = recorder.outputs[2].view({-1}).slice(0, 1);
        QCOMPARE_BITS(hit.min, finitePart.min().item<double>());
        QCOMPARE_BITS(hit.max, finitePart.max().item<double>());
        const auto layer1 = computeTensorStats(recorder.outputs[0]);
        QVERIFY(sameStats(*before.back().layers[0].activation, layer1));

        // Frames keep rolling after the event; the snapshot at the event does not.
        QVERIFY(!runStep(*model, locator, chain, 7, true, batch).has_value());
        QCOMPARE(locator.frames().back().step, int64_t(7));
        QCOMPARE(locator.framesAtFirstEvent().back().step, int64_t(6));
        locator.setFrameCapacity(1);
        QCOMPARE(locator.frames().size(), size_t(1));
        locator.reset();
        QVERIFY(!locator.firstEvent() && locator.frames().empty());
    }

    void forwardWithoutGradientsChecksActivationsOnly() {
        auto model = tinyModel();
        NonFiniteLocator locator;
        ForwardFault fault(0, kInf);
        ObserverChain chain;
        chain.add(&fault);
        chain.add(&locator);
        torch::NoGradGuard noGrad;
        locator.beginStep(0, true);
        model->forward(torch::randn({2, 4}), ComputePolicy{}, &chain);
        const auto event = locator.endStep();
        checkEvent(event, 0, "layer1", 0, "forward", "activation", 0, 1, 0);
        QVERIFY(!locator.frames().back().layers[0].gradient.has_value());
    }

    // A view computes nothing: a NaN it shows is named at the op that made it, or is
    // memory nothing has written yet (mm views its fresh result with resolve_conj before
    // BLAS fills it; reused memory may still hold an earlier run's NaN).
    void theFirstNonFiniteOpIsNeverAView() {
        const auto leftOver = torch::full({2, 3}, kNaN);  // made before the watch
        FirstNonFiniteOp watch;
        const auto viewed = leftOver.view({3, 2}).t().resolve_conj().detach().select(0, 1);
        QVERIFY(watch.hits().empty());
        const auto computed = viewed * viewed;
        QCOMPARE(watch.hits().size(), size_t(1));
        QCOMPARE(watch.hits().front().op, std::string("aten::mul"));
        QVERIFY(watch.hits().front().nan);
        // Writing into a view is no view: an in-place fill is named.
        auto written = torch::zeros({4});
        written.view({2, 2}).fill_(kInf);
        QCOMPARE(watch.hits().size(), size_t(2));
        QCOMPARE(watch.hits().back().op, std::string("aten::fill_"));
        QVERIFY(watch.hits().back().inf);
    }

    void aGraphMayOutliveItsLocator() {
        auto model = tinyModel();
        torch::Tensor loss;
        {
            NonFiniteLocator locator;
            locator.beginStep(0);
            loss = model->forward(torch::randn({2, 4}), ComputePolicy{}, &locator).sum();
        }
        loss.backward();  // the hooks fire after the locator is gone: harmless
        // A step that never ended is dropped by the next beginStep.
        NonFiniteLocator locator;
        locator.beginStep(0);
        auto stale = model->forward(torch::randn({2, 4}), ComputePolicy{}, &locator).sum();
        locator.beginStep(1);
        stale.backward();  // hooks of step 0 fire during step 1: ignored
        QVERIFY(!locator.endStep().has_value());
    }

    void simpleCnnHasAFrameForEveryLayer() {
        ModelConfig config;
        config.name = "simple_cnn";
        auto model = buildModel(config, {1, 28, 28}, 10);
        NonFiniteLocator locator;
        locator.beginStep(0, true);
        const auto out = model->forward(torch::randn({4, 1, 28, 28}), ComputePolicy{}, &locator);
        const auto loss = torch::cross_entropy_loss(out, torch::randint(0, 10, {4}));
        locator.checkLoss(loss);
        loss.backward();
        QVERIFY(!locator.endStep().has_value());
        const auto frame = locator.frames().back();
        QCOMPARE(frame.layers.size(), model->layerCount());
        for (size_t i = 0; i < frame.layers.size(); ++i) {
            QCOMPARE(frame.layers[i].layer, model->layerName(i));
            QVERIFY(frame.layers[i].activation && frame.layers[i].gradient);
        }
        QCOMPARE(frame.layers[0].activation->numel, int64_t(4 * 64 * 28 * 28));
    }

    // ---- update ratio ----

    void updateRatioOfKnownTensors() {
        const std::vector<torch::Tensor> before = {
            torch::tensor({3.0f, 4.0f}), torch::tensor({0.0f}), torch::tensor({1.0f, 1.0f})};
        const std::vector<torch::Tensor> after = {
            torch::tensor({3.0f, 4.5f}), torch::tensor({1.2f}), torch::tensor({1.0f, 1.0f})};
        // Parameters 0 and 1 belong to layer 0 ("fc"), parameter 2 to layer 2 ("out").
        const auto r = measureUpdateRatios(before, after, {}, {0, 0, 2}, {"fc", "act", "out"});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(r[0].layer, std::string("fc"));
        QCOMPARE_BITS(r[0].weightNorm, 5.0);
        QVERIFY(std::abs(r[0].updateNorm - std::sqrt(0.25 + 1.44)) < 1e-6);
        QVERIFY(std::abs(r[0].ratio - std::sqrt(0.25 + 1.44) / 5.0) < 1e-6);
        QCOMPARE(r[0].numel, int64_t(3));
        QVERIFY(!r[0].measuredLoss());
        QVERIFY(std::isnan(r[0].lostFraction()));
        QCOMPARE(r[1].layer, std::string("out"));
        QCOMPARE(r[1].layerIndex, int64_t(2));
        QCOMPARE_BITS(r[1].ratio, 0.0);  // nothing moved
        // A zero weight that moves has an infinite ratio.
        const auto z = measureUpdateRatios({torch::zeros({2})}, {torch::ones({2})}, {}, {0}, {"z"});
        QVERIFY(std::isinf(z[0].ratio));
    }

    void pureFp16UpdatesBelowHalfAnUlpAreLost() {
        // Weights held as fp16 values (fp32 tensors, as pure emulation holds them).
        // Around 1.0 the fp16 ulp is 2^-10, so a step below 2^-11 rounds back.
        auto w = torch::tensor({1.0f, 1.0f, 1.0f, 2.0f});
        const std::vector<torch::Tensor> params = {w};
        UpdateRatioProbe probe({"fc"}, {0});
        probe.captureBefore(params);
        w.add_(torch::tensor({1e-4f, 1e-3f, 0.0f, -1e-4f}));  // the optimizer's fp32 step
        probe.captureIntended(params);
        w.copy_(w.to(torch::kHalf).to(torch::kFloat));  // stored back in fp16
        const auto r = probe.measure(params);
        QVERIFY(!probe.captured());
        QCOMPARE(r.size(), size_t(1));
        QCOMPARE(r[0].intendedNonZero, int64_t(3));
        QCOMPARE(r[0].lost, int64_t(2));  // 1 + 1e-4 and 2 - 1e-4 round back
        QCOMPARE_BITS(r[0].lostFraction(), 2.0 / 3.0);
        // The one update that survived moved the weight by one fp16 ulp.
        QCOMPARE_BITS(r[0].updateNorm, std::ldexp(1.0, -10));
        QVERIFY(std::abs(r[0].weightNorm - std::sqrt(7.0)) < 1e-6);

        // Deltas can be given directly (e.g. -lr * g computed in fp32).
        probe.captureBefore(params);
        probe.setIntendedDelta({torch::tensor({0.0f, 0.0f, 0.0f, 0.0f})});
        const auto none = probe.measure(params);
        QCOMPARE(none[0].intendedNonZero, int64_t(0));
        QCOMPARE_BITS(none[0].lostFraction(), 0.0);
        QVERIFY_EXCEPTION_THROWN(probe.measure(params), std::logic_error);
    }
};

QTEST_APPLESS_MAIN(ProbeLocatorTest)
#include "test_probe_locator.moc"
