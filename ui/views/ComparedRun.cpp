#include "views/ComparedRun.h"

#include <QDir>
#include <QFileInfo>
#include <cmath>
#include <nlohmann/json.hpp>

#include "RecordDispatcher.h"
#include "probes/ProbeRecords.h"
#include "run/RunReader.h"

namespace ampscope::ui {
namespace {

// What a compared run keeps of the records the dispatcher hands it: the loss and scale
// per step, and the mean flushed fraction over the layers per probe step.
class ComparedRunCollector : public RunObserver {
public:
    explicit ComparedRunCollector(ComparedRun& run) : run_(run) {}

    void beginRun(const RunContext&) override {}
    void appendSteps(const std::vector<StepMetrics>& steps) override {
        for (const StepMetrics& m : steps) {
            const double x = static_cast<double>(m.step);
            run_.losses.append(x, m.loss);
            run_.log2Scales.append(x, m.scaleAfter > 0 ? std::log2(m.scaleAfter) : NAN);
        }
    }
    void takeRecord(const nlohmann::json& record) override {
        const std::string type = record.value("type", std::string());
        if (type == probe_record_type::kNonFinite && run_.firstNonFiniteStep < 0) {
            const auto step = record.find("step");
            if (step != record.end() && step->is_number_integer()) run_.firstNonFiniteStep = step->get<int64_t>();
            run_.nonFiniteReceived = record.value("via", std::string()) == nonfinite_via::kGradientAllReduce;
            return;
        }
        if (type != probe_record_type::kUnderflow) return;
        try {
            const UnderflowRecord u = underflowRecordFromJson(record);
            if (u.kind != probe_kind::kParamGradScaled || u.multiplier != 1.0) return;
            // A probe step's records are written together, in step order.
            if (u.step != probeStep_) {
                finish();
                probeStep_ = u.step;
            }
            flushedSum_ += u.counts.flushedFraction();
            ++layers_;
        } catch (const std::exception&) {
            // A malformed record: the reader's warnings name it; the rest still compares.
        }
    }
    void endOfBatch() override {}

    // Closes the probe step being summed.
    void finish() {
        if (layers_ > 0) run_.flushed.append(static_cast<double>(probeStep_), flushedSum_ / layers_);
        flushedSum_ = 0.0;
        layers_ = 0;
    }

private:
    ComparedRun& run_;
    int64_t probeStep_ = -1;
    double flushedSum_ = 0.0;
    int layers_ = 0;
};

}  // namespace

ComparedRun loadComparedRun(const QString& directory, const QString& name) {
    ComparedRun run;
    RunRecordReader reader(QDir::cleanPath(directory).toStdString());
    ComparedRunCollector collector(run);
    const std::vector<RunObserver*> observers{&collector};
    // Streamed: the records are looked at once and not kept.
    RecordDispatcher dispatcher(observers);
    dispatchRunRecords(reader, dispatcher);
    collector.finish();
    const nlohmann::json& config = reader.data().config;
    const std::string mode = config.contains("precision") && config["precision"].is_object()
                                 ? config["precision"].value("mode", std::string("?"))
                                 : std::string("?");
    run.legend = QStringLiteral("%1 (%2)").arg(name.isEmpty() ? QFileInfo(directory).fileName() : name,
                                               QString::fromStdString(mode));
    if (run.firstNonFiniteStep >= 0)
        run.legend += QStringLiteral(" · non-finite at step %1").arg(run.firstNonFiniteStep);
    return run;
}

}  // namespace ampscope::ui
