#include "window/StatusPanel.h"

#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QStatusBar>
#include <algorithm>

#include "window/ElidingLabel.h"
#include "window/ExecutionBadge.h"
#include "runset/RunFacts.h"
#include "common/Text.h"
#include "runset/RunInfoFacts.h"

namespace ampscope::ui {

namespace {

QString threadCount(int threads) {
    return threads == 1 ? QObject::tr("1 thread") : QObject::tr("%1 threads").arg(threads);
}

// "CUDA: NVIDIA H200 · 1 thread"; what a run's run_info left out (a recorder that had no
// device name, no thread count) is left out here too, not shown as "CUDA:  · 0 threads".
QString deviceLine(const QString& device, const QString& name, int threads) {
    QString line = device.isEmpty() ? name : name.isEmpty() ? device : QObject::tr("%1: %2").arg(device, name);
    if (threads > 0) line = line.isEmpty() ? threadCount(threads) : QObject::tr("%1 · %2").arg(line, threadCount(threads));
    return line;
}

}  // namespace

QString StatusPanel::endWord(const std::string& status) {
    if (status == "finished") return tr("Run finished");
    if (status == "stopped") return tr("Run stopped");
    return tr("Run failed");
}

StatusPanel::StatusPanel(QStatusBar* bar, QWidget* window) : QObject(window), window_(window) {
    clock_.start();
    runLabel_ = new ElidingLabel(bar);
    runLabel_->setObjectName(QStringLiteral("runLabel"));
    runLabel_->setFullText(tr("Ready: configure a run and press Start, or open a run (Ctrl+O)"));
    errorLabel_ = new ElidingLabel(bar, Qt::ElideRight);
    errorLabel_->setObjectName(QStringLiteral("errorLabel"));
    errorLabel_->setStyleSheet(QStringLiteral("color: #b71c1c; font-weight: bold;"));
    errorLabel_->hide();
    bandLabel_ = new ElidingLabel(bar, Qt::ElideRight);
    bandLabel_->setObjectName(QStringLiteral("bandLabel"));
    bandLabel_->hide();
    bar->addWidget(runLabel_, 1);
    bar->addWidget(bandLabel_, 1);
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

void StatusPanel::showBandLabel(const QString& text, const QString& toolTip) {
    bandLabel_->setFullText(text);
    bandLabel_->setToolTip(toolTip);
    bandLabel_->setVisible(!text.isEmpty());
}

QString StatusPanel::bandText() const { return bandLabel_->isHidden() ? QString() : bandLabel_->fullText(); }

void StatusPanel::showConfig(const RunConfig& config) {
    deviceLabel_->setFullText(deviceLine(QString(), QString::fromStdString(ui::deviceText(config)), threadsFor(config)));
    modeLabel_->setText(tr("mode %1").arg(QString::fromStdString(config.precision.mode)));
    const ModeExecution execution = executionFor(config);
    badge_->setExecution(execution);
    howLabel_->setFullText(QString::fromStdString(execution.how));
}

void StatusPanel::showRunFacts(const RunInfoFacts& facts) {
    deviceLabel_->setFullText(
        deviceLine(facts.fromRunInfo() ? facts.device() : QString(), facts.deviceName(), facts.threads()));
    badge_->setExecution(facts.execution());
    howLabel_->setFullText(QString::fromStdString(facts.execution().how));
    modeLabel_->setText(tr("mode %1").arg(facts.mode()));
}

QString StatusPanel::deviceText() const {
    return deviceLabel_->fullText() + QLatin1Char(' ') + modeLabel_->text() + QLatin1Char(' ') + badge_->text() +
           QLatin1Char(' ') + howLabel_->fullText();
}

void StatusPanel::setRunText(const QString& text, const QString& toolTip) {
    runLabel_->setFullText(text);
    runLabel_->setToolTip(toolTip);
}

QString StatusPanel::runText() const {
    return runLabel_->fullText();
}

void StatusPanel::showError(const QString& message) {
    errorLabel_->setFullText(tr("Error: %1").arg(message));
    errorLabel_->setToolTip(message);
    errorLabel_->show();
    if (!errorBox_) {
        errorBox_ = new QMessageBox(QMessageBox::Warning, tr("AmpScope: run failed"), message, QMessageBox::Ok,
                                    window_);
        errorBox_->setAttribute(Qt::WA_DeleteOnClose);
        errorBox_->setModal(false);
        errorBox_->setWindowModality(Qt::NonModal);
    } else {
        errorBox_->setText(message);
    }
    errorBox_->show();
}

void StatusPanel::showProblem(const QString& message) {
    errorLabel_->setFullText(message);
    errorLabel_->setToolTip(message);
    errorLabel_->show();
}

void StatusPanel::clearError() {
    errorLabel_->setFullText(QString());
    errorLabel_->hide();
    if (errorBox_) errorBox_->close();
}

QString StatusPanel::errorText() const {
    return errorLabel_->isHidden() ? QString() : errorLabel_->fullText();
}

void StatusPanel::beginRun() {
    progressBar_->setFormat(tr("%v / %m steps"));
    progressBar_->setRange(0, 0);  // busy until the engine says how many steps it plans
    etaLabel_->clear();
}

void StatusPanel::planned(qint64 totalSteps, qint64 done) {
    progress_.start(totalSteps, seconds(), done);
    progressBar_->setRange(0, static_cast<int>(std::min<qint64>(totalSteps, INT32_MAX)));
    progressBar_->setValue(static_cast<int>(std::min<qint64>(done, totalSteps)));
}

void StatusPanel::progressed(qint64 step) {
    progress_.update(step, seconds());
    if (progressBar_->maximum() > 0)
        progressBar_->setValue(static_cast<int>(std::min<qint64>(step, progressBar_->maximum())));
    const double eta = progress_.etaSeconds();
    etaLabel_->setText(eta >= 0.0 ? tr("ETA %1").arg(QString::fromStdString(formatDuration(eta))) : QString());
}

void StatusPanel::paused() {
    progress_.pause(seconds());
}

void StatusPanel::resumed() {
    progress_.resume(seconds());
}

void StatusPanel::ended() {
    if (progressBar_->maximum() == 0) {
        progressBar_->setRange(0, 1);  // ended before it planned its steps
        progressBar_->setFormat(tr("no steps"));
    }
    etaLabel_->clear();
}

void StatusPanel::showSteps(qint64 lastStep, bool stillWritten) {
    progressBar_->setFormat(tr("%v / %m steps"));
    if (stillWritten) {
        progressBar_->setRange(0, 0);
    } else {
        progressBar_->setRange(0, static_cast<int>(std::max<qint64>(1, lastStep)));
        progressBar_->setValue(static_cast<int>(lastStep));
    }
    etaLabel_->clear();
}

}  // namespace ampscope::ui
