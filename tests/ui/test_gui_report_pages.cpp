// What a report draws: plot titles wrap to the plot's width instead of being cut at both
// ends (the rendered lines measured against the width, and the ink of a drawn title kept
// off the image's edges).
#include <QApplication>
#include <QImage>
#include <QtTest/QtTest>

#include "plots/PlotExport.h"
#include "plots/QCustomPlotInclude.h"
#include "probes/ProbeRecords.h"
#include "report/HistogramContrast.h"

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
        HistogramTotals noScaler, dynamic, third;
        for (HistogramTotals* t : {&noScaler, &dynamic, &third}) t->beginRun({});
        for (const int64_t step : {1, 51}) {
            noScaler.takeHistogram(histogram(step, "fc1", unscaled, {{-30, 4}, {-29, 4}}));
            noScaler.takeHistogram(histogram(step, "fc1", scaled, {{-30, 4}, {-29, 4}}));
            dynamic.takeHistogram(histogram(step, "fc1", unscaled, {{-30, 4}, {-29, 4}}));
            dynamic.takeHistogram(histogram(step, "fc1", scaled, {{-14, 4}, {-13, 4}}));
        }
        dynamic.takeHistogram(histogram(1, "out", scaled, {{-3, 1}}));
        third.takeHistogram(histogram(1, "fc1", unscaled, {{-26, 2}, {-25, 2}}));  // 4 binades up
        QCOMPARE(noScaler.totals().at({std::string(scaled), "fc1"}).countAt(-30), int64_t{8});
        const std::vector<HistogramContrast> ranked = rankContrasts({&noScaler, &dynamic, &third});
        QCOMPARE(ranked.size(), std::size_t{2});
        QCOMPARE(ranked[0].kind, QString::fromUtf8(scaled.data(), static_cast<qsizetype>(scaled.size())));
        QCOMPARE(ranked[0].layer, QStringLiteral("fc1"));
        QCOMPARE(ranked[0].binades, 16.0);
        QCOMPARE(ranked[0].runA, 0);
        QCOMPARE(ranked[0].runB, 1);
        QCOMPARE(ranked[1].kind, QString::fromUtf8(unscaled.data(), static_cast<qsizetype>(unscaled.size())));
        QCOMPARE(ranked[1].binades, 4.0);  // the third run's, against either of the others
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
};

QTEST_MAIN(GuiReportPagesTest)
#include "test_gui_report_pages.moc"
