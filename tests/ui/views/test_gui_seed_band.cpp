// The seed band in the window: three seeds of one tiny config trained by
// `ampscope-cli run --seeds 3` and one run of another config, opened as one set. The Loss
// view draws the seeds as one band (a filled area between its edges) whose edges this suite
// recomputes from the three runs' losses (the view's smoothing, a debiased EMA, redone here,
// and the 95% prediction interval of one more seed from its formula with t(0.975, 2) written
// out); the legend names the band once instead of the three seeds; the other run's row in
// the Runs list says whether its final validation loss is inside the band. A config seen
// once draws no band.
#include <QDir>
#include <QListWidget>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>
#include <fstream>

#include "ExactCompare.h"
#include "window/MainWindow.h"
#include "TestSupport.h"
#include "views/LossPlot.h"
#include "runset/RunSet.h"
#include "views/RunListView.h"
#include "report/ReportWriter.h"
#include "window/StatusPanel.h"
#include "configure/ConfigPanel.h"
#include "config/ConfigJson.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

// Two epochs of six steps (256 samples, a quarter held out, batches of 32): seconds a run.
// Plain string literals: Qt 6.4's moc skips a class after a raw string literal.
const char* kTinyRun =
    "{\"threads\": 1, \"seed\": 7,"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 256, \"validation\": \"split\","
    " \"val_fraction\": 0.25},"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [16]},"
    " \"optim\": {\"lr\": 0.01},"
    " \"train\": {\"epochs\": 2, \"batch_size\": 32}}";

// t(0.975, 2): the 97.5% quantile of Student's t with 2 degrees of freedom, 4.303 in any
// t table; for df = 2 its closed form (2p - 1) / sqrt(2 p (1 - p)) at p = 0.975. Written
// out so that the suite does not use the code it checks.
constexpr double kT975Df2 = 4.302652729911275;
constexpr double kSmoothing = 0.95;  // the Loss view's EMA (StepSeries::kSmoothing)

MainWindowOptions windowOptions(const QString& runs) {
    MainWindowOptions options;
    options.persistSettings = false;
    options.runsRoot = runs;
    return options;
}

// The debiased EMA of a run's losses (as TensorBoard smooths), at each step.
std::map<int64_t, double> smoothed(const DecimatedSeries& loss) {
    std::map<int64_t, double> out;
    double ema = 0.0, weight = 0.0;
    for (std::size_t i = 0; i < loss.size(); ++i) {
        ema = kSmoothing * ema + (1.0 - kSmoothing) * loss.y(i);
        weight = kSmoothing * weight + (1.0 - kSmoothing);
        out[static_cast<int64_t>(loss.x(i))] = ema / weight;
    }
    return out;
}

struct Interval {
    double mean, low, high;
};

// mean +- t s sqrt(1 + 1/N) of three values, s with N - 1 in its denominator.
Interval bandOfThree(double a, double b, double c) {
    const double mean = (a + b + c) / 3.0;
    const double s = std::sqrt(((a - mean) * (a - mean) + (b - mean) * (b - mean) + (c - mean) * (c - mean)) / 2.0);
    const double half = kT975Df2 * s * std::sqrt(1.0 + 1.0 / 3.0);
    // As drawn: a positive loss band's low edge stops three decades below its centre (a
    // logarithmic axis has no place below zero).
    const double low = mean > 0.0 ? std::max(mean - half, mean * 1e-3) : mean - half;
    return {mean, low, mean + half};
}

// The value of a graph's point at `step` (NaN when it has none there).
double valueAt(const QCPGraph* graph, int64_t step) {
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        if (it->key == static_cast<double>(step)) return it->value;
    return NAN;
}

QStringList legendNames(const QCustomPlot* plot) {
    QStringList names;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
            names << item->plottable()->name();
    return names;
}

bool near(double actual, double expected) {
    return std::fabs(actual - expected) <= 1e-9 * std::max(1.0, std::fabs(expected));
}

}  // namespace

class GuiSeedBandTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString set_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        const QString config = tmp_.filePath("tiny.json");
        std::ofstream(config.toStdString()) << kTinyRun;
        set_ = tmp_.filePath("set");
        const auto seeds = test::runCli({"run", config, "--seeds", "3", "--out", set_, "--quiet"});
        QVERIFY2(seeds.exitCode == 0, qPrintable(seeds.err));
        // Another config beside the seeds: ten times the learning rate.
        const auto other = test::runCli(
            {"run", config, "--out", set_ + "/lr-0.1", "--set", "optim.lr=0.1", "--set", "name=lr-0.1", "--quiet"});
        QVERIFY2(other.exitCode == 0, qPrintable(other.err));
    }

    void theSeedsAreOneBandWithOneLegendEntry() {
        MainWindow window(windowOptions(tmp_.filePath("runs")));
        QString error;
        QVERIFY2(window.openRun(set_, &error), qPrintable(error));
        RunSet* set = window.runSet();
        QCOMPARE(set->size(), 4);
        LossPlot* loss = window.views().loss;
        QCOMPARE(loss->shownRunCount(), 4);

        // One band, filled between its edges.
        QCOMPARE(loss->seedBandCount(), 1);
        QCPGraph* high = loss->seedBandGraph(0);
        QCPGraph* low = loss->seedBandLowGraph(0);
        QVERIFY(high && low && loss->seedBandCentreGraph(0));
        QCOMPARE(high->channelFillGraph(), low);
        QVERIFY(high->brush().style() != Qt::NoBrush);
        QVERIFY(high->brush().color().alpha() < 128);

        // Its edges at every step: recomputed from the three seeds' own losses.
        std::vector<std::map<int64_t, double>> seeds;
        for (const RunModel* run : set->runs())
            if (run->name().startsWith("seed-")) seeds.push_back(smoothed(run->steps().loss()));
        QCOMPARE(seeds.size(), std::size_t(3));
        QCOMPARE(seeds[0].size(), std::size_t(12));
        for (const auto& [step, first] : seeds[0]) {
            const Interval expected = bandOfThree(first, seeds[1].at(step), seeds[2].at(step));
            QVERIFY(expected.high > expected.low);  // the seeds differ: a band, not a line
            const double drawnHigh = valueAt(high, step), drawnLow = valueAt(low, step);
            const double drawnMean = valueAt(loss->seedBandCentreGraph(0), step);
            QVERIFY2(near(drawnHigh, expected.high) && near(drawnLow, expected.low) && near(drawnMean, expected.mean),
                     qPrintable(QString("step %1: drawn %2 .. %3 (mean %4), expected %5 .. %6 (mean %7)")
                                    .arg(step)
                                    .arg(drawnLow, 0, 'g', 12)
                                    .arg(drawnHigh, 0, 'g', 12)
                                    .arg(drawnMean, 0, 'g', 12)
                                    .arg(expected.low, 0, 'g', 12)
                                    .arg(expected.high, 0, 'g', 12)
                                    .arg(expected.mean, 0, 'g', 12)));
        }

        // The legend: the band once, named by its config, no seed by name; the other run.
        const QStringList names = legendNames(loss);
        QCOMPARE(names.filter("seed band").size(), 1);
        QCOMPARE(names.filter("seed band").front(), QString("mlp-fp32: seed band of 3 seeds (95% prediction interval)"));
        QVERIFY2(names.filter("seed-").isEmpty(), qPrintable(names.join(", ")));
        QVERIFY2(names.contains("lr-0.1"), qPrintable(names.join(", ")));
        QVERIFY(loss->legend->hasItemWithPlottable(high));
        QVERIFY(!loss->legend->hasItemWithPlottable(low));
        // The seeds stay drawn, thin.
        for (int i = 0; i < loss->shownRunCount(); ++i)
            if (!loss->legend->hasItemWithPlottable(loss->runGraph(i))) QCOMPARE_BITS(loss->runGraph(i)->pen().widthF(), 1.0);
    }

    // The other config's row: inside or outside the band of the seeds' final validation
    // losses, as the band's formula says, with the test's p-value.
    void anotherConfigIsLabelledAgainstTheBand() {
        MainWindow window(windowOptions(tmp_.filePath("runs")));
        QString error;
        QVERIFY2(window.openRun(set_, &error), qPrintable(error));
        RunSet* set = window.runSet();
        std::vector<double> seedLosses, seedAccuracies;
        double other = NAN, otherAccuracy = NAN;
        RunId otherId = -1, seedId = -1;
        for (const RunModel* run : set->runs()) {
            const EpochMetrics& last = run->steps().epochs().back();
            if (run->name().startsWith("seed-")) {
                seedLosses.push_back(last.valLoss);
                seedAccuracies.push_back(last.valAccuracy);
                seedId = run->id();
            } else {
                other = last.valLoss;
                otherAccuracy = last.valAccuracy;
                otherId = run->id();
            }
        }
        QCOMPARE(seedLosses.size(), std::size_t(3));
        const Interval band = bandOfThree(seedLosses[0], seedLosses[1], seedLosses[2]);
        const QString expected = other >= band.low && other <= band.high ? "inside" : "outside";
        // Accuracy: the same interval, unclipped (an accuracy is drawn on no log axis).
        const double accuracyMean = (seedAccuracies[0] + seedAccuracies[1] + seedAccuracies[2]) / 3.0;
        const double accuracyHalf = bandOfThree(seedAccuracies[0], seedAccuracies[1], seedAccuracies[2]).high - accuracyMean;
        const QString expectedAccuracy =
            std::abs(otherAccuracy - accuracyMean) <= accuracyHalf ? "inside" : "outside";

        QCoreApplication::processEvents();  // the Runs list labels once per pass of the event loop
        RunListView* list = window.views().runs;
        QString otherLabel;
        for (int row = 0; row < list->list()->count(); ++row) {
            const QString text = list->list()->item(row)->text();
            if (text.startsWith("lr-0.1")) {
                // Beneath the name and facts, a line per quantity (the row is narrow).
                QVERIFY2(text.section('\n', 2, 2).startsWith("val loss " + expected + " (p = "), qPrintable(text));
                QVERIFY2(text.section('\n', 3, 3).startsWith("accuracy " + expectedAccuracy + " (p = "), qPrintable(text));
                otherLabel = "seed band of mlp-fp32: " + text.section('\n', 2, 2) + ", " + text.section('\n', 3, 3);
                const QString tip = list->list()->item(row)->toolTip();
                QVERIFY2(tip.contains("seed band of mlp-fp32 (3 seeds") && tip.contains("prediction interval"),
                         qPrintable(tip));
            } else {
                QVERIFY2(!text.contains("seed band"), qPrintable(text));  // the band's own seeds
            }
        }

        // The status bar says the focused run's label, and nothing for a seed of the band.
        set->focus(otherId);
        QCOMPARE(window.statusPanel()->bandText(), otherLabel);
        set->focus(seedId);
        QCOMPARE(window.statusPanel()->bandText(), QString());

        // A report of the same folder says it on its first page, by the same rule.
        const QString html = tmp_.filePath("report.html");
        ReportOptions options;
        options.outputPath = html;
        QCOMPARE(writeReport({set_}, options), QString());
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString page = QString::fromUtf8(file.readAll());
        QVERIFY(page.contains("Against the seed band"));
        QVERIFY2(page.contains("reference: the seed band of mlp-fp32 (3 seeds)"), qPrintable(page.left(4000)));
        QVERIFY2(page.contains("<li>lr-0.1: val loss " + expected + " (p = "), qPrintable(page.left(4000)));
    }

    // The Seeds field: Start trains the config with three seeds, one after another, named
    // and seeded as `run --seeds` does (the config's seed, +1, +2), drawn as one band.
    void startWithThreeSeedsTrainsTheSeeds() {
        MainWindow window(windowOptions(tmp_.filePath("window-runs")));
        window.show();
        RunConfig config = configFromJson(nlohmann::json::parse(kTinyRun));
        config.name = "tiny";
        window.setConfig(config);
        window.views().config->setSeeds(3);
        QSignalSpy ended(&window, &MainWindow::runEnded);
        QVERIFY(window.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 3, 60000);
        QTest::qWait(50);  // the last run's end reaches the set
        RunSet* set = window.runSet();
        QCOMPARE(set->size(), 3);
        for (int k = 0; k < 3; ++k) {
            QCOMPARE(ended.at(k).at(0).toString(), QString("finished"));
            const RunModel* run = set->runs()[static_cast<std::size_t>(k)];
            QCOMPARE(run->config().seed, std::uint64_t(7 + k));
            QCOMPARE(QString::fromStdString(run->config().name), QString("tiny seed %1").arg(7 + k));
            QVERIFY(set->isShown(run->id()));
        }
        QCOMPARE(window.views().loss->seedBandCount(), 1);
    }

    // One run of a config: nothing changes.
    void oneRunOfAConfigDrawsNoBand() {
        MainWindow window(windowOptions(tmp_.filePath("runs")));
        QString error;
        QVERIFY2(window.openRun(set_ + "/seed-1", &error), qPrintable(error));
        QVERIFY2(window.openRun(set_ + "/lr-0.1", &error), qPrintable(error));
        LossPlot* loss = window.views().loss;
        QCOMPARE(loss->seedBandCount(), 0);
        QVERIFY(legendNames(loss).filter("seed band").isEmpty());
        for (int i = 0; i < loss->shownRunCount(); ++i) QCOMPARE_BITS(loss->runGraph(i)->pen().widthF(), 2.0);
        QCOMPARE(window.views().runs->list()->item(0)->text().count('\n'), 1);
    }
};

QTEST_MAIN(GuiSeedBandTest)
#include "test_gui_seed_band.moc"
