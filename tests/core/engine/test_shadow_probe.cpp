// The fp32 shadow: same batch and weights in fp32, compared with the run's
// unscaled gradients. In fp32 it repeats the run bit for bit (rel_error 0,
// cosine 1); on tiny_gradients in fp16 without a scaler its "lost" count is
// the count of fp32 gradient elements the fp16 run flushed, checked against a
// hand computation; and it never changes training.
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "data/BatchIterator.h"
#include "data/Dataset.h"
#include "engine/Engine.h"
#include "engine/ProbeSession.h"
#include "engine/Trainer.h"
#include "probes/ComparisonRecords.h"
#include "probes/GradientComparisonProbe.h"
#include "probes/ProbeRecords.h"
#include "run/RunReader.h"
#include "RunSupport.h"
#include "TestSupport.h"
#include "TinyGradientsStep.h"

using namespace ampscope;

namespace {

using test::recordsOf;
using test::runAndRead;
using test::stepLosses;

RunConfig spirals(const std::string& mode) { return test::probedSpiralsConfig(mode, 4); }

}  // namespace

class ShadowProbeTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fp32ShadowRepeatsAnFp32RunExactly() {
        QTemporaryDir tmp;
        auto config = spirals("fp32");
        config.probes.shadow_every = 3;
        const RunData run = runAndRead(config, tmp, "run");
        const auto shadows = recordsOf(run, "shadow");
        // 12 steps: the shadow runs at step 1 and every third step.
        QCOMPARE(shadows.size(), size_t(5));
        QCOMPARE(shadows[0]["step"].get<int>(), 1);
        QCOMPARE(shadows[1]["step"].get<int>(), 3);
        for (const auto& r : shadows) {
            const auto record = shadowRecordFromJson(r);
            QCOMPARE(record.layers.size(), size_t(3));  // fc1, fc2, out hold parameters
            QCOMPARE(QString::fromStdString(record.layers[0].layer), QString("fc1"));
            for (const auto& c : record.layers) {
                QCOMPARE_BITS(c.relError, 0.0);
                QCOMPARE_BITS(c.cosine, 1.0);
                QCOMPARE(c.lost, int64_t(0));
                QVERIFY(c.nonzero > 0);
            }
        }
        QCOMPARE(recordsOf(run, "shadow")[0]["layers"][0]["elements"].get<int>(), 16 * 2 + 16);
        const auto& summary = *run.summary;
        QVERIFY(summary.contains("shadow"));
        QCOMPARE_BITS(summary["shadow"]["mean_cosine_per_layer"]["fc2"].get<double>(), 1.0);
        QCOMPARE_BITS(summary["shadow"]["mean_rel_error_per_layer"]["out"].get<double>(), 0.0);
        QCOMPARE(summary["shadow"]["steps_per_layer"]["fc1"].get<int>(), 5);
    }

    void shadowOffWritesNothing() {
        QTemporaryDir tmp;
        const RunData run = runAndRead(spirals("fp32"), tmp, "run");
        QVERIFY(recordsOf(run, "shadow").empty());
        QVERIFY(!run.summary->contains("shadow"));
    }

    void shadowDoesNotChangeTraining_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("norm");
        QTest::newRow("fp16 emulated, batch norm") << "fp16" << "batch";
        QTest::newRow("bf16 real autocast") << "bf16" << "none";
        QTest::newRow("bf16-pure weights") << "bf16-pure" << "none";
    }
    void shadowDoesNotChangeTraining() {
        QFETCH(QString, mode);
        QFETCH(QString, norm);
        QTemporaryDir tmp;
        auto config = spirals(mode.toStdString());
        config.model.norm = norm.toStdString();
        const RunData plain = runAndRead(config, tmp, "plain");
        config.probes.shadow_every = 1;
        const RunData shadowed = runAndRead(config, tmp, "shadowed");
        QCOMPARE(recordsOf(shadowed, "shadow").size(), size_t(12));
        // Same losses at every step, and the same validation loss: the BatchNorm
        // running statistics the evaluation uses were not touched either.
        QCOMPARE(stepLosses(shadowed), stepLosses(plain));
        QCOMPARE_BITS((*shadowed.summary)["val_loss"].get<double>(), (*plain.summary)["val_loss"].get<double>());
        // A low-precision run differs from its shadow, but not by much.
        for (const auto& r : recordsOf(shadowed, "shadow")) {
            for (const auto& c : shadowRecordFromJson(r).layers) {
                QVERIFY2(c.cosine < 1.0 && c.cosine > 0.9, qPrintable(QString::number(c.cosine)));
                QVERIFY(c.relError > 0.0 && c.relError < 0.5);
            }
        }
    }

    void lostElementsAreTheGradientsFp16Flushed() {
        // One probed step of a linear model on tiny_gradients in emulated fp16, scaler
        // off, from zero weights (as test_probe_engine's flush count).
        test::TinyGradientsStep fixture(test::tinyGradientsLinearFp16(1));
        QVERIFY(fixture.hasBatch);
        auto& trainer = fixture.trainer;
        auto& probes = fixture.probes;
        const auto& x = fixture.x;
        const auto& y = fixture.y;
        probes.beginStep(1);
        trainer.step(x, y);
        const auto snapshot = probes.endStep();
        const auto shadow = probes.takeShadow();
        QVERIFY(shadow.has_value());
        QVERIFY(!probes.takeShadow().has_value());  // handed over once
        QCOMPARE(shadow->step, int64_t(1));
        QCOMPARE(shadow->layers.size(), size_t(1));
        const auto& c = shadow->layers[0];
        QCOMPARE(QString::fromStdString(c.layer), QString("out"));

        // By hand in fp32: from zero weights the prediction is 0, the MSE gradient
        // at the output is 2 (0 - y) / N, and the parameter gradients follow.
        const auto gradOut = 2.0 * (torch::zeros_like(y) - y) / static_cast<double>(y.numel());
        const auto s = torch::cat({gradOut.t().matmul(x).flatten(), gradOut.sum(0).flatten()});
        // The fp16 run's gradients as the optimizer saw them (scaler off: unscaled).
        const auto g = torch::cat({trainer.parameters()[0].grad().flatten(), trainer.parameters()[1].grad().flatten()});
        const int64_t lostByHand = (s.ne(0) & g.eq(0)).sum().item<int64_t>();
        const int64_t nonzeroByHand = s.ne(0).sum().item<int64_t>();
        qInfo("lost: shadow %lld, by hand %lld, flushed at fp16 rounding %lld, of %lld",
              static_cast<long long>(c.lost), static_cast<long long>(lostByHand),
              static_cast<long long>(snapshot->layers.back().gradClasses.flushed),
              static_cast<long long>(c.elements));
        QCOMPARE(c.elements, int64_t(33));
        QCOMPARE(c.nonzero, nonzeroByHand);
        QCOMPARE(c.lost, lostByHand);
        QVERIFY(c.lost > 0);
        // Every element fp16 flushed at the weight-gradient rounding is one the
        // shadow's fp32 gradient has and the run lost.
        QCOMPARE(c.lost, snapshot->layers.back().gradClasses.flushed);
        const auto sd = s.to(torch::kDouble), gd = g.to(torch::kDouble);
        const double relError = ((gd - sd).norm() / sd.norm()).item<double>();
        const double cosine = (gd.dot(sd) / (gd.norm() * sd.norm())).item<double>();
        QVERIFY2(std::abs(c.relError - relError) <= 1e-5 * relError, qPrintable(QString::number(c.relError)));
        QVERIFY2(std::abs(c.cosine - cosine) <= 1e-5, qPrintable(QString::number(c.cosine)));
        QVERIFY(c.relError > 0.0);  // the flushed weight elements are missing from g
    }

    void comparisonEdgeCases() {
        const std::vector<size_t> layers = {0, 0, 1};
        const std::vector<std::string> names = {"a", "b"};
        const auto w = torch::tensor({3.0f, 0.0f, 4.0f});
        const auto b = torch::tensor({0.0f});
        // g = (3, 0, 4 | 0) vs s = (0, 0, 4 | 0) for a: ||g-s|| = 3, ||s|| = 4, cos = 16 / (5 * 4).
        const auto result = compareGradients({w, b, torch::zeros({2})}, {torch::tensor({0.0f, 0.0f, 4.0f}), b, torch::Tensor()},
                                             layers, names);
        QCOMPARE(result.size(), size_t(2));
        QCOMPARE_BITS(result[0].relError, 0.75);
        QCOMPARE_BITS(result[0].cosine, 0.8);
        QCOMPARE(result[0].lost, int64_t(0));
        QCOMPARE(result[0].nonzero, int64_t(1));
        QCOMPARE(result[0].elements, int64_t(4));
        // Layer b: both zero (the reference has no gradient at all): identical.
        QCOMPARE_BITS(result[1].relError, 0.0);
        QCOMPARE_BITS(result[1].cosine, 1.0);
        QCOMPARE(result[1].elements, int64_t(2));
        // Everything lost: g zero where s is not.
        const auto lost = compareGradients({torch::zeros({2})}, {torch::tensor({1e-9f, -2e-9f})}, {0}, {"a"});
        QCOMPARE(lost[0].lost, int64_t(2));
        QCOMPARE_BITS(lost[0].relError, 1.0);
        QCOMPARE_BITS(lost[0].cosine, 0.0);
        // A non-finite gradient gives NaN, not a crash.
        const auto nan = compareGradients({torch::tensor({INFINITY, 1.0f})}, {torch::tensor({1.0f, 1.0f})}, {0}, {"a"});
        QVERIFY(std::isnan(nan[0].cosine));
        QVERIFY(!std::isfinite(nan[0].relError));
    }

    void shadowRecordRoundTrips() {
        ShadowRecord r{7, {{"fc1", 0.25, 0.96875, 3, 40, 48}}};
        const auto back = shadowRecordFromJson(toJson(r));
        QCOMPARE(back.step, int64_t(7));
        QCOMPARE_BITS(back.layers[0].relError, 0.25);
        QCOMPARE_BITS(back.layers[0].cosine, 0.96875);
        QCOMPARE(back.layers[0].lost, int64_t(3));
        QCOMPARE(back.layers[0].nonzero, int64_t(40));
        QCOMPARE(back.layers[0].elements, int64_t(48));
        ShadowRecord bad{1, {{"fc1", NAN, NAN, 0, 0, 1}}};
        const auto j = toJson(bad);
        QVERIFY(j["layers"][0]["rel_error"].is_null());
        QCOMPARE(j["layers"][0]["rel_error_nonfinite"].get<std::string>(), std::string("nan"));
        QVERIFY_THROWS_EXCEPTION(ProbeRecordError, shadowRecordFromJson(nlohmann::json{{"type", "shadow"}}));
    }
};

QTEST_GUILESS_MAIN(ShadowProbeTest)
#include "test_shadow_probe.moc"
