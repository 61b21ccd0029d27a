// The Sensitivity dock and its store: hand-built sensitivity records go into a run of the
// run set as the window's feed hands records to it. The store keeps each pass's values as
// the record has them (bits) and their mean as computed here by hand; a record that does
// not read, or one of other layers, is counted, not kept. The dock's rows are the layers
// in the order this suite sorts them itself (largest score over the formats, highest
// first, a non-finite score first of all), each cell the score; 0 is drawn hatched, not
// coloured; the colour bar is logarithmic and labelled; a click on a cell names its layer,
// and in the window shows that layer in the gradient histograms; the report's section
// lists the layers in the same order.
#include <QComboBox>
#include <QDockWidget>
#include <QSignalSpy>
#include <QtTest/QtTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "plots/CategoryHeatmapPlot.h"
#include "probes/SensitivityRecord.h"
#include "report/ReportRun.h"
#include "report/SensitivityReport.h"
#include "runset/RunModel.h"
#include "runset/RunSet.h"
#include "views/GradientHistogramView.h"
#include "views/SensitivityView.h"
#include "window/DockLayout.h"
#include "window/MainWindow.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

LayerFormatSensitivity cell(const std::string& format, double score) {
    LayerFormatSensitivity f;
    f.format = format;
    f.score = score;
    f.lossChange = std::sqrt(std::isnan(score) ? 0.0 : score);
    f.fisher = score / 2.0;
    f.elements = 100;
    f.saturated = 1;
    f.flushed = 2;
    return f;
}

// Four layers in model order (conv1, conv2, fc1, fc2), formats fp8 and mxfp4: conv1's
// fp8 is exactly 0 (nothing rounded), fc1's mxfp4 is not finite.
SensitivityRecord pass(int64_t step, double scale) {
    SensitivityRecord r;
    r.step = step;
    r.loss = 0.5 * scale;
    r.seconds = 0.25;
    r.formats = {"fp8", "mxfp4"};
    r.layers = {{"conv1", 1e6, {cell("fp8", 0.0), cell("mxfp4", 3e-6 * scale)}},
                {"conv2", 2e6, {cell("fp8", 1e-7 * scale), cell("mxfp4", 4e-4 * scale)}},
                {"fc1", 3e5, {cell("fp8", 2e-8 * scale), cell("mxfp4", kNaN)}},
                {"fc2", 1e4, {cell("fp8", 5e-9 * scale), cell("mxfp4", 3e-6 * scale)}}};
    return r;
}

