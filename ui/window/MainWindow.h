#pragma once
// MainWindow: the lab. It owns the run set (the window's one data model) and arranges
// the parts that act on it; it decides nothing itself:
// - RunControl: start, pause, step once, map a step, stop (the live run joins the set);
// - RunOpener: runs opened or followed from disk join the set;
// - ScenarioRunner and ViewDirector: a scenario's runs, and the parts of its narrative;
// - WindowActions: actions, menus, the tool bar and their file dialogs;
// - StatusPanel: the status bar and progress;
// - DockLayout: the docks, their layout and the settings; PresentMode: the projector's;
// - buildWindowDocks: every view, given the run set (WindowViews).
//
// Contract:
// - Start records the run under <runsRoot>/<timestamp>-<name>; while a run is active the
//   config is read-only; Start is enabled only when the config is valid and no run is
//   active. Engine errors show in the status bar and a non-modal message box; the window
//   stays usable.
// - openRun() adds what a path holds to the set (RunOpener): a run, a recorded job's
//   ranks (the status bar names the rank its NaN came from), a scenario's output folder,
//   or one of those on another machine (ssh://[user@]host[:port]/path, followed through
//   the user's ssh); runLoaded says when what is on disk is in.
// - Closing while a run trains asks the engine to stop and closes once the engine's
//   thread has ended (no join on the GUI thread).
// - With persistSettings, QSettings keeps geometry, dock layout and the last config; without
//   it (tests, --screenshot) nothing is read or written.
#include <QMainWindow>
#include <QSet>

#include "window/WindowViews.h"
#include "config/RunConfig.h"
#include "runset/RunChanges.h"

namespace ampscope {
struct ScenarioView;
}

namespace ampscope::ui {

class DockLayout;
class PresentMode;
class RunControl;
class RunOpener;
class RunSet;
class ScenarioRunner;
class ScenarioShelf;
class SeedRunSequence;
class StatusPanel;
class ViewDirector;
class WindowActions;

struct MainWindowOptions {
    bool persistSettings = true;
    QString runsRoot;  // empty: defaultRunsRoot()
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Loads a config file into the Configure panel; false with a one-line error.
    bool loadConfigFile(const QString& path, QString* error);
    bool saveConfigFile(const QString& path, QString* error);
    void setConfig(const RunConfig& config);
    // Scenarios (ScenarioBrowser.h), by key: a built-in's name or an opened lesson's path.
    // Load shows the narrative and the first run's config; run also trains the runs one
    // after another. openLesson adds a lesson folder or file and loads it: its key, or
    // empty with `error`. The user's lessons (ScenarioShelf::userLessonFolder) are opened
    // when the window starts with persistSettings (tests open them through the shelf).
    bool loadScenario(const QString& key, QString* error = nullptr);
    bool runScenario(const QString& key, QString* error = nullptr);
    QString openLesson(const QString& path, QString* error = nullptr);
    // Shows a part of the loaded scenario's narrative (ViewDirector).
    bool showScenarioView(const ScenarioView& view);
    bool openRun(const QString& location, QString* error);
    bool isFollowingRun() const;
    QString runStatusText() const;  // the status bar's line about the runs
    // Redraws every plot now (not queued): for grabbing the window into an image.
    void replotAllNow();

    RunSet* runSet() const { return set_; }
    const WindowViews& views() const { return views_; }
    RunControl* runControl() const { return control_; }
    RunOpener* opener() const { return opener_; }
    ScenarioRunner* scenarioRunner() const { return scenarios_; }
    StatusPanel* statusPanel() const { return status_; }
    WindowActions* actions() const { return actions_; }
    DockLayout* dockLayout() const { return layout_; }
    PresentMode* presentMode() const { return present_; }
    ConfigPanel* configPanel() const { return views_.config; }
    ScenarioBrowser* scenarioBrowser() const { return views_.scenarios; }
    // The focused run's directory (the live run's while it trains).
    QString runDirectory() const;
    // Steps of the focused run in the set.
    qint64 stepsShown() const;

public Q_SLOTS:
    bool startRun();
    void stepOnce();
    // On a paused run: the next step, run once with its precision map against fp32.
    void mapNextStep();
    void stopRun();
    // The NaN inspector's fix: the focused run's config with `layer` added to
    // precision.keep_fp32, started as a new run (after the active one has stopped).
    void rerunKeepingLayerInFp32(const QString& layer);

Q_SIGNALS:
    // After each batch of the live run reached the set; `total` steps so far.
    void stepsShownChanged(qint64 total);
    // A live run ended ("finished", "stopped" or "error").
    void runEnded(const QString& status);
    // What openRun asked for is in the set (for a run still being written: all
    // that was written when its follower first caught up, or failed).
    void runLoaded();
    // The window accepted a close (after any run it trained has stopped).
    void closed();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void connectRunControl();
    void connectOpener();
    void connectViews();
    void onSetChanged(RunId run, RunChanges what);
    void showFocusedFacts();
    void fitConfigureDock();
    void updateActions();

    MainWindowOptions options_;
    RunSet* set_ = nullptr;
    RunControl* control_ = nullptr;
    RunOpener* opener_ = nullptr;
    ScenarioShelf* shelf_ = nullptr;
    ScenarioRunner* scenarios_ = nullptr;
    SeedRunSequence* seedRuns_ = nullptr;  // Start with Seeds above 1
    StatusPanel* status_ = nullptr;
    WindowActions* actions_ = nullptr;
    DockLayout* layout_ = nullptr;
    ViewDirector* director_ = nullptr;
    PresentMode* present_ = nullptr;
    WindowViews views_;
    QSet<RunId> errorsShown_;  // runs whose error record the status bar showed
    bool closeRequested_ = false;
};

}  // namespace ampscope::ui
