#include "views/ComparedRun.h"

#include <QDir>
#include <QFileInfo>
#include <cmath>
#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "engine/StepRecordText.h"
#include "probes/ProbeRecords.h"
#include "run/RunReader.h"

namespace ampscope::ui {

ComparedRun loadComparedRun(const QString& directory, const QString& name) {
    ComparedRun run;
    int64_t probeStep = -1;  // the step whose underflow records are being summed
    double flushedSum = 0.0;
    int layers = 0;
    const auto endProbeStep = [&] {
        if (layers > 0) run.flushed.append(static_cast<double>(probeStep), flushedSum / layers);
        flushedSum = 0.0;
        layers = 0;
    };
    // Streamed: the records are looked at once and not kept.
    const RunData data = forEachRunRecord(
        QDir::cleanPath(directory).toStdString(), [&](const nlohmann::json& record) {
            const std::string type = recordType(record);
            if (type == "step") {
                if (const auto m = stepFromRecord(record)) {
                    const double x = static_cast<double>(m->step);
                    run.losses.append(x, m->loss);
                    run.log2Scales.append(x, m->scaleAfter > 0 ? std::log2(m->scaleAfter) : NAN);
                }
            } else if (type == "underflow") {
                try {
                    const UnderflowRecord u = underflowRecordFromJson(record);
                    if (u.kind != "param_grad_scaled" || u.multiplier != 1.0) return;
                    // A probe step's records are written together, in step order.
                    if (u.step != probeStep) {
                        endProbeStep();
                        probeStep = u.step;
                    }
                    flushedSum += u.counts.flushedFraction();
                    ++layers;
                } catch (const std::exception&) {
                    // A malformed record: the reader's warnings name it; the rest still compares.
                }
            }
        },
        [&](std::string_view line) {
            // Step lines without JSON (parseStepRecordText): nearly all of a run.
            StepMetrics m;
            if (!parseStepRecordText(line, m)) return false;
            const double x = static_cast<double>(m.step);
            run.losses.append(x, m.loss);
            run.log2Scales.append(x, m.scaleAfter > 0 ? std::log2(m.scaleAfter) : NAN);
            return true;
        });
    endProbeStep();
    const std::string mode = data.config.contains("precision") && data.config["precision"].is_object()
                                 ? data.config["precision"].value("mode", std::string("?"))
                                 : std::string("?");
    run.legend = QStringLiteral("%1 (%2)").arg(name.isEmpty() ? QFileInfo(directory).fileName() : name,
                                               QString::fromStdString(mode));
    return run;
}

}  // namespace ampscope::ui
