#include "report/ReportText.h"

#include <QLocale>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFragment>
#include <QUrl>
#include <cmath>

#include "RunFacts.h"
#include "config/RunConfig.h"
#include "probes/NonFiniteText.h"
#include "common/Text.h"

namespace ampscope::ui::report_text {
namespace {

const QString kUnknown = QStringLiteral("—");

QString esc(const QString& text) {
    return text.toHtmlEscaped();
}

QString number(const std::optional<double>& value, int significant = 4) {
    if (!value) return kUnknown;
    if (std::isnan(*value)) return QStringLiteral("NaN");
    if (std::isinf(*value)) return *value > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    return QString::fromStdString(formatNumber(*value, significant));
}

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

// The layer name of a TorchScript model's own parameters (its root module's).
const QString kModelItself = QString::fromLatin1(kRootLayerName);

QString moduleName(const ScriptModuleInfo& module) {
    return module.name.empty() ? kModelItself : QString::fromStdString(module.name);
}

QString moduleType(const ReportRun& run, const QString& layer) {
    if (!run.modelFile) return {};
    for (const ScriptModuleInfo& module : run.modelFile->modules)
        if (moduleName(module) == layer) return QString::fromStdString(module.type);
    return {};
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

}  // namespace

bool isAllowedLink(const QString& href) {
    const QString target = href.trimmed();
    if (target.startsWith(QLatin1Char('#'))) return true;  // an anchor in the same page
    // An allow-list: javascript:, data:, file:, vbscript:, relative paths (which resolve
    // next to the report, or into the run directory) and anything unparsable are out.
    const QUrl url(target, QUrl::StrictMode);
    if (!url.isValid()) return false;
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("mailto")) return !url.path().isEmpty();
    return (scheme == QLatin1String("http") || scheme == QLatin1String("https")) &&
           !url.host().isEmpty();
}

void setUntrustedMarkdown(QTextDocument& document, const QString& markdown) {
    // No raw HTML: <script>, <img onerror=...>, <a href="javascript:..."> written as HTML
    // in the Markdown become plain text.
    document.setMarkdown(markdown, QTextDocument::MarkdownFeatures(
                                       QTextDocument::MarkdownDialectGitHub |
                                       QTextDocument::MarkdownNoHTML));
    // Then links and images, which Markdown itself makes: collected first, then changed
    // from the end back, so that earlier positions stay valid.
    struct Change {
        int position = 0;
        int length = 0;
        bool image = false;
        QTextCharFormat format;
    };
    std::vector<Change> changes;
    for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            const QTextCharFormat format = fragment.charFormat();
            if (format.isImageFormat())
                changes.push_back({fragment.position(), fragment.length(), true, format});
            else if (format.isAnchor() && !isAllowedLink(format.anchorHref()))
                changes.push_back({fragment.position(), fragment.length(), false, format});
        }
    }
    for (auto change = changes.rbegin(); change != changes.rend(); ++change) {
        QTextCursor cursor(&document);
        cursor.setPosition(change->position);
        cursor.setPosition(change->position + change->length, QTextCursor::KeepAnchor);
        QTextCharFormat plain = change->format;
        plain.setAnchor(false);
        plain.setAnchorHref(QString());
        if (change->image) {
            // An image would be fetched by whoever opens the report (a tracking pixel, a
            // file: URL read into a PDF): its name stays as text.
            const QString name = change->format.toImageFormat().name();
            cursor.insertText(QStringLiteral("[image: %1]").arg(name), QTextCharFormat());
        } else {
            cursor.setCharFormat(plain);
        }
    }
}

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

