// The report's "NaN / Inf diagnosis" section (ReportText.h): where the first non-finite
// value was located, by which operator, and the statistics frames of the steps before it.
#include <QStringList>
#include <cmath>
#include <string>

#include "common/Text.h"
#include "probes/NonFiniteText.h"
#include "report/ReportText.h"

namespace ampscope::ui::report_text {

namespace {

// The type of the TorchScript module a layer names; empty when the run has no model file.
QString moduleType(const ReportRun& run, const QString& layer) {
    if (!run.modelFile) return {};
    for (const ScriptModuleInfo& module : run.modelFile->modules)
        if (moduleName(module) == layer) return QString::fromStdString(module.type);
    return {};
}

}  // namespace

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

}  // namespace ampscope::ui::report_text
