// The prescription's choice on hand-built sensitivities: layers kept in score order until
// they hold 90% of the total score, a layer whose FLOPs would break the budget passed over
// and said so, none kept when nothing in the format changes the loss, a non-finite score
// first; the shares and the snippets follow from the kept names.
#include <QtTest/QtTest>

#include <cmath>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "common/InputError.h"
#include "probes/Prescription.h"

using namespace ampscope;

namespace {

// Layers (name, FLOPs, score in mxfp4).
SensitivityRecord record(const std::vector<std::tuple<std::string, double, double>>& layers) {
    SensitivityRecord r;
    r.formats = {"mxfp4"};
    for (const auto& [name, flops, score] : layers) {
        LayerSensitivity layer;
        layer.layer = name;
        layer.flops = flops;
        LayerFormatSensitivity s;
        s.format = "mxfp4";
        s.score = score;
        layer.formats.push_back(s);
        r.layers.push_back(layer);
    }
    return r;
}

}  // namespace

class PrescriptionTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Total score 100: conv1 (60) alone holds 60%, with fc (32) 92% >= 90%: both kept, and
    // nothing after them. 3 + 1 = 4% of the FLOPs leave the format.
    void keepsInScoreOrderUntilNinetyPercent() {
        const auto rx = choosePrescription(
            record({{"conv1", 3.0, 60.0}, {"conv2", 96.0, 8.0}, {"fc", 1.0, 32.0}}), "mxfp4", 0.9);
        QCOMPARE(rx.kept(), (std::vector<std::string>{"conv1", "fc"}));
        QCOMPARE(rx.ranking[0].layer, std::string("conv1"));
        QCOMPARE(rx.ranking[2].layer, std::string("conv2"));
        QVERIFY(!rx.ranking[2].kept && !rx.ranking[2].overBudget);
        QCOMPARE_BITS(rx.keptScoreShare(), 0.92);
        QCOMPARE_BITS(rx.formatFlopsShare(), 1.0 - 0.03 - 0.01);
    }

    // conv2 holds most of the score but 96% of the FLOPs: keeping it would leave 4% in the
    // format, under the budget of 90%. It is passed over and said so; the next ones are kept.
    void aLayerOverTheBudgetIsPassedOver() {
        const auto rx = choosePrescription(
            record({{"conv1", 3.0, 5.0}, {"conv2", 96.0, 90.0}, {"fc", 1.0, 5.0}}), "mxfp4", 0.9);
        QCOMPARE(rx.ranking[0].layer, std::string("conv2"));
        QVERIFY(rx.ranking[0].overBudget);
        QVERIFY(!rx.ranking[0].kept);
        QCOMPARE(rx.kept(), (std::vector<std::string>{"conv1", "fc"}));
        // With a budget of 0.04 it fits (exactly 4% stay).
        const auto loose = choosePrescription(
            record({{"conv1", 3.0, 5.0}, {"conv2", 96.0, 90.0}, {"fc", 1.0, 5.0}}), "mxfp4", 0.04);
        QCOMPARE(loose.kept(), (std::vector<std::string>{"conv2"}));
    }

    // The rule is "at least 90%": conv1 (90 of 100; 0.9 * 100 is 90 exactly in doubles)
    // already holds it, so fc (10) stays in the format although its 10% of the FLOPs would fit.
    void exactlyNinetyPercentIsEnough() {
        const auto rx = choosePrescription(
            record({{"conv1", 1.0, 90.0}, {"fc", 1.0, 10.0}, {"body", 8.0, 0.0}}), "mxfp4", 0.5);
        QCOMPARE(rx.kept(), (std::vector<std::string>{"conv1"}));
        QVERIFY(!rx.ranking[1].kept && !rx.ranking[1].overBudget);
        QCOMPARE_BITS(rx.keptScoreShare(), 0.9);
    }

    // After conv2 is passed over, the kept score (5 of 100) never reaches 90%, so every layer
    // that changes the loss is kept; bias (score 0, 1% of the FLOPs, which would fit) changes
    // nothing in the format and is not, nor called over the budget.
    void aScoreZeroLayerIsNotKeptAfterTheBudgetRanOut() {
        const auto rx = choosePrescription(
            record({{"conv1", 3.0, 5.0}, {"conv2", 95.0, 95.0}, {"bias", 1.0, 0.0}, {"fc", 1.0, 0.0}}), "mxfp4", 0.9);
        QCOMPARE(rx.ranking[0].layer, std::string("conv2"));
        QVERIFY(rx.ranking[0].overBudget);
        QCOMPARE(rx.kept(), (std::vector<std::string>{"conv1"}));
        for (size_t i = 2; i < rx.ranking.size(); ++i) QVERIFY(!rx.ranking[i].kept && !rx.ranking[i].overBudget);
        QCOMPARE_BITS(rx.formatFlopsShare(), 1.0 - 0.03);
    }

    void nothingIsKeptWhenNoLayerChangesTheLoss() {
        const auto rx = choosePrescription(record({{"fc1", 1.0, 0.0}, {"fc2", 1.0, 0.0}}), "mxfp4", 0.9);
        QVERIFY(rx.kept().empty());
        QCOMPARE_BITS(rx.formatFlopsShare(), 1.0);
        QCOMPARE(prescriptionSnippets(rx.kept()).size(), size_t(1));
    }

    void aNonFiniteScoreIsKeptFirst() {
        const auto rx = choosePrescription(
            record({{"fc1", 1.0, 5.0}, {"fc2", 1.0, std::nan("")}, {"out", 1.0, 50.0}}), "mxfp4", 0.5);
        QCOMPARE(rx.ranking[0].layer, std::string("fc2"));
        QCOMPARE(rx.kept(), (std::vector<std::string>{"fc2"}));
        QCOMPARE_BITS(rx.keptScoreShare(), 1.0);
    }

    void budgetAndFormatAreChecked() {
        const auto r = record({{"fc1", 1.0, 1.0}});
        QVERIFY_THROWS_EXCEPTION(InputError, choosePrescription(r, "mxfp4", 0.0));
        QVERIFY_THROWS_EXCEPTION(InputError, choosePrescription(r, "mxfp4", 1.01));
        QVERIFY_THROWS_EXCEPTION(InputError, choosePrescription(r, "nvfp4", 0.9));
        QCOMPARE(choosePrescription(r, "mxfp4", 1.0).kept().size(), size_t(0));  // budget 1: keep nothing
    }

    void snippetsNameTheKeptLayers() {
        const auto lines = prescriptionSnippets({"conv1", "fc"});
        QVERIFY(std::find(lines.begin(), lines.end(), "        return fqn not in {\"conv1\", \"fc\"}") != lines.end());
        QVERIFY(std::find(lines.begin(), lines.end(), "    filter_fqns = [\"conv1\", \"fc\"]") != lines.end());
    }

    // prescription.json read back: a hand-written document (the fields docs/guide's
    // sensitivity-and-prescription page lists), a null score or p as NaN, and a document
    // missing a field refused with a line that names prescription.json.
    void prescriptionJsonReadsBack() {
        const auto document = nlohmann::json::parse(
            "{\"format\": \"mxfp4\", \"budget\": 0.75, \"verdict\": \"keep fc in fp32\","
            " \"ranking\": [{\"layer\": \"fc\", \"score\": null, \"flops_share\": 0.25, \"kept\": true,"
            " \"over_budget\": false}, {\"layer\": \"out\", \"score\": 0.5, \"flops_share\": 0.75,"
            " \"kept\": false, \"over_budget\": true}],"
            " \"arms\": [{\"name\": \"reference\", \"mode\": \"fp32\", \"keep_fp32\": [], \"trained\": true,"
            " \"runs\": [\"reference-seed-1\", \"reference-seed-2\"], \"val_loss\": {\"seeds\": 2, \"mean\": 1.5,"
            " \"sd\": 0.25}, \"val_accuracy\": {\"seeds\": 2, \"mean\": null, \"sd\": null}},"
            " {\"name\": \"prescribed\", \"mode\": \"mxfp4\", \"keep_fp32\": [\"fc\"], \"trained\": false,"
            " \"runs\": [], \"val_loss\": {\"seeds\": 0, \"mean\": null, \"sd\": null, \"label\": \"no band\","
            " \"p\": null}, \"val_accuracy\": {\"seeds\": 0, \"mean\": null, \"sd\": null}}]}");
        const PrescriptionRecord record = prescriptionFromJson(document);
        QCOMPARE(record.prescription.format, std::string("mxfp4"));
        QCOMPARE_BITS(record.prescription.budget, 0.75);
        QCOMPARE(record.prescription.kept(), (std::vector<std::string>{"fc"}));
        QVERIFY(std::isnan(record.prescription.ranking[0].score));
        QVERIFY(record.prescription.ranking[1].overBudget);
        QCOMPARE_BITS(record.prescription.ranking[1].flopsShare, 0.75);
        QCOMPARE(record.verdict, std::string("keep fc in fp32"));
        QCOMPARE(record.arms.size(), size_t(2));
        QCOMPARE(record.arms[0].runs, (std::vector<std::string>{"reference-seed-1", "reference-seed-2"}));
        QCOMPARE_BITS(record.arms[0].valLoss.sd, 0.25);
        QVERIFY(record.arms[0].valLoss.label.empty());
        QVERIFY(std::isnan(record.arms[0].valAccuracy.mean));
        QCOMPARE(record.arms[1].keptFp32, (std::vector<std::string>{"fc"}));
        QVERIFY(!record.arms[1].trained);
        QCOMPARE(record.arms[1].valLoss.label, std::string("no band"));
        QVERIFY(std::isnan(record.arms[1].valLoss.p));
        nlohmann::json broken = document;
        broken.erase("verdict");
        try {
            prescriptionFromJson(broken);
            QFAIL("a document without its verdict was read");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).rfind("prescription.json: not a prescription", 0) == 0, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(PrescriptionTest)
#include "test_prescription.moc"
