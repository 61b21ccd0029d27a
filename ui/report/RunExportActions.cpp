#include "report/RunExportActions.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProgressDialog>

#include "export/RunCsvExport.h"
#include "export/TfEvent.h"
#include "export/TfEventsExport.h"
#include "report/ReportWriter.h"
#include "run/RunReader.h"

namespace ampscope::ui {

RunExportActions::RunExportActions(QWidget* window, std::function<QString()> currentRunDirectory)
    : QObject(window), window_(window), currentRunDirectory_(std::move(currentRunDirectory)) {
    reportAction_ = new QAction(tr("Export &report…"), this);
    reportAction_->setToolTip(tr("Write a PDF or HTML report of the run shown"));
    connect(reportAction_, &QAction::triggered, this, &RunExportActions::exportReportWithDialog);
    dataAction_ = new QAction(tr("Export &data…"), this);
    dataAction_->setToolTip(
        tr("Write the run's series as CSV, its config as JSON and a "
           "TensorBoard event file"));
    connect(dataAction_, &QAction::triggered, this, &RunExportActions::exportDataWithDialog);
}

QString RunExportActions::runDirectoryOrAsk() {
    const QString current = currentRunDirectory_ ? currentRunDirectory_() : QString();
    if (!current.isEmpty()) return current;
    return QFileDialog::getExistingDirectory(window_, tr("Choose a run directory"));
}

QString RunExportActions::exportReport(const QStringList& runDirectories, const QString& path) {
    QProgressDialog progress(tr("Writing the report…"), tr("Cancel"), 0, 1, window_);
    progress.setObjectName(QStringLiteral("reportProgress"));
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(0);
    ReportOptions options;
    options.outputPath = path;
    options.progress = [&progress](int done, int total, const QString& what) {
        progress.setMaximum(total);
        progress.setValue(done);
        progress.setLabelText(what);
        QApplication::processEvents();
        return !progress.wasCanceled();
    };
    return writeReport(runDirectories, options);
}

QString RunExportActions::exportData(const QString& runDirectory, const QString& folder) {
    try {
        // Streamed from disk (twice for the CSV, once for TensorBoard) rather than held:
        // a long run does not fit in memory as JSON.
        const std::string run = QDir::cleanPath(runDirectory).toStdString();
        exportRunCsv(run, folder.toStdString());
        if (tfEventCodecAvailable())
            exportRunTfEvents(run, (folder + QStringLiteral("/tensorboard")).toStdString());
        return {};
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

void RunExportActions::exportReportWithDialog() {
    const QString directory = runDirectoryOrAsk();
    if (directory.isEmpty()) return;
    const QString suggested = QFileInfo(directory).fileName() + QStringLiteral("-report.pdf");
    const QString path = QFileDialog::getSaveFileName(
        window_, tr("Export report"), suggested,
        tr("PDF report (*.pdf);;HTML report, one self-contained file (*.html)"));
    if (path.isEmpty()) return;
    const QString error = exportReport({directory}, path);
    if (!error.isEmpty() && error != QLatin1String("cancelled"))
        QMessageBox::warning(window_, tr("Export report"), error);
}

void RunExportActions::exportDataWithDialog() {
    const QString directory = runDirectoryOrAsk();
    if (directory.isEmpty()) return;
    const QString folder =
        QFileDialog::getExistingDirectory(window_, tr("Export the run's data into"));
    if (folder.isEmpty()) return;
    const QString error = exportData(directory, folder);
    if (!error.isEmpty()) QMessageBox::warning(window_, tr("Export data"), error);
}

}  // namespace ampscope::ui
