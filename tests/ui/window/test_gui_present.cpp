// Present mode, the lab on a projector: at 1280x720 and 1920x1080, at the end of the
// fp16-no-scaler scenario, the narrative stands beside the view it points at and nothing
// else; text, lines and markers are 1.5 times the size they had (theory: the factor
// applied to what each element had); axis labels, legends and the narrative are not cut;
// Right and Left walk the narrative's views as its links do; Space pauses and resumes a
// live run; Esc puts everything back as it was.
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolBar>
#include <QtTest/QtTest>
#include <map>

#include "configure/ConfigPanel.h"
#include "window/DockLayout.h"
#include "ExactCompare.h"
#include "window/MainWindow.h"
#include "feed/RunControl.h"
#include "lessons/ScenarioBrowser.h"
#include "window/WindowActions.h"
#include "config/RunConfig.h"
#include "window/PresentMode.h"
#include "plots/FontSize.h"
#include "plots/PlotMagnifier.h"
#include "plots/QCustomPlotInclude.h"
#include "runset/RunSet.h"

using namespace ampscope;
using ampscope::ui::fontSize;
using ampscope::ui::MainWindow;
using ampscope::ui::MainWindowOptions;
using ampscope::ui::PlotMagnifier;
using ampscope::ui::PresentMode;

namespace {

constexpr double kFactor = PresentMode::kMagnification;

// What a plot's sizes were: the x axis's tick labels and label, and each graph's pen.
struct PlotSizes {
    double tickFont = 0;
    double labelFont = 0;
    std::vector<double> pens;
};

PlotSizes sizesOf(QCustomPlot* plot) {
    PlotSizes sizes;
    sizes.tickFont = fontSize(plot->xAxis->tickLabelFont());
    sizes.labelFont = fontSize(plot->xAxis->labelFont());
    for (int i = 0; i < plot->graphCount(); ++i) sizes.pens.push_back(plot->graph(i)->pen().widthF());
    return sizes;
}

QStringList visibleDocks(ui::DockLayout* layout) {
    QStringList ids;
    for (QDockWidget* dock : layout->docks())
        if (dock->isVisible()) ids << dock->objectName();
    return ids;
}

}  // namespace

class GuiPresentTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir home_;
    QTemporaryDir runs_;
    std::unique_ptr<MainWindow> window_;  // fp16-no-scaler run to its end, shared by the tests

    // Every visible plot of the dock beside the narrative: what is drawn fits the plot.
    static void checkPlotsReadable(QDockWidget* dock, const QString& where) {
        int checked = 0;
        for (QCustomPlot* plot : dock->findChildren<QCustomPlot*>()) {
            if (!plot->isVisible()) continue;
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const QRect area = plot->rect();
            for (QCPAxisRect* rect : plot->axisRects()) {
                const QString name = where + " " + plot->objectName();
                QVERIFY2(rect->width() >= 80 && rect->height() >= 40,
                         qPrintable(name + QString(": a plot area of %1x%2").arg(rect->width()).arg(rect->height())));
                QVERIFY2(area.contains(rect->outerRect()), qPrintable(name + ": the axes reach out of the plot"));
                for (QCPAxis* axis : rect->axes()) {
                    if (!axis->visible() || axis->label().isEmpty()) continue;
                    const QFontMetrics metrics(axis->labelFont());
                    // The widest line of the label, along its axis.
                    int widest = 0;
                    for (const QString& line : axis->label().split('\n'))
                        widest = std::max(widest, metrics.horizontalAdvance(line));
                    const int length = axis->orientation() == Qt::Horizontal ? rect->width() : rect->height();
                    QVERIFY2(widest <= length + 2 * metrics.height(),
                             qPrintable(name + ": axis label '" + axis->label() + QString("' is %1 px, its axis %2")
                                                                                       .arg(widest)
                                                                                       .arg(length)));
                }
            }
            if (plot->legend && plot->legend->visible() && plot->legend->itemCount() > 0) {
                QVERIFY2(area.contains(plot->legend->outerRect()),
                         qPrintable(where + " " + plot->objectName() + ": the legend is cut"));
                QVERIFY2(plot->legend->minimumOuterSizeHint().width() <= area.width(),
                         qPrintable(where + " " + plot->objectName() + ": the legend is wider than the plot"));
            }
            ++checked;
        }
        QVERIFY2(checked > 0, qPrintable(where + ": no plot in view"));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(home_.isValid() && runs_.isValid());
        qputenv("XDG_CONFIG_HOME", home_.filePath("config").toUtf8());
        qputenv("XDG_DATA_HOME", home_.filePath("data").toUtf8());
        MainWindowOptions options;
        options.persistSettings = false;
        options.runsRoot = runs_.path();
        window_ = std::make_unique<MainWindow>(options);
        window_->resize(1280, 800);
        window_->show();
        QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
        auto* browser = window_->scenarioBrowser();
        browser->setOverrides({"train.max_steps=12", "threads=1"});
        QSignalSpy finished(browser, &ui::ScenarioBrowser::scenarioFinished);
        QString error;
        QVERIFY2(window_->runScenario("fp16-no-scaler", &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    }

    void cleanupTestCase() { window_.reset(); }

    // A plot's own sizes, magnified and put back: fonts, pens (a hairline counts as one
    // pixel), markers; what the plot sets again while magnified is magnified from its new
    // size, and is what comes back.
    void theMagnifierScalesWhatThePlotDrewAndPutsItBack() {
        QCustomPlot plot;
        plot.resize(400, 300);
        QFont tick = plot.xAxis->tickLabelFont();
        tick.setPointSizeF(8.0);
        plot.xAxis->setTickLabelFont(tick);
        QCPGraph* thick = plot.addGraph();
        thick->setPen(QPen(Qt::red, 2.0));
        thick->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5.0));
        QCPGraph* hairline = plot.addGraph();
        hairline->setPen(QPen(Qt::blue, 0.0));
        auto* text = new QCPItemText(&plot);
        QFont textFont = text->font();
        textFont.setPixelSize(10);
        text->setFont(textFont);

        auto* magnifier = new PlotMagnifier(&plot);
        magnifier->setFactor(kFactor);
        QCOMPARE_BITS(fontSize(plot.xAxis->tickLabelFont()), 8.0 * kFactor);
        QCOMPARE_BITS(thick->pen().widthF(), 2.0 * kFactor);
        QCOMPARE_BITS(thick->scatterStyle().size(), 5.0 * kFactor);
        QCOMPARE_BITS(hairline->pen().widthF(), 1.0 * kFactor);
        QCOMPARE(text->font().pixelSize(), 15);
        QCOMPARE(thick->pen().color(), QColor(Qt::red));  // only sizes change

        // The plot sets a pen again (a run re-coloured); the next replot magnifies it.
        thick->setPen(QPen(Qt::green, 1.0));
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE_BITS(thick->pen().widthF(), 1.0 * kFactor);
        // A graph added while magnified.
        QCPGraph* later = plot.addGraph();
        later->setPen(QPen(Qt::black, 3.0));
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE_BITS(later->pen().widthF(), 3.0 * kFactor);
        // Replotting again magnifies nothing twice.
        plot.replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE_BITS(later->pen().widthF(), 3.0 * kFactor);
        QCOMPARE_BITS(fontSize(plot.xAxis->tickLabelFont()), 8.0 * kFactor);

        magnifier->setFactor(1.0);
        QCOMPARE_BITS(fontSize(plot.xAxis->tickLabelFont()), 8.0);
        QCOMPARE_BITS(thick->pen().widthF(), 1.0);  // the size the plot set last
        QCOMPARE_BITS(thick->scatterStyle().size(), 5.0);
        QCOMPARE_BITS(hairline->pen().widthF(), 0.0);
        QCOMPARE_BITS(later->pen().widthF(), 3.0);
        QCOMPARE(text->font().pixelSize(), 10);
    }

    void presentsTheLessonsEndAtProjectorSizes_data() {
        QTest::addColumn<QSize>("screen");
        QTest::newRow("projector 1280x720") << QSize(1280, 720);
        QTest::newRow("full HD 1920x1080") << QSize(1920, 1080);
    }

    void presentsTheLessonsEndAtProjectorSizes() {
        QFETCH(QSize, screen);
        MainWindow& window = *window_;
        PresentMode* present = window.presentMode();
        ui::DockLayout* layout = window.dockLayout();
        QTextBrowser* narrative = window.scenarioBrowser()->narrativeView();
        const QStringList docksBefore = visibleDocks(layout);
        const QFont windowFont = window.font();
        const double narrativeSize = fontSize(narrative->font());
        std::map<QCustomPlot*, PlotSizes> before;
        for (QCustomPlot* plot : window.findChildren<QCustomPlot*>()) before[plot] = sizesOf(plot);

        present->setPresentSize(screen);
        window.actions()->viewMenu()->actions().first()->trigger();  // View > Present
        QVERIFY(present->isPresenting());
        auto leaveOnFailure = qScopeGuard([present] { present->leave(); });  // the next row starts as it was
        QTRY_COMPARE(window.size(), screen);
        QTest::qWait(50);  // the docks' share, set once the window has its size

        // The scenario's end showed its first view: the histograms of no-scaler's out layer.
        QCOMPARE(present->currentView(), QString("histogram"));
        QDockWidget* narrativeDock = layout->dock("scenarios");
        QDockWidget* shown = layout->dock("histograms");
        QCOMPARE(present->shownDock(), shown);
        QCOMPARE(visibleDocks(layout), QStringList({narrativeDock->objectName(), shown->objectName()}));
        QVERIFY(!window.menuBar()->isVisible());
        for (QToolBar* bar : window.findChildren<QToolBar*>()) QVERIFY(!bar->isVisible());
        QVERIFY(!window.scenarioBrowser()->scenarioList()->isVisible());
        QVERIFY2(narrativeDock->geometry().right() < shown->geometry().left(), "the narrative is not beside the view");
        const double share = double(narrativeDock->width()) / window.width();
        QVERIFY2(share > 0.25 && share < 0.5, qPrintable(QString("the narrative takes %1 of the width").arg(share)));

        // Everything 1.5 times what it was.
        QCOMPARE_BITS(fontSize(window.font()), fontSize(windowFont) * kFactor);
        QCOMPARE_BITS(fontSize(narrative->font()), narrativeSize * kFactor);
        int plotsChecked = 0;
        for (QCustomPlot* plot : shown->findChildren<QCustomPlot*>()) {
            if (!plot->isVisible() || !before.count(plot)) continue;
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const PlotSizes& was = before[plot];
            const PlotSizes now = sizesOf(plot);
            QCOMPARE_BITS(now.tickFont, was.tickFont * kFactor);
            QCOMPARE_BITS(now.labelFont, was.labelFont * kFactor);
            QCOMPARE(now.pens.size(), was.pens.size());
            for (size_t i = 0; i < was.pens.size(); ++i)
                QCOMPARE_BITS(now.pens[i], std::max(was.pens[i], 1.0) * kFactor);
            ++plotsChecked;
        }
        QVERIFY(plotsChecked > 0);
        // The narrative's headings stay a little larger than its (larger) text.
        for (QTextBlock block = narrative->document()->begin(); block.isValid(); block = block.next())
            if (block.blockFormat().headingLevel() > 0 && block.length() > 1)
                QCOMPARE_BITS(QTextCursor(block).charFormat().fontPointSize(), fontSize(narrative->font()) * 1.2);

        // Nothing cut: the window fits the screen, the plots hold their labels and legends,
        // the narrative (its side-by-side table too) needs no sideways scrolling.
        QVERIFY2(window.minimumSizeHint().width() <= screen.width() && window.minimumSizeHint().height() <= screen.height(),
                 qPrintable(QString("the window needs %1x%2").arg(window.minimumSizeHint().width()).arg(window.minimumSizeHint().height())));
        checkPlotsReadable(shown, QTest::currentDataTag());
        QVERIFY(narrative->toPlainText().contains("Side by side"));
        QCOMPARE(narrative->horizontalScrollBar()->maximum(), 0);
        QVERIFY(narrative->viewport()->width() >= 30 * narrative->fontMetrics().averageCharWidth());

        // Right and Left walk the views as the links do: the run focused, the dock beside.
        QTest::keyClick(narrative, Qt::Key_Right);
        QCOMPARE(present->currentView(), QString("underflow"));
        QTRY_COMPARE(visibleDocks(layout), QStringList({narrativeDock->objectName(), layout->dock("underflow")->objectName()}));
        QCOMPARE(window.runSet()->focused()->name().contains("no-scaler"), true);
        QCOMPARE(narrative->textCursor().selectedText().isEmpty(), false);  // its link selected
        checkPlotsReadable(layout->dock("underflow"), QTest::currentDataTag() + QString(" underflow"));
        QTest::keyClick(narrative, Qt::Key_Right);
        QTest::keyClick(narrative, Qt::Key_Right);
        QCOMPARE(present->currentView(), QString("scaled"));
        QVERIFY(window.runSet()->focused()->name().contains("dynamic-scaler"));
        QTRY_VERIFY(layout->dock("histograms")->isVisible());
        QTest::keyClick(narrative, Qt::Key_Right);  // the last view: it stays
        QCOMPARE(present->currentView(), QString("scaled"));
        QTest::keyClick(narrative, Qt::Key_Left);
        QCOMPARE(present->currentView(), QString("loss"));
        QTRY_VERIFY(layout->dock("loss")->isVisible());
        checkPlotsReadable(layout->dock("loss"), QTest::currentDataTag() + QString(" loss"));
        QTest::keyClick(narrative, Qt::Key_Left);
        QTest::keyClick(narrative, Qt::Key_Left);
        QCOMPARE(present->currentView(), QString("histogram"));
        QTRY_COMPARE(window.size(), screen);  // no dock it showed widened the window past the screen

        // Esc: as it was.
        QTest::keyClick(narrative, Qt::Key_Escape);
        QVERIFY(!present->isPresenting());
        QVERIFY(!window.actions()->viewMenu()->actions().first()->isChecked());
        QCOMPARE(window.font(), windowFont);
        QCOMPARE_BITS(fontSize(narrative->font()), narrativeSize);
        QTRY_COMPARE(visibleDocks(layout), docksBefore);
        QVERIFY(window.menuBar()->isVisible());
        for (auto& [plot, was] : before) {
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const PlotSizes now = sizesOf(plot);
            QCOMPARE_BITS(now.tickFont, was.tickFont);
            QCOMPARE_BITS(now.labelFont, was.labelFont);
        }
    }

    // What a compared run's pane brings while presenting: its plot and its label come out
    // 1.5 times the window's text, as those there before did (not 1.5 times twice), and
    // go back with them.
    void aPlotAndALabelMadeWhilePresentingAreMagnifiedOnce() {
        MainWindow& window = *window_;
        PresentMode* present = window.presentMode();
        const double base = fontSize(window.font());
        present->setPresentSize(QSize(1280, 720));
        present->enter();
        QWidget* content = present->shownDock()->widget();
        auto* plot = new QCustomPlot(content);
        plot->addGraph()->setPen(QPen(Qt::black, 2.0));
        auto* label = new QLabel(QStringLiteral("made while presenting"), content);
        plot->show();
        label->show();
        QCoreApplication::processEvents();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE_BITS(fontSize(plot->xAxis->tickLabelFont()), base * kFactor);
        QCOMPARE_BITS(plot->graph(0)->pen().widthF(), 2.0 * kFactor);
        QCOMPARE_BITS(fontSize(label->font()), base * kFactor);
        present->leave();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE_BITS(fontSize(plot->xAxis->tickLabelFont()), base);
        QCOMPARE_BITS(plot->graph(0)->pen().widthF(), 2.0);
        QCOMPARE_BITS(fontSize(label->font()), base);
        delete plot;
        delete label;
    }

    // Without a size given, Present fills the screen; F11 enters and leaves.
    void fillsTheScreenAndF11Toggles() {
        MainWindow& window = *window_;
        PresentMode* present = window.presentMode();
        present->setPresentSize(QSize());
        window.activateWindow();  // a window's shortcuts act while it is the active one
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_F11);
        QVERIFY(present->isPresenting());
        QVERIFY(window.windowState() & Qt::WindowFullScreen);
        QTest::keyClick(&window, Qt::Key_F11);
        QVERIFY(!present->isPresenting());
        QVERIFY(!(window.windowState() & Qt::WindowFullScreen));
    }

    // Space pauses a live run and resumes it.
    void spacePausesAndResumes() {
        MainWindow& window = *window_;
        RunConfig config = window.configPanel()->config();
        // Long enough to be live when the window first shows a step: the lesson's own two
        // epochs are ~800 steps, which the engine's thread can finish before a window
        // starved of CPU (a loaded CI machine) shows the first one.
        config.train.epochs = 100000;
        config.train.max_steps = 0;
        config.threads = 1;
        window.setConfig(config);
        QVERIFY(window.startRun());
        QSignalSpy steps(&window, &MainWindow::stepsShownChanged);
        QTRY_VERIFY_WITH_TIMEOUT(steps.count() > 0, 60000);
        PresentMode* present = window.presentMode();
        present->setPresentSize(QSize(1280, 720));
        present->enter();
        QWidget* target = window.scenarioBrowser()->narrativeView();
        QTest::keyClick(target, Qt::Key_Space);
        QTRY_VERIFY_WITH_TIMEOUT(window.runControl()->isPaused(), 30000);
        QTest::keyClick(target, Qt::Key_Space);
        QTRY_VERIFY_WITH_TIMEOUT(!window.runControl()->isPaused(), 30000);
        QVERIFY(present->isPresenting());  // Space is not a way out
        present->leave();
        window.stopRun();
        QTRY_VERIFY_WITH_TIMEOUT(!window.runControl()->isActive(), 60000);
    }
};

QTEST_MAIN(GuiPresentTest)
#include "test_gui_present.moc"
