// Plot export (PNG with size and DPI, SVG, PDF; context menus) and the window's report
// and data export, offscreen. PDF pages are rendered back with pdftoppm and checked.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtGui/QAction>
#include <QtGui/QImage>
#include <QtTest/QtTest>

#include "ExactCompare.h"
#include "OneRunSet.h"
#include <QtWidgets/QApplication>
#include <QtWidgets/QMenuBar>
#include <cmath>

#include "window/MainWindow.h"
#include "window/WindowActions.h"
#include "TestSupport.h"
#include "engine/Engine.h"
#include "views/LossPlot.h"
#include "plots/PlotExport.h"
#include "plots/QCustomPlotInclude.h"
#include "report/ReportWriter.h"
#include "report/RunExportActions.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

// A loss curve of 200 steps: exp decay with a wiggle.
void feed(OneRunSet& plotFeed) {
    plotFeed.beginRun({RunConfig{}, QStringLiteral("synthetic"), QString(), false});
    std::vector<StepMetrics> steps;
    for (int i = 1; i <= 200; ++i) {
        StepMetrics m;
        m.step = i;
        m.epoch = 1;
        m.loss = 2.0 * std::exp(-i / 50.0) + 0.05 * std::sin(i / 3.0) + 0.1;
        steps.push_back(m);
    }
    plotFeed.appendSteps(steps);
    plotFeed.endOfBatch();
}

// Fraction of pixels darker than light grey.
double inkFraction(const QImage& image) {
    qint64 ink = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) ink += qGray(image.pixel(x, y)) < 200;
    return double(ink) / double(image.width() * image.height());
}

// Renders a PDF's pages at `dpi` to PNG with pdftoppm; the page images in order.
QList<QImage> renderPdf(const QString& pdf, int dpi, const QString& prefix) {
    QProcess::execute(QStringLiteral("pdftoppm"), {QStringLiteral("-r"), QString::number(dpi),
                                                   QStringLiteral("-png"), pdf, prefix});
    const QFileInfo info(prefix);
    QList<QImage> pages;
    for (const QString& name :
         QDir(info.path())
             .entryList({info.fileName() + QStringLiteral("-*.png")}, QDir::Files, QDir::Name))
        pages << QImage(info.path() + QLatin1Char('/') + name);
    return pages;
}

QString recordSmallRun(const QTemporaryDir& tmp) {
    RunConfig config = test::spiralsMlpConfig(256);
    config.precision.mode = "fp16";
    config.probes.every = 2;
    const QString dir = tmp.filePath(QStringLiteral("run"));
    Engine engine(config, dir.toStdString());
    engine.start();
    engine.wait();
    return dir;
}

}  // namespace

class GuiExportTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pngHasTheChosenSizeAndDpi() {
        OneRunSet plotFeed;
        LossPlot plot(&plotFeed.set);
        plot.resize(600, 400);
        feed(plotFeed);
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("loss.png"));
        QCOMPARE(savePlotImage(&plot, path, {QStringLiteral("Loss"), QSize(1600, 1000), 192.0}),
                 QString());
        const QImage image(path);
        QCOMPARE(image.size(), QSize(1600, 1000));
        QCOMPARE(image.dotsPerMeterX(), static_cast<int>(std::lround(192.0 / 0.0254)));
        QVERIFY(inkFraction(image) > 0.005);
        // The same plot at 96 dpi and half the pixels draws the same layout at half scale:
        // the ink fraction stays close (lines and text scale with the DPI).
        const QString small = tmp.filePath(QStringLiteral("small.png"));
        QCOMPARE(savePlotImage(&plot, small, {QStringLiteral("Loss"), QSize(800, 500), 96.0}),
                 QString());
        const QImage half(small);
        QCOMPARE(half.size(), QSize(800, 500));
        QVERIFY(std::fabs(inkFraction(half) - inkFraction(image)) < 0.5 * inkFraction(image));
    }

    void svgAndPdfAreValidVectorFiles() {
        OneRunSet plotFeed;
        LossPlot plot(&plotFeed.set);
        plot.resize(600, 400);
        feed(plotFeed);
        QTemporaryDir tmp;
        const QString svg = tmp.filePath(QStringLiteral("loss.svg"));
        QCOMPARE(
            savePlotImage(&plot, svg, {QStringLiteral("Training loss"), QSize(600, 400), 96.0}),
            QString());
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray svgText = svgFile.readAll();
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.contains("viewBox=\"0 0 600 400\""));
        QVERIFY(svgText.contains("Training loss"));  // the title is text, not pixels
        QVERIFY(svgText.contains("<path") || svgText.contains("<polyline"));

        const QString pdf = tmp.filePath(QStringLiteral("loss.pdf"));
        QCOMPARE(
            savePlotImage(&plot, pdf, {QStringLiteral("Training loss"), QSize(600, 400), 96.0}),
            QString());
        const QList<QImage> pages = renderPdf(pdf, 96, tmp.filePath(QStringLiteral("plotpage")));
        QCOMPARE(pages.size(), 1);
        // 600 x 400 at 96 per inch is a 450 x 300 pt page, 600 x 400 px back at 96 dpi.
        QVERIFY2(std::abs(pages[0].width() - 600) <= 1 && std::abs(pages[0].height() - 400) <= 1,
                 qPrintable(QStringLiteral("%1x%2").arg(pages[0].width()).arg(pages[0].height())));
        QVERIFY(inkFraction(pages[0]) > 0.005);
    }

    void exportShowsWhatIsShownAndLeavesTheViewAlone() {
        OneRunSet plotFeed;
        LossPlot plot(&plotFeed.set);
        plot.resize(600, 400);
        feed(plotFeed);
        plot.xAxis->setRange(150, 200);  // the user zoomed in
        const QCPRange before = plot.xAxis->range();
        QTemporaryDir tmp;
        QCOMPARE(savePlotImage(&plot, tmp.filePath(QStringLiteral("zoomed.png")),
                               {QString(), QSize(600, 400), 96.0}),
                 QString());
        QCOMPARE_BITS(plot.xAxis->range().lower, before.lower);
        QCOMPARE_BITS(plot.xAxis->range().upper, before.upper);
        QCOMPARE(plot.width(), 600);
        // Zoomed and full views are different pictures.
        plot.resetView();
        plot.replot();
        QCOMPARE(savePlotImage(&plot, tmp.filePath(QStringLiteral("full.png")),
                               {QString(), QSize(600, 400), 96.0}),
                 QString());
        QVERIFY(QImage(tmp.filePath(QStringLiteral("zoomed.png"))) !=
                QImage(tmp.filePath(QStringLiteral("full.png"))));
    }

    void badExportRequestsSayWhatIsWrong() {
        OneRunSet plotFeed;
        LossPlot plot(&plotFeed.set);
        QTemporaryDir tmp;
        QCOMPARE(savePlotImage(&plot, tmp.filePath(QStringLiteral("x.bmp"))),
                 tmp.filePath(QStringLiteral("x.bmp")) +
                     QStringLiteral(": unknown image type 'bmp' (use .png, .svg or .pdf)"));
        QVERIFY(savePlotImage(&plot, tmp.filePath(QStringLiteral("x.png")),
                              {QString(), QSize(0, 10), 96.0})
                    .contains(QStringLiteral("size must be positive")));
        QVERIFY(savePlotImage(&plot, tmp.filePath(QStringLiteral("x.png")),
                              {QString(), QSize(10, 10), 5.0})
                    .contains(QStringLiteral("DPI must be between 24 and 2400")));
        QVERIFY(savePlotImage(&plot, QStringLiteral("/no/such/dir/x.png"),
                              {QString(), QSize(10, 10), 96.0})
                    .endsWith(QStringLiteral(": could not be written")));
    }

    void everyPlotOfTheWindowHasAContextMenuAndFileHasTheExports() {
        MainWindow window(MainWindowOptions{false, QString()});
        const auto plots = window.findChildren<QCustomPlot*>();
        QVERIFY(plots.size() >= 6);
        for (QCustomPlot* plot : plots)
            QVERIFY2(plot->contextMenuPolicy() == Qt::CustomContextMenu,
                     qPrintable(plot->objectName()));
        QStringList fileActions;
        for (QAction* action : window.menuBar()->actions().first()->menu()->actions())
            fileActions << action->text();
        QVERIFY2(fileActions.contains(QStringLiteral("Export &report…")),
                 qPrintable(fileActions.join('|')));
        QVERIFY(fileActions.contains(QStringLiteral("Export &data…")));
        QVERIFY(window.actions()->exportActions());
        // Titles come from the docks.
        QCOMPARE(plotExportTitle(window.views().loss), QStringLiteral("Loss"));
    }

    void windowExportsTheRunItShows() {
        QTemporaryDir tmp;
        const QString run = recordSmallRun(tmp);
        MainWindow window(MainWindowOptions{false, tmp.path()});
        QString error;
        QVERIFY2(window.openRun(run, &error), qPrintable(error));

        const QString data = tmp.filePath(QStringLiteral("data"));
        QCOMPARE(window.actions()->exportActions()->exportData(window.runDirectory(), data), QString());
        QVERIFY(QFile::exists(data + QStringLiteral("/steps.csv")));
        QVERIFY(QFile::exists(data + QStringLiteral("/config.json")));
        QCOMPARE(QDir(data + QStringLiteral("/tensorboard"))
                     .entryList({QStringLiteral("events.out.tfevents.*")})
                     .size(),
                 1);

        const QString pdf = tmp.filePath(QStringLiteral("report.pdf"));
        QCOMPARE(window.actions()->exportActions()->exportReport({window.runDirectory()}, pdf), QString());
        const QList<QImage> pages = renderPdf(pdf, 60, tmp.filePath(QStringLiteral("report")));
        QVERIFY(pages.size() >= 2);
        for (const QImage& page : pages) {
            // A4 at 60 dpi: 496 x 702 px (pdftoppm rounds the 495.0 x 701.6 up).
            QVERIFY2(std::abs(page.width() - 496) <= 1 && std::abs(page.height() - 702) <= 1,
                     qPrintable(QStringLiteral("%1x%2").arg(page.width()).arg(page.height())));
            QVERIFY(inkFraction(page) > 0.01);
        }
        QCOMPARE(window.actions()->exportActions()->exportData(tmp.filePath(QStringLiteral("nope")), data),
                 tmp.filePath(QStringLiteral("nope")) + QStringLiteral(": no such run directory"));
    }

    void reportProgressRunsToTheEndAndCanCancel() {
        QTemporaryDir tmp;
        const QString run = recordSmallRun(tmp);
        std::vector<std::pair<int, int>> calls;
        ReportOptions options;
        options.outputPath = tmp.filePath(QStringLiteral("r.html"));
        options.progress = [&](int done, int total, const QString&) {
            calls.emplace_back(done, total);
            return true;
        };
        QCOMPARE(writeReport({run, run}, options), QString());
        QVERIFY(!calls.empty());
        for (std::size_t i = 1; i < calls.size(); ++i) QVERIFY(calls[i].first > calls[i - 1].first);
        QCOMPARE(calls.back().first, calls.back().second);  // 100 % at the end

        options.outputPath = tmp.filePath(QStringLiteral("cancelled.pdf"));
        options.progress = [](int done, int, const QString&) { return done < 2; };
        QCOMPARE(writeReport({run, run}, options), QStringLiteral("cancelled"));
        QVERIFY(!QFile::exists(options.outputPath));
    }
};

QTEST_MAIN(GuiExportTest)
#include "test_gui_export.moc"
