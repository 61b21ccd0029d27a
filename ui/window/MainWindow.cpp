#include "window/MainWindow.h"

#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QTimer>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "configure/ConfigPanel.h"
#include "window/DockLayout.h"
#include "feed/EngineBridge.h"
#include "feed/RunControl.h"
#include "feed/RunDirectoryNaming.h"
#include "feed/RunOpener.h"
#include "window/RunPaceControl.h"
#include "lessons/ScenarioBrowser.h"
#include "lessons/ScenarioRunner.h"
#include "window/StatusPanel.h"
#include "window/ViewDirector.h"
#include "window/WindowActions.h"
#include "window/WindowDocks.h"
#include "lessons/LessonDropTarget.h"
#include "lessons/LessonSaving.h"
#include "window/PresentMode.h"
#include "prescribe/PrescribeAction.h"
#include "lessons/ScenarioShelf.h"
#include "config/ConfigJson.h"
#include "plots/PlotExport.h"
#include "plots/QCustomPlotInclude.h"
#include "runset/RunSet.h"
#include "views/BlockScalesView.h"
#include "views/FormatExplorerView.h"
#include "views/ModuleTreeView.h"
#include "views/NanInspectorView.h"
#include "views/RunListView.h"
#include "feed/SeedRunSequence.h"

// Resources of a static library must be registered by hand; the macro cannot be used
// inside a namespace.
static void initUiResources() {
    Q_INIT_RESOURCE(ui_resources);
}

namespace ampscope::ui {

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), options_(std::move(options)) {
    initUiResources();
    setObjectName(QStringLiteral("ampscopeMainWindow"));
    setWindowTitle(tr("AmpScope"));
    setWindowIcon(QIcon(QStringLiteral(":/ampscope/icons/ampscope.svg")));
    if (options_.runsRoot.isEmpty()) options_.runsRoot = defaultRunsRoot();
    // A hidden central widget: every view is a dock the user can move or close.
    auto* central = new QWidget(this);
    central->setMaximumSize(0, 0);
    central->hide();
    setCentralWidget(central);
    setDockNestingEnabled(true);

    set_ = new RunSet(this);
    control_ = new RunControl(set_, options_.runsRoot, this);
    opener_ = new RunOpener(set_, this);
    shelf_ = new ScenarioShelf(this);
    scenarios_ = new ScenarioRunner(control_, set_, shelf_, this);
    WindowActions::Handlers handlers;
    handlers.start = [this] { startRun(); };
    handlers.pause = [this](bool pause) { control_->pause(pause); pause ? status_->paused() : status_->resumed(); };
    handlers.stepOnce = [this] { stepOnce(); };
    handlers.mapStep = [this] { mapNextStep(); };
    handlers.stop = [this] { stopRun(); };
    handlers.resetLayout = [this] { layout_->resetLayout(); };
    handlers.openRun = [this](const QString& path, QString* error) { return openRun(path, error); };
    handlers.openConfig = [this](const QString& path, QString* error) { return loadConfigFile(path, error); };
    handlers.saveConfig = [this](const QString& path, QString* error) { return saveConfigFile(path, error); };
    handlers.openLesson = [this](const QString& path, QString* error) { return !openLesson(path, error).isEmpty(); };
    handlers.saveLesson = [this](const QString& p, QString* e) { return saveLessonFolder(*set_, layout_->docksInView(), p, e); };
    handlers.exportLesson = [this](const QString& p, QString* e) { return exportLessonFile(*set_, layout_->docksInView(), p, e); };
    handlers.configFileName = [this] { return runDisplayName(views_.config->config()) + QStringLiteral(".json"); };
    handlers.focusedDirectory = [this] { return runDirectory(); };
    handlers.loadScenario = [this](const QString& name) { loadScenario(name); };
    handlers.runLoadedScenario = [this] {
        QString error;
        const QString name = views_.scenarios->loadedScenario();
        if (!name.isEmpty() && !runScenario(name, &error)) status_->showError(error);
    };
    actions_ = new WindowActions(this, std::move(handlers), options_.persistSettings, options_.runsRoot);
    status_ = new StatusPanel(statusBar(), this);
    layout_ = new DockLayout(this, actions_->viewMenu(), options_.persistSettings);
    views_ = buildWindowDocks(set_, scenarios_, *layout_, this);
    director_ = new ViewDirector(set_, layout_, views_);
    layout_->keepInitialLayout();
    connectRunControl();
    connectOpener();
    connectViews();
    installPlotExportMenus(this);  // "Save image…" on the plots that have no menu of their own
    present_ = new PresentMode({this, layout_, views_.scenarios, scenarios_, actions_->pauseAction(),
                                [this](const ScenarioView& view) { return showScenarioView(view); }},
                               actions_->viewMenu());
    new PrescribeAction(this);  // Run > Prescribe…

    layout_->startAtLaptopSize();
    // First start (no config saved yet): the default scenario is loaded, not started.
    const bool firstStart = options_.persistSettings && !layout_->hasSavedConfig();
    layout_->restore([this](const QString& json) {
        try {
            views_.config->setConfig(configFromJson(nlohmann::json::parse(json.toStdString())));
        } catch (const std::exception&) {
            // A config from another version that no longer validates: start from defaults.
        }
    });
    if (firstStart) loadScenario(QString::fromLatin1(kDefaultScenario));
    new LessonDropTarget(
        this, [this](const QString& path, QString* error) { return !openLesson(path, error).isEmpty(); },
        [this](const QString& error) { status_->showError(error); });
    if (options_.persistSettings)
        for (const QString& refused : shelf_->openLessonsIn(ScenarioShelf::userLessonFolder())) status_->showError(refused);
    status_->showConfig(views_.config->config());
    updateActions();
}

