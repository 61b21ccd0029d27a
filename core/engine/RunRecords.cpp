#include "engine/RunRecords.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/BuildInfo.h"
#include "probes/FormatSweepRecord.h"
#include "probes/ProbeRecords.h"
#include "probes/StepAuditRecords.h"
#include "run/EventSchema.h"
#include "run/RecordCodec.h"
#include "run/RecordKeys.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope {
using namespace record_codec;
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

nlohmann::json runInfoRecord(const std::string& description, const RunSummary& facts,
                             const std::vector<std::string>& layers, int64_t totalSteps) {
    RunInfoRecord info;
    info.totalSteps = totalSteps;
    info.description = description;
    info.device = facts.device;
    info.deviceName = facts.deviceName;
    info.threads = facts.threads;
    info.torchVersion = facts.torchVersion;
    info.gitRevision = build::kGitRevision;
    info.mode = facts.mode;
    info.emulated = facts.emulated;
    info.execution = facts.execution;
    info.model = facts.model;
    info.parameters = facts.parameters;
    info.layers = layers;
    return toJson(info);
}

std::vector<nlohmann::json> probeRecords(const ProbeSnapshot& snapshot) {
    std::vector<nlohmann::json> records;
    const int64_t step = snapshot.step;
    for (const auto& layer : snapshot.layers) {
        if (layer.hasParameters) {
            records.push_back(toJson(HistogramRecord{step, layer.layer, std::string(probe_kind::kParamGradScaled),
                                                     layer.paramGradScaled}));
            records.push_back(
                toJson(HistogramRecord{step, layer.layer, std::string(probe_kind::kParamGrad), layer.paramGrad}));
            records.push_back(toJson(UnderflowRecord{step, layer.layer, std::string(probe_kind::kParamGradScaled),
                                                     1.0, layer.gradClasses}));
            for (size_t k = 0; k < layer.whatIf.size(); ++k)
                records.push_back(toJson(UnderflowRecord{step, layer.layer, std::string(probe_kind::kParamGrad),
                                                         layer.whatIfMultipliers[k], layer.whatIf[k]}));
        }
        if (layer.activationGrad.total() > 0)
            records.push_back(toJson(HistogramRecord{step, layer.layer, std::string(probe_kind::kActivationGrad),
                                                     layer.activationGrad}));
        if (layer.activationGradClasses)
            records.push_back(toJson(UnderflowRecord{step, layer.layer, std::string(probe_kind::kActivationGrad),
                                                     1.0, *layer.activationGradClasses}));
        if (layer.activationClasses)
            records.push_back(
                toJson(UnderflowRecord{step, layer.layer, std::string(probe_kind::kActivation), 1.0,
                                         *layer.activationClasses}));
        if (layer.update) records.push_back(toJson(UpdateRatioRecord{step, *layer.update}));
    }
    for (const auto& point : snapshot.formatPoints) records.push_back(toJson(FormatQuantRecord{step, point}));
    for (const auto& sweep : snapshot.formatSweep) records.push_back(toJson(sweep));
    if (!snapshot.opDtypes.empty()) records.push_back(toJson(OpDtypesRecord{step, snapshot.opDtypes}));
    records.push_back(toJson(MemoryRecord{step, snapshot.memory}));
    return records;
}

nlohmann::json nonFiniteRecord(const NonFiniteEvent& event, const std::vector<StatsFrame>& frames) {
    return toJson(NonFiniteRecord{event, frames});
}

