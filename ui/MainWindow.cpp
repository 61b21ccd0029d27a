#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QTabBar>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <algorithm>
#include <utility>
#include <nlohmann/json.hpp>

#include "ConfigPanel.h"
#include "ElidingLabel.h"
#include "EngineBridge.h"
#include "ExecutionBadge.h"
#include "RunDirectoryNaming.h"
#include "RunFacts.h"
#include "RunFeed.h"
#include "RemoteRunFollowing.h"
#include "RunPaceControl.h"
#include "ScenarioBrowser.h"
#include "common/BuildInfo.h"
#include "common/InputError.h"
#include "common/Text.h"
#include "config/ConfigJson.h"
#include "engine/Versions.h"
#include "plots/LossPlot.h"
#include "views/MemoryPlot.h"
#include "plots/PlotExport.h"
#include "plots/ScalePlot.h"
#include "plots/ThroughputPlot.h"
#include "report/RunExportActions.h"
#include "run/RemoteRunAddress.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"
#include "views/GradientHistogramView.h"
#include "views/CompareView.h"
#include "views/LockstepPlot.h"
#include "views/ModuleTreeView.h"
#include "views/NanInspectorView.h"
#include "views/BlockScalesView.h"
#include "views/FormatExplorerView.h"
#include "views/FormatSweepView.h"
#include "views/ScalingView.h"
#include "views/UnderflowView.h"
#include "scenarios/ScenarioCatalogue.h"

// Resources of a static library must be registered by hand; the macro cannot be used
// inside a namespace.
static void initUiResources() {
    Q_INIT_RESOURCE(ui_resources);
}

namespace ampscope::ui {

namespace {

const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
const char* const kConfigKey = "config/last";

// Paths under the home directory as ~/..., which is how people read them.
QString shownPath(const QString& path) {
    const QString home = QDir::homePath();
    if (!home.isEmpty() && home != QLatin1String("/") && path.startsWith(home + QLatin1Char('/')))
        return QStringLiteral("~") + path.mid(home.size());
    return QDir::toNativeSeparators(path);
}

QString threadCount(int threads) {
    return threads == 1 ? QObject::tr("1 thread") : QObject::tr("%1 threads").arg(threads);
}

QString statusWord(const std::string& status) {
    if (status == "finished") return QObject::tr("Run finished");
    if (status == "stopped") return QObject::tr("Run stopped");
    return QObject::tr("Run failed");
}

}  // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), options_(std::move(options)) {
    initUiResources();
    setObjectName(QStringLiteral("ampscopeMainWindow"));
    setWindowTitle(tr("AmpScope"));
    setWindowIcon(QIcon(QStringLiteral(":/ampscope/icons/ampscope.svg")));
    if (options_.runsRoot.isEmpty()) options_.runsRoot = defaultRunsRoot();
    clock_.start();

    bridge_ = new EngineBridge(this);
    connect(bridge_, &EngineBridge::metricsArrived, this, &MainWindow::onMetrics);
    connect(bridge_, &EngineBridge::started, this, &MainWindow::onStarted);
    connect(bridge_, &EngineBridge::paused, this, &MainWindow::onPaused);
    connect(bridge_, &EngineBridge::resumed, this, &MainWindow::onResumed);
    connect(bridge_, &EngineBridge::failed, this, &MainWindow::onFailed);
    connect(bridge_, &EngineBridge::runEnded, this, &MainWindow::onRunEnded);

    RecordDispatcher::Hooks hooks;
    hooks.runInfo = [this](const nlohmann::json& record) { showRunInfo(record); };
    // A live run's error reaches the window as the engine's failure (onFailed), with
    // whether it was the input's fault; an opened run's only as its record.
    hooks.error = [this](const std::string& message) {
        if (!bridge_->isActive())
            showError(tr("the run ended with an error: %1").arg(QString::fromStdString(message)));
    };
    feed_ = new RunFeed(std::move(hooks), this);
    connect(feed_, &RunFeed::stepsShownChanged, this, &MainWindow::stepsShownChanged);
    connect(feed_, &RunFeed::followCaughtUp, this, &MainWindow::runLoaded);
    connect(feed_, &RunFeed::followFailed, this, &MainWindow::showError);
    connect(feed_, &RunFeed::followFinished, this, [this] {
        progressBar_->setRange(0, static_cast<int>(std::max<qint64>(1, feed_->lastStep())));
        progressBar_->setValue(static_cast<int>(feed_->lastStep()));
        runLabel_->setFullText(tr("Opened %1 (%2 steps; the run has ended)")
                                   .arg(shownRun())
                                   .arg(feed_->stepsShown()));
    });

    // A hidden central widget: every view is a dock the user can move or close.
    auto* central = new QWidget(this);
    central->setMaximumSize(0, 0);
    central->hide();
    setCentralWidget(central);
    setDockNestingEnabled(true);

    buildActions();
    buildMenus();
    buildToolBar();
    buildStatusBar();
    buildDocks();
    buildScenarioBrowser();
    initialLayout_ = saveState();

