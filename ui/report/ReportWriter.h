#pragma once
// Writing a report of one run or a comparison of several: a PDF (A4, vector plots,
// paginated) or a self-contained HTML file (styles inline, plots embedded as SVG data),
// chosen by the output's suffix (.pdf, .html or .htm).
//
// Contents: title, date, and per run: directory, start time, status (INCOMPLETE when
// there is no summary.json), machine (CPU/GPU, threads, LibTorch), precision mode and
// whether it was emulated, a config summary, the results table, the scenario narrative
// (ReportRun.h's hook), the plots (loss, loss scale, the gradient-histogram heatmap of
// the most affected layers (ReportRunViews.h), the underflow map), the NaN diagnosis and
// any warnings from reading the run. With several runs a side-by-side table comes first
// and each run starts a new page. A job folder of torch.distributed ranks (rank-0,
// rank-1, ...) is reported as its ranks, after a sentence naming the rank the first
// NaN came from and the ranks that received it (run/JobNonFiniteOrigin.h). A band of many
// (a job of 8 or more ranks, 8 or more seeds of one config) has pages only for its first
// member and its named outliers; the first page accounts for the rest (ReportBandDigest.h).
//
// Contract:
// - Each folder given is a run directory, a job's folder of ranks or a scenario's output
//   folder (run/RunSetFolder.h); the report covers every run they hold, in that order.
// - Needs a QApplication (the plots are widgets); renders offscreen, never shows one.
// - writeReport returns an empty string on success, else one line: a folder that holds no
//   run or a run directory that cannot be read (the reader's message), an unknown suffix, an unwritable output, or
//   "cancelled". A half-written run is not an error: it is reported as INCOMPLETE.
// - progress(done, total, what) is called as the work goes; returning false cancels
//   (the partial file is removed).
#include <QDateTime>
#include <QMap>
#include <QString>
#include <QStringList>
#include <functional>

namespace ampscope::ui {

struct ReportOptions {
    QString outputPath;
    QDateTime generated = QDateTime::currentDateTime();
    // What the report names a run directory by, where that is not its path: the ssh://
    // address of a run copied from another machine, keyed by the copy's path.
    QMap<QString, QString> shownDirectories;
    std::function<bool(int done, int total, const QString& what)> progress;
};

QString writeReport(const QStringList& folders, const ReportOptions& options);

}  // namespace ampscope::ui
