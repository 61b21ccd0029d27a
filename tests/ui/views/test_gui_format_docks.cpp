// The number-format docks: Format sweep (layer x format heatmap, step slider), Scaling
// (amax, the amax the scale came from, scale, overflow marks), Block scales (exponent
// bars, crushed count, the chosen scale handed to the explorer), Format explorer (bits
// and rounded values of typed values, checked against values worked out by hand from the
// format definitions; a click on a histogram bin) and the Configure panel's format-mode
// settings. Hand-built records go in through the RecordDispatcher, the one way records
// reach views for a live run and an opened one; the last case opens a run directory
// written with them in the window.
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "ExactCompare.h"
#include "FormatRecordSupport.h"
#include "OneRunSet.h"
#include <cmath>
#include <nlohmann/json.hpp>

#include "configure/ConfigPanel.h"
#include "window/MainWindow.h"
#include "window/DockLayout.h"
#include "runset/RecordDispatcher.h"
#include "config/ConfigJson.h"
#include "engine/RunRecords.h"
#include "plots/CategoryHeatmapPlot.h"
#include "plots/ExponentBarsPlot.h"
#include "plots/FormatRangesPlot.h"
#include "plots/ScalingPlot.h"
#include "probes/FormatQuantRecord.h"
#include "probes/FormatSweepRecord.h"
#include "probes/ProbeRecords.h"
#include "run/RunWriter.h"
#include "scenarios/ScenarioCatalogue.h"
#include "views/BlockScalesView.h"
#include "views/FormatExplorerView.h"
#include "views/FormatSweepView.h"
#include "views/ScalingView.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

nlohmann::json runInfo(const std::vector<std::string>& layers) {
    return {{"type", "run_info"}, {"layers", layers}};
}

// Feeds records to views the way the window's run feed does: beginRun, the records, one
// endOfBatch.
class Feed {
public:
    explicit Feed(std::vector<RunObserver*> views) : views_(std::move(views)), dispatcher_(views_) {
        RunConfig config;
        config.probes.every = 10;
        dispatcher_.beginRun(RunContext{config, QStringLiteral("test"), QString(), false});
    }
    Feed& operator<<(const nlohmann::json& record) {
        dispatcher_.take(record);
        return *this;
    }
    void endBatch() { dispatcher_.endBatch(); }

private:
    std::vector<RunObserver*> views_;
    RecordDispatcher dispatcher_;
};

// The column of a format in the sweep heatmap.
int columnOf(const CategoryHeatmapPlot* map, const QString& format) {
    return static_cast<int>(map->columns().indexOf(format));
}

std::vector<std::pair<double, double>> points(const QCPGraph* graph) {
    std::vector<std::pair<double, double>> out;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out.emplace_back(it->key, it->value);
    return out;
}

void settle(QWidget& widget) {
    widget.resize(1000, 700);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
}

}  // namespace

class GuiFormatDocksTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Cells are each record's metric, per layer x format, at the slider's step.
    void formatSweepCellsAreTheRecordsMetricAtTheChosenStep() {
        OneRunSet viewFeed;
        FormatSweepView view(&viewFeed.set);
        Feed feed({&viewFeed});
        feed << runInfo({"fc1", "act1", "fc2"});
        // Step 10: fc1 loses 25 of 200 elements to underflow in e4m3, fc2 saturates 3 of
        // 300 in fp16; SNR = 10 log10(signal / error).
        feed << toJson(sweep(10, "fc2", "gradient", "fp16", 300, 0, 3, 1.0, 1000.0));  // 30 dB
        feed << toJson(sweep(10, "fc2", "gradient", "e4m3", 300, 6, 0, 1.0, 100.0));   // 20 dB
        feed << toJson(sweep(10, "fc1", "gradient", "fp16", 200, 0, 0, 0.0, 50.0));    // exact
        feed << toJson(sweep(10, "fc1", "gradient", "e4m3", 200, 25, 0, 10.0, 100.0)); // 10 dB
        feed << toJson(sweep(10, "fc1", "activation", "fp16", 400, 100, 0, 1.0, 1.0)); // 0 dB
        feed << toJson(sweep(20, "fc1", "gradient", "fp16", 200, 2, 0, 1.0, 1.0e4));   // 40 dB
        feed << toJson(sweep(20, "fc1", "gradient", "e4m3", 200, 50, 0, 1.0, 10.0));   // 10 dB
        feed << toJson(sweep(20, "fc2", "gradient", "fp16", 300, 0, 30, 1.0, 1.0e5));  // 50 dB
        feed.endBatch();

        const CategoryHeatmapPlot* map = view.heatmap();
        QCOMPARE(map->rows(), QStringList({"fc1", "fc2"}));  // model order; act1 has none
        QCOMPARE(map->columns(), QStringList({"fp16", "e4m3"}));  // as the records named them
        const int fp16 = columnOf(map, "fp16"), e4m3 = columnOf(map, "e4m3");

        // The slider follows the latest step: 20.
        QCOMPARE(view.keptSteps(), (std::vector<int64_t>{10, 20}));
        QCOMPARE(view.stepSlider()->value(), 1);
        QCOMPARE(view.shownStep(), int64_t{20});
        QCOMPARE(view.metric(), FormatSweepView::Metric::Underflow);
        QCOMPARE_BITS(map->value(0, fp16), 2.0 / 200.0);
        QCOMPARE_BITS(map->value(0, e4m3), 50.0 / 200.0);
        QCOMPARE_BITS(map->value(1, fp16), 0.0);
        QVERIFY(std::isnan(map->value(1, e4m3)));  // no record for fc2 in e4m3 at step 20
        QCOMPARE(map->drawnText(0, e4m3), QStringLiteral("25.0%"));
        QCOMPARE(map->drawnText(1, e4m3), QStringLiteral("\u2013"));

        view.setMetric(FormatSweepView::Metric::Saturation);
        QCOMPARE_BITS(map->value(1, fp16), 30.0 / 300.0);
        view.setMetric(FormatSweepView::Metric::Snr);
        QCOMPARE_BITS(map->value(0, fp16), 40.0);
        QCOMPARE_BITS(map->value(1, fp16), 50.0);
        QCOMPARE(map->drawnText(1, fp16), QStringLiteral("50.0 dB"));

        // Back to step 10 with the slider.
        view.stepSlider()->setValue(0);
        QCOMPARE(view.shownStep(), int64_t{10});
        QCOMPARE(view.stepLabel()->text(), QStringLiteral("step 10 (1 of 2)"));
        QCOMPARE_BITS(map->value(0, e4m3), 10.0);
        QVERIFY(std::isinf(map->value(0, fp16)) && map->value(0, fp16) > 0);  // held exactly
        QCOMPARE(map->drawnText(0, fp16), QStringLiteral("exact"));
        QCOMPARE_BITS(map->value(1, fp16), 30.0);
        QCOMPARE_BITS(map->value(1, e4m3), 20.0);
        view.setMetric(FormatSweepView::Metric::Underflow);
        QCOMPARE_BITS(map->value(0, e4m3), 25.0 / 200.0);
        QCOMPARE_BITS(map->value(1, e4m3), 6.0 / 300.0);
        view.setMetric(FormatSweepView::Metric::Saturation);
        QCOMPARE_BITS(map->value(1, fp16), 3.0 / 300.0);

        // A new step while the slider is held back: it stays at step 10.
        feed << toJson(sweep(30, "fc1", "gradient", "fp16", 200, 0, 0, 1.0, 1.0));
        feed.endBatch();
        QCOMPARE(view.shownStep(), int64_t{10});
        QCOMPARE(view.stepSlider()->maximum(), 2);

        // The activations: only fc1, at step 10.
        view.setTensor(QStringLiteral("activation"));
        QCOMPARE(map->rows(), QStringList({"fc1"}));
        view.setMetric(FormatSweepView::Metric::Underflow);
        QCOMPARE_BITS(map->value(0, fp16), 100.0 / 400.0);
        QCOMPARE(view.shownStep(), int64_t{10});
    }

    void aDamagedRecordIsSkippedWithOneWarning() {
        // A record of the right type that does not parse (a damaged line of a recorded
        // run): one warning from the run set that stores it, naming the record's type and
        // the field, and the records after it still count.
        OneRunSet viewFeed;
        FormatSweepView view(&viewFeed.set);
        Feed feed({&viewFeed});
        feed << runInfo({"fc1"});
        auto damaged = toJson(sweep(10, "fc1", "gradient", "fp16", 200, 5, 0, 1.0, 100.0));
        damaged["elements"] = "many";
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("^run set: skipped a format_sweep record: .*\"elements\".+"));
        feed << damaged;
        feed << toJson(sweep(20, "fc1", "gradient", "fp16", 200, 4, 0, 1.0, 100.0));
        feed.endBatch();
        QCOMPARE(view.keptSteps(), (std::vector<int64_t>{20}));
        QCOMPARE_BITS(view.heatmap()->value(0, columnOf(view.heatmap(), "fp16")), 4.0 / 200.0);
    }

    void formatSweepSaysWhyItIsEmpty() {
        OneRunSet viewFeed;
        FormatSweepView view(&viewFeed.set);
        Feed feed({&viewFeed});
        feed << runInfo({"fc1"});
        feed.endBatch();
        QVERIFY(view.heatmap()->placeholderText().contains(QStringLiteral("No format sweep yet")));
        QCOMPARE(view.stepLabel()->text(), QStringLiteral("no sweep yet"));
    }

    // amax and scale_amax per step, the scale, and marks exactly at saturated > 0.
    void scalingHoldsAmaxScaleAmaxAndMarksOverflowSteps() {
        OneRunSet viewFeed;
        ScalingView view(&viewFeed.set);
        Feed feed({&viewFeed});
        feed << runInfo({"fc1", "fc2"});
        // Delayed scaling: the history's amax lags the tensor's own as it grows.
        feed << toJson(quant(1, 2.0, 0.0, 1.0, 0));
        feed << toJson(quant(11, 4.0, 2.0, 224.0, 12));
        feed << toJson(quant(21, 4.5, 4.0, 112.0, 0));
        feed << toJson(quant(31, 16.0, 4.5, 448.0 / 4.5, 40));
        feed.endBatch();
        QCOMPARE(view.point(), QStringLiteral("fc1: input (forward)"));
        const ScalingPlot* plot = view.plot();
        QVERIFY(plot->perTensorScale());
        const auto amax = points(plot->amaxGraph());
        QCOMPARE(amax.size(), std::size_t{4});
        QCOMPARE(amax[0], std::make_pair(1.0, 2.0));
        QCOMPARE(amax[1], std::make_pair(11.0, 4.0));
        QCOMPARE(amax[2], std::make_pair(21.0, 4.5));
        QCOMPARE(amax[3], std::make_pair(31.0, 16.0));
        const auto from = points(plot->scaleAmaxGraph());
        QCOMPARE(from.size(), std::size_t{4});
        QVERIFY(std::isnan(from[0].second));  // no history yet: a gap on the log axis
        QCOMPARE(from[1], std::make_pair(11.0, 2.0));
        QCOMPARE(from[2], std::make_pair(21.0, 4.0));
        QCOMPARE(from[3], std::make_pair(31.0, 4.5));
        const auto scale = points(plot->scaleGraph());
        QCOMPARE(scale[1], std::make_pair(11.0, 224.0));
        // The overflow marks: steps 11 and 31, on the amax line.
        QCOMPARE(points(plot->overflowGraph()),
                 (std::vector<std::pair<double, double>>{{11.0, 4.0}, {31.0, 16.0}}));
        QCOMPARE(view.overflowSteps(), (std::vector<int64_t>{11, 31}));
        QVERIFY2(view.note()->text().contains(QStringLiteral("Overflow steps: 2 of 4")),
                 qPrintable(view.note()->text()));
        QVERIFY2(view.note()->text().contains(QStringLiteral("lag \u00D73.56")), qPrintable(view.note()->text()));
        // The tooltip at step 31 gives the lag 16 / 4.5.
        QVERIFY(plot->hoverText(31.0, QPoint()).contains(QStringLiteral("3.55556")));
    }

    // A against B: the focused run's points in the first plot, the compared run's in the
    // second, each under its run's name; with no run compared B's side is hidden.
    void scalingShowsTheComparedRunBesideTheFocusedOne() {
        OneRunSet viewFeed;
        ScalingView view(&viewFeed.set);
        settle(view);
        RunConfig config;
        config.probes.every = 10;
        viewFeed.addRun(RunContext{config, QStringLiteral("delayed"), QString(), false});
        viewFeed.takeRecord(toJson(quant(1, 2.0, 0.0, 1.0, 0)));
        viewFeed.takeRecord(toJson(quant(11, 248.0, 4.4, 101.0, 460)));
        viewFeed.endOfBatch();
        QVERIFY(view.partnerPlot()->parentWidget()->isHidden());

        viewFeed.addRun(RunContext{config, QStringLiteral("current"), QString(), false});
        viewFeed.takeRecord(toJson(quant(1, 2.0, 2.0, 224.0, 0)));
        viewFeed.takeRecord(toJson(quant(11, 248.0, 248.0, 1.8, 0)));
        viewFeed.endOfBatch();
        QVERIFY(view.setPoint(QStringLiteral("fc1: input (forward)")));
        QVERIFY(!view.partnerPlot()->parentWidget()->isHidden());
        // A: the focused run (the one added last), B: the other.
        QCOMPARE(points(view.plot()->scaleAmaxGraph()),
                 (std::vector<std::pair<double, double>>{{1.0, 2.0}, {11.0, 248.0}}));
        QCOMPARE(points(view.partnerPlot()->scaleAmaxGraph())[1], std::make_pair(11.0, 4.4));
        QVERIFY(points(view.plot()->overflowGraph()).empty());
        QCOMPARE(points(view.partnerPlot()->overflowGraph()),
                 (std::vector<std::pair<double, double>>{{11.0, 248.0}}));
        const QList<QLabel*> titles = view.findChildren<QLabel*>();
        const auto titled = [&titles](const QString& text) {
            return std::any_of(titles.begin(), titles.end(), [&](const QLabel* l) { return l->text().contains(text); });
        };
        QVERIFY(titled(QStringLiteral("current")) && titled(QStringLiteral("delayed")));
    }

    void scalingOfAnMxPointDrawsNoTensorScale() {
        OneRunSet viewFeed;
        ScalingView view(&viewFeed.set);
        Feed feed({&viewFeed});
        FormatQuantRecord r = mxBlocks(10, {{-2, 3}}, 0);  // scale NaN: MX
        feed << toJson(r);
        feed.endBatch();
        QVERIFY(!view.plot()->perTensorScale());
        QVERIFY(!view.plot()->scaleGraph()->visible());
        QCOMPARE(points(view.plot()->amaxGraph()), (std::vector<std::pair<double, double>>{{10.0, 3.0}}));
    }

    // The bars are the record's exponents; the crushed count is said; the chosen scale
    // is the most common exponent until a bar is clicked.
    void blockScalesShowTheRecordsExponentsAndCrushedCount() {
        OneRunSet viewFeed;
        BlockScalesView view(&viewFeed.set);
        QSignalSpy chosen(&view, &BlockScalesView::blockScaleChosen);
        Feed feed({&viewFeed});
        feed << runInfo({"fc1", "fc2"});
        feed << toJson(quant(10, 4.0, 4.0, 112.0, 0));  // a per-tensor point, listed after
        feed << toJson(mxBlocks(10, {{-3, 2}, {-2, 5}, {0, 3}}, 7));
        feed << toJson(mxBlocks(20, {{-4, 1}, {-1, 9}}, 11));
        feed.endBatch();
        QCOMPARE(view.point(), QStringLiteral("fc2: weight (forward)"));
        QCOMPARE(view.shownStep(), int64_t{20});
        QCOMPARE(view.plot()->bars(), (std::map<int, int64_t>{{-4, 1}, {-1, 9}}));
        QVERIFY2(view.summary()->text().contains(QStringLiteral("10 blocks of 32 elements (e2m1)")),
                 qPrintable(view.summary()->text()));
        QVERIFY2(view.summary()->text().contains(QStringLiteral("crushed by an outlier: 11 elements")),
                 qPrintable(view.summary()->text()));
        QCOMPARE(view.chosenExponent(), std::optional<int>(-1));
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.last().at(0).toInt(), -1);
        QCOMPARE(chosen.last().at(1).toString(), QStringLiteral("e2m1"));

        view.stepSlider()->setValue(0);
        QCOMPARE(view.shownStep(), int64_t{10});
        QCOMPARE(view.plot()->bars(), (std::map<int, int64_t>{{-3, 2}, {-2, 5}, {0, 3}}));
        QVERIFY(view.summary()->text().contains(QStringLiteral("crushed by an outlier: 7 elements")));
        QCOMPARE(view.chosenExponent(), std::optional<int>(-2));

        // A click on the bar of 2^0 chooses it.
        settle(view);
        view.plot()->replot();
        QTest::mouseClick(view.plot(), Qt::LeftButton, Qt::NoModifier, view.plot()->barCentre(0));
        QCOMPARE(view.chosenExponent(), std::optional<int>(0));
        QCOMPARE(view.plot()->selectedExponent(), std::optional<int>(0));
        QCOMPARE(chosen.last().at(0).toInt(), 0);

        // The per-tensor point has no block scales and says so.
        view.setPoint(QStringLiteral("fc1: input (forward)"));
        QVERIFY(view.plot()->bars().empty());
        QVERIFY(view.plot()->placeholderText().contains(QStringLiteral("no block scales")));
    }

    // Values worked out by hand from the format definitions (IEEE 754 binary16/32,
    // bfloat16, OCP OFP8 E4M3/E5M2, OCP MX E2M1 and E8M0).
    void formatExplorerShowsBitsAndRoundedValues() {
        OneRunSet viewFeed;
        FormatExplorerView view(&viewFeed.set);
        // 0.1 = 1.6 x 2^-4. fp16: exponent -4 + 15 = 01011, mantissa round(0.6 x 2^10) =
        // 614 = 1001100110: 0x2e66 = 1638 / 2^14 = 0.0999755859375.
        view.setValueText(QStringLiteral("0.1"));
        QCOMPARE_BITS(view.value(), 0.1);
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kCode), QStringLiteral("0x2e66"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kBits), QStringLiteral("0 01011 1001100110"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kValue), QStringLiteral("0.0999755859375"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kOutcome), QStringLiteral("rounded"));
        // bf16: exponent -4 + 127 = 01111011, mantissa round(0.6 x 2^7) = 77 = 1001101:
        // 0x3dcd = 205 / 2^11 = 0.10009765625.
        QCOMPARE(view.cellText("bf16", FormatExplorerView::kCode), QStringLiteral("0x3dcd"));
        QCOMPARE(view.cellText("bf16", FormatExplorerView::kValue), QStringLiteral("0.10009765625"));
        // fp32: 0x3dcccccd = 13421773 / 2^27 = 0.100000001490116119384765625.
        QCOMPARE(view.cellText("fp32", FormatExplorerView::kCode), QStringLiteral("0x3dcccccd"));
        QCOMPARE(view.cellText("fp32", FormatExplorerView::kValue), QStringLiteral("0.10000000149011612"));
        QCOMPARE(view.cellText("fp32", FormatExplorerView::kBits),
                 QStringLiteral("0 01111011 10011001100110011001101"));
        // e4m3: 0.1 = 1.6 x 2^-4, exponent -4 + 7 = 0011, mantissa round(0.6 x 8) = 5 =
        // 101: 0x1d = 1.625 / 16 = 0.1015625.
        QCOMPARE(view.cellText("e4m3", FormatExplorerView::kCode), QStringLiteral("0x1d"));
        QCOMPARE(view.cellText("e4m3", FormatExplorerView::kValue), QStringLiteral("0.1015625"));

        // 300 = 1.171875 x 2^8. e4m3 (spacing 2^5 there): 300 / 32 = 9.375 -> 9: 288 =
        // 1.125 x 2^8, exponent 8 + 7 = 1111, mantissa 001: 0x79.
        view.setValueText(QStringLiteral("300"));
        QCOMPARE(view.cellText("e4m3", FormatExplorerView::kCode), QStringLiteral("0x79"));
        QCOMPARE(view.cellText("e4m3", FormatExplorerView::kValue), QStringLiteral("288"));
        QCOMPARE(view.cellText("e4m3", FormatExplorerView::kError), QStringLiteral("-4.00e-02"));
        // e5m2 (spacing 2^6): 300 / 64 = 4.6875 -> 5: 320 = 1.25 x 2^8, exponent 8 + 15 =
        // 10111, mantissa 01: 0x5d.
        QCOMPARE(view.cellText("e5m2", FormatExplorerView::kCode), QStringLiteral("0x5d"));
        QCOMPARE(view.cellText("e5m2", FormatExplorerView::kValue), QStringLiteral("320"));
        // e2m1 holds at most 6 = 1.5 x 2^2 (0 11 1): saturated.
        QCOMPARE(view.cellText("e2m1", FormatExplorerView::kCode), QStringLiteral("0x7"));
        QCOMPARE(view.cellText("e2m1", FormatExplorerView::kValue), QStringLiteral("6"));
        QVERIFY(view.cellText("e2m1", FormatExplorerView::kOutcome).startsWith(QStringLiteral("saturated")));
        // 300 is exact in fp16: 1.171875 x 2^8, mantissa 0.171875 x 1024 = 176 = 0010110000,
        // exponent 23 = 10111: 0x5cb0.
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kCode), QStringLiteral("0x5cb0"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kOutcome), QStringLiteral("exact"));

        // Under the block scale 2^6 in e2m1: 300 / 64 = 4.6875, between e2m1's 4 and 6
        // (spacing 2 there) -> 4 = 0 11 0 = 0x6; times 64: 256. e8m0 code of 2^6: 6 + 127 =
        // 133 = 0x85.
        view.setBlockScale(6, QStringLiteral("e2m1"));
        QCOMPARE(view.scaleSpin()->value(), 6);
        QCOMPARE(view.cellText("block", FormatExplorerView::kFormat), QStringLiteral("e2m1 \u00D7 2\u2076"));
        QCOMPARE(view.cellText("block", FormatExplorerView::kCode), QStringLiteral("0x6"));
        QCOMPARE(view.cellText("block", FormatExplorerView::kValue), QStringLiteral("256"));
        QVERIFY2(view.scaleLabel()->text().contains(QStringLiteral("0x85")), qPrintable(view.scaleLabel()->text()));
        // e4m3 elements under 2^-2: 300 x 4 = 1200 > 448: saturates to 448, times 1/4: 112.
        view.setBlockScale(-2, QStringLiteral("e4m3"));
        QCOMPARE(view.cellText("block", FormatExplorerView::kValue), QStringLiteral("112"));
        QVERIFY(view.cellText("block", FormatExplorerView::kOutcome).startsWith(QStringLiteral("saturated")));

        // fp16 limits: 1e-8 < 2^-25 flushes to 0; 1e5 saturates at 65504 = 0x7bff.
        view.setValueText(QStringLiteral("1e-8"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kCode), QStringLiteral("0x0000"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kOutcome), QStringLiteral("flushed to 0"));
        view.setValueText(QStringLiteral("-1e5"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kCode), QStringLiteral("0xfbff"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kValue), QStringLiteral("-65504"));
        // e2m1's tie: 2.5 lies halfway between 2 (0 10 0) and 3 (0 10 1): to the even
        // mantissa, 2 = 0x4.
        view.setValueText(QStringLiteral("2.5"));
        QCOMPARE(view.cellText("e2m1", FormatExplorerView::kCode), QStringLiteral("0x4"));
        QCOMPARE(view.cellText("e2m1", FormatExplorerView::kValue), QStringLiteral("2"));

        // Not a number: one line, and the table stays as it was.
        view.setValueText(QStringLiteral("zero point one"));
        QVERIFY(view.errorText().contains(QStringLiteral("is not a number")));
        QCOMPARE_BITS(view.value(), 2.5);
        QCOMPARE(view.cellText("e2m1", FormatExplorerView::kValue), QStringLiteral("2"));
    }

    // The chosen layer's gradient histogram under the ranges; a click on bin k sets the
    // value to the bin's geometric middle 2^(k+1/2).
    void formatExplorerBinClickSetsTheValue() {
        OneRunSet viewFeed;
        FormatExplorerView view(&viewFeed.set);
        Feed feed({&viewFeed});
        feed << runInfo({"fc1", "fc2"});
        HistogramRecord h;
        h.step = 10;
        h.layer = "fc2";
        h.kind = std::string(probe_kind::kParamGrad);
        h.histogram.counts[static_cast<std::size_t>(-20 - kMinExponent)] = 40;
        h.histogram.counts[static_cast<std::size_t>(-12 - kMinExponent)] = 100;
        h.histogram.zero = 5;
        feed << toJson(h);
        HistogramRecord scaled = h;  // another kind: not the one drawn
        scaled.kind = std::string(probe_kind::kParamGradScaled);
        scaled.histogram.counts[static_cast<std::size_t>(0 - kMinExponent)] = 999;
        feed << toJson(scaled);
        feed.endBatch();
        QCOMPARE(view.layer(), QStringLiteral("fc2"));
        QCOMPARE(view.rangesPlot()->histogram(), (std::map<int, int64_t>{{-20, 40}, {-12, 100}}));
        QCOMPARE(view.rangesPlot()->formats().size(), std::size_t{6});
        QCOMPARE(view.rangesPlot()->formats()[1].name, QStringLiteral("fp16"));
        QCOMPARE_BITS(view.rangesPlot()->formats()[1].minSubnormal, std::ldexp(1.0, -24));

        settle(view);
        view.rangesPlot()->replot();
        QTest::mouseClick(view.rangesPlot(), Qt::LeftButton, Qt::NoModifier, view.rangesPlot()->binCentre(-20));
        // 2^-19.5 = sqrt(2) x 2^-20.
        QVERIFY2(std::fabs(view.value() / std::ldexp(std::sqrt(2.0), -20) - 1.0) < 1e-15,
                 qPrintable(QString::number(view.value(), 'g', 17)));
        QCOMPARE_BITS(view.rangesPlot()->markedLog2(), std::log2(view.value()));
        // In fp16 it is subnormal: 2^-19.5 / 2^-24 = 2^4.5 = 22.63 -> 23 x 2^-24 = 0x0017.
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kCode), QStringLiteral("0x0017"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kValue), QStringLiteral("1.3709068298339844e-06"));
        QCOMPARE(view.cellText("fp16", FormatExplorerView::kOutcome), QStringLiteral("subnormal"));
    }

    // fp8's settings for fp8, the MX scale rule for mxfp8 and mxfp4, stochastic gradients
    // for nvfp4, none otherwise; each writes its config key.
    void configPanelShowsTheFormatModesSettings() {
        ConfigPanel panel;
        panel.resize(400, 1400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* mode = qobject_cast<QComboBox*>(panel.fieldWidget(QStringLiteral("precision.mode")));
        QVERIFY(mode);
        for (const char* name : {"fp8", "mxfp8", "mxfp4", "nvfp4"}) {
            const int index = mode->findText(QString::fromLatin1(name));
            QVERIFY2(index >= 0, name);
            QVERIFY2(mode->itemData(index, Qt::ToolTipRole).toString().contains(QStringLiteral("EMULATED")), name);
        }
        QVERIFY(!mode->itemData(mode->findText(QStringLiteral("bf16")), Qt::ToolTipRole).toString().contains(
            QStringLiteral("EMULATED")));

        const QStringList fp8Fields = {"precision.fp8.format", "precision.fp8.recipe", "precision.fp8.amax_history_len",
                                       "precision.fp8.amax_compute", "precision.fp8.margin"};
        const QString mxField = QStringLiteral("precision.mx.scale_rule");
        const QString nvField = QStringLiteral("precision.nvfp4.stochastic_gradients");
        const auto shown = [&](const QString& path) { return panel.fieldWidget(path)->isVisible(); };
        const auto expectShown = [&](bool fp8, bool mx, bool nv) {
            for (const QString& path : fp8Fields) QVERIFY2(shown(path) == fp8, qPrintable(path));
            QCOMPARE(shown(mxField), mx);
            QCOMPARE(shown(nvField), nv);
        };
        expectShown(false, false, false);  // fp32

        mode->setCurrentIndex(mode->findText(QStringLiteral("fp8")));
        expectShown(true, false, false);
        qobject_cast<QComboBox*>(panel.fieldWidget("precision.fp8.format"))->setCurrentText(QStringLiteral("e4m3"));
        qobject_cast<QComboBox*>(panel.fieldWidget("precision.fp8.recipe"))->setCurrentText(QStringLiteral("current"));
        qobject_cast<QComboBox*>(panel.fieldWidget("precision.fp8.amax_compute"))
            ->setCurrentText(QStringLiteral("most_recent"));
        qobject_cast<QLineEdit*>(panel.fieldWidget("precision.fp8.amax_history_len"))->setText(QStringLiteral("16"));
        qobject_cast<QLineEdit*>(panel.fieldWidget("precision.fp8.margin"))->setText(QStringLiteral("2"));
        RunConfig c = panel.config();
        QCOMPARE(c.precision.mode, std::string("fp8"));
        QCOMPARE(c.precision.fp8.format, std::string("e4m3"));
        QCOMPARE(c.precision.fp8.recipe, std::string("current"));
        QCOMPARE(c.precision.fp8.amax_compute, std::string("most_recent"));
        QCOMPARE(c.precision.fp8.amax_history_len, int64_t{16});
        QCOMPARE(c.precision.fp8.margin, int64_t{2});
        QVERIFY(panel.isValid());
        // A margin past 64 is marked at its field with validation's message.
        qobject_cast<QLineEdit*>(panel.fieldWidget("precision.fp8.margin"))->setText(QStringLiteral("65"));
        QVERIFY(!panel.isValid());
        QVERIFY(panel.fieldMessage(QStringLiteral("precision.fp8.margin")).contains(QStringLiteral("precision.fp8.margin")));
        qobject_cast<QLineEdit*>(panel.fieldWidget("precision.fp8.margin"))->setText(QStringLiteral("0"));

        for (const char* mx : {"mxfp8", "mxfp4"}) {
            mode->setCurrentIndex(mode->findText(QString::fromLatin1(mx)));
            expectShown(false, true, false);
        }
        qobject_cast<QComboBox*>(panel.fieldWidget(mxField))->setCurrentText(QStringLiteral("rceil"));
        QCOMPARE(panel.config().precision.mx.scale_rule, std::string("rceil"));

        mode->setCurrentIndex(mode->findText(QStringLiteral("nvfp4")));
        expectShown(false, false, true);
        qobject_cast<QCheckBox*>(panel.fieldWidget(nvField))->setChecked(true);
        QVERIFY(panel.config().precision.nvfp4.stochastic_gradients);

        mode->setCurrentIndex(mode->findText(QStringLiteral("fp16")));
        expectShown(false, false, false);

        // A config with a format mode shows its rows on load.
        RunConfig loaded;
        loaded.precision.mode = "mxfp4";
        loaded.precision.mx.scale_rule = "rceil";
        panel.setConfig(loaded);
        expectShown(false, true, false);
        QCOMPARE(qobject_cast<QComboBox*>(panel.fieldWidget(mxField))->currentText(), QStringLiteral("rceil"));
    }

    // Ten docks share the large tab group: their tabs keep whole titles (and scroll)
    // instead of being elided to "Scal…".
    void dockTabsKeepTheirWholeTitles() {
        MainWindowOptions options;
        options.persistSettings = false;
        MainWindow window(options);
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTabBar* group = nullptr;
        for (QTabBar* bar : window.findChildren<QTabBar*>())
            for (int i = 0; i < bar->count(); ++i)
                if (bar->tabText(i) == QStringLiteral("Format explorer")) group = bar;
        QVERIFY(group);
        QCOMPARE(group->elideMode(), Qt::ElideNone);
        QVERIFY(group->usesScrollButtons());
        QStringList titles;
        for (int i = 0; i < group->count(); ++i) titles << group->tabText(i);
        for (const char* title : {"Format sweep", "Scaling", "Block scales", "Format explorer"})
            QVERIFY2(titles.contains(QString::fromLatin1(title)), title);
    }

    // A scenario's narrative points at docks (scenario.json "docks"): every id names a
    // dock of the window, and loading the scenario brings them to the front.
    void scenariosRaiseTheDocksTheirNarrativesPointAt() {
        MainWindowOptions options;
        options.persistSettings = false;
        MainWindow window(options);
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (const Scenario& scenario : builtInScenarios())
            for (const std::string& id : scenario.docks)
                QVERIFY2(window.findChild<QDockWidget*>(QString::fromStdString(id) + QStringLiteral("Dock")),
                         (scenario.name + ": " + id).c_str());
        const auto frontTabs = [&window] {
            QStringList current;
            for (QTabBar* bar : window.findChildren<QTabBar*>())
                if (bar->currentIndex() >= 0) current << bar->tabText(bar->currentIndex());
            return current;
        };
        QVERIFY(!frontTabs().contains(QStringLiteral("Block scales")));
        QVERIFY(window.loadScenario(QStringLiteral("mx-outlier-block")));
        QTRY_VERIFY(frontTabs().contains(QStringLiteral("Block scales")));
        QVERIFY(window.loadScenario(QStringLiteral("fp8-delayed-scaling-lag")));
        QTRY_VERIFY(frontTabs().contains(QStringLiteral("Scaling")));
    }

    // The window: the four docks are listed and named for --show-dock, an opened run's
    // records reach them, and the Block scales dock's choice reaches the explorer.
    void theWindowFeedsTheFormatDocksFromAnOpenedRun() {
        QTemporaryDir tmp;
        const std::string dir = tmp.filePath("mx").toStdString();
        RunConfig config;
        config.precision.mode = "mxfp4";
        config.probes.every = 10;
        {
            RunWriter writer(dir, configToJson(config));
            writer.append(runInfo({"fc1", "fc2"}));
            writer.append(toJson(mxBlocks(10, {{-3, 4}, {-1, 6}}, 9)));
            writer.append(toJson(sweep(10, "fc1", "gradient", "mxfp4", 64, 16, 0, 1.0, 10.0)));
            writer.append(toJson(quant(10, 4.0, 2.0, 112.0, 3)));
            RunSummary summary;
            summary.mode = "mxfp4";
            summary.steps = 10;
            writer.writeSummary(summaryToJson(summary));
            writer.close();
        }
        MainWindowOptions options;
        options.persistSettings = false;
        options.runsRoot = tmp.filePath("runs");
        MainWindow window(options);
        for (const char* id : {"formatSweepDock", "scalingDock", "blockScalesDock", "formatExplorerDock"}) {
            auto* dock = window.findChild<QDockWidget*>(QString::fromLatin1(id));
            QVERIFY2(dock && window.dockLayout()->docks().contains(dock), id);
        }
        QString error;
        QVERIFY2(window.openRun(QString::fromStdString(dir), &error), qPrintable(error));
        QTRY_COMPARE(window.views().blockScales->plot()->bars(), (std::map<int, int64_t>{{-3, 4}, {-1, 6}}));
        QCOMPARE_BITS(window.views().formatSweep->heatmap()->value(0, 0), 16.0 / 64.0);
        QCOMPARE(window.views().scaling->overflowSteps(), (std::vector<int64_t>{10}));
        // The most common block scale, 2^-1 in e2m1, is the explorer's.
        QCOMPARE(window.views().formatExplorer->scaleSpin()->value(), -1);
        QCOMPARE(window.views().formatExplorer->elementChooser()->currentData().toString(), QStringLiteral("e2m1"));
    }
};

QTEST_MAIN(GuiFormatDocksTest)
#include "test_gui_format_docks.moc"
