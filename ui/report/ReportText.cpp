#include "report/ReportText.h"

#include <QLocale>
#include <QTextDocument>
#include <cmath>

#include "common/Text.h"
#include "report/UntrustedMarkdown.h"

namespace ampscope::ui::report_text {

QString esc(const QString& text) {
    return text.toHtmlEscaped();
}

QString table(const QStringList& header, const std::vector<QStringList>& rows) {
    QString html =
        QStringLiteral("<table class=\"results\" cellspacing=\"0\" cellpadding=\"3\"><tr>");
    for (const QString& h : header) html += QStringLiteral("<th>%1</th>").arg(esc(h));
    html += QStringLiteral("</tr>");
    for (const QStringList& row : rows) {
        html += QStringLiteral("<tr>");
        for (int i = 0; i < row.size(); ++i)
            html += (i == 0 ? QStringLiteral("<td class=\"key\">%1</td>")
                            : QStringLiteral("<td>%1</td>"))
                        .arg(esc(row[i]));
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

QString number(const std::optional<double>& value, int significant) {
    if (!value) return kUnknown;
    if (std::isnan(*value)) return QStringLiteral("NaN");
    if (std::isinf(*value)) return *value > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    return QString::fromStdString(formatNumber(*value, significant));
}

QString moduleName(const ScriptModuleInfo& module) {
    return module.name.empty() ? QString::fromLatin1(kRootLayerName) : QString::fromStdString(module.name);
}

namespace {

QString precisionText(const ReportRun& run) {
    if (run.mode.isEmpty()) return kUnknown;
    // A recorded run is neither the lab's real nor its emulated mode: PyTorch ran it,
    // and its execution line says so ("recorded from a PyTorch run: PyTorch ..., CUDA ...").
    if (run.recorded())
        return run.mode + (run.execution.isEmpty() ? QString() : QStringLiteral(" — ") + run.execution);
    QString text =
        run.mode + (run.emulated ? QStringLiteral(" (emulated)") : QStringLiteral(" (real)"));
    if (!run.execution.isEmpty()) text += QStringLiteral(": ") + run.execution;
    return text;
}

QString machineText(const ReportRun& run) {
    QStringList parts;
    if (!run.device.isEmpty())
        parts << run.device.toUpper() + (run.deviceName.isEmpty()
                                             ? QString()
                                             : QStringLiteral(" (%1)").arg(run.deviceName));
    if (run.threads > 0)
        parts << QStringLiteral("%1 thread%2").arg(run.threads).arg(run.threads == 1 ? "" : "s");
    if (run.recorded()) {
        if (!run.torchVersion.isEmpty()) parts << QStringLiteral("PyTorch %1").arg(run.torchVersion);
        if (!run.cudaVersion.isEmpty()) parts << QStringLiteral("CUDA %1").arg(run.cudaVersion);
    } else if (!run.torchVersion.isEmpty()) {
        parts << QStringLiteral("LibTorch %1").arg(run.torchVersion);
    }
    if (!run.ampscopeVersion.isEmpty())
        parts << QStringLiteral("AmpScope %1").arg(run.ampscopeVersion);
    return parts.isEmpty() ? kUnknown : parts.join(QStringLiteral(", "));
}

QString statusText(const ReportRun& run) {
    if (!run.complete)
        return QStringLiteral(
            "INCOMPLETE — no summary.json: the run is still being written or its "
            "process died; results below come from the events recorded so far");
    if (run.status == QLatin1String("error"))
        return QStringLiteral("ended with an error: ") +
               (run.errorMessage.isEmpty() ? kUnknown : run.errorMessage);
    return run.status.isEmpty() ? kUnknown : run.status;
}

}  // namespace

QString styleSheet() {
    return QStringLiteral(
        "body { font-family: sans-serif; font-size: 9pt; color: #202020; }"
        "h1 { font-size: 16pt; margin-bottom: 2px; }"
        "h2 { font-size: 13pt; margin-top: 10px; margin-bottom: 4px; color: #0d47a1; }"
        "h3 { font-size: 10.5pt; margin-top: 8px; margin-bottom: 3px; }"
        "p { margin-top: 2px; margin-bottom: 2px; }"
        "table.results { border-collapse: collapse; margin-top: 4px; margin-bottom: 4px; }"
        "table.results th { background-color: #e3f2fd; border: 1px solid #90a4ae; text-align: "
        "left; }"
        "table.results td { border: 1px solid #b0bec5; }"
        "td.key { font-weight: bold; }"
        ".incomplete { color: #b71c1c; font-weight: bold; }"
        ".note { color: #546e7a; }"
        ".config { font-family: monospace; font-size: 8pt; }");
}

QStringList resultRows() {
    return {QStringLiteral("Status"),
            QStringLiteral("Steps"),
            QStringLiteral("Wall time"),
            QStringLiteral("Samples/s"),
            QStringLiteral("Peak memory"),
            QStringLiteral("Final train loss"),
            QStringLiteral("Val loss"),
            QStringLiteral("Val accuracy"),
            QStringLiteral("Skipped steps"),
            QStringLiteral("Final scale"),
            QStringLiteral("Scale backoffs / growths")};
}

QString resultValue(const ReportRun& run, const QString& row) {
    const ReportResults& r = run.results;
    if (row == QLatin1String("Status"))
        return run.complete ? run.status : QStringLiteral("INCOMPLETE");
    if (row == QLatin1String("Steps")) return QString::number(r.steps);
    if (row == QLatin1String("Wall time"))
        return r.wallSeconds ? QString::fromStdString(formatDuration(*r.wallSeconds)) : kUnknown;
    if (row == QLatin1String("Samples/s")) return number(r.samplesPerSecond);
    if (row == QLatin1String("Peak memory"))
        return r.peakMemoryBytes && *r.peakMemoryBytes > 0
                   ? QString::fromStdString(formatBytes(*r.peakMemoryBytes))
                   : kUnknown;
    if (row == QLatin1String("Final train loss")) return number(r.finalTrainLoss, 5);
    if (row == QLatin1String("Val loss")) return number(r.valLoss, 5);
    if (row == QLatin1String("Val accuracy")) {
        if (!r.valAccuracy || !std::isfinite(*r.valAccuracy)) return number(r.valAccuracy);
        return QString::number(*r.valAccuracy * 100.0, 'f', 2) + QStringLiteral(" %");
    }
    if (row == QLatin1String("Skipped steps")) return QString::number(r.skippedSteps);
    if (row == QLatin1String("Final scale")) return number(r.finalScale, 6);
    if (row == QLatin1String("Scale backoffs / growths"))
        return QStringLiteral("%1 / %2").arg(r.scaleBackoffs).arg(r.scaleGrowths);
    return kUnknown;
}

QString headerHtml(const std::vector<ReportRun>& runs, const QDateTime& generated) {
    QString title = runs.size() == 1
                        ? QStringLiteral("AmpScope report: %1").arg(esc(runs[0].title))
                        : QStringLiteral("AmpScope comparison of %1 runs").arg(runs.size());
    QString html = QStringLiteral("<h1>%1</h1>").arg(title);
    html += QStringLiteral("<p class=\"note\">Generated %1</p>")
                .arg(esc(generated.toString(QStringLiteral("yyyy-MM-dd HH:mm t"))));
    for (const ReportRun& run : runs)
        if (!run.complete)
            html +=
                QStringLiteral("<p class=\"incomplete\">%1 is INCOMPLETE (no summary.json).</p>")
                    .arg(esc(run.title));
    return html;
}

QString comparisonHtml(const std::vector<ReportRun>& runs) {
    if (runs.size() < 2) return {};
    QStringList header{QStringLiteral("")};
    for (const ReportRun& run : runs) header << run.title;
    std::vector<QStringList> rows;
    QStringList mode{QStringLiteral("Precision")};
    for (const ReportRun& run : runs)
        mode << (run.mode.isEmpty()
                     ? kUnknown
                     : run.mode + (run.emulated ? QStringLiteral(" (emulated)") : QString()));
    rows.push_back(mode);
    for (const QString& key : resultRows()) {
        QStringList row{key};
        for (const ReportRun& run : runs) row << resultValue(run, key);
        rows.push_back(row);
    }
    // Relative to the first run, the baseline.
    const ReportResults& base = runs.front().results;
    QStringList speed{QStringLiteral("Samples/s vs %1").arg(runs.front().title)};
    QStringList memory{QStringLiteral("Peak memory vs %1").arg(runs.front().title)};
    QStringList accuracy{QStringLiteral("Val accuracy vs %1").arg(runs.front().title)};
    for (const ReportRun& run : runs) {
        const ReportResults& r = run.results;
        speed << (r.samplesPerSecond && base.samplesPerSecond && *base.samplesPerSecond > 0
                      ? QStringLiteral("×%1").arg(*r.samplesPerSecond / *base.samplesPerSecond, 0,
                                                  'f', 2)
                      : kUnknown);
        memory << (r.peakMemoryBytes && base.peakMemoryBytes && *base.peakMemoryBytes > 0
                       ? QStringLiteral("×%1").arg(
                             double(*r.peakMemoryBytes) / double(*base.peakMemoryBytes), 0, 'f', 2)
                       : kUnknown);
        if (r.valAccuracy && base.valAccuracy && std::isfinite(*r.valAccuracy) &&
            std::isfinite(*base.valAccuracy)) {
            const double points = (*r.valAccuracy - *base.valAccuracy) * 100.0;
            accuracy << QStringLiteral("%1%2 pt (%3)")
                            .arg(points >= 0 ? QStringLiteral("+") : QString())
                            .arg(points, 0, 'f', 2)
                            .arg(std::fabs(points) <= 0.5
                                     ? QStringLiteral("within 0.5 pt")
                                     : QStringLiteral("off by more than 0.5 pt"));
        } else {
            accuracy << kUnknown;
        }
    }
    rows.push_back(speed);
    rows.push_back(memory);
    rows.push_back(accuracy);
    return QStringLiteral("<h2>Side by side</h2>") + table(header, rows) +
           QStringLiteral(
               "<p class=\"note\">Ratios and differences are against the first run. "
               "Samples/s and memory of emulated modes measure the emulation, not the "
               "hardware.</p>");
}

QString seedBandHtml(const std::vector<std::string>& verdictLines) {
    if (verdictLines.empty()) return {};
    QString html = QStringLiteral("<h2>Against the seed band</h2><p>%1</p><ul>")
                       .arg(esc(QString::fromStdString(verdictLines.front())));
    for (std::size_t i = 1; i < verdictLines.size(); ++i)
        html += QStringLiteral("<li>%1</li>").arg(esc(QString::fromStdString(verdictLines[i]).trimmed()));
    return html + QStringLiteral(
                      "</ul><p class=\"note\">Final validation loss and accuracy: another config's seeds by "
                      "Welch's t-test, one-sided toward the worse side; a single run by the band itself "
                      "(outside exactly when outside the band drawn). Along the run: where the smoothed "
                      "training loss leaves the band of the reference's smoothed losses.</p>");
}

QString runFactsHtml(const ReportRun& run, bool comparison) {
    QString html = comparison ? QStringLiteral("<h2>%1</h2>").arg(esc(run.title)) : QString();
    if (!run.complete)
        html += QStringLiteral("<p class=\"incomplete\">%1</p>").arg(esc(statusText(run)));
    std::vector<QStringList> rows;
    rows.push_back({QStringLiteral("Run directory"), run.shownDirectory});
    rows.push_back({QStringLiteral("Started"), run.startTime.isEmpty() ? kUnknown : run.startTime});
    rows.push_back({QStringLiteral("Status"), statusText(run)});
    rows.push_back({QStringLiteral("Machine"), machineText(run)});
    rows.push_back({QStringLiteral("Precision"), precisionText(run)});
    rows.push_back({QStringLiteral("Model"),
                    run.model.isEmpty()
                        ? kUnknown
                        : run.model + (run.parameters > 0
                                           ? QStringLiteral(" (%1 parameters)").arg(run.parameters)
                                           : QString())});
    if (run.modelFile) {
        // Which file exactly: a report travels further than the model does.
        const ReportModelFile& file = *run.modelFile;
        rows.push_back({QStringLiteral("Model file"), file.path.isEmpty() ? kUnknown : file.path});
        rows.push_back({QStringLiteral("File size"),
                        file.bytes > 0 ? QStringLiteral("%1 (%2 bytes)")
                                             .arg(QString::fromStdString(formatBytes(file.bytes)))
                                             .arg(file.bytes)
                                       : kUnknown});
        rows.push_back({QStringLiteral("SHA-256"), file.sha256.isEmpty() ? kUnknown : file.sha256});
    }
    rows.push_back({QStringLiteral("Dataset"), run.dataset.isEmpty() ? kUnknown : run.dataset});
    html += QStringLiteral("<h3>Run</h3>") +
            table({QStringLiteral("Fact"), QStringLiteral("Value")}, rows);
    html += probedModulesHtml(run);
    const QStringList config = configSummaryLines(run.config);
    if (!config.isEmpty()) {
        html += QStringLiteral("<h3>Config</h3><p class=\"config\">");
        for (const QString& line : config) html += esc(line) + QStringLiteral("<br>");
        html += QStringLiteral("</p>");
    }
    return html;
}

QString probedModulesHtml(const ReportRun& run) {
    if (!run.modelFile) return {};
    const ReportModelFile& file = *run.modelFile;
    if (!file.hasModuleRecord)
        return QStringLiteral("<p class=\"note\">The run recorded no module tree (no "
                              "model_modules record).</p>");
    std::vector<QStringList> rows;
    for (const ScriptModuleInfo& module : file.modules)
        if (module.probed)
            rows.push_back({moduleName(module), QString::fromStdString(module.type),
                            QLocale(QLocale::English).toString(static_cast<qlonglong>(module.parameters))});
    QString html = QStringLiteral("<h3>Probed modules</h3><p class=\"note\">%1 of the model's %2 "
                                  "modules were the run's layers (probed; the names "
                                  "precision.keep_fp32 and faults take).</p>")
                       .arg(rows.size())
                       .arg(file.modules.size());
    if (rows.empty()) return html;
    return html + table({QStringLiteral("Module"), QStringLiteral("Type"),
                         QStringLiteral("Parameters (its own)")},
                        rows);
}

QString resultsTableHtml(const ReportRun& run) {
    std::vector<QStringList> rows;
    for (const QString& key : resultRows()) rows.push_back({key, resultValue(run, key)});
    QString html = QStringLiteral("<h3>Results</h3>") +
                   table({QStringLiteral("Result"), QStringLiteral("Value")}, rows);
    if (!run.complete)
        html += QStringLiteral(
            "<p class=\"note\">Without summary.json, wall time is the sum of the "
            "recorded step times and peak memory is unknown.</p>");
    return html;
}

QString narrativeHtml(const ReportRun& run) {
    if (run.narrativeMarkdown.trimmed().isEmpty()) return {};
    QTextDocument document;
    setUntrustedMarkdown(document, run.narrativeMarkdown);
    QString body = document.toHtml();
    // Only the body: the report has its own head and styles.
    const int start = body.indexOf(QStringLiteral("<body"));
    if (start >= 0) {
        const int open = body.indexOf(QLatin1Char('>'), start);
        const int close = body.lastIndexOf(QStringLiteral("</body>"));
        if (open >= 0 && close > open) body = body.mid(open + 1, close - open - 1);
    }
    return QStringLiteral("<h3>Scenario narrative</h3>") + body;
}

QString warningsHtml(const ReportRun& run) {
    if (run.warnings.isEmpty()) return {};
    QString html = QStringLiteral("<h3>Reading the run directory</h3><ul>");
    for (const QString& w : run.warnings) html += QStringLiteral("<li>%1</li>").arg(esc(w));
    return html + QStringLiteral("</ul>");
}

}  // namespace ampscope::ui::report_text