MainWindow::~MainWindow() { delete director_; }

void MainWindow::connectRunControl() {
    seedRuns_ = new SeedRunSequence(control_, set_, this);
    EngineBridge* bridge = control_->bridge();
    bridge->setStepsPerSecond(actions_->paceControl()->stepsPerSecond());
    connect(actions_->paceControl(), &RunPaceControl::paceChanged, bridge, &EngineBridge::setStepsPerSecond);
    connect(control_, &RunControl::runStarted, this, [this](const QString& directory, const RunConfig& config) {
        views_.config->setConfig(config);
        status_->clearError();
        status_->setRunText(tr("Starting… recording to %1").arg(shownPath(directory)), directory);
        status_->beginRun();
        updateActions();
    });
    connect(control_, &RunControl::stateChanged, this, &MainWindow::updateActions);
    connect(control_, &RunControl::stepsShownChanged, this, &MainWindow::stepsShownChanged);
    connect(control_, &RunControl::progressed, status_, &StatusPanel::progressed);
    connect(control_, &RunControl::started, this, [this](qint64 total, const QString& description) {
        status_->planned(total, control_->lastStep());
        const QString directory = control_->runDirectory();
        status_->setRunText(tr("Training · recording to %1").arg(shownPath(directory)),
                            description + QStringLiteral("\n") + directory);
    });
    connect(control_, &RunControl::paused, this, [this] {
        updateActions();  // a paused run's next step can be mapped
        actions_->showPaused(true);
        status_->paused();
        status_->setRunText(
            tr("Paused at step %1 · %2").arg(control_->lastStep()).arg(shownPath(control_->runDirectory())));
    });
    connect(control_, &RunControl::resumed, this, [this] {
        updateActions();
        actions_->showPaused(false);
        status_->resumed();
        status_->setRunText(tr("Training · recording to %1").arg(shownPath(control_->runDirectory())));
    });
    connect(control_, &RunControl::failed, status_, [this](const QString& message) { status_->showError(message); });
    connect(control_, &RunControl::runEnded, this, [this](const RunSummary& summary) {
        updateActions();
        status_->ended();
        status_->setRunText(tr("%1 after %2 steps · %3")
                                .arg(StatusPanel::endWord(summary.status))
                                .arg(summary.steps)
                                .arg(shownPath(control_->runDirectory())));
        Q_EMIT runEnded(QString::fromStdString(summary.status));
        if (closeRequested_) {
            control_->dropPending();
            close();
        }
    });
}

void MainWindow::connectOpener() {
    connect(opener_, &RunOpener::progress, this, [this](const QString& text) { status_->setRunText(text); });
    connect(opener_, &RunOpener::message, this, [this](const QString& text, const QStringList& warnings) {
        status_->setRunText(text, warnings.join(QLatin1Char('\n')));
    });
    connect(opener_, &RunOpener::runLoaded, this, [this] {
        const RunModel* focused = set_->focused();
        if (focused) status_->showSteps(focused->steps().lastStep(), opener_->isFollowing());
        Q_EMIT runLoaded();
    });
    connect(opener_, &RunOpener::followFailed, status_, [this](const QString& message) { status_->showError(message); });
    connect(opener_, &RunOpener::refused, status_, &StatusPanel::showProblem);
    connect(opener_, &RunOpener::followFinished, this, [this](RunId run) {
        const RunModel* model = set_->run(run);
        if (!model) return;
        status_->showSteps(model->steps().lastStep(), false);
        const QString problem = opener_->endProblem(run);  // its summary's fields of another type
        status_->setRunText(tr("Opened %1 (%2 steps; the run has ended)%3")
                                .arg(shownPath(model->directory()))
                                .arg(model->steps().stepCount())
                                .arg(problem.isEmpty() ? QString() : QStringLiteral(" \u00B7 ") + problem));
    });
}

