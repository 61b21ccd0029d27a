#include "RunRecordParsing.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace ampscope::ui {

namespace {

double number(const nlohmann::json& record, const char* key, double fallback) {
    auto it = record.find(key);
    if (it == record.end()) return fallback;
    if (it->is_number()) return it->get<double>();
    auto tag = record.find(std::string(key) + "_nonfinite");
    if (tag != record.end() && tag->is_string()) {
        const std::string& t = tag->get_ref<const std::string&>();
        if (t == "inf") return std::numeric_limits<double>::infinity();
        if (t == "-inf") return -std::numeric_limits<double>::infinity();
    }
    return std::numeric_limits<double>::quiet_NaN();
}

int64_t integer(const nlohmann::json& record, const char* key, int64_t fallback) {
    auto it = record.find(key);
    return (it != record.end() && it->is_number_integer()) ? it->get<int64_t>() : fallback;
}

bool boolean(const nlohmann::json& record, const char* key) {
    auto it = record.find(key);
    return it != record.end() && it->is_boolean() && it->get<bool>();
}

std::string text(const nlohmann::json& record, const char* key) {
    auto it = record.find(key);
    return (it != record.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

}  // namespace

std::string recordType(const nlohmann::json& record) {
    return record.is_object() ? text(record, "type") : std::string();
}

std::optional<StepMetrics> stepFromRecord(const nlohmann::json& record) {
    if (recordType(record) != "step") return std::nullopt;
    auto step = record.find("step");
    if (step == record.end() || !step->is_number_integer()) return std::nullopt;
    StepMetrics m;
    m.step = step->get<int64_t>();
    m.epoch = integer(record, "epoch", 0);
    m.loss = number(record, "loss", std::numeric_limits<double>::quiet_NaN());
    m.lr = number(record, "lr", 0.0);
    m.gradNorm = number(record, "grad_norm", std::numeric_limits<double>::quiet_NaN());
    m.gradNormClipped = number(record, "grad_norm_clipped", m.gradNorm);
    m.stepSeconds = number(record, "step_seconds", 0.0);
    m.samplesPerSecond = number(record, "samples_per_second", 0.0);
    m.scale = number(record, "scale", 1.0);
    m.scaleAfter = number(record, "scale_after", m.scale);
    m.growthTracker = integer(record, "growth_tracker", 0);
    m.foundInf = boolean(record, "found_inf");
    m.stepSkipped = boolean(record, "step_skipped");
    m.scaleChange = text(record, "scale_change");
    m.firstNonFiniteLayer = text(record, "first_nonfinite_layer");
    return m;
}

std::optional<EpochMetrics> epochFromRecord(const nlohmann::json& record) {
    if (recordType(record) != "epoch") return std::nullopt;
    EpochMetrics e;
    e.epoch = integer(record, "epoch", 0);
    e.step = integer(record, "step", 0);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    e.trainLoss = number(record, "train_loss", nan);
    e.valLoss = number(record, "val_loss", nan);
    e.valAccuracy = number(record, "val_accuracy", nan);
    e.seconds = number(record, "seconds", 0.0);
    return e;
}

}  // namespace ampscope::ui
