#pragma once
// RunExportActions: the window's File > "Export report…" and "Export data…". They act on
// the run the window shows (its run directory), or ask for a run directory when it shows
// none.
//
// Contract:
// - Export report… asks for a .pdf or .html file and writes the report (ReportWriter.h)
//   with a progress dialog that can cancel; a failure is shown in a message box.
// - Export data… asks for a folder and writes the run's CSV tables and config
//   (core/export/RunCsvExport.h) into it, and a TensorBoard event file into its
//   "tensorboard" subfolder (TfEventsExport.h) when this build has the encoder.
// - exportReport()/exportData() are the same work without file dialogs (tests, scripts);
//   they return an empty string or one line saying what failed.
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

class QAction;
class QWidget;

namespace ampscope::ui {

class RunExportActions : public QObject {
    Q_OBJECT
public:
    RunExportActions(QWidget* window, std::function<QString()> currentRunDirectory);

    QAction* reportAction() const { return reportAction_; }
    QAction* dataAction() const { return dataAction_; }

    // With a progress dialog over the window.
    QString exportReport(const QStringList& runDirectories, const QString& path);
    QString exportData(const QString& runDirectory, const QString& folder);

public Q_SLOTS:
    void exportReportWithDialog();
    void exportDataWithDialog();

private:
    QString runDirectoryOrAsk();

    QWidget* window_;
    std::function<QString()> currentRunDirectory_;
    QAction* reportAction_;
    QAction* dataAction_;
};

}  // namespace ampscope::ui
