#include "engine/RunRecords.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "common/BuildInfo.h"
#include "probes/ProbeRecords.h"
#include "probes/StepAuditRecords.h"

namespace ampscope {
namespace {

// JSON has no NaN/Inf: write null, and say which in "<key>_nonfinite".
void putNumber(nlohmann::json& record, const char* key, double value) {
    if (std::isfinite(value)) {
        record[key] = value;
        return;
    }
    record[key] = nullptr;
    record[std::string(key) + "_nonfinite"] = std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
}

double getNumber(const nlohmann::json& record, const char* key, double fallback = 0.0) {
    auto it = record.find(key);
    if (it == record.end()) return fallback;
    if (it->is_number()) return it->get<double>();
    auto tag = record.find(std::string(key) + "_nonfinite");
    if (tag != record.end() && tag->is_string()) {
        const auto t = tag->get<std::string>();
        if (t == "inf") return INFINITY;
        if (t == "-inf") return -INFINITY;
    }
    return NAN;
}

std::string isoTimeNow() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buffer;
}

}  // namespace

nlohmann::json runInfoRecord(const std::string& description, const RunSummary& f,
                             const std::vector<std::string>& layers, int64_t totalSteps) {
    return {{"type", "run_info"},
            {"total_steps", totalSteps},
            {"description", description},
            {"device", f.device},
            {"device_name", f.deviceName},
            {"threads", f.threads},
            {"torch_version", f.torchVersion},
            {"git_revision", build::kGitRevision},
            {"precision", {{"mode", f.mode}, {"emulated", f.emulated}, {"execution", f.execution}}},
            {"model", f.model},
            {"parameters", f.parameters},
            {"layers", layers}};
}

nlohmann::json stepRecord(const StepMetrics& m) {
    nlohmann::json r = {{"type", "step"}, {"step", m.step}, {"epoch", m.epoch}};
    putNumber(r, "loss", m.loss);
    r["lr"] = m.lr;
    putNumber(r, "grad_norm", m.gradNorm);
    putNumber(r, "grad_norm_clipped", m.gradNormClipped);
    r["step_seconds"] = m.stepSeconds;
    r["samples_per_second"] = m.samplesPerSecond;
    putNumber(r, "scale", m.scale);
    putNumber(r, "scale_after", m.scaleAfter);
    r["growth_tracker"] = m.growthTracker;
    r["found_inf"] = m.foundInf;
    r["step_skipped"] = m.stepSkipped;
    if (!m.scaleChange.empty()) r["scale_change"] = m.scaleChange;
    if (!m.firstNonFiniteLayer.empty()) r["first_nonfinite_layer"] = m.firstNonFiniteLayer;
    return r;
}

nlohmann::json epochRecord(const EpochMetrics& e) {
    nlohmann::json r = {{"type", "epoch"}, {"epoch", e.epoch}, {"step", e.step}};
    putNumber(r, "train_loss", e.trainLoss);
    putNumber(r, "val_loss", e.valLoss);
    putNumber(r, "val_accuracy", e.valAccuracy);
    r["seconds"] = e.seconds;
    return r;
}

nlohmann::json errorRecord(int64_t step, const std::string& message, bool inputError) {
    return {{"type", "error"}, {"step", step}, {"message", message}, {"input_error", inputError}};
}

nlohmann::json runEndRecord(const std::string& status, int64_t step) {
    return {{"type", "run_end"}, {"status", status}, {"step", step}, {"time", isoTimeNow()}};
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
                toJson(UnderflowRecord{step, layer.layer, "activation", 1.0, *layer.activationClasses}));
        if (layer.update) records.push_back(toJson(UpdateRatioRecord{step, *layer.update}));
    }
    if (!snapshot.opDtypes.empty()) records.push_back(toJson(OpDtypesRecord{step, snapshot.opDtypes}));
    records.push_back(toJson(MemoryRecord{step, snapshot.memory}));
    return records;
}

nlohmann::json nonFiniteRecord(const NonFiniteEvent& event, const std::vector<StatsFrame>& frames) {
    return toJson(NonFiniteRecord{event, frames});
}

