#pragma once
// MainWindow: the lab. Docks for configuring a run and watching it, run controls, and
// opening recorded runs.
//
// Contract:
// - Views are docks registered with addRunView(); the View menu lists every dock, so a
//   closed one can be brought back, and "Reset layout" restores the initial arrangement.
//   A view that implements RunObserver receives every run, live or opened from disk.
// - Start records the run under <runsRoot>/<timestamp>-<name> (the path is shown in
//   the status bar). While a run is active the config is read-only; Start is enabled
//   only when the config is valid and no run is active.
// - Engine errors show in the status bar and in a non-modal message box; the window
//   stays usable and a new run can start.
// - Open run… reads a run directory: at once when it is complete (summary.json), streamed
//   to the views in batches (RunRecordReader; the views keep bounded data, so a 10^6-step
//   run opens in bounded memory; the window repaints with its progress meanwhile), else it
//   follows it live (RunFollower polled on a 30 Hz timer) until it completes. runLoaded
//   says when what is on disk is shown. RunFeed does the feeding, for live runs too.
// - Open remote run… (and openRun with an ssh:// address) follows a run on another
//   machine through the user's ssh: RemoteRunFollowing keeps a local copy that is opened
//   as above; the status bar names it host:path and says "reconnecting…" while the
//   connection is retried. Closing the run (opening another, closing the window) ends
//   ssh and removes the copy.
// - A job folder of torch.distributed ranks opens with its ranks in the Compare dock,
//   the rank that went non-finite first in the views, and the status bar naming the
//   rank the NaN came from (JobNonFiniteOrigin.h).
// - Closing while a run trains asks the engine to stop and closes once the engine's
//   thread has ended (the GUI keeps painting meanwhile; no join on the GUI thread).
// - With persistSettings, QSettings keeps geometry, dock layout and the last config
//   (as config JSON); without it (tests, --screenshot) nothing is read or written.
#include <QElapsedTimer>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

#include "ProgressEstimator.h"
#include "RunObserver.h"
#include "config/RunConfig.h"
#include "engine/MetricStream.h"
#include "engine/RunSummary.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QMessageBox;
class QProgressBar;

namespace ampscope {
class RunFollower;
class RunRecordReader;
}  // namespace ampscope

namespace ampscope::ui {

class ConfigPanel;
class ElidingLabel;
class EngineBridge;
class ExecutionBadge;
class GradientHistogramView;
class ScenarioBrowser;
class RunPaceControl;
class RemoteRunFollowing;
class LossPlot;
class MemoryPlot;
class CompareView;
class LockstepPlot;
class NanInspectorView;
class RunExportActions;
class RunFeed;
class ScalePlot;
class ThroughputPlot;
class UnderflowView;
class FormatSweepView;
class ScalingView;
class BlockScalesView;
class FormatExplorerView;

struct MainWindowOptions {
    bool persistSettings = true;
    QString runsRoot;  // empty: defaultRunsRoot()
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    QDockWidget* addRunView(const QString& id, const QString& title, QWidget* widget,
                            Qt::DockWidgetArea area, RunObserver* observer);

    // Loads a config file into the Configure panel; false with a one-line error.
    bool loadConfigFile(const QString& path, QString* error);
    bool saveConfigFile(const QString& path, QString* error);
    void setConfig(const RunConfig& config);
    // Built-in scenarios (ScenarioBrowser.h): load shows the narrative and the first
    // run's config; run also starts the runs one after another.
    bool loadScenario(const QString& name, QString* error = nullptr);
    bool runScenario(const QString& name, QString* error = nullptr);
    ScenarioBrowser* scenarioBrowser() const { return scenarioBrowser_; }
    QDockWidget* scenarioDock() const { return scenarioDock_; }
    // Opens (and, while it is written, follows) a run directory.
    bool openRunDirectory(const QString& directory, QString* error);
    // A run directory, or a run on another machine (ssh://[user@]host[:port]/path):
    // followed through a local copy that RemoteRunFollowing keeps, named as given.
    bool openRun(const QString& location, QString* error);

