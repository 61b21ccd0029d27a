#include "prescribe/PrescribeAction.h"

#include <QAction>
#include <QCoreApplication>
#include <QDialog>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "configure/ConfigPanel.h"
#include "feed/RunDirectoryNaming.h"
#include "prescribe/PrescribeDialog.h"
#include "prescribe/PrescribeJob.h"
#include "prescribe/PrescriptionPage.h"
#include "run/EventSchema.h"
#include "runset/RunSet.h"
#include "window/MainWindow.h"
#include "window/WindowActions.h"

namespace ampscope::ui {

namespace {

// The Run menu: the one that holds Stop.
QMenu* runMenu(MainWindow* window) {
    for (QAction* entry : window->menuBar()->actions())
        if (QMenu* menu = entry->menu(); menu && menu->actions().contains(window->actions()->stopAction()))
            return menu;
    return nullptr;
}

}  // namespace

PrescribeAction::PrescribeAction(MainWindow* window)
    : QObject(window),
      window_(window),
      program_(QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ampscope-cli"))) {
    action_ = new QAction(tr("&Prescribe…"), this);
    action_->setObjectName(QStringLiteral("prescribeAction"));
    action_->setStatusTip(tr("Which layers must stay in fp32 for the model to train in a low-precision format, "
                             "verified by training with seeds (ampscope-cli prescribe)"));
    connect(action_, &QAction::triggered, this, [this] { showDialog(); });
    if (QMenu* menu = runMenu(window)) {
        menu->addSeparator();
        menu->addAction(action_);
    }
    job_ = new PrescribeJob(this);
    connect(job_, &PrescribeJob::finished, this, &PrescribeAction::onFinished);
    // Closing the window ends the child before the window's run set goes.
    connect(window, &MainWindow::closed, job_, &PrescribeJob::stopAndWait);
    page_ = new PrescriptionPage(window);
}

PrescribeAction::~PrescribeAction() {
    job_->stopAndWait();
}

PrescribeDialog* PrescribeAction::showDialog() {
    if (isRunning()) {
        say(tr("A prescription is still running: stop it first"), true);
        return nullptr;
    }
    std::vector<PrescribeDialog::ConfigChoice> configs;
    configFolder_ = std::make_unique<QTemporaryDir>();
    const QString current = configFolder_->filePath(QStringLiteral("CONFIG.json"));
    QString error;
    const RunConfig config = window_->configPanel()->config();
    if (window_->saveConfigFile(current, &error))
        configs.push_back({tr("Configure panel: %1").arg(runDisplayName(config)), current});
    const RunModel* focused = window_->runSet()->focused();
    if (focused && !focused->directory().isEmpty()) {
        const QDir run(focused->directory());
        if (run.exists(QString::fromLatin1(kSummaryFileName.data())) &&
            run.exists(QString::fromLatin1(kConfigFileName.data())))
            configs.push_back({tr("Focused run: %1").arg(shownPath(run.path())),
                               run.filePath(QString::fromLatin1(kConfigFileName.data()))});
    }
    if (configs.empty()) {
        say(tr("Nothing to prescribe: the Configure panel's config was not written (%1) and no ended run is "
               "focused").arg(error), true);
        return nullptr;
    }
    if (dialog_) dialog_->deleteLater();
    dialog_ = new PrescribeDialog(configs, newRunDirectory(defaultRunsRoot(), config) + QStringLiteral("-prescribe"),
                                  window_);
    dialog_->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog_, &QDialog::accepted, this, [this] {
        QString why;
        if (!start(dialog_->request(), &why)) say(why, true);
    });
    dialog_->open();
    return dialog_;
}

bool PrescribeAction::isRunning() const {
    return job_->isRunning();
}