namespace {

// A fraction as a percentage for the format tables: "0", "<0.01 %", "0.40 %", "12.50 %".
QString percentText(double fraction) {
    if (fraction == 0.0) return QStringLiteral("0 %");
    if (fraction < 1e-4) return QStringLiteral("<0.01 %");
    return QString::number(fraction * 100.0, 'f', 2) + QStringLiteral(" %");
}

QString snrText(double db) {
    if (std::isinf(db) && db > 0) return QStringLiteral("exact");
    return number(db, 3) + QStringLiteral(" dB");
}

// The layers of records, in the order first met (forward order, as written).
template <class Record, class LayerOf>
QStringList layersOf(const std::vector<Record>& records, LayerOf layerOf) {
    QStringList layers;
    for (const auto& r : records)
        if (const QString layer = QString::fromStdString(layerOf(r)); !layers.contains(layer)) layers << layer;
    return layers;
}

QString formatSweepHtml(const std::vector<FormatSweepRecord>& sweep) {
    QStringList formats;
    for (const auto& r : sweep)
        if (const QString f = QString::fromStdString(r.format); !formats.contains(f)) formats << f;
    const QStringList layers = layersOf(sweep, [](const FormatSweepRecord& r) { return r.layer; });
    const auto find = [&sweep](const QString& layer, const char* tensor, const QString& format) {
        for (const auto& r : sweep)
            if (QString::fromStdString(r.layer) == layer && r.tensor == tensor && QString::fromStdString(r.format) == format)
                return &r;
        return static_cast<const FormatSweepRecord*>(nullptr);
    };
    QString html = QStringLiteral(
                       "<p>Format sweep at step %1: the same fp32 tensors of every layer measured in "
                       "every format — fp16 and bf16 as plain casts, e4m3 and e5m2 with per-tensor "
                       "current scaling, MXFP8 and MXFP4 in blocks of 32 with power-of-two scales, "
                       "NVFP4 in blocks of 16 with e4m3 scales. Each cell is the SNR and the "
                       "percentage of elements that underflowed to zero. A format <b>survives</b> a "
                       "tensor when the SNR is at least %2 dB and under %3 % of its elements "
                       "underflow and under %4 % saturate.</p>")
                       .arg(sweep.front().step)
                       .arg(kSurvivalMinSnrDb)
                       .arg(kSurvivalMaxUnderflow * 100.0)
                       .arg(kSurvivalMaxSaturated * 100.0);
    const std::pair<const char*, const char*> tensors[] = {
        {"gradient", "Weight gradients (unscaled)"},
        {"activation", "Inputs of the matmul/conv (the activations)"}};
    for (const auto& [tensor, title] : tensors) {
        std::vector<QStringList> rows;
        for (const QString& layer : layers) {
            QStringList row{layer};
            bool any = false;
            for (const QString& format : formats) {
                const FormatSweepRecord* r = find(layer, tensor, format);
                any = any || r;
                row << (r ? snrText(r->snrDb()) + QStringLiteral(" / ") + percentText(r->underflowFraction())
                          : kUnknown);
            }
            if (any) rows.push_back(row);
        }
        if (rows.empty()) continue;
        html += QStringLiteral("<p><b>%1</b> (SNR / underflow)</p>").arg(esc(QString::fromLatin1(title))) +
                table(QStringList{QStringLiteral("layer")} + formats, rows);
    }
    // Per layer: the formats that hold both of its tensors; for the others, why (the
    // first tensor and criterion that fails: SNR, then underflow, then saturation).
    html += QStringLiteral("<ul>");
    for (const QString& layer : layers) {
        QStringList kept, lost;
        for (const QString& format : formats) {
            QString why;
            for (const auto& [tensor, title] : tensors) {
                const FormatSweepRecord* r = find(layer, tensor, format);
                if (!r || survives(*r) || !why.isEmpty()) continue;
                const QString name = QString::fromLatin1(tensor);
                if (r->snrDb() < kSurvivalMinSnrDb)
                    why = QStringLiteral("%1 SNR %2").arg(name, snrText(r->snrDb()));
                else if (r->underflowFraction() >= kSurvivalMaxUnderflow)
                    why = QStringLiteral("%1 %2 underflow").arg(name, percentText(r->underflowFraction()));
                else
                    why = QStringLiteral("%1 %2 saturated").arg(name, percentText(r->saturatedFraction()));
            }
            if (why.isEmpty())
                kept << format;
            else
                lost << QStringLiteral("%1 (%2)").arg(format, why);
        }
        html += QStringLiteral("<li><b>%1</b> survives %2%3.</li>")
                    .arg(esc(layer),
                         kept.isEmpty() ? QStringLiteral("none of the formats")
                                        : esc(kept.join(QStringLiteral(", "))),
                         lost.isEmpty() ? QStringLiteral(" (all of them)")
                                        : QStringLiteral("; not %1").arg(esc(lost.join(QStringLiteral(", ")))));
    }
    return html + QStringLiteral("</ul>");
}

QString formatQuantHtml(const std::vector<FormatQuantRecord>& points) {
    std::vector<QStringList> rows;
    for (const auto& record : points) {
        const FormatQuantMeasurement& p = record.point;
        rows.push_back({QString::fromStdString(p.layer),
                        QString::fromStdString(p.operand + " " + p.direction),
                        QString::fromStdString(p.format), QString::fromStdString(p.recipe),
                        percentText(p.underflowFraction()), percentText(p.saturatedFraction()),
                        snrText(p.snrDb()), p.blocks > 0 ? percentText(p.crushedFraction()) : kUnknown});
    }
    return QStringLiteral("<p>The precision mode's own quantization at step %1 (the last probe step), "
                          "at each point where it rounds: forward operands (input, weight) and the "
                          "gradient arriving at each output. Crushed: elements zeroed while the "
                          "largest element of their block survived (block formats only).</p>")
               .arg(points.front().step) +
           table({QStringLiteral("layer"), QStringLiteral("point"), QStringLiteral("format"),
                  QStringLiteral("recipe"), QStringLiteral("underflow"), QStringLiteral("saturated"),
                  QStringLiteral("SNR"), QStringLiteral("crushed")},
                 rows);
}

}  // namespace

