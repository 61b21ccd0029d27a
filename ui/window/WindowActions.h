#pragma once
// WindowActions: the window's actions, menus and tool bar: File (open a run, open or save
// a config, export plots, a report or the data of the focused run, quit), Run (start,
// pause, step once, map this step against fp32, stop), View (every dock, reset layout), Scenarios (open, save
// as or export a lesson, one line per built-in scenario, run the loaded one), Help; the tool bar with the run controls, the
// pace and Open run. The file dialogs are here too: an action asks, a handler acts.
//
// Contract:
// - Handlers say what the window does: each is called with what the user chose (a path,
//   a scenario name); a handler's error is shown in a message box over the window.
// - update(active, stopping, valid): Start needs a valid config and no active run;
//   Pause and Stop an active run that is not stopping; Step once either; opening a
//   config waits for the run to end. Map this step needs a step not yet run: a paused
//   run's next one (`paused`).
// - viewMenu(): where DockLayout lists the docks (above Reset layout).
#include <QObject>
#include <QString>
#include <functional>

class QAction;
class QMainWindow;
class QMenu;

namespace ampscope::ui {

class RunExportActions;
class RunPaceControl;

class WindowActions : public QObject {
    Q_OBJECT
public:
    struct Handlers {
        std::function<void()> start, stepOnce, mapStep, stop, resetLayout;
        std::function<void(bool pause)> pause;
        // false with `error` filled when it failed.
        std::function<bool(const QString& path, QString* error)> openRun, openConfig, saveConfig, openLesson,
            saveLesson, exportLesson;
        std::function<QString()> configFileName;    // suggested when saving
        std::function<QString()> focusedDirectory;  // what reports and data export act on
        std::function<void(const QString& scenario)> loadScenario;
        std::function<void()> runLoadedScenario;
    };

    WindowActions(QMainWindow* window, Handlers handlers, bool persistSettings, const QString& runsRoot);

    void update(bool active, bool stopping, bool valid, bool paused = false);
    // Shows the pause action checked or not, without asking to pause.
    void showPaused(bool paused);

    QAction* startAction() const { return start_; }
    QAction* pauseAction() const { return pause_; }
    QAction* stepAction() const { return step_; }
    QAction* mapStepAction() const { return mapStep_; }
    QAction* stopAction() const { return stop_; }
    QAction* openRunAction() const { return openRun_; }
    QAction* openRemoteRunAction() const { return openRemoteRun_; }
    QAction* saveConfigAction() const { return saveConfig_; }
    QAction* quitAction() const { return quit_; }
    QMenu* viewMenu() const { return viewMenu_; }
    RunPaceControl* paceControl() const { return pace_; }
    RunExportActions* exportActions() const { return exportActions_; }

public Q_SLOTS:
    void openRunWithDialog();
    void openRemoteRunWithDialog();
    void openConfigWithDialog();
    void saveConfigWithDialog();
    // A lesson file, or a lesson folder chosen by its scenario.json.
    void openLessonWithDialog();
    // What the window shows as a new lesson folder, or as one lesson file.
    void saveLessonWithDialog();
    void exportLessonWithDialog();
    void exportPlotsWithDialog();

private:
    void buildActions();
    void buildMenus();
    void buildScenarioMenu();
    void buildToolBar(bool persistSettings);

    QMainWindow* window_;
    Handlers handlers_;
    QString runsRoot_;
    QAction* start_ = nullptr;
    QAction* pause_ = nullptr;
    QAction* step_ = nullptr;
    QAction* mapStep_ = nullptr;
    QAction* stop_ = nullptr;
    QAction* openRun_ = nullptr;
    QAction* openRemoteRun_ = nullptr;
    QString lastRemoteAddress_;
    QAction* openConfig_ = nullptr;
    QAction* saveConfig_ = nullptr;
    QAction* export_ = nullptr;
    QAction* quit_ = nullptr;
    QAction* resetLayout_ = nullptr;
    QAction* about_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    RunPaceControl* pace_ = nullptr;
    RunExportActions* exportActions_ = nullptr;
};

}  // namespace ampscope::ui