namespace {

// One more per-layer object for layers the cosine object has listed: {layer: value}.
template <class V, class L, class Write, class Read>
void visitPerLayer(V& v, const char* key, L& layers, Write&& write, Read&& read) {
    v.custom(
        key, layers,
        [&write](const std::vector<LayerGradientSummary>& written) {
            json j = json::object();
            for (const auto& l : written) j[l.layer] = write(l);
            return j;
        },
        [&read, key](const json& j, auto& list, auto& reader) {
            if (!j.is_object()) return reader.mistyped(key, j, "must be an object");
            for (auto& l : list)
                if (const auto it = j.find(l.layer); it != j.end()) read(*it, l);
        });
}

// Per-layer means as three objects keyed by layer name: {"mean_rel_error_per_layer":
// {layer: x}, "mean_cosine_per_layer": {layer: x}, "steps_per_layer": {layer: n}}; a
// layer without a finite step has null means. The cosine object lists the layers.
template <class V, class L>
void visitLayerMeans(V& v, L& layers) {
    v.custom(
        "mean_cosine_per_layer", layers,
        [](const std::vector<LayerGradientSummary>& written) {
            json j = json::object();
            for (const auto& l : written)
                j[l.layer] = l.steps && std::isfinite(l.meanCosine) ? json(l.meanCosine) : json(nullptr);
            return j;
        },
        [](const json& j, auto& read, auto& reader) {
            if (!j.is_object()) return reader.mistyped("mean_cosine_per_layer", j, "must be an object");
            for (const auto& [layer, value] : j.items()) {
                LayerGradientSummary l;
                l.layer = layer;
                l.meanCosine = value.is_number() ? value.template get<double>() : kNaN;
                l.meanRelError = kNaN;
                read.push_back(l);
            }
        });
    visitPerLayer(
        v, "mean_rel_error_per_layer", layers,
        [](const LayerGradientSummary& l) {
            return l.steps && std::isfinite(l.meanRelError) ? json(l.meanRelError) : json(nullptr);
        },
        [](const json& value, LayerGradientSummary& l) {
            if (value.is_number()) l.meanRelError = value.get<double>();
        });
    visitPerLayer(
        v, "steps_per_layer", layers, [](const LayerGradientSummary& l) { return json(l.steps); },
        [](const json& value, LayerGradientSummary& l) {
            if (value.is_number_integer()) l.steps = value.get<int64_t>();
        });
}

template <class V, class L>
void visitLockstepSummary(V& v, L& l) {
    v.fieldOr("mode", l.mode, std::string());
    v.numberOr("final_loss", l.finalLoss, kNaN);
    visitLayerMeans(v, l.layers);
}

// The first non-finite event as the summary states it (without how it was located).
template <class V, class E>
void visitFirstNonFinite(V& v, E& e) {
    v.fieldOr("step", e.step, int64_t{0});
    v.fieldOr("layer", e.layer, std::string());
    v.fieldOr("phase", e.phase, std::string());
    v.fieldOr("tensor", e.tensor, std::string());
    v.fieldOr("nan", e.nan, int64_t{0});
    v.fieldOr("pos_inf", e.posInf, int64_t{0});
    v.fieldOr("neg_inf", e.negInf, int64_t{0});
    v.fieldOr("numel", e.numel, int64_t{0});
    v.fieldIfSet("op", e.op);
    v.fieldIfSet("op_phase", e.opPhase);
    v.fieldIfSet("op_module", e.opModule);
    v.fieldIfSet("op_node", e.opNode);
    v.fieldIfSet("via", e.via);
}

template <class V, class U>
void visitLayerUnderflow(V& v, U& u) {
    v.fieldOr("layer", u.layer, std::string());
    v.fieldOr("mean_flushed_fraction", u.flushedFraction, 0.0);
    v.fieldOr("mean_subnormal_fraction", u.subnormalFraction, 0.0);
    v.fieldOr("mean_overflow_fraction", u.overflowFraction, 0.0);
    v.fieldOr("probe_steps", u.probeSteps, int64_t{0});
    v.fieldOr("exact", u.exact, true);
}

const auto kPrecisionFacts = [](auto& v, auto& s) { visitPrecisionFacts(v, s); };

// summary.json. Read leniently: a field an older build did not write keeps its default.
template <class V, class S>
void visitSummary(V& v, S& s) {
    v.writeOnly("schema_version", kSummarySchemaVersion);
    v.fieldOr("status", s.status, std::string());
    v.fieldIfSet("error", s.error);
    v.fieldOr("device", s.device, std::string());
    v.fieldOr("device_name", s.deviceName, std::string());
    v.fieldOr("threads", s.threads, 0);
    v.fieldOr("torch_version", s.torchVersion, std::string());
    v.writeOnly("ampscope_version", std::string_view(build::kVersion));
    if (v.present("precision", true)) v.object("precision", s, kPrecisionFacts);
    v.writeOnly("emulated", s.emulated);  // also at the top, for scripts
    v.fieldOr("model", s.model, std::string());
    v.fieldOr("dataset", s.dataset, std::string());
    v.fieldOr("parameters", s.parameters, int64_t{0});
    v.fieldOr("steps", s.steps, int64_t{0});
    v.fieldOr("epochs", s.epochs, int64_t{0});
    v.fieldOr("wall_seconds", s.wallSeconds, 0.0);
    v.fieldOr("train_seconds", s.trainSeconds, 0.0);
    v.fieldOr("samples_per_second", s.samplesPerSecond, 0.0);
    v.fieldOr("peak_memory_bytes", s.peakMemoryBytes, int64_t{0});
    v.fieldOr("skipped_steps", s.skippedSteps, int64_t{0});
    v.fieldOr("scale_backoffs", s.scaleBackoffs, int64_t{0});
    v.fieldOr("scale_growths", s.scaleGrowths, int64_t{0});
    v.fieldOr("nonfinite_losses", s.nonFiniteLosses, int64_t{0});
    v.nullableObject("first_nonfinite", s.firstNonFinite, [](auto& sub, auto& e) { visitFirstNonFinite(sub, e); });
    v.listOr("underflow", s.underflow, [](auto& sub, auto& u) { visitLayerUnderflow(sub, u); });
    v.fieldOr("probe_overhead", s.probeOverhead, 0.0);
    if (v.present("shadow", !s.shadow.empty()))
        v.object("shadow", s.shadow, [](auto& sub, auto& layers) { visitLayerMeans(sub, layers); });
    v.optionalObject("lockstep", s.lockstep, [](auto& sub, auto& l) { visitLockstepSummary(sub, l); });
    v.numberOr("final_train_loss", s.finalTrainLoss, 0.0);
    v.numberOr("val_loss", s.valLoss, 0.0);
    v.numberOr("val_accuracy", s.valAccuracy, 0.0);
    v.numberOr("final_scale", s.finalScale, 1.0);
}

const auto kSummaryFields = [](auto& v, auto& s) { visitSummary(v, s); };

}  // namespace