bool PrescribeAction::start(const PrescribeRequest& request, QString* error) {
    if (isRunning()) {
        if (error) *error = tr("A prescription is still running: stop it first");
        return false;
    }
    if (const QString problem = prescribeRequestProblem(request); !problem.isEmpty()) {
        if (error) *error = problem;
        return false;
    }
    if (!job_->start(program_, prescribeArguments(request), error)) return false;
    directory_ = QDir(request.outDirectory).absolutePath();
    delete following_;
    following_ = new PrescribeFollowing(window_->runSet(), window_->opener(), directory_, this);
    connect(job_, &PrescribeJob::phase, following_, &PrescribeFollowing::takePhase);
    connect(following_, &PrescribeFollowing::progressChanged, this, [this](const PrescribeProgress& progress) {
        panelText_->setText(progress.text());
        const double total = double(progress.runs) * double(std::max<qint64>(progress.steps, 1));
        const double done = progress.run > 0 ? double(progress.run - 1) * double(std::max<qint64>(progress.steps, 1)) +
                                                   double(progress.step)
                                             : 0.0;
        panelBar_->setValue(total > 0 ? int(1000.0 * done / total) : 0);
        Q_EMIT progressChanged(progress);
    });
    buildPanel();
    panelText_->setText(tr("Starting ampscope-cli prescribe…"));
    panelNote_->setText(tr("Runs go to %1 and join the run set as they are written.").arg(shownPath(directory_)));
    panelBar_->setValue(0);
    panelStop_->setText(tr("Stop"));
    panel_->show();
    message_.clear();
    return true;
}

void PrescribeAction::stop() {
    job_->stop();
    if (panelStop_) panelStop_->setEnabled(false);
}

QString PrescribeAction::progressText() const {
    return panelText_ ? panelText_->text() : QString();
}

void PrescribeAction::buildPanel() {
    if (panel_) return;
    panel_ = new QDialog(window_);
    panel_->setObjectName(QStringLiteral("prescribeProgress"));
    panel_->setWindowTitle(tr("Prescribing"));
    auto* layout = new QVBoxLayout(panel_);
    layout->setSizeConstraint(QLayout::SetMinimumSize);  // a wrapped note is never cut
    panelText_ = new QLabel(panel_);
    panelBar_ = new QProgressBar(panel_);
    panelBar_->setRange(0, 1000);
    panelBar_->setTextVisible(false);
    panelNote_ = new QLabel(panel_);
    panelNote_->setWordWrap(true);
    panelStop_ = new QPushButton(tr("Stop"), panel_);
    connect(panelStop_, &QPushButton::clicked, this, [this] {
        if (isRunning()) stop();
        else panel_->hide();
    });
    layout->addWidget(panelText_);
    layout->addWidget(panelBar_);
    layout->addWidget(panelNote_);
    auto* row = new QHBoxLayout;
    row->addStretch();
    row->addWidget(panelStop_);
    layout->addLayout(row);
    panel_->setMinimumWidth(560);
}

void PrescribeAction::onFinished(int exitCode, const QString& line, bool stopped) {
    following_->finish();
    panelStop_->setEnabled(true);
    panelStop_->setText(tr("Close"));
    if (stopped) {
        panelText_->setText(tr("Stopped"));
        say(tr("Prescription stopped: the runs so far stay in %1").arg(shownPath(directory_)), false);
        Q_EMIT ended(false);
        return;
    }
    if (exitCode != 0) {
        panelText_->setText(tr("Failed"));
        say(line.isEmpty() ? tr("ampscope-cli prescribe ended with exit code %1").arg(exitCode) : line, true);
        Q_EMIT ended(false);
        return;
    }
    // The runs followed one by one make way for the same runs read as one set.
    for (RunId id : following_->runs()) window_->runSet()->removeRun(id);
    QString error;
    if (!window_->openRun(directory_, &error)) {
        say(error, true);
        Q_EMIT ended(false);
        return;
    }
    if (!page_->load(directory_, &error)) {
        say(error, true);
        Q_EMIT ended(false);
        return;
    }
    panel_->hide();
    page_->show();
    page_->raise();
    message_ = tr("Prescription written to %1").arg(shownPath(directory_));
    Q_EMIT ended(true);
}

void PrescribeAction::say(const QString& line, bool problem) {
    message_ = line;
    if (panelNote_ && panel_ && panel_->isVisible()) panelNote_->setText(line);
    if (!problem) return;
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Prescribe"), line, QMessageBox::Ok, window_);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

}  // namespace ampscope::ui
