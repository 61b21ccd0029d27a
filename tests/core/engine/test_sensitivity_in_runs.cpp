// The sensitivity pass inside ordinary runs (probes.sensitivity_every): the engine writes
// one `sensitivity` record on each step that is a multiple of the cadence and on no
// other, whatever probes.every is; the record names the model's matmul/conv layers and
// the configured formats in their order, and fp32 (a format that rounds nothing) scores
// exactly 0; training is bit for bit the run without the pass; and the record's codec
// gives back every field's bits.
#include <QtTest/QtTest>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "RunSupport.h"
#include "config/RunConfig.h"
#include "probes/SensitivityRecord.h"

using namespace ampscope;

namespace {

// spiralsMlp: 12 steps of 32 (384 training points), probes every 2 steps.
RunConfig sensitivityRun(int64_t every, std::vector<std::string> formats, const std::string& mode = "bf16") {
    RunConfig config = test::spiralsMlp(mode);
    config.probes.sensitivity_every = every;
    config.probes.sensitivity_formats = std::move(formats);
    return config;
}

std::vector<int64_t> stepsOf(const std::vector<nlohmann::json>& records) {
    std::vector<int64_t> steps;
    for (const auto& r : records) steps.push_back(r.at("step").get<int64_t>());
    return steps;
}

}  // namespace

class SensitivityInRunsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Cadence 5 over 12 steps: steps 5 and 10 (5 is no probe step of probes.every 2, so
    // the cadence does not wait for one). Cadence 4: steps 4, 8 and 12. Cadence 0: none.
    void recordsOnExactlyTheCadenceSteps_data() {
        QTest::addColumn<int>("every");
        QTest::addColumn<QList<int>>("expected");
        QTest::newRow("every 5") << 5 << QList<int>{5, 10};
        QTest::newRow("every 4") << 4 << QList<int>{4, 8, 12};
        QTest::newRow("every 12 (the last step)") << 12 << QList<int>{12};
        QTest::newRow("every 13 (past the run)") << 13 << QList<int>{};
        QTest::newRow("off") << 0 << QList<int>{};
    }
    void recordsOnExactlyTheCadenceSteps() {
        QFETCH(int, every);
        QFETCH(QList<int>, expected);
        QTemporaryDir tmp;
        const auto run = test::runAndRead(sensitivityRun(every, {"mxfp4"}), tmp, "run");
        QCOMPARE(test::stepLosses(run).size(), size_t{12});
        std::vector<int64_t> want(expected.begin(), expected.end());
        QCOMPARE(stepsOf(test::recordsOf(run, "sensitivity")), want);
    }

    // Training with the pass is the training without it, loss for loss to the bit, and
    // the probes saw the same steps: in fp32, in bf16, in fp8 (the run's delayed-scaling history
    // is its own, the pass's fp8 twin keeps another) and in nvfp4 with stochastic
    // gradients (the run's rounding generator is not drawn from by the pass).
    void trainingIsBitForBitTheRunWithoutIt_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("fp32") << "fp32";  // where a change of one ulp in a weight shows in the loss
        QTest::newRow("bf16") << "bf16";
        QTest::newRow("fp8 delayed scaling") << "fp8";
        QTest::newRow("nvfp4 stochastic gradients") << "nvfp4";
    }
    void trainingIsBitForBitTheRunWithoutIt() {
        QFETCH(QString, mode);
        QTemporaryDir tmp;
        RunConfig off = sensitivityRun(0, {"fp8", "mxfp8", "mxfp4", "nvfp4"}, mode.toStdString());
        off.precision.fp8.recipe = "delayed";
        off.precision.nvfp4.stochastic_gradients = true;
        RunConfig on = off;
        on.probes.sensitivity_every = 3;
        const auto plain = test::runAndRead(off, tmp, "plain");
        const auto measured = test::runAndRead(on, tmp, "measured");
        QCOMPARE(test::recordsOf(measured, "sensitivity").size(), size_t{4});
        const auto a = test::stepLosses(plain), b = test::stepLosses(measured);
        QCOMPARE(a.size(), size_t{12});
        QCOMPARE(b.size(), a.size());
        for (size_t k = 0; k < a.size(); ++k) QCOMPARE_BITS(b[k], a[k]);
        const auto histograms = [](const RunData& run) {
            std::vector<std::string> text;
            for (const auto& r : test::recordsOf(run, "histogram")) text.push_back(r.dump());
            return text;
        };
        QVERIFY(!histograms(plain).empty());
        QCOMPARE(histograms(measured), histograms(plain));
        const auto validation = [](const RunData& run) {
            return test::recordsOf(run, "epoch").at(0).at("val_loss").get<double>();
        };
        QCOMPARE_BITS(validation(measured), validation(plain));
    }

    // The record as the engine writes it: the MLP's three matmul layers (fc1, fc2, out;
    // the activations do no matmul) in model order, the formats as configured, and fp32,
    // which rounds nothing, scoring exactly 0 with no element saturated or flushed.
    void recordNamesTheLayersAndFormats() {
        QTemporaryDir tmp;
        const auto run = test::runAndRead(sensitivityRun(6, {"fp32", "nvfp4"}), tmp, "run");
        const auto records = test::recordsOf(run, "sensitivity");
        QCOMPARE(records.size(), size_t{2});
        const SensitivityRecord record = sensitivityRecordFromJson(records[0]);
        QCOMPARE(record.step, int64_t{6});
        QCOMPARE(record.formats, (std::vector<std::string>{"fp32", "nvfp4"}));
        std::vector<std::string> layers;
        for (const auto& l : record.layers) layers.push_back(l.layer);
        QCOMPARE(layers, (std::vector<std::string>{"fc1", "fc2", "out"}));
        bool someNvfp4Error = false;
        for (const auto& l : record.layers) {
            QCOMPARE(l.formats.size(), size_t{2});
            QCOMPARE_BITS(l.in("fp32")->score, 0.0);
            QCOMPARE(l.in("fp32")->saturated + l.in("fp32")->flushed, int64_t{0});
            someNvfp4Error = someNvfp4Error || l.in("nvfp4")->score > 0.0;
        }
        QVERIFY2(someNvfp4Error, "nvfp4 rounds the spirals MLP's operands: some layer's score is above 0");
    }

    // Every field through the JSON text and back, bit for bit: doubles that need all 17
    // digits, a subnormal, a NaN score (a layer whose values were not finite), counts past
    // 2^53 would lose nothing either (int64 fields are integers in the text).
    void codecRoundTripsEveryFieldByBits() {
        SensitivityRecord r;
        r.step = 1234567;
        r.loss = 0.1 + 0.2;
        r.seconds = 1.0 / 3.0;
        r.formats = {"fp8", "mxfp4"};
        r.layers = {{"conv1", 2.0 / 7.0,
                     {{"fp8", 4.9e-324, -1e-300, 5e-310, 9007199254740993, 3, 17},
                      {"mxfp4", std::numeric_limits<double>::quiet_NaN(), 0.30000000000000004, 1.7976931348623157e308,
                       12, 1, 2}}},
                    {"blocks.0.attn.qkv", 1e20, {{"fp8", 0.0, -0.0, 0.0, 0, 0, 0}, {"mxfp4", 2.5, 1.25, 6.25, 8, 0, 8}}}};
        const SensitivityRecord back = sensitivityRecordFromJson(nlohmann::json::parse(toJson(r).dump()));
        QCOMPARE(back.step, r.step);
        QCOMPARE_BITS(back.loss, r.loss);
        QCOMPARE_BITS(back.seconds, r.seconds);
        QCOMPARE(back.formats, r.formats);
        QCOMPARE(back.layers.size(), r.layers.size());
        for (size_t i = 0; i < r.layers.size(); ++i) {
            const auto& a = r.layers[i];
            const auto& b = back.layers[i];
            QCOMPARE(b.layer, a.layer);
            QCOMPARE_BITS(b.flops, a.flops);
            QCOMPARE(b.formats.size(), a.formats.size());
            for (size_t k = 0; k < a.formats.size(); ++k) {
                const auto& x = a.formats[k];
                const auto& y = b.formats[k];
                QCOMPARE(y.format, x.format);
                if (std::isnan(x.score)) QVERIFY(std::isnan(y.score));
                else QCOMPARE_BITS(y.score, x.score);
                QCOMPARE_BITS(y.lossChange, x.lossChange);
                QCOMPARE_BITS(y.fisher, x.fisher);
                QCOMPARE(y.elements, x.elements);
                QCOMPARE(y.saturated, x.saturated);
                QCOMPARE(y.flushed, x.flushed);
            }
        }
        QCOMPARE(QString::fromStdString(toJson(r).at("type").get<std::string>()), QString("sensitivity"));
    }
};

QTEST_GUILESS_MAIN(SensitivityInRunsTest)
#include "test_sensitivity_in_runs.moc"