    // Redraws every plot now (not queued): for grabbing the window into an image.
    void replotAllNow();

    ConfigPanel* configPanel() const { return configPanel_; }
    LossPlot* lossPlot() const { return lossPlot_; }
    ScalePlot* scalePlot() const { return scalePlot_; }
    ThroughputPlot* throughputPlot() const { return throughputPlot_; }
    MemoryPlot* memoryPlot() const { return memoryPlot_; }
    LockstepPlot* lockstepPlot() const { return lockstepPlot_; }
    CompareView* compareView() const { return compareView_; }
    GradientHistogramView* histogramView() const { return histogramView_; }
    UnderflowView* underflowView() const { return underflowView_; }
    NanInspectorView* nanInspector() const { return nanInspector_; }
    FormatSweepView* formatSweepView() const { return formatSweepView_; }
    ScalingView* scalingView() const { return scalingView_; }
    BlockScalesView* blockScalesView() const { return blockScalesView_; }
    FormatExplorerView* formatExplorer() const { return formatExplorer_; }
    EngineBridge* bridge() const { return bridge_; }
    ExecutionBadge* executionBadge() const { return badge_; }
    QProgressBar* progressBar() const { return progressBar_; }
    RunPaceControl* paceControl() const { return paceControl_; }
    QAction* startAction() const { return startAction_; }
    QAction* pauseAction() const { return pauseAction_; }
    QAction* stepAction() const { return stepAction_; }
    QAction* stopAction() const { return stopAction_; }
    QAction* openRunAction() const { return openRunAction_; }
    QAction* openRemoteRunAction() const { return openRemoteRunAction_; }
    QString runStatusText() const;
    QAction* saveConfigAction() const { return saveConfigAction_; }
    QAction* quitAction() const { return quitAction_; }
    RunExportActions* exportActions() const { return exportActions_; }
    QString runDirectory() const { return runDirectory_; }
    QString errorText() const;
    QString statusDeviceText() const;
    bool isFollowingRun() const;
    qint64 stepsShown() const;
    QList<QDockWidget*> docks() const { return docks_; }

public Q_SLOTS:
    bool startRun() { return startRunWith(false); }
    void togglePause(bool pause);
    void stepOnce();
    void stopRun();
    void openRunWithDialog();
    void openRemoteRunWithDialog();
    void saveConfigWithDialog();
    void openConfigWithDialog();
    void exportPlotsWithDialog();
    void resetLayout();
    // The NaN inspector's fix: the Configure panel's config with `layer` added to
    // precision.keep_fp32, started as a new run (after the current one has stopped).
    void rerunKeepingLayerInFp32(const QString& layer);

Q_SIGNALS:
    // After each batch reached the views; `total` steps shown in this run so far.
    void stepsShownChanged(qint64 total);
    // A live run ended ("finished", "stopped" or "error").
    void runEnded(const QString& status);
    // An opened run directory is in the views: all of it (a complete run), or all that
    // was written when the follower first caught up (a run still being written).
    void runLoaded();
    // The window accepted a close (after any run it trained has stopped).
    void closed();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    bool startRunWith(bool singleStep);
    void buildActions();
    void buildMenus();
    void buildToolBar();
    void buildStatusBar();
    void buildDocks();
    void buildScenarioBrowser();
    void applyDefaultDockSizes();
    void fitConfigureDockToModules();
    void keepDockTabTitlesWhole();
    void raiseScenarioDocks(const QString& name);
    void restoreSettings();
    void saveSettings();
    void updateActions();
    void updateStatusForConfig(const RunConfig& config);
    void beginRunInViews(const RunContext& context);
    void showRunInfo(const nlohmann::json& record);
    void showError(const QString& message);
    void clearError();
    void stopFollowing();
    bool openRemoteRun(const QString& address, QString* error);
    QString shownRun() const;  // the run shown, as the status bar names it

