// What a report draws: plot titles wrap to the plot's width instead of being cut at both
// ends (the rendered lines measured against the width, and the ink of a drawn title kept
// off the image's edges); a report of several runs opens with them together (overlaid,
// then side by side).
#include <QApplication>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "plots/PlotExport.h"
#include "plots/QCustomPlotInclude.h"
#include "probes/ProbeRecords.h"
#include "config/ConfigJson.h"
#include "views/LossPlot.h"
#include "report/HistogramContrast.h"
#include "runset/HistogramSeries.h"
#include "report/ReportSetViews.h"
#include "runset/RunDirectoryLoading.h"
#include "runset/RunSet.h"
#include "run/StepRecordCodec.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

// Whether column x holds a dark pixel in rows [top, bottom).
bool inkInColumn(const QImage& image, int x, int top, int bottom) {
    for (int y = top; y < bottom; ++y)
        if (qGray(image.pixel(x, y)) < 128) return true;
    return false;
}

HistogramRecord histogram(int64_t step, const std::string& layer, std::string_view kind,
                          std::initializer_list<std::pair<int, int64_t>> bins) {
    HistogramRecord r;
    r.step = step;
    r.layer = layer;
    r.kind = std::string(kind);
    for (const auto& [exponent, count] : bins)
        r.histogram.counts[static_cast<std::size_t>(exponent - kMinExponent)] = count;
    return r;
}

UnderflowRecord underflow(int64_t step, const std::string& layer, int64_t flushed, int64_t normal) {
    UnderflowRecord r;
    r.step = step;
    r.layer = layer;
    r.kind = std::string(probe_kind::kParamGradScaled);
    r.counts.flushed = flushed;
    r.counts.normal = normal;
    return r;
}

// A run directory of four steps: its scaled fc1 gradients around 2^exponent, at step 2
// the layers' fp16 classes given, one epoch with `accuracy`.
QString writeRun(const QString& directory, int exponent, std::pair<int64_t, int64_t> fc1,
                   std::pair<int64_t, int64_t> fc2, double accuracy) {
    QDir().mkpath(directory);
    const nlohmann::json config = configToJson(RunConfig{});
    std::ofstream(QFile::encodeName(directory + QStringLiteral("/config.json")).toStdString()) << config.dump();
    std::ofstream events(QFile::encodeName(directory + QStringLiteral("/events.jsonl")).toStdString());
    events << R"({"type":"run_start","schema_version":1,"device":"cpu","threads":1})" << "\n";
    for (int64_t step = 1; step <= 4; ++step) {
        StepMetrics m;
        m.step = step;
        m.epoch = 1;
        m.loss = 1.0 / static_cast<double>(step);
        events << stepRecord(m).dump() << "\n";
        if (step != 2) continue;
        events << toJson(histogram(step, "fc1", probe_kind::kParamGradScaled, {{exponent, 8}})).dump() << "\n";
        events << toJson(underflow(step, "fc1", fc1.first, fc1.second)).dump() << "\n";
        events << toJson(underflow(step, "fc2", fc2.first, fc2.second)).dump() << "\n";
    }
    events << epochRecord(EpochMetrics{1, 4, 0.5, 0.5, accuracy, 1.0}).dump() << "\n";
    return directory;
}

}  // namespace

class GuiReportPagesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void titleLinesFitTheWidthAndKeepEveryWord_data() {
        QTest::addColumn<QString>("title");
        QTest::addColumn<int>("width");
        const QString seen =
            QStringLiteral("manual-pure-fp16: Gradient histogram: logits, parameter gradients, scaled (as fp16 holds them)");
        QTest::newRow("a report's histogram, A4 width") << seen << 680;
        QTest::newRow("the same, a third of it") << seen << 220;
        QTest::newRow("short") << QStringLiteral("Loss") << 680;
        QTest::newRow("a word wider than the plot")
            << QStringLiteral("blocks.11.attention.output_projection_of_the_last_block: Gradient histogram") << 150;
    }
    void titleLinesFitTheWidthAndKeepEveryWord() {
        QFETCH(QString, title);
        QFETCH(int, width);
        QCustomPlot plot;
        QImage device(800, 600, QImage::Format_ARGB32);
        const QFont font = plotTitleFont(&plot);
        const QStringList lines = plotTitleLines(title, font, &device, width);
        QVERIFY(!lines.isEmpty());
        const QFontMetricsF metrics(font, &device);
        for (const QString& line : lines)
            QVERIFY2(metrics.horizontalAdvance(line) <= width, qPrintable(line));
        // Nothing lost or reordered; where every word fits, the words stay whole.
        QCOMPARE(lines.join(QString()).remove(QLatin1Char(' ')), QString(title).remove(QLatin1Char(' ')));
        bool everyWordFits = true;
        for (const QString& word : title.split(QLatin1Char(' ')))
            everyWordFits = everyWordFits && metrics.horizontalAdvance(word) <= width;
        if (everyWordFits) QCOMPARE(lines.join(QLatin1Char(' ')), title);
        if (metrics.horizontalAdvance(title) > width) QVERIFY(lines.size() > 1);
    }

    // fp16 without a scaler against the dynamic scaler's 2^16: the scaled gradients sit 16
    // binades apart, the unscaled ones where they were; a layer one run lacks is not
    // compared. Each run's histograms add up over its probe steps.
    void theHistogramsThatDifferMostComeFirst() {
        const auto scaled = probe_kind::kParamGradScaled, unscaled = probe_kind::kParamGrad;
        HistogramSeries noScaler, dynamic, third;  // what a run in the set keeps
        for (HistogramSeries* s : {&noScaler, &dynamic, &third}) s->beginRun({});
        for (const int64_t step : {1, 51}) {
            noScaler.takeHistogram(histogram(step, "fc1", unscaled, {{-30, 4}, {-29, 4}}));
            noScaler.takeHistogram(histogram(step, "fc1", scaled, {{-30, 4}, {-29, 4}}));
            dynamic.takeHistogram(histogram(step, "fc1", unscaled, {{-30, 4}, {-29, 4}}));
            dynamic.takeHistogram(histogram(step, "fc1", scaled, {{-14, 4}, {-13, 4}}));
        }
        dynamic.takeHistogram(histogram(1, "out", scaled, {{-3, 1}}));
        third.takeHistogram(histogram(1, "fc1", unscaled, {{-26, 2}, {-25, 2}}));  // 4 binades up
        const std::vector<HistogramTotals> totals{histogramTotals(noScaler), histogramTotals(dynamic),
                                                  histogramTotals(third)};
        QCOMPARE(totals[0].at({std::string(scaled), "fc1"}).countAt(-30), int64_t{8});
        const std::vector<HistogramContrast> ranked = rankContrasts(totals);
        QCOMPARE(ranked.size(), std::size_t{2});
        QCOMPARE(ranked[0].kind, QString::fromUtf8(scaled.data(), static_cast<qsizetype>(scaled.size())));
        QCOMPARE(ranked[0].layer, QStringLiteral("fc1"));
        QCOMPARE_BITS(ranked[0].binades, 16.0);
        QCOMPARE(ranked[0].runA, 0);
        QCOMPARE(ranked[0].runB, 1);
        QCOMPARE(ranked[1].kind, QString::fromUtf8(unscaled.data(), static_cast<qsizetype>(unscaled.size())));
        QCOMPARE_BITS(ranked[1].binades, 4.0);  // the third run's, against either of the others
        QCOMPARE(ranked[1].runB, 2);
    }

    // Drawn into a narrow image, the title's ink stays inside it with a margin: nothing
    // runs off either edge (a title cut at both ends touches both).
    void aDrawnTitleStaysInsideThePlot() {
        QCustomPlot plot;
        plot.xAxis->setLabel(QStringLiteral("training step"));
        const QString title =
            QStringLiteral("manual-pure-fp16: Gradient histogram: logits, parameter gradients, scaled (as fp16 holds them)");
        QImage image(260, 300, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QCPPainter painter(&image);
        paintPlot(&plot, &painter, QRectF(0, 0, 260, 300), title);
        painter.end();
        const QStringList lines = plotTitleLines(title, plotTitleFont(&plot), &image, 260);
        const int titleBottom = static_cast<int>(QFontMetricsF(plotTitleFont(&plot), &image).height() * lines.size());
        QVERIFY(lines.size() >= 3);
        QVERIFY(!inkInColumn(image, 0, 0, titleBottom));
        QVERIFY(!inkInColumn(image, 259, 0, titleBottom));
        bool ink = false;
        for (int x = 0; x < 260 && !ink; ++x) ink = inkInColumn(image, x, 0, titleBottom);
        QVERIFY(ink);  // it was drawn at all
    }

    // Two runs together: both overlaid on the window's loss plot; the flushed fraction of
    // all layers per probe step (fc1 1 of 4, fc2 0 of 4: 12.5%; 4 of 4 and 4 of 8: 8 of
    // 12) and the accuracy per epoch, one line per run; their fc1 histograms 16 binades
    // apart, shown side by side.
    void severalRunsAreDrawnTogether() {
        QTemporaryDir tmp;
        const QStringList directories{writeRun(tmp.filePath(QStringLiteral("no-scaler")), -30, {1, 3}, {0, 4}, 0.5),
                                      writeRun(tmp.filePath(QStringLiteral("dynamic")), -14, {4, 0}, {4, 4}, 0.75)};
        RunSet set;  // as writeReport reads them: once, into one set, the views built first
        ReportSetViews views(set);
        std::vector<RunId> ids;
        for (const LoadedRun& loaded : loadRunDirectories(set, directories, {false, false})) {
            QVERIFY(loaded.run);
            ids.push_back(loaded.run->id());
        }
        views.show(ids);
        QCOMPARE(views.loss()->shownRunCount(), 2);
        QVERIFY(views.hasFlushed());
        QVERIFY(views.hasAccuracy());
        QCOMPARE(views.flushed()->graphCount(), 2);
        QCOMPARE(views.flushed()->graph(0)->name(), QStringLiteral("no-scaler"));
        QCOMPARE(views.flushed()->graph(0)->dataCount(), 1);
        QCOMPARE_BITS(views.flushed()->graph(0)->data()->at(0)->key, 2.0);
        QCOMPARE_BITS(views.flushed()->graph(0)->data()->at(0)->value, 12.5);
        // 8 of 12 in percent: the view's own order of operations may round the last bit
        // differently from 800 / 12, so within an ulp or two of it.
        const double flushedPercent = views.flushed()->graph(1)->data()->at(0)->value;
        QVERIFY2(std::abs(flushedPercent - 800.0 / 12.0) <= 4e-16 * 800.0 / 12.0, qPrintable(QString::number(flushedPercent, 'g', 17)));
        QCOMPARE_BITS(views.accuracy()->graph(1)->data()->at(0)->value, 75.0);
        QCOMPARE_BITS(views.accuracy()->graph(1)->data()->at(0)->key, 4.0);
        QCOMPARE(views.contrasts().size(), std::size_t{1});
        QCOMPARE_BITS(views.contrasts()[0].binades, 16.0);
        views.showContrast(views.contrasts()[0]);
        QCOMPARE(views.histogramPanes().size(), std::size_t{2});
    }
};

QTEST_MAIN(GuiReportPagesTest)
#include "test_gui_report_pages.moc"