namespace {

// {"steps":..,"mean_rel_error_per_layer":{layer: x},"mean_cosine_per_layer":{layer: x}};
// a layer without a finite step has null means.
void putLayerMeans(nlohmann::json& j, const std::vector<LayerGradientSummary>& layers) {
    nlohmann::json relError = nlohmann::json::object(), cosine = nlohmann::json::object();
    nlohmann::json steps = nlohmann::json::object();
    for (const auto& l : layers) {
        relError[l.layer] = l.steps && std::isfinite(l.meanRelError) ? nlohmann::json(l.meanRelError) : nlohmann::json(nullptr);
        cosine[l.layer] = l.steps && std::isfinite(l.meanCosine) ? nlohmann::json(l.meanCosine) : nlohmann::json(nullptr);
        steps[l.layer] = l.steps;
    }
    j["mean_rel_error_per_layer"] = relError;
    j["mean_cosine_per_layer"] = cosine;
    j["steps_per_layer"] = steps;
}

std::vector<LayerGradientSummary> layerMeansFromJson(const nlohmann::json& j) {
    std::vector<LayerGradientSummary> layers;
    const auto cosine = j.find("mean_cosine_per_layer");
    if (cosine == j.end() || !cosine->is_object()) return layers;
    const auto relError = j.find("mean_rel_error_per_layer");
    const auto steps = j.find("steps_per_layer");
    for (const auto& [layer, value] : cosine->items()) {
        LayerGradientSummary l;
        l.layer = layer;
        l.meanCosine = value.is_number() ? value.get<double>() : NAN;
        l.meanRelError = relError != j.end() && relError->is_object() && relError->contains(layer) &&
                                 (*relError)[layer].is_number()
                             ? (*relError)[layer].get<double>()
                             : NAN;
        l.steps = steps != j.end() && steps->is_object() && steps->contains(layer) &&
                          (*steps)[layer].is_number_integer()
                      ? (*steps)[layer].get<int64_t>()
                      : 0;
        layers.push_back(l);
    }
    return layers;
}

nlohmann::json nonFiniteEventJson(const NonFiniteEvent& e) {
    return {{"step", e.step}, {"layer", e.layer},     {"phase", e.phase},     {"tensor", e.tensor},
            {"nan", e.nan},   {"pos_inf", e.posInf}, {"neg_inf", e.negInf}, {"numel", e.numel}};
}

}  // namespace

nlohmann::json summaryToJson(const RunSummary& s) {
    nlohmann::json j = {{"schema_version", kSummarySchemaVersion},
                        {"status", s.status},
                        {"device", s.device},
                        {"device_name", s.deviceName},
                        {"threads", s.threads},
                        {"torch_version", s.torchVersion},
                        {"ampscope_version", build::kVersion},
                        {"precision", {{"mode", s.mode}, {"emulated", s.emulated}, {"execution", s.execution}}},
                        {"emulated", s.emulated},
                        {"model", s.model},
                        {"dataset", s.dataset},
                        {"parameters", s.parameters},
                        {"steps", s.steps},
                        {"epochs", s.epochs},
                        {"wall_seconds", s.wallSeconds},
                        {"train_seconds", s.trainSeconds},
                        {"samples_per_second", s.samplesPerSecond},
                        {"peak_memory_bytes", s.peakMemoryBytes},
                        {"skipped_steps", s.skippedSteps},
                        {"scale_backoffs", s.scaleBackoffs},
                        {"scale_growths", s.scaleGrowths},
                        {"nonfinite_losses", s.nonFiniteLosses}};
    if (!s.error.empty()) j["error"] = s.error;
    j["first_nonfinite"] = s.firstNonFinite ? nonFiniteEventJson(*s.firstNonFinite) : nlohmann::json(nullptr);
    nlohmann::json underflow = nlohmann::json::array();
    for (const auto& u : s.underflow)
        underflow.push_back({{"layer", u.layer},
                             {"mean_flushed_fraction", u.flushedFraction},
                             {"mean_subnormal_fraction", u.subnormalFraction},
                             {"mean_overflow_fraction", u.overflowFraction},
                             {"probe_steps", u.probeSteps},
                             {"exact", u.exact}});
    j["underflow"] = underflow;
    j["probe_overhead"] = s.probeOverhead;
    if (!s.shadow.empty()) {
        nlohmann::json shadow = nlohmann::json::object();
        putLayerMeans(shadow, s.shadow);
        j["shadow"] = shadow;
    }
    if (s.lockstep) {
        nlohmann::json lockstep = {{"mode", s.lockstep->mode}};
        putNumber(lockstep, "final_loss", s.lockstep->finalLoss);
        putLayerMeans(lockstep, s.lockstep->layers);
        j["lockstep"] = lockstep;
    }
    putNumber(j, "final_train_loss", s.finalTrainLoss);
    putNumber(j, "val_loss", s.valLoss);
    putNumber(j, "val_accuracy", s.valAccuracy);
    putNumber(j, "final_scale", s.finalScale);
    return j;
}

