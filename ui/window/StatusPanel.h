#pragma once
// StatusPanel: the window's status bar and progress. Left: what the window is doing
// (starting, training, opening, following...) and the last error; right: the focused
// run's device, threads, mode and a badge saying plainly whether the mode runs for real
// or emulated (or was recorded from a PyTorch run), a progress bar and the ETA.
//
// Contract:
// - showConfig(): the facts a config will run with (no run focused yet);
//   showRunFacts(): a run's, from its run_info (RunInfoFacts) when it has one.
// - showError() shows the error in red and in a non-modal message box; showProblem() in
//   red only (a refused open, whose dialog or caller says it too); clearError() hides
//   both. errorText() is what is shown ("" when none).
// - Progress: beginRun() (busy until the steps are planned), planned(), progressed()
//   (bar and ETA from ProgressEstimator), paused()/resumed() (the ETA stops counting),
//   ended() (no ETA; a run that ended before planning its steps reads "no steps"),
//   showSteps() for an opened run.
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QString>

#include "window/ProgressEstimator.h"
#include "config/RunConfig.h"

class QLabel;
class QMessageBox;
class QProgressBar;
class QStatusBar;
class QWidget;

namespace ampscope::ui {

class ElidingLabel;
class ExecutionBadge;
class RunInfoFacts;

class StatusPanel : public QObject {
    Q_OBJECT
public:
    StatusPanel(QStatusBar* bar, QWidget* window);

    // "Run finished", "Run stopped" or "Run failed": how a run's end reads in the status bar.
    static QString endWord(const std::string& status);

    void showConfig(const RunConfig& config);
    void showRunFacts(const RunInfoFacts& facts);
    void setRunText(const QString& text, const QString& toolTip = QString());
    QString runText() const;
    void showError(const QString& message);
    // The focused run against the reference seed band (SeedBandLabels.h); empty hides it.
    void showBandLabel(const QString& text, const QString& toolTip);
    QString bandText() const;
    // The same line in red, without the message box: for what the caller says itself.
    void showProblem(const QString& message);
    void clearError();
    QString errorText() const;
    // Device, mode, badge and how, as one line.
    QString deviceText() const;

    void beginRun();
    void planned(qint64 totalSteps, qint64 done);
    void progressed(qint64 step);
    void paused();
    void resumed();
    void ended();
    void showSteps(qint64 lastStep, bool stillWritten);

    ExecutionBadge* badge() const { return badge_; }
    QProgressBar* progressBar() const { return progressBar_; }

private:
    double seconds() const { return static_cast<double>(clock_.elapsed()) / 1000.0; }

    QWidget* window_;
    ElidingLabel* runLabel_ = nullptr;
    ElidingLabel* errorLabel_ = nullptr;
    ElidingLabel* bandLabel_ = nullptr;
    ElidingLabel* deviceLabel_ = nullptr;
    QLabel* modeLabel_ = nullptr;
    ExecutionBadge* badge_ = nullptr;
    ElidingLabel* howLabel_ = nullptr;
    QProgressBar* progressBar_ = nullptr;
    QLabel* etaLabel_ = nullptr;
    QPointer<QMessageBox> errorBox_;
    ProgressEstimator progress_;
    QElapsedTimer clock_;
};

}  // namespace ampscope::ui