// The suite's own order: by the largest score (a NaN one counts as infinite), highest
// first, ties in model order.
QStringList ownOrder(const SensitivityRecord& r) {
    std::vector<std::pair<double, int>> keyed;
    for (int k = 0; k < static_cast<int>(r.layers.size()); ++k) {
        double largest = 0.0;
        for (const auto& f : r.layers[static_cast<size_t>(k)].formats)
            largest = std::isnan(f.score) ? std::numeric_limits<double>::infinity() : std::max(largest, f.score);
        keyed.push_back({largest, k});
    }
    std::sort(keyed.begin(), keyed.end(), [](auto a, auto b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    QStringList names;
    for (auto [score, k] : keyed) names << QString::fromStdString(r.layers[static_cast<size_t>(k)].layer);
    return names;
}

QPoint cellCentre(const CategoryHeatmapPlot* map, int row, int column) {
    const double y = static_cast<double>(map->rows().size() - 1 - row);
    return QPoint(static_cast<int>(std::lround(map->xAxis->coordToPixel(column))),
                  static_cast<int>(std::lround(map->yAxis->coordToPixel(y))));
}

}  // namespace

class SensitivityDockTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void storeKeepsTheRecordsValuesAndTheirMean() {
        RunSet set;
        RunModel* run = set.addRun(RunContext{});
        QVERIFY(!run->sensitivity().latest());
        QVERIFY(!run->sensitivity().mean());
        run->takeRecord(toJson(pass(5, 1.0)));
        run->takeRecord(toJson(pass(10, 3.0)));
        run->endOfBatch();
        const auto& history = run->sensitivity();
        QCOMPARE(history.passes().size(), size_t{2});
        const SensitivityRecord* latest = history.latest();
        QVERIFY(latest);
        QCOMPARE(latest->step, int64_t{10});
        const SensitivityRecord expected = pass(10, 3.0);
        for (size_t k = 0; k < expected.layers.size(); ++k)
            for (size_t f = 0; f < 2; ++f) {
                const auto& want = expected.layers[k].formats[f];
                const auto& got = latest->layers[k].formats[f];
                if (std::isnan(want.score)) QVERIFY(std::isnan(got.score));
                else QCOMPARE_BITS(got.score, want.score);
                QCOMPARE_BITS(got.fisher, want.fisher);
                QCOMPARE(got.flushed, want.flushed);
            }
        // The mean of the two passes, by hand: conv2 in mxfp4 (4e-4 + 12e-4) / 2 = 8e-4;
        // the batch losses (0.5 + 1.5) / 2 = 1.0 exactly.
        const SensitivityRecord* mean = history.mean();
        QVERIFY(mean);
        QVERIFY2(std::abs(mean->layers[1].in("mxfp4")->score - 8e-4) <= 1e-19,
                 "two additions and a halving: within a few ulps of 8e-4");
        QCOMPARE_BITS(mean->loss, 1.0);
        QCOMPARE_BITS(mean->layers[0].in("fp8")->score, 0.0);
        QCOMPARE(mean->step, int64_t{10});

        // A broken record and a record of other layers are counted, not kept.
        run->takeRecord({{"type", "sensitivity"}, {"step", "x"}});
        SensitivityRecord other = pass(15, 1.0);
        other.layers.pop_back();
        run->takeRecord(toJson(other));
        run->endOfBatch();
        QCOMPARE(history.malformedRecords(), int64_t{2});
        QCOMPARE(history.passes().size(), size_t{2});
    }

    void heatmapRowsAreSortedAndZeroIsApart() {
        RunSet set;
        SensitivityView view(&set);
        view.resize(700, 420);
        view.show();
        RunModel* run = set.addRun(RunContext{});
        QVERIFY(!view.heatmap()->placeholderText().isEmpty());
        const SensitivityRecord record = pass(5, 1.0);
        run->takeRecord(toJson(record));
        run->endOfBatch();
        CategoryHeatmapPlot* map = view.heatmap();
        QVERIFY(map->placeholderText().isEmpty());
        // fc1 (non-finite) first, conv2 (4e-4), then conv1 and fc2 tie at 3e-6: model order.
        QCOMPARE(map->rows(), ownOrder(record));
        QCOMPARE(map->rows(), (QStringList{"fc1", "conv2", "conv1", "fc2"}));
        QCOMPARE(map->columns(), (QStringList{"fp8", "mxfp4"}));
        QCOMPARE_BITS(map->value(1, 1), 4e-4);
        QCOMPARE_BITS(map->value(3, 0), 5e-9);
        QCOMPARE(map->drawnText(0, 1), QStringLiteral("non-finite"));
        QCOMPARE(map->drawnText(1, 1), QStringLiteral("0.0004"));
        QCOMPARE(map->drawnText(2, 0), QStringLiteral("0"));
        QCOMPARE(map->zeroMarkCount(), 1);  // conv1 in fp8 only
        // The colour bar: logarithmic, labelled, from the decade below the smallest non-zero
        // score (5e-9: 1e-9) to the decade above the largest (4e-4: 1e-3), so that a
        // power-of-ten tick labels each end. Within a part in 10^12 of those decades.
        QCOMPARE(map->colorScale()->dataScaleType(), QCPAxis::stLogarithmic);
        QVERIFY(map->colorScale()->axis()->label().contains(QStringLiteral("log")));
        const QCPRange bar = map->colorScale()->dataRange();
        QVERIFY2(std::abs(bar.lower / 1e-9 - 1.0) < 1e-12, qPrintable(QString::number(bar.lower)));
        QVERIFY2(std::abs(bar.upper / 1e-3 - 1.0) < 1e-12, qPrintable(QString::number(bar.upper)));

        // The latest pass instead of the mean: a second pass, three times the first.
        run->takeRecord(toJson(pass(10, 3.0)));
        run->endOfBatch();
        view.setPasses(SensitivityView::Passes::Latest);
        QCOMPARE_BITS(map->value(1, 1), 4e-4 * 3.0);  // the record holds the product
    }

    void clickingACellNamesItsLayer() {
        RunSet set;
        SensitivityView view(&set);
        view.resize(700, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        RunModel* run = set.addRun(RunContext{});
        run->takeRecord(toJson(pass(5, 1.0)));
        run->endOfBatch();
        CategoryHeatmapPlot* map = view.heatmap();
        map->replot();
        QSignalSpy chosen(&view, &SensitivityView::layerChosen);
        QTest::mouseClick(map, Qt::LeftButton, Qt::NoModifier, cellCentre(map, 1, 0));
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.at(0).at(0).toString(), QStringLiteral("conv2"));
    }

    // The report's section: the rows in the same order, 0 marked, nothing for a run
    // without passes.
    void theReportSectionListsTheLayersInOrder() {
        ReportRun run;
        QVERIFY(report_text::sensitivityHtml(run).isEmpty());
        run.sensitivity = pass(5, 1.0);
        run.sensitivityPasses = 1;
        const QString html = report_text::sensitivityHtml(run);
        QVERIFY2(html.contains(QStringLiteral("one pass up to step 5")), qPrintable(html));
        int at = 0;
        for (const QString& layer : ownOrder(*run.sensitivity)) {
            const int found = html.indexOf(QStringLiteral("<td class=\"key\">%1</td>").arg(layer), at);
            QVERIFY2(found > at, qPrintable(layer));
            at = found;
        }
        QCOMPARE(html.count(QStringLiteral("0 (exact)")), 1);
        QCOMPARE(html.count(QStringLiteral("non-finite")), 1);
        QVERIFY(html.contains(QStringLiteral(">0.0004<")));
    }

    void theWindowShowsTheChosenLayersHistograms() {
        MainWindow window(MainWindowOptions{false, QString()});
        QVERIFY(window.views().sensitivity);
        QVERIFY(window.dockLayout()->dock(QStringLiteral("sensitivity"))->isAncestorOf(window.views().sensitivity));
        RunModel* run = window.runSet()->addRun(RunContext{});
        run->takeRecord({{"type", "run_info"}, {"layers", {"conv1", "conv2", "fc1", "fc2"}}});
        run->takeRecord(toJson(pass(5, 1.0)));
        run->endOfBatch();
        GradientHistogramView* histograms = window.views().histograms;
        QVERIFY(histograms->layer() != QStringLiteral("fc2"));
        Q_EMIT window.views().sensitivity->layerChosen(QStringLiteral("fc2"));
        QCOMPARE(histograms->layer(), QStringLiteral("fc2"));
    }
};

QTEST_MAIN(SensitivityDockTest)
#include "test_gui_sensitivity.moc"