    resize(1280, 800);
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
        const QSize available = screen->availableSize();
        resize(std::min(1280, available.width()), std::min(800, available.height()));
    }
    // First start (no config saved yet): the default scenario is loaded, not started.
    const bool firstStart = options_.persistSettings && !QSettings().contains(kConfigKey);
    if (options_.persistSettings) restoreSettings();
    if (firstStart) loadScenario(QString::fromLatin1(kDefaultScenario));
    updateStatusForConfig(configPanel_->config());
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
    QStyle* s = style();
    startAction_ = new QAction(s->standardIcon(QStyle::SP_MediaPlay), tr("&Start"), this);
    startAction_->setShortcut(Qt::Key_F5);
    startAction_->setToolTip(tr("Start training with this config (F5)"));
    connect(startAction_, &QAction::triggered, this, &MainWindow::startRun);

    pauseAction_ = new QAction(s->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), this);
    pauseAction_->setShortcut(Qt::Key_F6);
    pauseAction_->setCheckable(true);
    pauseAction_->setToolTip(tr("Pause after the current step; press again to resume (F6)"));
    connect(pauseAction_, &QAction::toggled, this, &MainWindow::togglePause);

    stepAction_ = new QAction(s->standardIcon(QStyle::SP_MediaSkipForward), tr("Step &once"), this);
    stepAction_->setShortcut(Qt::Key_F10);
    stepAction_->setToolTip(tr("Run exactly one step, then pause (F10)"));
    connect(stepAction_, &QAction::triggered, this, &MainWindow::stepOnce);

    stopAction_ = new QAction(s->standardIcon(QStyle::SP_MediaStop), tr("S&top"), this);
    stopAction_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    stopAction_->setToolTip(tr("Stop the run after the current step (Shift+F5)"));
    connect(stopAction_, &QAction::triggered, this, &MainWindow::stopRun);

    openRunAction_ = new QAction(s->standardIcon(QStyle::SP_DirOpenIcon), tr("&Open run…"), this);
    openRunAction_->setShortcut(QKeySequence::Open);
    openRunAction_->setToolTip(
        tr("Show a recorded run directory; one still being written is "
           "followed live (Ctrl+O)"));
    connect(openRunAction_, &QAction::triggered, this, &MainWindow::openRunWithDialog);

    openRemoteRunAction_ = new QAction(tr("Open &remote run…"), this);
    openRemoteRunAction_->setToolTip(
        tr("Follow a run on another machine through your ssh: ssh://[user@]host[:port]/path"));
    connect(openRemoteRunAction_, &QAction::triggered, this, &MainWindow::openRemoteRunWithDialog);

    openConfigAction_ = new QAction(tr("Open &config…"), this);
    openConfigAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(openConfigAction_, &QAction::triggered, this, &MainWindow::openConfigWithDialog);

    saveConfigAction_ =
        new QAction(s->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save config…"), this);
    saveConfigAction_->setShortcut(QKeySequence::Save);
    connect(saveConfigAction_, &QAction::triggered, this, &MainWindow::saveConfigWithDialog);

    exportAction_ = new QAction(tr("&Export plots…"), this);
    exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAction_->setToolTip(tr("Save every plot as PNG, SVG and PDF into a folder"));
    connect(exportAction_, &QAction::triggered, this, &MainWindow::exportPlotsWithDialog);

    quitAction_ = new QAction(tr("&Quit"), this);
    quitAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    connect(quitAction_, &QAction::triggered, this, &QWidget::close);

    resetLayoutAction_ = new QAction(tr("&Reset layout"), this);
    connect(resetLayoutAction_, &QAction::triggered, this, &MainWindow::resetLayout);

    aboutAction_ = new QAction(tr("&About AmpScope"), this);
    connect(aboutAction_, &QAction::triggered, this, [this] {
        QMessageBox::about(
            this, tr("About AmpScope"),
            tr("<b>AmpScope %1</b> (git %2)<br>A lab for seeing what mixed precision does to "
               "training.<br>%3<br>Qt %4")
                .arg(QLatin1String(build::kVersion), QLatin1String(build::kGitRevision),
                     QString::fromStdString(libraryVersions()), QLatin1String(qVersion())));
    });
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(openRunAction_);
    file->addAction(openRemoteRunAction_);
    file->addAction(openConfigAction_);
    file->addAction(saveConfigAction_);
    file->addSeparator();
    file->addAction(exportAction_);
    // Reports and data export act on the run shown.
    exportActions_ = new RunExportActions(this, [this] { return runDirectory_; });
    file->addAction(exportActions_->reportAction());
    file->addAction(exportActions_->dataAction());
    file->addSeparator();
    file->addAction(quitAction_);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(startAction_);
    run->addAction(pauseAction_);
    run->addAction(stepAction_);
    run->addAction(stopAction_);

    viewMenu_ = menuBar()->addMenu(tr("&View"));
    viewMenu_->addSeparator();
    viewMenu_->addAction(resetLayoutAction_);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(aboutAction_);
}

