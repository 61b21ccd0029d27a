// Records written by hand without their optional fields (EventSchema.md: "readers give
// absent fields these defaults, so runs written with fewer fields still open"): each
// absent field reads as the neutral value a writer that had none would mean, through
// the JSON reader and, for the step record, the text reader too. (test_record_codec
// round-trips full records; these are the ones a mutation of a default survived there.)
#include <QtTest/QtTest>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "run/RunLifecycleRecords.h"
#include "run/StepRecordCodec.h"

using namespace ampscope;
using nlohmann::json;

class RecordDefaultsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A step without found_inf or step_skipped (a run without a loss scaler, as the
    // Python recorder writes it): no gradient was found non-finite, the step ran.
    void aStepWithoutScalerFieldsFoundNothing() {
        const std::string line = R"({"epoch":1,"loss":0.5,"step":7,"type":"step"})";
        StepMetrics fromText;
        QVERIFY(parseStepRecordText(line, fromText));
        const auto fromJson = stepFromJson(json::parse(line));
        QVERIFY(fromJson);
        for (const StepMetrics* m : std::array<const StepMetrics*, 2>{&fromText, &*fromJson}) {
            QVERIFY(!m->foundInf);
            QVERIFY(!m->stepSkipped);
            QCOMPARE(m->growthTracker, int64_t{0});
            QVERIFY(m->scale == 1.0);  // 1 without a scaler
            QVERIFY(m->scaleAfter == 1.0);
        }
    }

    // An error record without input_error (older builds, the Python recorder): a failure
    // of the run, not bad input the user can fix.
    void anErrorWithoutInputErrorIsAFailure() {
        const auto error = errorFromJson(json::parse(R"({"type":"error","step":4,"message":"OOM"})"));
        QVERIFY(error);
        QVERIFY(!error->inputError);
        QCOMPARE(error->step, int64_t{4});
    }

    // A fault without factor (a kind that takes none: nan_grad): factor 1, the identity.
    void aFaultWithoutFactorScalesByOne() {
        const auto fault =
            faultFromJson(json::parse(R"({"type":"fault","step":3,"kind":"nan_grad","layer":"fc1"})"));
        QVERIFY(fault);
        QVERIFY(fault->factor == 1.0);
        QCOMPARE(fault->kind, std::string("nan_grad"));
    }
};

QTEST_APPLESS_MAIN(RecordDefaultsTest)
#include "test_record_defaults.moc"
