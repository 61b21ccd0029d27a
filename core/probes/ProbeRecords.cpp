#include "probes/ProbeRecords.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "probes/RecordFields.h"

namespace ampscope {
using namespace record_fields;

// ---- parts ----

json tensorStatsToJson(const TensorStats& s) {
    json j;
    putNumber(j, "min", s.min);
    putNumber(j, "max", s.max);
    putNumber(j, "mean", s.mean);
    putNumber(j, "abs_max", s.absMax);
    j["nan"] = s.nan;
    j["pos_inf"] = s.posInf;
    j["neg_inf"] = s.negInf;
    j["numel"] = s.numel;
    return j;
}

TensorStats tensorStatsFromJson(const json& j) {
    constexpr std::string_view kWhat = "tensor stats";
    TensorStats s;
    s.min = numberField(j, "min", kWhat);
    s.max = numberField(j, "max", kWhat);
    s.mean = numberField(j, "mean", kWhat);
    s.absMax = numberField(j, "abs_max", kWhat);
    s.nan = intField(j, "nan", kWhat);
    s.posInf = intField(j, "pos_inf", kWhat);
    s.negInf = intField(j, "neg_inf", kWhat);
    s.numel = intField(j, "numel", kWhat);
    return s;
}

json statsFrameToJson(const StatsFrame& frame) {
    json layers = json::array();
    for (const auto& l : frame.layers) {
        json entry = {{"layer", l.layer}, {"layer_index", l.layerIndex}};
        if (l.activation) entry["activation"] = tensorStatsToJson(*l.activation);
        if (l.gradient) entry["gradient"] = tensorStatsToJson(*l.gradient);
        layers.push_back(std::move(entry));
    }
    json j = {{"step", frame.step}, {"layers", std::move(layers)}};
    if (frame.loss) j["loss"] = tensorStatsToJson(*frame.loss);
    return j;
}

StatsFrame statsFrameFromJson(const json& j) {
    constexpr std::string_view kWhat = "stats frame";
    StatsFrame frame;
    frame.step = intField(j, "step", kWhat);
    const json& layers = field(j, "layers", kWhat);
    if (!layers.is_array()) fail(kWhat, "field \"layers\" must be an array");
    for (const auto& entry : layers) {
        LayerFrame l;
        l.layer = stringField(entry, "layer", kWhat);
        l.layerIndex = intField(entry, "layer_index", kWhat);
        if (entry.contains("activation"))
            l.activation = tensorStatsFromJson(entry.at("activation"));
        if (entry.contains("gradient")) l.gradient = tensorStatsFromJson(entry.at("gradient"));
        frame.layers.push_back(std::move(l));
    }
    if (j.contains("loss") && !j.at("loss").is_null())
        frame.loss = tensorStatsFromJson(j.at("loss"));
    return frame;
}

// ---- histogram ----

json toJson(const HistogramRecord& r) {
    const ExponentHistogram& h = r.histogram;
    return {{"type", probe_record_type::kHistogram},
            {"step", r.step},
            {"layer", r.layer},
            {"kind", r.kind},
            {"min_exponent", kMinExponent},
            {"counts", h.counts},
            {"below", h.below},
            {"above", h.above},
            {"zero", h.zero},
            {"nan", h.nan},
            {"pos_inf", h.posInf},
            {"neg_inf", h.negInf}};
}

HistogramRecord histogramRecordFromJson(const json& j) {
    constexpr std::string_view kWhat = probe_record_type::kHistogram;
    requireType(j, kWhat);
    HistogramRecord r;
    r.step = intField(j, "step", kWhat);
    r.layer = stringField(j, "layer", kWhat);
    r.kind = stringField(j, "kind", kWhat);
    ExponentHistogram& h = r.histogram;
    h.below = intField(j, "below", kWhat);
    h.above = intField(j, "above", kWhat);
    h.zero = intField(j, "zero", kWhat);
    h.nan = intField(j, "nan", kWhat);
    h.posInf = intField(j, "pos_inf", kWhat);
    h.negInf = intField(j, "neg_inf", kWhat);
    // A writer with another bin range still reads: bins outside ours fold
    // into below/above, which is what those bins mean.
    const int64_t minExponent = intField(j, "min_exponent", kWhat);
    const json& counts = field(j, "counts", kWhat);
    if (!counts.is_array()) fail(kWhat, "field \"counts\" must be an array");
    for (size_t i = 0; i < counts.size(); ++i) {
        if (!counts[i].is_number_integer()) fail(kWhat, "\"counts\" must hold integers");
        const int64_t c = counts[i].get<int64_t>();
        const int64_t e = minExponent + static_cast<int64_t>(i);
        if (e < kMinExponent)
            h.below += c;
        else if (e > kMaxExponent)
            h.above += c;
        else
            h.counts[static_cast<size_t>(e - kMinExponent)] += c;
    }
    return r;
}

// ---- underflow ----

json toJson(const UnderflowRecord& r) {
    const Fp16ClassCounts& c = r.counts;
    json j = {{"type", probe_record_type::kUnderflow},
              {"step", r.step},
              {"layer", r.layer},
              {"kind", r.kind},
              {"zero", c.zero},
              {"flushed", c.flushed},
              {"subnormal", c.subnormal},
              {"normal", c.normal},
              {"overflow", c.overflow},
              {"nan", c.nan},
              {"inf", c.inf},
              {"exact", c.exact}};
    putNumber(j, "multiplier", r.multiplier);
    return j;
}

UnderflowRecord underflowRecordFromJson(const json& j) {
    constexpr std::string_view kWhat = probe_record_type::kUnderflow;
    requireType(j, kWhat);
    UnderflowRecord r;
    r.step = intField(j, "step", kWhat);
    r.layer = stringField(j, "layer", kWhat);
    r.kind = stringField(j, "kind", kWhat);
    r.multiplier = j.contains("multiplier") ? numberField(j, "multiplier", kWhat) : 1.0;
    Fp16ClassCounts& c = r.counts;
    c.zero = intField(j, "zero", kWhat);
    c.flushed = intField(j, "flushed", kWhat);
    c.subnormal = intField(j, "subnormal", kWhat);
    c.normal = intField(j, "normal", kWhat);
    c.overflow = intField(j, "overflow", kWhat);
    c.nan = intField(j, "nan", kWhat);
    c.inf = intField(j, "inf", kWhat);
    c.exact = boolField(j, "exact", kWhat);
    return r;
}

// ---- nonfinite ----

json toJson(const NonFiniteRecord& r) {
    const NonFiniteEvent& e = r.event;
    json frames = json::array();
    for (const auto& f : r.frames) frames.push_back(statsFrameToJson(f));
    return {{"type", probe_record_type::kNonFinite},
            {"step", e.step},
            {"layer", e.layer},
            {"layer_index", e.layerIndex},
            {"phase", e.phase},
            {"tensor", e.tensor},
            {"nan", e.nan},
            {"pos_inf", e.posInf},
            {"neg_inf", e.negInf},
            {"numel", e.numel},
            {"located_by", e.locatedBy},
            {"replay_missed_step", e.replayMissedStep},
            {"frames", std::move(frames)}};
}

NonFiniteRecord nonFiniteRecordFromJson(const json& j) {
    constexpr std::string_view kWhat = probe_record_type::kNonFinite;
    requireType(j, kWhat);
    NonFiniteRecord r;
    NonFiniteEvent& e = r.event;
    e.step = intField(j, "step", kWhat);
    e.layer = stringField(j, "layer", kWhat);
    e.layerIndex = intField(j, "layer_index", kWhat);
    e.phase = stringField(j, "phase", kWhat);
    e.tensor = stringField(j, "tensor", kWhat);
    e.nan = intField(j, "nan", kWhat);
    e.posInf = intField(j, "pos_inf", kWhat);
    e.negInf = intField(j, "neg_inf", kWhat);
    e.numel = intField(j, "numel", kWhat);
    // Runs written before events said how they were found checked every step.
    e.locatedBy = j.contains("located_by") ? stringField(j, "located_by", kWhat)
                                           : std::string(nonfinite_located_by::kCheck);
    e.replayMissedStep = j.contains("replay_missed_step") ? intField(j, "replay_missed_step", kWhat) : 0;
    if (j.contains("frames")) {
        const json& frames = j.at("frames");
        if (!frames.is_array()) fail(kWhat, "field \"frames\" must be an array");
        for (const auto& f : frames) r.frames.push_back(statsFrameFromJson(f));
    }
    return r;
}

// ---- update_ratio ----

json toJson(const UpdateRatioRecord& r) {
    const LayerUpdateRatio& u = r.ratio;
    json j = {{"type", probe_record_type::kUpdateRatio},
              {"step", r.step},
              {"layer", u.layer},
              {"layer_index", u.layerIndex},
              {"numel", u.numel}};
    putNumber(j, "ratio", u.ratio);
    putNumber(j, "weight_norm", u.weightNorm);
    putNumber(j, "update_norm", u.updateNorm);
    if (u.measuredLoss()) {
        j["intended_nonzero"] = u.intendedNonZero;
        j["lost"] = u.lost;
        putNumber(j, "lost_fraction", u.lostFraction());
    }
    return j;
}

UpdateRatioRecord updateRatioRecordFromJson(const json& j) {
    constexpr std::string_view kWhat = probe_record_type::kUpdateRatio;
    requireType(j, kWhat);
    UpdateRatioRecord r;
    r.step = intField(j, "step", kWhat);
    LayerUpdateRatio& u = r.ratio;
    u.layer = stringField(j, "layer", kWhat);
    u.layerIndex = intField(j, "layer_index", kWhat);
    u.numel = intField(j, "numel", kWhat);
    u.ratio = numberField(j, "ratio", kWhat);
    u.weightNorm = numberField(j, "weight_norm", kWhat);
    u.updateNorm = numberField(j, "update_norm", kWhat);
    if (j.contains("intended_nonzero")) {
        u.intendedNonZero = intField(j, "intended_nonzero", kWhat);
        u.lost = intField(j, "lost", kWhat);
    }
    return r;
}

}  // namespace ampscope
