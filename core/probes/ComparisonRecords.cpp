#include "probes/ComparisonRecords.h"

#include <nlohmann/json.hpp>

#include "probes/ProbeRecords.h"
#include "probes/RecordFields.h"

namespace ampscope {
using namespace record_fields;

json gradientComparisonToJson(const GradientComparison& c) {
    json j = {{"layer", c.layer}};
    putNumber(j, "rel_error", c.relError);
    putNumber(j, "cosine", c.cosine);
    j["lost"] = c.lost;
    j["nonzero"] = c.nonzero;
    j["elements"] = c.elements;
    return j;
}

GradientComparison gradientComparisonFromJson(const json& j) {
    constexpr std::string_view kWhat = "gradient comparison";
    GradientComparison c;
    c.layer = stringField(j, "layer", kWhat);
    c.relError = numberField(j, "rel_error", kWhat);
    c.cosine = numberField(j, "cosine", kWhat);
    // Counts are optional on read: a lock-step writer may leave them out.
    c.lost = j.contains("lost") ? intField(j, "lost", kWhat) : 0;
    c.nonzero = j.contains("nonzero") ? intField(j, "nonzero", kWhat) : 0;
    c.elements = j.contains("elements") ? intField(j, "elements", kWhat) : 0;
    return c;
}

namespace {

json layersToJson(const std::vector<GradientComparison>& layers) {
    json list = json::array();
    for (const auto& c : layers) list.push_back(gradientComparisonToJson(c));
    return list;
}

std::vector<GradientComparison> layersFromJson(const json& list) {
    std::vector<GradientComparison> layers;
    for (const auto& entry : list) layers.push_back(gradientComparisonFromJson(entry));
    return layers;
}

}  // namespace

json toJson(const ShadowRecord& r) {
    return {{"type", probe_record_type::kShadow}, {"step", r.step}, {"layers", layersToJson(r.layers)}};
}

ShadowRecord shadowRecordFromJson(const json& j) {
    constexpr std::string_view kWhat = probe_record_type::kShadow;
    requireType(j, kWhat);
    ShadowRecord r;
    r.step = intField(j, "step", kWhat);
    r.layers = layersFromJson(arrayField(j, "layers", kWhat));
    return r;
}

json toJson(const LockstepRecord& r) {
    json j = {{"type", probe_record_type::kLockstep}, {"step", r.step}, {"mode", r.mode}};
    putNumber(j, "loss", r.loss);
    putNumber(j, "loss_diff", r.lossDiff);
    j["skipped"] = r.skipped;
    if (!r.layers.empty()) j["layers"] = layersToJson(r.layers);
    return j;
}

LockstepRecord lockstepRecordFromJson(const json& j) {
    constexpr std::string_view kWhat = probe_record_type::kLockstep;
    requireType(j, kWhat);
    LockstepRecord r;
    r.step = intField(j, "step", kWhat);
    r.mode = stringField(j, "mode", kWhat);
    r.loss = numberField(j, "loss", kWhat);
    r.lossDiff = numberField(j, "loss_diff", kWhat);
    r.skipped = boolField(j, "skipped", kWhat);
    if (j.contains("layers")) r.layers = layersFromJson(arrayField(j, "layers", kWhat));
    return r;
}

}  // namespace ampscope