RunSummary summaryFromJson(const nlohmann::json& j) {
    RunSummary s;
    s.status = j.value("status", "");
    s.error = j.value("error", "");
    s.device = j.value("device", "");
    s.deviceName = j.value("device_name", "");
    s.threads = j.value("threads", 0);
    s.torchVersion = j.value("torch_version", "");
    if (j.contains("precision") && j["precision"].is_object()) {
        s.mode = j["precision"].value("mode", "");
        s.emulated = j["precision"].value("emulated", false);
        s.execution = j["precision"].value("execution", "");
    }
    s.model = j.value("model", "");
    s.dataset = j.value("dataset", "");
    s.parameters = j.value("parameters", int64_t{0});
    s.steps = j.value("steps", int64_t{0});
    s.epochs = j.value("epochs", int64_t{0});
    s.wallSeconds = getNumber(j, "wall_seconds");
    s.trainSeconds = getNumber(j, "train_seconds");
    s.samplesPerSecond = getNumber(j, "samples_per_second");
    s.peakMemoryBytes = j.value("peak_memory_bytes", int64_t{0});
    s.finalTrainLoss = getNumber(j, "final_train_loss");
    s.valLoss = getNumber(j, "val_loss");
    s.valAccuracy = getNumber(j, "val_accuracy");
    s.skippedSteps = j.value("skipped_steps", int64_t{0});
    s.finalScale = getNumber(j, "final_scale", 1.0);
    s.scaleBackoffs = j.value("scale_backoffs", int64_t{0});
    s.scaleGrowths = j.value("scale_growths", int64_t{0});
    s.nonFiniteLosses = j.value("nonfinite_losses", int64_t{0});
    s.probeOverhead = getNumber(j, "probe_overhead");
    if (auto it = j.find("underflow"); it != j.end() && it->is_array()) {
        for (const auto& u : *it) {
            if (!u.is_object()) continue;
            s.underflow.push_back({u.value("layer", ""), getNumber(u, "mean_flushed_fraction"),
                                   getNumber(u, "mean_subnormal_fraction"), getNumber(u, "mean_overflow_fraction"),
                                   u.value("probe_steps", int64_t{0}), u.value("exact", true)});
        }
    }
    if (auto it = j.find("shadow"); it != j.end() && it->is_object()) s.shadow = layerMeansFromJson(*it);
    if (auto it = j.find("lockstep"); it != j.end() && it->is_object()) {
        LockstepSummary l;
        l.mode = it->value("mode", "");
        l.finalLoss = getNumber(*it, "final_loss", NAN);
        l.layers = layerMeansFromJson(*it);
        s.lockstep = l;
    }
    if (auto it = j.find("first_nonfinite"); it != j.end() && it->is_object()) {
        NonFiniteEvent e;
        e.step = it->value("step", int64_t{0});
        e.layer = it->value("layer", "");
        e.phase = it->value("phase", "");
        e.tensor = it->value("tensor", "");
        e.nan = it->value("nan", int64_t{0});
        e.posInf = it->value("pos_inf", int64_t{0});
        e.negInf = it->value("neg_inf", int64_t{0});
        e.numel = it->value("numel", int64_t{0});
        s.firstNonFinite = e;
    }
    return s;
}

}  // namespace ampscope
