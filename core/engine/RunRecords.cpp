#include "engine/RunRecords.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "common/BuildInfo.h"

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
                             const std::vector<std::string>& layers) {
    return {{"type", "run_info"},
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
    return s;
}

}  // namespace ampscope
