#include "window/WindowActions.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QLabel>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <QToolBar>

#include "window/RunPaceControl.h"
#include "common/BuildInfo.h"
#include "engine/Versions.h"
#include "plots/PlotExport.h"
#include "plots/QCustomPlotInclude.h"
#include "report/RunExportActions.h"
#include "scenarios/ScenarioCatalogue.h"

namespace ampscope::ui {

WindowActions::WindowActions(QMainWindow* window, Handlers handlers, bool persistSettings, const QString& runsRoot)
    : QObject(window), window_(window), handlers_(std::move(handlers)), runsRoot_(runsRoot) {
    buildActions();
    buildMenus();
    buildToolBar(persistSettings);
}

void WindowActions::buildActions() {
    QStyle* s = window_->style();
    start_ = new QAction(s->standardIcon(QStyle::SP_MediaPlay), tr("&Start"), this);
    start_->setShortcut(Qt::Key_F5);
    start_->setToolTip(tr("Start training with this config (F5)"));
    connect(start_, &QAction::triggered, this, [this] { handlers_.start(); });

    pause_ = new QAction(s->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), this);
    pause_->setShortcut(Qt::Key_F6);
    pause_->setCheckable(true);
    pause_->setToolTip(tr("Pause after the current step; press again to resume (F6)"));
    connect(pause_, &QAction::toggled, this, [this](bool on) { handlers_.pause(on); });

    step_ = new QAction(s->standardIcon(QStyle::SP_MediaSkipForward), tr("Step &once"), this);
    step_->setShortcut(Qt::Key_F10);
    step_->setToolTip(tr("Run exactly one step, then pause (F10)"));
    connect(step_, &QAction::triggered, this, [this] { handlers_.stepOnce(); });

    mapStep_ = new QAction(tr("&Map this step against fp32"), this);
    mapStep_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F10));
    mapStep_->setToolTip(
        tr("Run the next step once, twice from the same state: in the run's mode and in fp32, every op's "
           "output compared (the Precision map dock; Shift+F10)"));
    connect(mapStep_, &QAction::triggered, this, [this] { handlers_.mapStep(); });

    stop_ = new QAction(s->standardIcon(QStyle::SP_MediaStop), tr("S&top"), this);
    stop_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    stop_->setToolTip(tr("Stop the run after the current step (Shift+F5)"));
    connect(stop_, &QAction::triggered, this, [this] { handlers_.stop(); });

    openRun_ = new QAction(s->standardIcon(QStyle::SP_DirOpenIcon), tr("&Open run…"), this);
    openRun_->setShortcut(QKeySequence::Open);
    openRun_->setToolTip(tr("Add a recorded run to the runs shown: a run directory (one still being "
                            "written is followed live), a recorded job's folder of ranks or a "
                            "scenario's output folder (Ctrl+O)"));
    connect(openRun_, &QAction::triggered, this, &WindowActions::openRunWithDialog);

    openRemoteRun_ = new QAction(tr("Open &remote run…"), this);
    openRemoteRun_->setToolTip(
        tr("Follow a run on another machine through your ssh: ssh://[user@]host[:port]/path"));
    connect(openRemoteRun_, &QAction::triggered, this, &WindowActions::openRemoteRunWithDialog);

    openConfig_ = new QAction(tr("Open &config…"), this);
    openConfig_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(openConfig_, &QAction::triggered, this, &WindowActions::openConfigWithDialog);

    saveConfig_ = new QAction(s->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save config…"), this);
    saveConfig_->setShortcut(QKeySequence::Save);
    connect(saveConfig_, &QAction::triggered, this, &WindowActions::saveConfigWithDialog);

    export_ = new QAction(tr("&Export plots…"), this);
    export_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    export_->setToolTip(tr("Save every plot as PNG, SVG and PDF into a folder"));
    connect(export_, &QAction::triggered, this, &WindowActions::exportPlotsWithDialog);

    quit_ = new QAction(tr("&Quit"), this);
    quit_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    connect(quit_, &QAction::triggered, window_, &QWidget::close);

    resetLayout_ = new QAction(tr("&Reset layout"), this);
    connect(resetLayout_, &QAction::triggered, this, [this] { handlers_.resetLayout(); });

    about_ = new QAction(tr("&About AmpScope"), this);
    connect(about_, &QAction::triggered, this, [this] {
        QMessageBox::about(window_, tr("About AmpScope"),
                           tr("<b>AmpScope %1</b> (git %2)<br>A lab for seeing what mixed precision does to "
                              "training.<br>%3<br>Qt %4")
                               .arg(QLatin1String(build::kVersion), QLatin1String(build::kGitRevision),
                                    QString::fromStdString(libraryVersions()), QLatin1String(qVersion())));
    });
}

