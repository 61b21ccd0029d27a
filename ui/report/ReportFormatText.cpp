// The report's "Number formats" section (ReportText.h): the last format sweep's table
// and which formats each layer survives, and a format mode's own quantization points.
#include <QStringList>
#include <cmath>
#include <utility>

#include "config/RunConfig.h"
#include "report/ReportText.h"

namespace ampscope::ui::report_text {

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
                          "steps by default) and at a run's last probe step when none has swept; 0 "
                          "turns it off.</p>")
                          .arg(ProbeConfig{}.format_sweep_every);
    if (!run.formatSweep.empty()) html += formatSweepHtml(run.formatSweep);
    if (!run.formatQuant.empty()) html += formatQuantHtml(run.formatQuant);
    return html;
}

}  // namespace ampscope::ui::report_text