void MainWindow::buildToolBar() {
    QToolBar* bar = addToolBar(tr("Run controls"));
    bar->setObjectName(QStringLiteral("runToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(startAction_);
    bar->addAction(pauseAction_);
    bar->addAction(stepAction_);
    bar->addAction(stopAction_);
    auto* paceLabel = new QLabel(tr(" Pace: "), bar);
    paceControl_ = new RunPaceControl(options_.persistSettings, bar);
    paceLabel->setBuddy(paceControl_);
    bar->addWidget(paceLabel);
    bar->addWidget(paceControl_);
    bridge_->setStepsPerSecond(paceControl_->stepsPerSecond());
    connect(paceControl_, &RunPaceControl::paceChanged, bridge_, &EngineBridge::setStepsPerSecond);
    bar->addSeparator();
    bar->addAction(openRunAction_);
    viewMenu_->insertAction(viewMenu_->actions().value(0), bar->toggleViewAction());
}

void MainWindow::buildStatusBar() {
    QStatusBar* bar = statusBar();
    runLabel_ = new ElidingLabel(bar);
    runLabel_->setObjectName(QStringLiteral("runLabel"));
    runLabel_->setFullText(tr("Ready: configure a run and press Start, or open a run (Ctrl+O)"));
    errorLabel_ = new ElidingLabel(bar, Qt::ElideRight);
    errorLabel_->setObjectName(QStringLiteral("errorLabel"));
    errorLabel_->setStyleSheet(QStringLiteral("color: #b71c1c; font-weight: bold;"));
    errorLabel_->hide();
    bar->addWidget(runLabel_, 1);
    bar->addWidget(errorLabel_, 1);

    deviceLabel_ = new ElidingLabel(bar, Qt::ElideRight);
    deviceLabel_->setObjectName(QStringLiteral("deviceLabel"));
    deviceLabel_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    deviceLabel_->setMaximumWidth(260);
    modeLabel_ = new QLabel(bar);
    modeLabel_->setObjectName(QStringLiteral("modeLabel"));
    badge_ = new ExecutionBadge(bar);
    howLabel_ = new ElidingLabel(bar, Qt::ElideRight);
    howLabel_->setObjectName(QStringLiteral("howLabel"));
    howLabel_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    howLabel_->setMaximumWidth(260);
    progressBar_ = new QProgressBar(bar);
    progressBar_->setObjectName(QStringLiteral("progressBar"));
    progressBar_->setMaximumWidth(190);
    progressBar_->setMinimumWidth(150);
    // Before any run there are no steps to count: "0 / 1 steps" would invent a run.
    progressBar_->setRange(0, 1);
    progressBar_->setValue(0);
    progressBar_->setFormat(tr("no run yet"));
    etaLabel_ = new QLabel(bar);
    etaLabel_->setObjectName(QStringLiteral("etaLabel"));
    etaLabel_->setMinimumWidth(etaLabel_->fontMetrics().horizontalAdvance(tr("ETA 00:00:00")));
    bar->addPermanentWidget(deviceLabel_);
    bar->addPermanentWidget(modeLabel_);
    bar->addPermanentWidget(badge_);
    bar->addPermanentWidget(howLabel_);
    bar->addPermanentWidget(progressBar_);
    bar->addPermanentWidget(etaLabel_);
}

void MainWindow::buildDocks() {
    configPanel_ = new ConfigPanel(this);
    configPanel_->setMinimumWidth(330);  // the form's labels and fields, without scrolling sideways
    configureDock_ = addRunView(QStringLiteral("configure"), tr("Configure"), configPanel_,
                                Qt::LeftDockWidgetArea, nullptr);
    connect(configPanel_, &ConfigPanel::configChanged, this, [this] {
        if (!bridge_->isActive() && !feed_->isFollowing()) updateStatusForConfig(configPanel_->config());
        updateActions();
    });
    connect(configPanel_, &ConfigPanel::validityChanged, this, &MainWindow::updateActions);
    // The panel's module tree shows each run's model_modules record too: an opened run's
    // tree comes from its records, never from loading its model file.
    feed_->addView(configPanel_->moduleTree());
    connect(configPanel_->moduleTree(), &ModuleTreeView::modulesChanged, this, [this] {
        QTimer::singleShot(0, this, &MainWindow::fitConfigureDockToModules);  // once laid out
    });

    lossPlot_ = new LossPlot(this);
    scalePlot_ = new ScalePlot(this);
    throughputPlot_ = new ThroughputPlot(this);
    lossDock_ = addRunView(QStringLiteral("loss"), tr("Loss"), lossPlot_, Qt::RightDockWidgetArea,
                           lossPlot_);
    scaleDock_ = addRunView(QStringLiteral("scale"), tr("Loss scale"), scalePlot_,
                            Qt::RightDockWidgetArea, scalePlot_);
    throughputDock_ = addRunView(QStringLiteral("throughput"), tr("Throughput"), throughputPlot_,
                                 Qt::RightDockWidgetArea, throughputPlot_);
    // Loss on top (the headline), scale and throughput side by side under it.
    splitDockWidget(lossDock_, scaleDock_, Qt::Vertical);
    splitDockWidget(scaleDock_, throughputDock_, Qt::Horizontal);

    // The probe views need room: tabs next to the loss in the large area; memory next
    // to throughput. Loss and throughput stay in front.
    histogramView_ = new GradientHistogramView(this);
    underflowView_ = new UnderflowView(this);
    nanInspector_ = new NanInspectorView(this);
    memoryPlot_ = new MemoryPlot(this);
    histogramDock_ = addRunView(QStringLiteral("histograms"), tr("Gradient histograms"),
                                histogramView_, Qt::RightDockWidgetArea, histogramView_);
    underflowDock_ = addRunView(QStringLiteral("underflow"), tr("Underflow"), underflowView_,
                                Qt::RightDockWidgetArea, underflowView_);
    nanDock_ = addRunView(QStringLiteral("nanInspector"), tr("NaN inspector"), nanInspector_,
                          Qt::RightDockWidgetArea, nanInspector_);
    memoryDock_ = addRunView(QStringLiteral("memory"), tr("Memory"), memoryPlot_,
                             Qt::RightDockWidgetArea, memoryPlot_);
    tabifyDockWidget(lossDock_, histogramDock_);
    tabifyDockWidget(histogramDock_, underflowDock_);
    tabifyDockWidget(underflowDock_, nanDock_);
    tabifyDockWidget(throughputDock_, memoryDock_);

    // Comparing: the lock-step A/B of the current run, and recorded runs overlaid.
    lockstepPlot_ = new LockstepPlot(this);
    compareView_ = new CompareView(this);
    lockstepDock_ = addRunView(QStringLiteral("lockstep"), tr("Lock-step A/B"), lockstepPlot_,
                               Qt::RightDockWidgetArea, lockstepPlot_);
    compareDock_ = addRunView(QStringLiteral("compare"), tr("Compare runs"), compareView_,
                              Qt::RightDockWidgetArea, nullptr);
    tabifyDockWidget(nanDock_, lockstepDock_);
    tabifyDockWidget(lockstepDock_, compareDock_);

    // The number formats beyond fp16: the sweep over every format, the per-tensor scaling
    // and block scales of the format modes, and the explorer that teaches the formats.
    formatSweepView_ = new FormatSweepView(this);
    scalingView_ = new ScalingView(this);
    blockScalesView_ = new BlockScalesView(this);
    formatExplorer_ = new FormatExplorerView(this);
    formatSweepDock_ = addRunView(QStringLiteral("formatSweep"), tr("Format sweep"), formatSweepView_,
                                  Qt::RightDockWidgetArea, formatSweepView_);
    scalingDock_ = addRunView(QStringLiteral("scaling"), tr("Scaling"), scalingView_,
                              Qt::RightDockWidgetArea, scalingView_);
    blockScalesDock_ = addRunView(QStringLiteral("blockScales"), tr("Block scales"), blockScalesView_,
                                  Qt::RightDockWidgetArea, blockScalesView_);
    formatExplorerDock_ = addRunView(QStringLiteral("formatExplorer"), tr("Format explorer"),
                                     formatExplorer_, Qt::RightDockWidgetArea, formatExplorer_);
    tabifyDockWidget(compareDock_, formatSweepDock_);
    tabifyDockWidget(formatSweepDock_, scalingDock_);
    tabifyDockWidget(scalingDock_, blockScalesDock_);
    tabifyDockWidget(blockScalesDock_, formatExplorerDock_);
    // The block scale chosen there is the one the explorer divides by.
    connect(blockScalesView_, &BlockScalesView::blockScaleChosen, formatExplorer_,
            &FormatExplorerView::setBlockScale);
    lossDock_->raise();
    throughputDock_->raise();
    connect(nanInspector_, &NanInspectorView::rerunWithLayerInFp32, this,
            &MainWindow::rerunKeepingLayerInFp32);
    // The first NaN/Inf is what the user needs to see: bring its dock to the front.
    connect(nanInspector_, &NanInspectorView::nonFiniteFound, nanDock_, &QDockWidget::raise);
    installPlotExportMenus(this);  // "Save image…" on the plots that have no menu of their own
}

void MainWindow::rerunKeepingLayerInFp32(const QString& layer) {
    RunConfig config = configPanel_->config();
    auto& keep = config.precision.keep_fp32;
    if (std::find(keep.begin(), keep.end(), layer.toStdString()) == keep.end())
        keep.push_back(layer.toStdString());
    if (bridge_->isActive()) {
        pendingRerun_ = config;  // onRunEnded starts it
        stopRun();
        return;
    }
    configPanel_->setConfig(config);
    startRun();
}

void MainWindow::buildScenarioBrowser() {
    scenarioBrowser_ = new ScenarioBrowser(this);
    scenarioDock_ = addRunView(QStringLiteral("scenarios"), tr("Scenarios"), scenarioBrowser_,
                               Qt::LeftDockWidgetArea, nullptr);
    // The start page shares the left column with Configure: a narrative beside the plots.
    tabifyDockWidget(configureDock_, scenarioDock_);
    connect(scenarioBrowser_, &ScenarioBrowser::scenarioLoaded, paceControl_, &RunPaceControl::showScenario);
    connect(scenarioBrowser_, &ScenarioBrowser::scenarioLoaded, this, &MainWindow::raiseScenarioDocks);

    // Menu: one line per scenario; choosing one loads it (Run scenario starts it).
    QMenu* menu = new QMenu(tr("&Scenarios"), this);
    menu->setToolTipsVisible(true);
    for (const Scenario& scenario : builtInScenarios()) {
        const QString name = QString::fromStdString(scenario.name);
        QAction* action = menu->addAction(name + QStringLiteral(" — ") + QString::fromStdString(scenario.summary));
        action->setData(name);
        connect(action, &QAction::triggered, this, [this, name] { loadScenario(name); });
    }
    menu->addSeparator();
    QAction* runLoaded = menu->addAction(tr("&Run the loaded scenario"));
    connect(runLoaded, &QAction::triggered, this, [this] {
        QString error;
        const QString name = scenarioBrowser_->loadedScenario();
        if (!name.isEmpty() && !runScenario(name, &error))
            QMessageBox::warning(this, tr("Run scenario"), error);
    });
    const QList<QAction*> menus = menuBar()->actions();
    menuBar()->insertMenu(menus.isEmpty() ? nullptr : menus.last(), menu);  // before Help
}

bool MainWindow::loadScenario(const QString& name, QString* error) {
    if (!scenarioBrowser_->loadScenario(name, error)) return false;
    scenarioDock_->show();
    scenarioDock_->raise();
    return true;
}

bool MainWindow::runScenario(const QString& name, QString* error) {
    if (!scenarioBrowser_->runScenario(name, error)) return false;
    scenarioDock_->show();
    scenarioDock_->raise();
    return true;
}

void MainWindow::raiseScenarioDocks(const QString& name) {
    // The docks the narrative points at (scenario.json "docks", the --show-dock ids) come
    // to the front of their tab groups; an id this window lacks is passed over.
    const Scenario* scenario = findScenario(name.toStdString());
    if (!scenario) return;
    for (const std::string& id : scenario->docks)
        if (auto* dock = findChild<QDockWidget*>(QString::fromStdString(id) + QStringLiteral("Dock"))) {
            dock->show();
            dock->raise();
        }
}

void MainWindow::applyDefaultDockSizes() {
    // Proportions of the window actually shown: sizes set before the first show are
    // measured against a window size that is not the final one.
    const int formWidth = std::clamp(width() / 4, 340, 420);
    resizeDocks({configureDock_, lossDock_}, {formWidth, width() - formWidth}, Qt::Horizontal);
    resizeDocks({lossDock_, scaleDock_}, {height() * 55 / 100, height() * 45 / 100}, Qt::Vertical);
    const int plotsWidth = width() - formWidth;
    resizeDocks({scaleDock_, throughputDock_}, {plotsWidth * 55 / 100, plotsWidth * 45 / 100},
                Qt::Horizontal);
}

void MainWindow::keepDockTabTitlesWhole() {
    // Ten probe and format docks share the large tab group: elided to fit ("Scal…",
    // "Format sw…") they no longer say what they are. Whole titles, and the tab bar
    // scrolls where the window is too narrow for all of them.
    for (QTabBar* bar : findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
        bar->setElideMode(Qt::ElideNone);
        bar->setUsesScrollButtons(true);
    }
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    keepDockTabTitlesWhole();
    if (shownOnce_) return;
    shownOnce_ = true;
    if (!layoutRestored_) applyDefaultDockSizes();
    QTimer::singleShot(0, this, &MainWindow::fitConfigureDockToModules);
}

void MainWindow::fitConfigureDockToModules() {
    // A user's model's module tree reads whole in the Configure dock: the dock widens for
    // it (up to 2/5 of the window, the plots keep the rest), and never narrows.
    ModuleTreeView* tree = configPanel_->moduleTree();
    if (!isVisible() || !tree->isVisible() || tree->isEmpty() || configureDock_->isFloating()) return;
    const int missing = tree->preferredWidth() - tree->width();
    if (missing <= 0) return;
    const int wanted = std::min(configureDock_->width() + missing, width() * 2 / 5);
    if (wanted > configureDock_->width())
        resizeDocks({configureDock_}, {wanted}, Qt::Horizontal);
}

QDockWidget* MainWindow::addRunView(const QString& id, const QString& title, QWidget* widget,
                                    Qt::DockWidgetArea area, RunObserver* observer) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(id + QStringLiteral("Dock"));  // saveState() keys docks by name
    dock->setWidget(widget);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable |
                      QDockWidget::DockWidgetFloatable);
    addDockWidget(area, dock);
    // Dock entries go above the separator that precedes "Reset layout".
    QAction* separator = nullptr;
    for (QAction* action : viewMenu_->actions())
        if (action->isSeparator()) separator = action;
    viewMenu_->insertAction(separator, dock->toggleViewAction());
    docks_ << dock;
    // Tabbing a dock somewhere else may make a new tab bar.
    connect(dock, &QDockWidget::dockLocationChanged, this,
            [this] { QTimer::singleShot(0, this, &MainWindow::keepDockTabTitlesWhole); });
    feed_->addView(observer);
    return dock;
}

