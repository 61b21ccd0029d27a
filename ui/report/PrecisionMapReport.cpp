#include "report/PrecisionMapReport.h"

#include <cmath>

#include "common/Text.h"
#include "probes/PrecisionMapText.h"
#include "report/ReportText.h"

namespace ampscope::ui::report_text {

namespace {

QString scientific(double value) {
    if (std::isnan(value)) return QStringLiteral("—");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    return QString::number(value, 'e', 2);
}

QString inUnits(double value, double unit) {
    if (!std::isfinite(value)) return scientific(value);
    return QString::fromStdString(formatNumber(value / unit, 3));
}

QString opCell(const PrecisionMapRecord& map, size_t k) {
    const auto& op = map.ops[k];
    return QStringLiteral("#%1 %2%3").arg(k).arg(QString::fromStdString(op.op),
                                                 op.output ? QStringLiteral("[%1]").arg(op.output) : QString());
}

}  // namespace

QString precisionMapHtml(const ReportRun& run) {
    QString html = QStringLiteral("<h3>Where precision is lost</h3>");
    if (!run.precisionMap)
        return html + QStringLiteral(
                          "<p class=\"note\">No precision map was taken in this run: list steps in "
                          "probes.precision_map_steps, use \"Map this step against fp32\" on a paused "
                          "run, or ampscope-cli precision-map CONFIG --step N --out DIR.</p>");
    const PrecisionMapRecord& map = *run.precisionMap;
    html += QStringLiteral("<p>%1. Each op's output was compared with the same step run from the same "
                           "state in %2; <i>rel error</i> is ||x − ref|| / ||ref||, <i>its own</i> the "
                           "error the op adds itself (the op run again in %2 on the run's own inputs), "
                           "<i>u</i> the unit roundoff of the format.</p>")
                .arg(esc(QString::fromStdString(precisionMapHeadline(map))),
                     esc(QString::fromStdString(map.reference)));
    if (const auto first = map.firstPastTolerance())
        html += QStringLiteral("<p><b>First op past %1 u:</b> %2: %3.</p>")
                    .arg(kPrecisionMapToleranceUnits)
                    .arg(esc(QString::fromStdString(precisionMapOpName(map, *first))),
                         esc(QString::fromStdString(precisionMapOpErrors(map, *first))));
    else
        html += QStringLiteral("<p>Every op stays within %1 unit roundoffs of the reference.</p>")
                    .arg(kPrecisionMapToleranceUnits);

    std::vector<QStringList> rows;
    for (size_t k : map.largestAdded(10)) {
        const auto& op = map.ops[k];
        const double u = map.unitRoundoff(op.phase);
        rows.push_back({opCell(map, k), QString::fromStdString(op.module), QString::fromStdString(op.phase),
                        scientific(op.addedError), inUnits(op.addedError, u), scientific(op.relError),
                        QString::fromStdString(formatNumber(op.ulpsMax, 3))});
    }
    html += QStringLiteral("<p><b>The ten ops that add the most error</b></p>") +
            table({QStringLiteral("Op"), QStringLiteral("Module"), QStringLiteral("Phase"), QStringLiteral("Its own error"),
                   QStringLiteral("in u"), QStringLiteral("Rel error (so far)"), QStringLiteral("Max ulps")},
                  rows);

    rows.clear();
    for (const auto& m : map.modules) {
        const double gain = m.gain();
        rows.push_back({QString::fromStdString(m.module), QString::fromStdString(m.phase), scientific(m.inputError),
                        scientific(m.outputError),
                        std::isfinite(gain) ? QString::fromStdString(formatNumber(gain, 3)) : QStringLiteral("—")});
    }
    html += QStringLiteral("<p><b>Per layer: the error entering and leaving</b></p>") +
            table({QStringLiteral("Module"), QStringLiteral("Phase"), QStringLiteral("Entering"),
                   QStringLiteral("Leaving"), QStringLiteral("Gain")},
                  rows) +
            QStringLiteral("<p class=\"note\">Entering: the largest error of the values the module's first op "
                           "takes from earlier ops; leaving: its last op's. A gain of — means no error "
                           "entered: the error starts in the module.</p>");
    if (!map.unmatched.empty()) {
        QStringList ops;
        for (const auto& u : map.unmatched)
            ops << QStringLiteral("%1 in %2 (%3, %4 only)")
                       .arg(QString::fromStdString(u.op), QString::fromStdString(u.module),
                            QString::fromStdString(u.phase), QString::fromStdString(u.side));
        html += QStringLiteral("<p class=\"note\">Ops only one side ran: %1.</p>").arg(esc(ops.join(QStringLiteral("; "))));
    }
    return html;
}

}  // namespace ampscope::ui::report_text