QString numberFormatsHtml(const ReportRun& run) {
    QString html = QStringLiteral("<h3>Number formats</h3>");
    if (run.formatSweep.empty() && run.formatQuant.empty())
        return html + QStringLiteral(
                          "<p class=\"note\">No format sweep was recorded in this run: it runs on the "
                          "probe steps that are multiples of probes.format_sweep_every (every %1 "
                          "steps by default; 0 turns it off).</p>")
                          .arg(ProbeConfig{}.format_sweep_every);
    if (!run.formatSweep.empty()) html += formatSweepHtml(run.formatSweep);
    if (!run.formatQuant.empty()) html += formatQuantHtml(run.formatQuant);
    return html;
}

QString nanDiagnosisHtml(const ReportRun& run) {
    QString html = QStringLiteral("<h3>NaN / Inf diagnosis</h3>");
    if (!run.nonFinite) {
        return html + QStringLiteral("<p>No non-finite value was located in this run.</p>");
    }
    const NonFiniteEvent& e = run.nonFinite->event;
    const QString layer = QString::fromStdString(e.layer);
    const QString type = moduleType(run, layer);
    // A TorchScript model's layers are its modules, named as named_modules() names them.
    const QString where = e.layer == kLossLayerName ? QStringLiteral("the <b>loss</b>")
                          : run.modelFile
                              ? QStringLiteral("module <b>%1</b>%2")
                                    .arg(esc(layer), type.isEmpty() ? QString()
                                                                    : QStringLiteral(" (%1)").arg(esc(type)))
                              : QStringLiteral("layer <b>%1</b>").arg(esc(layer));
    html += QStringLiteral(
                "<p><b>First non-finite value at step %1</b>: %2, %3 pass, %4 "
                "(%5 NaN, %6 +Inf, %7 -Inf of %8 elements).</p>")
                .arg(e.step)
                .arg(where, esc(QString::fromStdString(e.phase)),
                     esc(QString::fromStdString(e.tensor)))
                .arg(e.nan)
                .arg(e.posInf)
                .arg(e.negInf)
                .arg(e.numel);
    if (const std::string words = describeFirstOperator(e); !words.empty())
        html += QStringLiteral("<p>First operator with a non-finite output: %1.</p>")
                    .arg(esc(QString::fromStdString(words)));
    if (e.via == nonfinite_via::kGradientAllReduce)
        html += QStringLiteral("<p class=\"note\">None of this rank's activations or activation "
                               "gradients were non-finite: the value arrived from another rank "
                               "through the gradient all-reduce.</p>");
    if (e.locatedBy == nonfinite_located_by::kReplay)
        html += QStringLiteral("<p class=\"note\">Found by running step %1 again with every layer "
                               "checked; the earlier columns are probe steps.</p>")
                    .arg(e.step);
    if (e.replayMissedStep > 0)
        html += QStringLiteral("<p class=\"note\">A replay of step %1 did not reproduce its "
                               "non-finite value; every step was checked from then on.</p>")
                    .arg(e.replayMissedStep);
    const auto& frames = run.nonFinite->frames;
    if (frames.empty())
        return html + QStringLiteral(
                          "<p class=\"note\">No statistics frames were recorded before it.</p>");
    // The last frames (at most 4), one column each: per layer the largest finite
    // magnitude of the activation and of the gradient, non-finite counts flagged.
    const std::size_t first = frames.size() > 4 ? frames.size() - 4 : 0;
    QStringList header{QStringLiteral("Layer · tensor (max |x|)")};
    for (std::size_t f = first; f < frames.size(); ++f)
        header << QStringLiteral("step %1").arg(frames[f].step);
    std::vector<QStringList> rows;
    const auto statsText = [](const std::optional<TensorStats>& stats) {
        if (!stats) return QString();
        QString text = std::isfinite(stats->absMax)
                           ? QString::fromStdString(formatNumber(stats->absMax, 4))
                           : kUnknown;
        if (stats->nan || stats->posInf || stats->negInf)
            text += QStringLiteral(" [%1 NaN, %2 Inf]")
                        .arg(stats->nan)
                        .arg(stats->posInf + stats->negInf);
        return text;
    };
    const StatsFrame& last = frames.back();
    for (const auto& layer : last.layers) {
        for (const char* tensor : {"activation", "gradient"}) {
            QStringList row{QStringLiteral("%1 · %2").arg(QString::fromStdString(layer.layer),
                                                          QLatin1String(tensor))};
            bool any = false;
            for (std::size_t f = first; f < frames.size(); ++f) {
                QString cell;
                for (const auto& l : frames[f].layers)
                    if (l.layer == layer.layer) {
                        cell = statsText(std::string(tensor) == "activation" ? l.activation
                                                                             : l.gradient);
                        any = any || !cell.isEmpty();
                    }
                row << cell;
            }
            if (any) rows.push_back(row);
        }
    }
    return html + table(header, rows);
}

QString warningsHtml(const ReportRun& run) {
    if (run.warnings.isEmpty()) return {};
    QString html = QStringLiteral("<h3>Reading the run directory</h3><ul>");
    for (const QString& w : run.warnings) html += QStringLiteral("<li>%1</li>").arg(esc(w));
    return html + QStringLiteral("</ul>");
}

}  // namespace ampscope::ui::report_text