void MainWindow::restoreSettings() {
    QSettings settings;
    const QByteArray geometry = settings.value(kGeometryKey).toByteArray();
    if (!geometry.isEmpty()) restoreGeometry(geometry);
    const QByteArray state = settings.value(kStateKey).toByteArray();
    if (!state.isEmpty()) layoutRestored_ = restoreState(state);
    const QString json = settings.value(kConfigKey).toString();
    if (json.isEmpty()) return;
    try {
        configPanel_->setConfig(configFromJson(nlohmann::json::parse(json.toStdString())));
    } catch (const std::exception&) {
        // A config from another version that no longer validates: start from defaults.
    }
}

void MainWindow::saveSettings() {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kConfigKey,
                      QString::fromStdString(configToJson(configPanel_->config()).dump()));
}

void MainWindow::resetLayout() {
    restoreState(initialLayout_);
    keepDockTabTitlesWhole();
    for (QDockWidget* dock : docks_) {
        dock->setFloating(false);
        dock->show();
    }
    applyDefaultDockSizes();
}

void MainWindow::setConfig(const RunConfig& config) {
    configPanel_->setConfig(config);
}

bool MainWindow::loadConfigFile(const QString& path, QString* error) {
    try {
        configPanel_->setConfig(ampscope::loadConfigFile(path.toStdString()));
        // The user named this config (--config, Open config…): its model file is loaded
        // for the module tree; one that cannot be used is shown at its field, not refused.
        configPanel_->inspectModelFile();
        configureDock_->show();
        configureDock_->raise();
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}

bool MainWindow::saveConfigFile(const QString& path, QString* error) {
    try {
        ampscope::saveConfigFile(configPanel_->config(), path.toStdString());
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}

void MainWindow::updateActions() {
    const bool active = bridge_->isActive();
    const bool stopping = active && bridge_->stopRequested();
    const bool valid = configPanel_->isValid();
    startAction_->setEnabled(!active && valid);
    pauseAction_->setEnabled(active && !stopping);
    stepAction_->setEnabled(active ? !stopping : valid);
    stopAction_->setEnabled(active && !stopping);
    openRunAction_->setEnabled(!active);
    openRemoteRunAction_->setEnabled(!active);
    openConfigAction_->setEnabled(!active);
    configPanel_->setEditable(!active);
    if (!active) {
        const QSignalBlocker block(pauseAction_);
        pauseAction_->setChecked(false);
    }
}

void MainWindow::updateStatusForConfig(const RunConfig& config) {
    deviceLabel_->setFullText(tr("%1 · %2").arg(QString::fromStdString(deviceText(config)),
                                                threadCount(threadsFor(config))));
    modeLabel_->setText(tr("mode %1").arg(QString::fromStdString(config.precision.mode)));
    const ModeExecution execution = executionFor(config);
    badge_->setExecution(execution);
    howLabel_->setFullText(QString::fromStdString(execution.how));
}

QString MainWindow::statusDeviceText() const {
    return deviceLabel_->fullText() + QLatin1Char(' ') + modeLabel_->text() + QLatin1Char(' ') +
           badge_->text() + QLatin1Char(' ') + howLabel_->fullText();
}

QString MainWindow::errorText() const {
    return errorLabel_->isHidden() ? QString() : errorLabel_->fullText();
}

qint64 MainWindow::stepsShown() const {
    return feed_->stepsShown();
}

bool MainWindow::isFollowingRun() const {
    return feed_->isFollowing();
}

void MainWindow::showError(const QString& message) {
    errorLabel_->setFullText(tr("Error: %1").arg(message));
    errorLabel_->setToolTip(message);
    errorLabel_->show();
    if (!errorBox_) {
        errorBox_ = new QMessageBox(QMessageBox::Warning, tr("AmpScope: run failed"), message,
                                    QMessageBox::Ok, this);
        errorBox_->setAttribute(Qt::WA_DeleteOnClose);
        errorBox_->setModal(false);
        errorBox_->setWindowModality(Qt::NonModal);
    } else {
        errorBox_->setText(message);
    }
    errorBox_->show();
}

void MainWindow::clearError() {
    errorLabel_->setFullText(QString());
    errorLabel_->hide();
    if (errorBox_) errorBox_->close();
}

void MainWindow::beginRunInViews(const RunContext& context) {
    feed_->beginRun(context);
    setWindowTitle(tr("AmpScope — %1").arg(context.title));
}

void MainWindow::replotAllNow() {
    for (QCustomPlot* plot : findChildren<QCustomPlot*>())
        plot->replot(QCustomPlot::rpImmediateRefresh);
}

bool MainWindow::startRunWith(bool singleStep) {
    if (bridge_->isActive()) return false;
    configPanel_->settleModelFile();  // a model path typed but not yet confirmed
    if (!configPanel_->isValid()) return false;
    clearError();
    const RunConfig config = configPanel_->config();
    const QString directory = newRunDirectory(options_.runsRoot, config);
    if (!bridge_->start(config, directory, singleStep)) return false;
    runDirectory_ = directory;
    runLabel_->setFullText(tr("Starting… recording to %1").arg(shownPath(directory)));
    runLabel_->setToolTip(directory);
    beginRunInViews({config, runDisplayName(config), directory, true});
    progressBar_->setFormat(tr("%v / %m steps"));
    progressBar_->setRange(0, 0);  // busy until the engine says how many steps it plans
    etaLabel_->clear();
    updateStatusForConfig(config);
    updateActions();
    return true;
}

void MainWindow::togglePause(bool pause) {
    if (!bridge_->isActive()) return;
    if (pause) {
        bridge_->pause();
        progress_.pause(clock_.elapsed() / 1000.0);
    } else {
        bridge_->resume();
        progress_.resume(clock_.elapsed() / 1000.0);
    }
}

void MainWindow::stepOnce() {
    if (!bridge_->isActive()) {
        if (!startRunWith(true)) return;
    } else {
        bridge_->stepOnce();
    }
    progress_.pause(clock_.elapsed() / 1000.0);
    const QSignalBlocker block(pauseAction_);
    pauseAction_->setChecked(true);
}

void MainWindow::stopRun() {
    if (!bridge_->isActive()) return;
    bridge_->stop();
    runLabel_->setFullText(tr("Stopping after the current step…"));
    updateActions();
}

void MainWindow::onMetrics(const DrainedMetrics& batch) {
    feed_->takeDrained(batch);
    if (!batch.steps.empty()) updateProgress(feed_->lastStep());
}

void MainWindow::updateProgress(qint64 step) {
    progress_.update(step, clock_.elapsed() / 1000.0);
    if (progressBar_->maximum() > 0)
        progressBar_->setValue(static_cast<int>(std::min<qint64>(step, progressBar_->maximum())));
    const double eta = progress_.etaSeconds();
    etaLabel_->setText(eta >= 0.0 ? tr("ETA %1").arg(QString::fromStdString(formatDuration(eta)))
                                  : QString());
}

void MainWindow::onStarted(qint64 totalSteps, const QString& description) {
    progress_.start(totalSteps, clock_.elapsed() / 1000.0, feed_->lastStep());
    progressBar_->setRange(0, static_cast<int>(std::min<qint64>(totalSteps, INT32_MAX)));
    progressBar_->setValue(static_cast<int>(std::min<qint64>(feed_->lastStep(), totalSteps)));
    runLabel_->setFullText(
        tr("Training · recording to %1").arg(shownPath(bridge_->runDirectory())));
    runLabel_->setToolTip(description + QStringLiteral("\n") + bridge_->runDirectory());
}

void MainWindow::onPaused() {
    const QSignalBlocker block(pauseAction_);
    pauseAction_->setChecked(true);
    progress_.pause(clock_.elapsed() / 1000.0);
    runLabel_->setFullText(
        tr("Paused at step %1 · %2").arg(feed_->lastStep()).arg(shownPath(bridge_->runDirectory())));
}

void MainWindow::onResumed() {
    const QSignalBlocker block(pauseAction_);
    pauseAction_->setChecked(false);
    progress_.resume(clock_.elapsed() / 1000.0);
    runLabel_->setFullText(
        tr("Training · recording to %1").arg(shownPath(bridge_->runDirectory())));
}

void MainWindow::onFailed(const QString& message, bool inputError) {
    (void)inputError;
    showError(message);
}

void MainWindow::onRunEnded(const RunSummary& summary) {
    updateActions();
    if (progressBar_->maximum() == 0) {
        progressBar_->setRange(0, 1);  // ended before it planned its steps
        progressBar_->setFormat(tr("no steps"));
    }
    etaLabel_->clear();
    runLabel_->setFullText(tr("%1 after %2 steps · %3")
                               .arg(statusWord(summary.status))
                               .arg(summary.steps)
                               .arg(shownRun()));
    Q_EMIT runEnded(QString::fromStdString(summary.status));
    if (closeRequested_) {
        pendingRerun_.reset();
        close();
    } else if (pendingRerun_) {
        configPanel_->setConfig(*pendingRerun_);
        pendingRerun_.reset();
        startRun();
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (bridge_->isActive()) {
        // Never join the engine on the GUI thread: ask it to stop and close when its
        // thread has ended (onRunEnded calls close() again).
        closeRequested_ = true;
        bridge_->stop();
        runLabel_->setFullText(tr("Stopping the run before closing…"));
        updateActions();
        event->ignore();
        return;
    }
    if (options_.persistSettings) saveSettings();
    stopFollowing();
    if (errorBox_) errorBox_->close();
    event->accept();
    Q_EMIT closed();
}

void MainWindow::stopFollowing() {
    feed_->stopFollowing();
    remote_.reset();  // ends ssh, removes the copy
}

QString MainWindow::shownRun() const {
    if (!remote_) return shownPath(runDirectory_);
    // A rank of a remote job: the address and the rank's place in it.
    const QString local = remote_->localDirectory();
    QString shown = remote_->shownName();
    if (runDirectory_.startsWith(local + QLatin1Char('/'))) shown += runDirectory_.mid(local.size());
    return shown;
}

QString MainWindow::runStatusText() const {
    return runLabel_->fullText();
}

bool MainWindow::openRun(const QString& location, QString* error) {
    if (isRemoteRunAddress(location.toStdString())) return openRemoteRun(location, error);
    return openRunDirectory(location, error);
}

bool MainWindow::openRemoteRun(const QString& address, QString* error) {
    if (bridge_->isActive()) {
        if (error) *error = tr("Stop the current run before opening another one.");
        return false;
    }
    std::unique_ptr<RemoteRunFollowing> remote;
    try {
        remote = std::make_unique<RemoteRunFollowing>(address);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    lastRemoteAddress_ = address;
    if (!remote->waitUntilCopied([this](const QString& text) { runLabel_->setFullText(text); }, error)) {
        runLabel_->setFullText(QString());
        return false;
    }
    const QString copy = remote->localDirectory();
    // openRunDirectory ends the previous run's following (and a previous remote_) first.
    stopFollowing();
    remote_ = std::move(remote);
    if (!openRunDirectory(copy, error)) {
        remote_.reset();
        return false;
    }
    // The opened run's own line, until the connection has something to say.
    const QString opened = runLabel_->fullText();
    connect(remote_.get(), &RemoteRunFollowing::statusChanged, this, [this, opened](const QString& text) {
        if (feed_->isFollowing()) runLabel_->setFullText(text.isEmpty() ? opened : text);
    });
    connect(remote_.get(), &RemoteRunFollowing::failed, this, &MainWindow::showError);
    return true;
}

void MainWindow::openRemoteRunWithDialog() {
    bool ok = false;
    const QString address = QInputDialog::getText(
        this, tr("Open remote run"),
        tr("A run directory or job folder on another machine, reached with your ssh\n"
           "(your ~/.ssh/config, keys and agent apply):"),
        QLineEdit::Normal,
        lastRemoteAddress_.isEmpty() ? QStringLiteral("ssh://host/path/to/run") : lastRemoteAddress_, &ok);
    if (!ok || address.trimmed().isEmpty()) return;
    QString error;
    if (!openRun(address.trimmed(), &error)) QMessageBox::warning(this, tr("Open remote run"), error);
}

bool MainWindow::openRunDirectory(const QString& directory, QString* error) {
    if (bridge_->isActive()) {
        if (error) *error = tr("Stop the current run before opening another one.");
        return false;
    }
    feed_->stopFollowing();
    // A remote run's copy stays open while it is what is opened (openRemoteRun), or one
    // of its ranks; anything else closes it.
    if (remote_ && directory != remote_->localDirectory() &&
        !directory.startsWith(remote_->localDirectory() + QLatin1Char('/')))
        remote_.reset();
    clearError();
    const std::string dir = QDir::cleanPath(directory).toStdString();
    // A run recorded under torch.distributed: its ranks go to the Compare dock, and the
    // views show the rank that went non-finite first (rank 0 when none did).
    if (const std::vector<std::string> ranks = rankRunDirectories(dir); !ranks.empty()) {
        compareView_->clearRuns();
        if (!compareView_->addRun(directory, error)) return false;
        compareDock_->show();
        compareDock_->raise();
        // Which rank the NaN came from, and which received it through the all-reduce:
        // said in the status line of the rank opened next too.
        if (!compareView_->jobOrigin().isEmpty()) jobNote_ = QStringLiteral(" · ") + compareView_->jobOrigin();
        return openRunDirectory(QString::fromStdString(ranks[compareView_->firstNonFiniteRun()]), error);
    }
    const QString jobNote = std::exchange(jobNote_, QString());
    const bool complete = QFileInfo::exists(directory + QStringLiteral("/summary.json"));
    RunConfig config;
    // A complete run is streamed to the views (never held: 10^6 steps are GBs as JSON).
    std::unique_ptr<RunRecordReader> reader;
    std::unique_ptr<RunFollower> follower;
    QString note;
    try {
        if (complete) {
            reader = std::make_unique<RunRecordReader>(dir);
            try {
                config = configFromJson(reader->data().config);
            } catch (const std::exception& e) {
                note = tr(" (its config.json does not load here: %1)")
                           .arg(QString::fromUtf8(e.what()));
            }
        } else {
            if (!QFileInfo::exists(directory + QStringLiteral("/config.json")))
                throw InputError(dir +
                                 ": missing config.json — not an AmpScope run directory "
                                 "(or its writer has not started)");
            try {
                config = ampscope::loadConfigFile(dir + "/config.json");
            } catch (const std::exception& e) {
                note = tr(" (its config.json does not load here: %1)")
                           .arg(QString::fromUtf8(e.what()));
            }
            follower = std::make_unique<RunFollower>(dir);
        }
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    runDirectory_ = QString::fromStdString(dir);
    configPanel_->setConfig(config);
    updateStatusForConfig(config);
    const QString title = QFileInfo(runDirectory_).fileName();
    beginRunInViews({config, title, runDirectory_, false});
    progressBar_->setFormat(tr("%v / %m steps"));
    if (complete) {
        try {
            streamRunToViews(*reader);
        } catch (const std::exception& e) {
            // Read errors after the start (EIO): what was read stays shown.
            showError(QString::fromUtf8(e.what()));
        }
        const RunData& data = reader->data();
        progressBar_->setRange(0, static_cast<int>(std::max<qint64>(1, feed_->lastStep())));
        progressBar_->setValue(static_cast<int>(feed_->lastStep()));
        QString text =
            tr("Opened %1 (%2 steps)").arg(shownRun()).arg(feed_->stepsShown()) + note + jobNote;
        if (!data.warnings.empty()) text += tr(" · %1 warning(s)").arg(data.warnings.size());
        runLabel_->setFullText(text);
        QStringList warnings;
        for (const auto& w : data.warnings) warnings << QString::fromStdString(w);
        runLabel_->setToolTip(warnings.join(QLatin1Char('\n')));
        Q_EMIT runLoaded();
    } else {
        progressBar_->setRange(0, 0);
        runLabel_->setFullText(
            tr("Following %1 (still being written)").arg(shownRun()) + note + jobNote);
        feed_->follow(std::move(follower));
    }
    etaLabel_->clear();
    updateActions();
    return true;
}

void MainWindow::streamRunToViews(RunRecordReader& reader) {
    // The window repaints (no input) about every 100 ms meanwhile, with how far it got.
    feed_->streamComplete(reader, [this](double fraction) {
        runLabel_->setFullText(tr("Opening %1… %2%, %3 steps")
                                   .arg(shownRun())
                                   .arg(100.0 * fraction, 0, 'f', 0)
                                   .arg(feed_->stepsShown()));
        QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
    });
}

// The status bar from the engine's facts, live or recorded alike.
void MainWindow::showRunInfo(const nlohmann::json& record) {
    const QString device = QString::fromStdString(record.value("device", std::string()));
    const QString name = QString::fromStdString(record.value("device_name", std::string()));
    deviceLabel_->setFullText(
        tr("%1: %2 · %3").arg(device.toUpper(), name, threadCount(record.value("threads", 0))));
    if (record.contains("precision") && record["precision"].is_object()) {
        const auto& p = record["precision"];
        ModeExecution execution{p.value("emulated", false), p.value("execution", std::string())};
        badge_->setExecution(execution);
        howLabel_->setFullText(QString::fromStdString(execution.how));
        modeLabel_->setText(tr("mode %1").arg(QString::fromStdString(p.value("mode", std::string()))));
    }
}

void MainWindow::openRunWithDialog() {
    const QString directory =
        QFileDialog::getExistingDirectory(this, tr("Open a run directory"), options_.runsRoot);
    if (directory.isEmpty()) return;
    QString error;
    if (!openRunDirectory(directory, &error)) QMessageBox::warning(this, tr("Open run"), error);
}

void MainWindow::openConfigWithDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a config"), QString(),
                                                      tr("AmpScope config (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!loadConfigFile(path, &error)) QMessageBox::warning(this, tr("Open config"), error);
}

void MainWindow::saveConfigWithDialog() {
    const QString suggested = runDisplayName(configPanel_->config()) + QStringLiteral(".json");
    const QString path = QFileDialog::getSaveFileName(this, tr("Save config"), suggested,
                                                      tr("AmpScope config (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!saveConfigFile(path, &error)) QMessageBox::warning(this, tr("Save config"), error);
}

void MainWindow::exportPlotsWithDialog() {
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Export plots into"));
    if (directory.isEmpty()) return;
    QStringList failures;
    for (QCustomPlot* plot : findChildren<QCustomPlot*>()) {
        for (const char* suffix : {"png", "svg", "pdf"}) {
            const QString error = savePlotImage(plot,
                                                directory + QLatin1Char('/') + plot->objectName() +
                                                    QLatin1Char('.') + QLatin1String(suffix),
                                                {plotExportTitle(plot), QSize(), 192.0});
            if (!error.isEmpty()) failures << error;
        }
    }
    if (!failures.isEmpty())
        QMessageBox::warning(this, tr("Export plots"), failures.join(QLatin1Char('\n')));
}

}  // namespace ampscope::ui