void WindowActions::buildMenus() {
    QMenuBar* bar = window_->menuBar();
    QMenu* file = bar->addMenu(tr("&File"));
    file->addAction(openRun_);
    file->addAction(openRemoteRun_);
    file->addAction(openConfig_);
    file->addAction(saveConfig_);
    file->addSeparator();
    file->addAction(export_);
    // Reports and data export act on the focused run.
    exportActions_ = new RunExportActions(window_, handlers_.focusedDirectory);
    file->addAction(exportActions_->reportAction());
    file->addAction(exportActions_->dataAction());
    file->addSeparator();
    file->addAction(quit_);

    QMenu* run = bar->addMenu(tr("&Run"));
    run->addAction(start_);
    run->addAction(pause_);
    run->addAction(step_);
    run->addAction(mapStep_);
    run->addAction(stop_);

    viewMenu_ = bar->addMenu(tr("&View"));
    viewMenu_->addSeparator();
    viewMenu_->addAction(resetLayout_);

    buildScenarioMenu();
    QMenu* help = bar->addMenu(tr("&Help"));
    help->addAction(about_);
}

void WindowActions::buildScenarioMenu() {
    // One line per scenario; choosing one loads it (Run the loaded scenario starts it).
    QMenu* menu = window_->menuBar()->addMenu(tr("&Scenarios"));
    menu->setToolTipsVisible(true);
    QAction* openLesson = menu->addAction(tr("Open &lesson…"));
    openLesson->setToolTip(tr("A lesson someone wrote: a .ampscope-lesson file, or a lesson folder (choose its "
                              "scenario.json); it joins the Scenarios dock"));
    connect(openLesson, &QAction::triggered, this, &WindowActions::openLessonWithDialog);
    QAction* saveLesson = menu->addAction(tr("&Save as lesson…"));
    saveLesson->setToolTip(tr("The runs, their configs and the docks in view, as a new lesson folder with a "
                              "narrative to fill in"));
    connect(saveLesson, &QAction::triggered, this, &WindowActions::saveLessonWithDialog);
    QAction* exportLesson = menu->addAction(tr("&Export lesson…"));
    exportLesson->setToolTip(tr("The same as one .ampscope-lesson file to send"));
    connect(exportLesson, &QAction::triggered, this, &WindowActions::exportLessonWithDialog);
    menu->addSeparator();
    for (const Scenario& scenario : builtInScenarios()) {
        const QString name = QString::fromStdString(scenario.name);
        QAction* action = menu->addAction(name + QStringLiteral(" — ") + QString::fromStdString(scenario.summary));
        action->setData(name);
        connect(action, &QAction::triggered, this, [this, name] { handlers_.loadScenario(name); });
    }
    menu->addSeparator();
    QAction* runLoaded = menu->addAction(tr("&Run the loaded scenario"));
    connect(runLoaded, &QAction::triggered, this, [this] { handlers_.runLoadedScenario(); });
}

