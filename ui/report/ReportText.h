#pragma once
// The text parts of a report as HTML fragments (the PDF lays them out with
// QTextDocument, the HTML file embeds them as they are): header, comparison table,
// a run's facts and results table, its NaN diagnosis and narrative. Values that are
// not known are written "—" (kUnknown); a run without summary.json is marked INCOMPLETE.
//
// One section per file where a section is a job of its own: ReportText.cpp (the shared
// parts, the header, the facts and results), ReportFormatText.cpp (number formats),
// ReportNanText.cpp (the NaN diagnosis); a run's Markdown is read by
// UntrustedMarkdown.h.
#include <QDateTime>
#include <QString>
#include <optional>
#include <string>
#include <vector>

#include "report/ReportRun.h"

namespace ampscope::ui::report_text {

// What a value that is not known is written as.
inline const QString kUnknown = QStringLiteral("\u2014");

// The style sheet both outputs use (QTextDocument understands this subset of CSS).
QString styleSheet();
// Text made safe for HTML.
QString esc(const QString& text);
// A results table: a header row, the first column of each row as its key.
QString table(const QStringList& header, const std::vector<QStringList>& rows);
// A number to `significant` digits; "NaN", "+Inf", "-Inf"; kUnknown when there is none.
QString number(const std::optional<double>& value, int significant = 4);
// A TorchScript module as the report names it (the root module: kRootLayerName).
QString moduleName(const ScriptModuleInfo& module);
QString headerHtml(const std::vector<ReportRun>& runs, const QDateTime& generated);
// Side by side, the first run as the baseline: samples/s and memory as ratios,
// accuracy as a difference in points with the "within 0.5 pt" check.
QString comparisonHtml(const std::vector<ReportRun>& runs);
// "Against the seed band": core's verdict lines (stats::bandVerdictLines) as the first page
// shows them; empty when the runs hold no seeds of one config.
QString seedBandHtml(const std::vector<std::string>& verdictLines);
QString runFactsHtml(const ReportRun& run, bool comparison);
QString resultsTableHtml(const ReportRun& run);
// A TorchScript run's probed modules (part of runFactsHtml); empty for other runs.
QString probedModulesHtml(const ReportRun& run);
QString narrativeHtml(const ReportRun& run);     // empty: no narrative
// "Number formats": the last sweep step's SNR and underflow per layer x format (weight
// gradients, then matmul/conv inputs) with which formats each layer survives (the rule of
// probes/FormatSweepRecord.h, stated in the text), and a format mode's quantization points
// at its last probe step. A note when the run has neither.
QString numberFormatsHtml(const ReportRun& run);
QString nanDiagnosisHtml(const ReportRun& run);  // says "none" when there was no NaN/Inf
QString warningsHtml(const ReportRun& run);      // empty: no warnings

// One results row's value as text, as the results table writes it (for tests).
QString resultValue(const ReportRun& run, const QString& row);
QStringList resultRows();

}  // namespace ampscope::ui::report_text
