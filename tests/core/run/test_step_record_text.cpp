// The engine's per-step line (run/StepRecordCodec.h) against what nlohmann writes for the
// same record: byte for byte, over numbers of every shape JSON can take and the ones it
// cannot (NaN and Inf become null plus a tag), so a run reads back the same whichever
// path wrote it.
#include <QtTest/QtTest>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "ExactCompare.h"
#include "engine/RunRecords.h"
#include "run/StepRecordCodec.h"

using namespace ampscope;

namespace {

std::string expectedText(const StepMetrics& m) {
    return stepRecord(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string fastText(const StepMetrics& m) {
    std::string out = "prefix:";  // appends, never replaces
    appendStepRecordText(m, out);
    return out.substr(7);
}

StepMetrics typicalStep() {
    StepMetrics m;
    m.step = 123456;
    m.epoch = 7;
    m.loss = 0.6931471805599453;
    m.lr = 0.001;
    m.gradNorm = 1.25;
    m.gradNormClipped = 1.0;
    m.stepSeconds = 0.000734;
    m.samplesPerSecond = 43596.7302452316;
    m.scale = 65536.0;
    m.scaleAfter = 65536.0;
    m.growthTracker = 1999;
    return m;
}

}  // namespace

class TestStepRecordText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void typicalStepIsWrittenAsNlohmannWouldWriteIt() {
        const StepMetrics m = typicalStep();
        QCOMPARE(fastText(m), expectedText(m));
        // And it reads back as the record it stands for.
        QCOMPARE(nlohmann::json::parse(fastText(m)), stepRecord(m));
    }

    void nonFiniteValuesAreNullWithATag() {
        const double inf = std::numeric_limits<double>::infinity();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        StepMetrics m = typicalStep();
        m.loss = nan;
        m.gradNorm = inf;
        m.gradNormClipped = -inf;
        m.scale = 0.0;
        m.scaleAfter = nan;
        m.lr = nan;  // untagged field: plain null, as nlohmann writes it
        m.foundInf = true;
        m.stepSkipped = true;
        const std::string text = fastText(m);
        QCOMPARE(text, expectedText(m));
        const auto parsed = nlohmann::json::parse(text);
        QCOMPARE(parsed["loss"], nullptr);
        QCOMPARE(parsed["loss_nonfinite"], "nan");
        QCOMPARE(parsed["grad_norm_nonfinite"], "inf");
        QCOMPARE(parsed["grad_norm_clipped_nonfinite"], "-inf");
        QCOMPARE(parsed["scale_after_nonfinite"], "nan");
        QCOMPARE(parsed["lr"], nullptr);
        QVERIFY(!parsed.contains("lr_nonfinite"));
    }

    // Whole numbers keep nlohmann's ".0", tiny and huge ones its exponent form, negative
    // zero its sign; step counts beyond 2^53 stay integers.
    void numbersOfEveryShape() {
        const double values[] = {0.0,
                                 -0.0,
                                 1.0,
                                 -1.0,
                                 100000.0,
                                 1e15,
                                 1e16,
                                 1e17,
                                 123456789.0,
                                 0.1,
                                 1e-4,
                                 1e-5,
                                 1.5e-300,
                                 4.9e-324,
                                 2.2250738585072014e-308,
                                 1.7976931348623157e308,
                                 65504.0,
                                 6.103515625e-05,
                                 1.0 / 3.0};
        for (const double v : values) {
            StepMetrics m = typicalStep();
            m.loss = v;
            m.lr = -v;
            m.samplesPerSecond = v * 3.0;
            QCOMPARE(fastText(m), expectedText(m));
        }
        StepMetrics big = typicalStep();
        big.step = std::numeric_limits<int64_t>::max();
        big.epoch = std::numeric_limits<int64_t>::min();
        big.growthTracker = -1;
        QCOMPARE(fastText(big), expectedText(big));
    }

    void randomStepsMatch() {
        std::mt19937_64 random(20240501u);
        std::uniform_real_distribution<double> exponent(-320.0, 308.0);
        std::uniform_real_distribution<double> mantissa(-10.0, 10.0);
        std::uniform_int_distribution<int> coin(0, 9);
        const auto number = [&]() -> double {
            switch (coin(random)) {
                case 0:
                    return std::numeric_limits<double>::quiet_NaN();
                case 1:
                    return std::numeric_limits<double>::infinity();
                case 2:
                    return std::round(mantissa(random) * 1000.0);
                default:
                    return mantissa(random) * std::pow(10.0, exponent(random));
            }
        };
        for (int i = 0; i < 20000; ++i) {
            StepMetrics m;
            m.step = static_cast<int64_t>(random() >> 20);
            m.epoch = coin(random);
            m.loss = number();
            m.lr = number();
            m.gradNorm = number();
            m.gradNormClipped = number();
            m.stepSeconds = number();
            m.samplesPerSecond = number();
            m.scale = number();
            m.scaleAfter = number();
            m.growthTracker = coin(random) * 200;
            m.foundInf = coin(random) < 3;
            m.stepSkipped = coin(random) < 3;
            const std::string expected = expectedText(m);
            const std::string got = fastText(m);
            if (got != expected)
                QFAIL(qPrintable(
                    QStringLiteral("%1\n!=\n%2")
                        .arg(QString::fromStdString(got), QString::fromStdString(expected))));
        }
    }

    // The way back: what the engine writes reads back as the same metrics (NaN and Inf
    // of the tagged fields included).
    void linesReadBackWithoutJson() {
        std::mt19937_64 random(7u);
        std::uniform_real_distribution<double> value(-1e6, 1e6);
        std::uniform_int_distribution<int> coin(0, 9);
        const auto same = [](double a, double b) {
            return a == b || (std::isnan(a) && std::isnan(b));
        };
        const auto maybeNonFinite = [&](double v) {
            switch (coin(random)) {
                case 0:
                    return std::numeric_limits<double>::quiet_NaN();
                case 1:
                    return std::numeric_limits<double>::infinity();
                case 2:
                    return -std::numeric_limits<double>::infinity();
                default:
                    return v;
            }
        };
        for (int i = 0; i < 5000; ++i) {
            StepMetrics m;
            m.step = i + 1;
            m.epoch = i / 100 + 1;
            m.loss = maybeNonFinite(value(random));
            m.gradNorm = maybeNonFinite(value(random));
            m.gradNormClipped = maybeNonFinite(value(random));
            m.scale = maybeNonFinite(std::ldexp(1.0, coin(random) * 4));
            m.scaleAfter = maybeNonFinite(std::ldexp(1.0, coin(random) * 4));
            m.lr = value(random) * 1e-9;
            m.stepSeconds = value(random) * 1e-12;
            m.samplesPerSecond = value(random);
            m.growthTracker = coin(random);
            m.foundInf = coin(random) < 5;
            m.stepSkipped = coin(random) < 2;
            if (coin(random) == 0) m.scaleChange = ScaleChange::Growth;
            std::string line;
            appendStepRecordText(m, line);
            StepMetrics back;
            QVERIFY2(parseStepRecordText(line, back), line.c_str());
            QCOMPARE(back.step, m.step);
            QCOMPARE(back.epoch, m.epoch);
            QCOMPARE(back.growthTracker, m.growthTracker);
            QCOMPARE(back.foundInf, m.foundInf);
            QCOMPARE(back.stepSkipped, m.stepSkipped);
            QVERIFY(back.scaleChange == m.scaleChange);
            for (auto [a, b] : {std::pair{back.loss, m.loss},
                                {back.gradNorm, m.gradNorm},
                                {back.gradNormClipped, m.gradNormClipped},
                                {back.scale, m.scale},
                                {back.scaleAfter, m.scaleAfter},
                                {back.lr, m.lr},
                                {back.stepSeconds, m.stepSeconds},
                                {back.samplesPerSecond, m.samplesPerSecond}})
                QVERIFY2(same(a, b), line.c_str());
        }
        StepMetrics ignored;
        QVERIFY(!parseStepRecordText("{\"type\":\"epoch\",\"step\":1}", ignored));
        QVERIFY(!parseStepRecordText("{\"type\":\"step\"}", ignored));  // no step
        QVERIFY(!parseStepRecordText("", ignored));
        QVERIFY(!parseStepRecordText("{}", ignored));
    }

    // A step that changed the scale names the change, and a backoff the layer: the rare
    // steps with strings are nlohmann's own text (escaping included).
    void stepsWithStringsAreNlohmannsText() {
        StepMetrics m = typicalStep();
        m.scaleChange = ScaleChange::Backoff;
        m.firstNonFiniteLayer = "block\"1\"\n\xff";
        m.foundInf = true;
        QCOMPARE(fastText(m), expectedText(m));
        m.scaleChange = ScaleChange::Growth;
        m.firstNonFiniteLayer.clear();
        QCOMPARE(fastText(m), expectedText(m));
    }
};

QTEST_APPLESS_MAIN(TestStepRecordText)
#include "test_step_record_text.moc"