void MainWindow::connectViews() {
    connect(set_, &RunSet::changed, this, &MainWindow::onSetChanged);
    connect(views_.runs, &RunListView::focusedBandLabelChanged, status_, &StatusPanel::showBandLabel);
    ConfigPanel* config = views_.config;
    connect(config, &ConfigPanel::configChanged, this, [this] {
        if (!control_->isActive() && !opener_->isFollowing()) status_->showConfig(views_.config->config());
        updateActions();
    });
    connect(config, &ConfigPanel::validityChanged, this, &MainWindow::updateActions);
    // The panel's module tree is the focused run's (from its records, never from loading
    // its model file) once a run is shown; it widens the Configure dock to read whole.
    config->moduleTree()->followFocusedRun(set_);
    connect(config->moduleTree(), &ModuleTreeView::modulesChanged, this,
            [this] { QTimer::singleShot(0, this, &MainWindow::fitConfigureDock); });
    ScenarioBrowser* browser = views_.scenarios;
    connect(browser, &ScenarioBrowser::configChosen, config, &ConfigPanel::setConfig);
    connect(browser, &ScenarioBrowser::scenarioLoaded, actions_->paceControl(), &RunPaceControl::showScenario);
    connect(browser, &ScenarioBrowser::scenarioLoaded, this, [this](const QString& name) {
        // The docks the narrative points at (scenario.json "docks") come to the front.
        if (const Scenario* scenario = shelf_->find(name))
            for (const std::string& id : scenario->docks) layout_->raise(QString::fromStdString(id));
        layout_->raise(QStringLiteral("scenarios"));
    });
    connect(browser, &ScenarioBrowser::viewRequested, this, &MainWindow::showScenarioView);
    connect(scenarios_, &ScenarioRunner::viewRequested, this, &MainWindow::showScenarioView);
    connect(views_.nanInspector, &NanInspectorView::rerunWithLayerInFp32, this, &MainWindow::rerunKeepingLayerInFp32);
    // The first NaN/Inf is what the user needs to see: bring its dock to the front.
    connect(views_.nanInspector, &NanInspectorView::nonFiniteFound, this,
            [this] { layout_->raise(QStringLiteral("nanInspector")); });
    connect(views_.runs, &RunListView::addRunRequested, actions_, &WindowActions::openRunWithDialog);
    // The block scale chosen there is the one the explorer divides by.
    connect(views_.blockScales, &BlockScalesView::blockScaleChosen, views_.formatExplorer,
            &FormatExplorerView::setBlockScale);
}

void MainWindow::onSetChanged(RunId run, RunChanges what) {
    const RunModel* focused = set_->focused();
    if ((what & RunChange::Focus) || (run == set_->focusedId() && (what & RunChange::Identity))) showFocusedFacts();
    if ((what & RunChange::Removed) && !focused) setWindowTitle(tr("AmpScope"));
    // An opened run's error record (a live run's error is the engine's failure).
    const RunModel* model = set_->run(run);
    if (model && (what & RunChange::Identity) && !model->isLive() && !model->errorMessage().isEmpty() &&
        !errorsShown_.contains(run)) {
        errorsShown_.insert(run);
        status_->showError(tr("%1 ended with an error: %2").arg(model->name(), model->errorMessage()));
    }
}

void MainWindow::showFocusedFacts() {
    const RunModel* focused = set_->focused();
    if (!focused) return;
    setWindowTitle(tr("AmpScope — %1").arg(focused->name()));
    status_->showRunFacts(focused->info());
}

QString MainWindow::runDirectory() const {
    const RunModel* focused = set_->focused();
    return focused ? focused->directory() : control_->runDirectory();
}

qint64 MainWindow::stepsShown() const {
    const RunModel* focused = set_->focused();
    return focused ? focused->steps().stepCount() : 0;
}

void MainWindow::setConfig(const RunConfig& config) {
    views_.config->setConfig(config);
}