    void onMetrics(const DrainedMetrics& batch);
    void onStarted(qint64 totalSteps, const QString& description);
    void onPaused();
    void onResumed();
    void onFailed(const QString& message, bool inputError);
    void onRunEnded(const RunSummary& summary);
    void streamRunToViews(RunRecordReader& reader);
    void updateProgress(qint64 step);

    MainWindowOptions options_;
    EngineBridge* bridge_ = nullptr;
    ConfigPanel* configPanel_ = nullptr;
    LossPlot* lossPlot_ = nullptr;
    ScalePlot* scalePlot_ = nullptr;
    ThroughputPlot* throughputPlot_ = nullptr;
    MemoryPlot* memoryPlot_ = nullptr;
    LockstepPlot* lockstepPlot_ = nullptr;
    CompareView* compareView_ = nullptr;
    QDockWidget* lockstepDock_ = nullptr;
    QDockWidget* compareDock_ = nullptr;
    GradientHistogramView* histogramView_ = nullptr;
    UnderflowView* underflowView_ = nullptr;
    NanInspectorView* nanInspector_ = nullptr;
    FormatSweepView* formatSweepView_ = nullptr;
    ScalingView* scalingView_ = nullptr;
    BlockScalesView* blockScalesView_ = nullptr;
    FormatExplorerView* formatExplorer_ = nullptr;
    std::optional<RunConfig> pendingRerun_;  // starts once the active run has ended
    RunFeed* feed_ = nullptr;  // feeds every run view (live, opened, followed)
    QList<QDockWidget*> docks_;
    QMenu* viewMenu_ = nullptr;
    QByteArray initialLayout_;
    QDockWidget* configureDock_ = nullptr;
    QDockWidget* lossDock_ = nullptr;
    QDockWidget* scaleDock_ = nullptr;
    QDockWidget* throughputDock_ = nullptr;
    QDockWidget* memoryDock_ = nullptr;
    QDockWidget* histogramDock_ = nullptr;
    QDockWidget* underflowDock_ = nullptr;
    QDockWidget* nanDock_ = nullptr;
    QDockWidget* formatSweepDock_ = nullptr;
    QDockWidget* scalingDock_ = nullptr;
    QDockWidget* blockScalesDock_ = nullptr;
    QDockWidget* formatExplorerDock_ = nullptr;
    ScenarioBrowser* scenarioBrowser_ = nullptr;
    QDockWidget* scenarioDock_ = nullptr;
    bool layoutRestored_ = false;  // from QSettings: the user's sizes win over the defaults
    bool shownOnce_ = false;

    QAction* startAction_ = nullptr;
    QAction* pauseAction_ = nullptr;
    QAction* stepAction_ = nullptr;
    QAction* stopAction_ = nullptr;
    QAction* openRunAction_ = nullptr;
    QAction* openRemoteRunAction_ = nullptr;
    QAction* openConfigAction_ = nullptr;
    QAction* saveConfigAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* quitAction_ = nullptr;
    QAction* resetLayoutAction_ = nullptr;
    QAction* aboutAction_ = nullptr;
    RunExportActions* exportActions_ = nullptr;

    ElidingLabel* runLabel_ = nullptr;
    ElidingLabel* errorLabel_ = nullptr;
    ElidingLabel* deviceLabel_ = nullptr;
    QLabel* modeLabel_ = nullptr;
    ExecutionBadge* badge_ = nullptr;
    ElidingLabel* howLabel_ = nullptr;
    QProgressBar* progressBar_ = nullptr;
    RunPaceControl* paceControl_ = nullptr;
    QLabel* etaLabel_ = nullptr;
    QPointer<QMessageBox> errorBox_;

    QString runDirectory_;
    std::unique_ptr<RemoteRunFollowing> remote_;  // the run shown is on another machine
    QString lastRemoteAddress_;
    QString jobNote_;  // a job folder's NaN origin, for the status line of the rank it opens
    ProgressEstimator progress_;
    QElapsedTimer clock_;
    bool closeRequested_ = false;

};

}  // namespace ampscope::ui