void WindowActions::buildToolBar(bool persistSettings) {
    QToolBar* bar = window_->addToolBar(tr("Run controls"));
    bar->setObjectName(QStringLiteral("runToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(start_);
    bar->addAction(pause_);
    bar->addAction(step_);
    bar->addAction(stop_);
    auto* paceLabel = new QLabel(tr(" Pace: "), bar);
    pace_ = new RunPaceControl(persistSettings, bar);
    paceLabel->setBuddy(pace_);
    bar->addWidget(paceLabel);
    bar->addWidget(pace_);
    bar->addSeparator();
    bar->addAction(openRun_);
    viewMenu_->insertAction(viewMenu_->actions().value(0), bar->toggleViewAction());
}

void WindowActions::update(bool active, bool stopping, bool valid, bool paused) {
    start_->setEnabled(!active && valid);
    pause_->setEnabled(active && !stopping);
    step_->setEnabled(active ? !stopping : valid);
    mapStep_->setEnabled(active && !stopping && paused);
    stop_->setEnabled(active && !stopping);
    openConfig_->setEnabled(!active);
    if (!active) showPaused(false);
}

void WindowActions::showPaused(bool paused) {
    const QSignalBlocker block(pause_);
    pause_->setChecked(paused);
}

void WindowActions::openRunWithDialog() {
    const QString directory = QFileDialog::getExistingDirectory(window_, tr("Open a run directory"), runsRoot_);
    if (directory.isEmpty()) return;
    QString error;
    if (!handlers_.openRun(directory, &error)) QMessageBox::warning(window_, tr("Open run"), error);
}

void WindowActions::openRemoteRunWithDialog() {
    bool ok = false;
    const QString address = QInputDialog::getText(
        window_, tr("Open remote run"),
        tr("A run directory or job folder on another machine, reached with your ssh\n"
           "(your ~/.ssh/config, keys and agent apply):"),
        QLineEdit::Normal,
        lastRemoteAddress_.isEmpty() ? QStringLiteral("ssh://host/path/to/run") : lastRemoteAddress_, &ok);
    if (!ok || address.trimmed().isEmpty()) return;
    lastRemoteAddress_ = address.trimmed();
    QString error;
    if (!handlers_.openRun(lastRemoteAddress_, &error)) QMessageBox::warning(window_, tr("Open remote run"), error);
}

void WindowActions::openConfigWithDialog() {
    const QString path =
        QFileDialog::getOpenFileName(window_, tr("Open a config"), QString(), tr("AmpScope config (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!handlers_.openConfig(path, &error)) QMessageBox::warning(window_, tr("Open config"), error);
}

void WindowActions::openLessonWithDialog() {
    QString path = QFileDialog::getOpenFileName(window_, tr("Open a lesson"), QString(),
                                                tr("AmpScope lesson (*.ampscope-lesson scenario.json)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).fileName() == QLatin1String("scenario.json")) path = QFileInfo(path).absolutePath();
    QString error;
    if (!handlers_.openLesson(path, &error)) QMessageBox::warning(window_, tr("Open lesson"), error);
}

void WindowActions::saveLessonWithDialog() {
    const QString folder = QFileDialog::getSaveFileName(window_, tr("Save as lesson: a new folder"),
                                                        QStringLiteral("my-lesson"), QString(), nullptr,
                                                        QFileDialog::ShowDirsOnly);
    if (folder.isEmpty()) return;
    QString error;
    if (!handlers_.saveLesson(folder, &error)) QMessageBox::warning(window_, tr("Save as lesson"), error);
}

void WindowActions::exportLessonWithDialog() {
    QString file = QFileDialog::getSaveFileName(window_, tr("Export lesson"), QStringLiteral("my-lesson.ampscope-lesson"),
                                                tr("AmpScope lesson (*.ampscope-lesson)"));
    if (file.isEmpty()) return;
    if (!file.endsWith(QLatin1String(".ampscope-lesson"))) file += QLatin1String(".ampscope-lesson");
    QString error;
    if (!handlers_.exportLesson(file, &error)) QMessageBox::warning(window_, tr("Export lesson"), error);
}

void WindowActions::saveConfigWithDialog() {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Save config"), handlers_.configFileName(),
                                                      tr("AmpScope config (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!handlers_.saveConfig(path, &error)) QMessageBox::warning(window_, tr("Save config"), error);
}

void WindowActions::exportPlotsWithDialog() {
    const QString directory = QFileDialog::getExistingDirectory(window_, tr("Export plots into"));
    if (directory.isEmpty()) return;
    QStringList failures, names;
    for (QCustomPlot* plot : window_->findChildren<QCustomPlot*>()) {
        if (plot->parentWidget() && plot->parentWidget()->isHidden()) continue;  // a side of A against B, no B
        // Runs side by side share a plot's name: the second is name-2, and so on.
        QString name = plot->objectName();
        for (int n = 2; names.contains(name); ++n) name = plot->objectName() + QStringLiteral("-%1").arg(n);
        names << name;
        for (const char* suffix : {"png", "svg", "pdf"}) {
            const QString error = savePlotImage(
                plot, directory + QLatin1Char('/') + name + QLatin1Char('.') + QLatin1String(suffix),
                {plotExportTitle(plot), QSize(), 192.0});
            if (!error.isEmpty()) failures << error;
        }
    }
    if (!failures.isEmpty()) QMessageBox::warning(window_, tr("Export plots"), failures.join(QLatin1Char('\n')));
}

}  // namespace ampscope::ui