bool MainWindow::loadConfigFile(const QString& path, QString* error) {
    try {
        views_.config->setConfig(ampscope::loadConfigFile(path.toStdString()));
        // The user named this config (--config, Open config…): its model file is loaded
        // for the module tree; one that cannot be used is shown at its field, not refused.
        views_.config->inspectModelFile();
        layout_->raise(QStringLiteral("configure"));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}

bool MainWindow::saveConfigFile(const QString& path, QString* error) {
    try {
        ampscope::saveConfigFile(views_.config->config(), path.toStdString());
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}

bool MainWindow::loadScenario(const QString& key, QString* error) {
    return views_.scenarios->loadScenario(key, error);
}

QString MainWindow::openLesson(const QString& path, QString* error) {
    return views_.scenarios->openLesson(path, error);  // loaded: its docks and Scenarios come to the front
}

bool MainWindow::runScenario(const QString& key, QString* error) {
    if (!views_.scenarios->runScenario(key, error)) return false;
    layout_->raise(QStringLiteral("scenarios"));
    return true;
}

bool MainWindow::showScenarioView(const ScenarioView& view) {
    return director_->show(view);
}

bool MainWindow::openRun(const QString& location, QString* error) {
    status_->clearError();
    if (!opener_->open(location, error)) return false;
    // One run opened while none trains: the Configure panel shows its config (a run
    // recorded elsewhere has the config the recorder wrote).
    const RunModel* focused = set_->focused();
    if (!control_->isActive() && opener_->openedRuns().size() == 1 && focused) views_.config->setConfig(focused->config());
    showFocusedFacts();
    updateActions();
    return true;
}

bool MainWindow::isFollowingRun() const {
    return opener_->isFollowing();
}

QString MainWindow::runStatusText() const {
    return status_->runText();
}

void MainWindow::replotAllNow() {
    for (QCustomPlot* plot : findChildren<QCustomPlot*>()) plot->replot(QCustomPlot::rpImmediateRefresh);
}

bool MainWindow::startRun() {
    views_.config->settleModelFile();  // a model path typed but not yet confirmed
    if (control_->isActive() || !views_.config->isValid()) return false;
    if (const int seeds = views_.config->seeds(); seeds > 1)
        return seedRuns_->start(views_.config->config(), seeds);
    return control_->start(views_.config->config());
}

void MainWindow::stepOnce() {
    if (!control_->isActive()) views_.config->settleModelFile();
    if (!control_->isActive() && !views_.config->isValid()) return;
    if (!control_->stepOnce(views_.config->config())) return;
    status_->paused();
    actions_->showPaused(true);
}

void MainWindow::mapNextStep() {
    if (!control_->mapNextStep()) return;
    layout_->raise(QStringLiteral("precisionMap"));
    actions_->showPaused(true);
}

void MainWindow::stopRun() {
    if (!control_->isActive()) return;
    control_->stop();
    status_->setRunText(tr("Stopping after the current step…"));
}

void MainWindow::rerunKeepingLayerInFp32(const QString& layer) {
    const RunModel* focused = set_->focused();
    RunConfig config = focused ? focused->config() : views_.config->config();
    auto& keep = config.precision.keep_fp32;
    if (std::find(keep.begin(), keep.end(), layer.toStdString()) == keep.end()) keep.push_back(layer.toStdString());
    views_.config->setConfig(config);
    control_->startAfterCurrent(config);
}

void MainWindow::updateActions() {
    const bool active = control_->isActive();
    actions_->update(active, active && control_->stopRequested(), views_.config->isValid(), control_->isPaused());
    views_.config->setEditable(!active);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    layout_->windowShown();
    QTimer::singleShot(0, this, &MainWindow::fitConfigureDock);  // once laid out
}

void MainWindow::fitConfigureDock() {
    ModuleTreeView* tree = views_.config->moduleTree();
    QDockWidget* dock = layout_->dock(QStringLiteral("configure"));
    if (isVisible() && tree->isVisible() && !tree->isEmpty())
        layout_->widenConfigure(dock->width() + tree->preferredWidth() - tree->width());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (control_->isActive()) {
        // Never join the engine on the GUI thread: ask it to stop and close when its
        // thread has ended (runEnded calls close() again).
        closeRequested_ = true;
        control_->stop();
        status_->setRunText(tr("Stopping the run before closing…"));
        event->ignore();
        return;
    }
    layout_->save(QString::fromStdString(configToJson(views_.config->config()).dump()));
    opener_->stopFollowing();
    status_->clearError();
    event->accept();
    Q_EMIT closed();
}

}  // namespace ampscope::ui
