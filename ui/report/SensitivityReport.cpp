#include "report/SensitivityReport.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/ReportText.h"
#include "views/SensitivityView.h"

namespace ampscope::ui::report_text {

namespace {

// The heatmap's ends (CategoryHeatmapPlot): light for little, dark red for much.
QColor shade(double fraction) {
    const QColor light(255, 247, 236), middle(252, 141, 89), dark(127, 0, 0);
    const auto mix = [](const QColor& a, const QColor& b, double t) {
        return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                                static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                                static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
    };
    fraction = std::clamp(fraction, 0.0, 1.0);
    return fraction < 0.5 ? mix(light, middle, fraction * 2.0) : mix(middle, dark, fraction * 2.0 - 1.0);
}

}  // namespace

QString sensitivityHtml(const ReportRun& run) {
    if (!run.sensitivity || run.sensitivity->layers.empty()) return {};
    const SensitivityRecord& record = *run.sensitivity;
    double low = std::numeric_limits<double>::infinity(), high = 0.0;
    for (const auto& layer : record.layers)
        for (const auto& f : layer.formats)
            if (std::isfinite(f.score) && f.score > 0.0) {
                low = std::min(low, f.score);
                high = std::max(high, f.score);
            }
    const double decades = high > low ? std::log10(high / low) : 1.0;
    QString html = QStringLiteral("<h3>What each layer costs in each format</h3>"
                                  "<p>The sensitivity pass (probes.sensitivity_every), the mean of %1 up to "
                                  "step %2: per layer and format, the square of the first-order change of the "
                                  "batch's loss when only that layer's matmul/conv operands are quantized in the "
                                  "format, against an fp32 twin (loss units squared). Layers with the largest "
                                  "score first; shading on a log scale from %3 to %4.</p>")
                       .arg(run.sensitivityPasses == 1 ? QStringLiteral("one pass")
                                                       : QStringLiteral("%1 passes").arg(run.sensitivityPasses))
                       .arg(record.step)
                       .arg(high > 0.0 ? QString::number(low, 'g', 2) : QStringLiteral("0"))
                       .arg(QString::number(high, 'g', 2));
    html += QStringLiteral("<table class=\"results\" cellspacing=\"0\" cellpadding=\"3\"><tr><th>Layer</th>");
    for (const auto& format : record.formats) html += QStringLiteral("<th>%1</th>").arg(esc(QString::fromStdString(format)));
    html += QStringLiteral("</tr>");
    for (const LayerSensitivity* layer : SensitivityView::sortedLayers(record)) {
        html += QStringLiteral("<tr><td class=\"key\">%1</td>").arg(esc(QString::fromStdString(layer->layer)));
        for (const auto& format : record.formats) {
            const LayerFormatSensitivity* cell = layer->in(format);
            if (!cell) {
                html += QStringLiteral("<td>—</td>");
            } else if (std::isnan(cell->score)) {
                html += QStringLiteral("<td style=\"background:#7f0000;color:white\">non-finite</td>");
            } else if (cell->score == 0.0) {
                html += QStringLiteral("<td><i>0 (exact)</i></td>");
            } else {
                const double t = high > low ? std::log10(cell->score / low) / decades : 1.0;
                const QColor fill = shade(t);
                html += QStringLiteral("<td style=\"background:%1;color:%2\">%3</td>")
                            .arg(fill.name(), fill.lightness() < 128 ? QStringLiteral("white") : QStringLiteral("black"),
                                 QString::number(cell->score, 'g', 2));
            }
        }
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

}  // namespace ampscope::ui::report_text