nlohmann::json summaryToJson(const RunSummary& s) { return encode(s, kSummaryFields); }

RunSummary summaryFromJson(const nlohmann::json& j) {
    if (!j.is_object()) throw RecordError("summary record: not a JSON object");
    RunSummary s;
    JsonReader reader(j, "summary", ReadRule::Lenient);
    visitSummary(reader, s);
    return s;
}

SummaryReading readSummaryChecked(const nlohmann::json& j) {
    SummaryReading r;
    if (!j.is_object()) {
        r.problems.push_back("not a JSON object");
        return r;
    }
    JsonReader reader(j, "summary", ReadRule::Lenient);
    reader.reportMistyped(&r.problems);
    r.summary.mode.clear();  // stays empty when the file has no "precision" object
    visitSummary(reader, r.summary);
    const auto status = j.find("status");
    r.hasStatus = status != j.end() && status->is_string();
    r.statusMistyped = status != j.end() && !status->is_string();
    // A result is stated when its key is there as a number, or as null with its
    // non-finite tag (the codec's non-finite rule); the value is the one visitSummary read.
    const auto stated = [&j](const std::string& key) {
        const auto value = j.find(key);
        if (value == j.end()) return false;
        if (value->is_number()) return true;
        const auto tag = j.find(key + "_nonfinite");
        return value->is_null() && tag != j.end() && tag->is_string();
    };
    const auto keep = [&stated](const char* key, double value, std::optional<double>& out) {
        if (stated(key)) out = value;
    };
    keep("final_train_loss", r.summary.finalTrainLoss, r.finalTrainLoss);
    keep("val_loss", r.summary.valLoss, r.valLoss);
    keep("val_accuracy", r.summary.valAccuracy, r.valAccuracy);
    keep("final_scale", r.summary.finalScale, r.finalScale);
    return r;
}

nlohmann::json summaryRecordKeys() { return {{kSummaryFileName, keysOf<RunSummary>(kSummaryFields)}}; }

}  // namespace ampscope
