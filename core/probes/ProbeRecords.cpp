#include "probes/ProbeRecords.h"

#include <nlohmann/json.hpp>

#include "run/FlatRecordText.h"
#include "run/RecordCodec.h"
#include "run/RecordKeys.h"

namespace ampscope {
using namespace record_codec;

// The field lists (run/RecordCodec.h): each record's keys, written and read from here.

namespace {

template <class V, class S>
void visitTensorStats(V& v, S& s) {
    v.number("min", s.min);
    v.number("max", s.max);
    v.number("mean", s.mean);
    v.number("abs_max", s.absMax);
    v.field("nan", s.nan);
    v.field("pos_inf", s.posInf);
    v.field("neg_inf", s.negInf);
    v.field("numel", s.numel);
}

constexpr std::string_view kTensorStats = "tensor stats";
constexpr std::string_view kStatsFrame = "stats frame";

template <class V, class L>
void visitLayerFrame(V& v, L& l) {
    const auto stats = [](auto& sub, auto& s) { visitTensorStats(sub, s); };
    v.field("layer", l.layer);
    v.field("layer_index", l.layerIndex);
    v.optionalObject("activation", l.activation, stats, kTensorStats);
    v.optionalObject("gradient", l.gradient, stats, kTensorStats);
}

template <class V, class F>
void visitStatsFrame(V& v, F& frame) {
    v.field("step", frame.step);
    v.list("layers", frame.layers, [](auto& sub, auto& l) { visitLayerFrame(sub, l); });
    v.optionalObject("loss", frame.loss, [](auto& sub, auto& s) { visitTensorStats(sub, s); },
                     kTensorStats);
}

// The bins are written from 2^kMinExponent up; a writer with another bin range still
// reads: bins outside ours fold into below/above, which is what those bins mean (so
// below and above are read before the bins).
template <class V, class H>
void visitHistogramBins(V& v, H& h) {
    v.field("below", h.below);
    v.field("above", h.above);
    int64_t minExponent = kMinExponent;
    v.field("min_exponent", minExponent);
    v.custom(
        "counts", h, [](const ExponentHistogram& written) { return json(written.counts); },
        // Generic in the counts: JSON's array, or the text reader's list of numbers.
        [&minExponent](const auto& counts, auto& read, auto& reader) {
            if (!counts.is_array()) return reader.fail("field \"counts\" must be an array");
            for (size_t i = 0; i < counts.size(); ++i) {
                if (!counts[i].is_number_integer()) return reader.fail("\"counts\" must hold integers");
                const int64_t c = counts[i].template get<int64_t>();
                const int64_t e = minExponent + static_cast<int64_t>(i);
                if (e < kMinExponent)
                    read.below += c;
                else if (e > kMaxExponent)
                    read.above += c;
                else
                    read.counts[static_cast<size_t>(e - kMinExponent)] += c;
            }
        });
}

template <class V, class R>
void visitHistogram(V& v, R& r) {
    v.type(probe_record_type::kHistogram);
    v.field("step", r.step);
    v.field("layer", r.layer);
    v.field("kind", r.kind);
    visitHistogramBins(v, r.histogram);
    v.field("zero", r.histogram.zero);
    v.field("nan", r.histogram.nan);
    v.field("pos_inf", r.histogram.posInf);
    v.field("neg_inf", r.histogram.negInf);
}

template <class V, class R>
void visitUnderflow(V& v, R& r) {
    v.type(probe_record_type::kUnderflow);
    v.field("step", r.step);
    v.field("layer", r.layer);
    v.field("kind", r.kind);
    v.numberOr("multiplier", r.multiplier, 1.0);
    v.field("zero", r.counts.zero);
    v.field("flushed", r.counts.flushed);
    v.field("subnormal", r.counts.subnormal);
    v.field("normal", r.counts.normal);
    v.field("overflow", r.counts.overflow);
    v.field("nan", r.counts.nan);
    v.field("inf", r.counts.inf);
    v.field("exact", r.counts.exact);
}

template <class V, class R>
void visitNonFinite(V& v, R& r) {
    auto& e = r.event;
    v.type(probe_record_type::kNonFinite);
    v.field("step", e.step);
    v.field("layer", e.layer);
    v.field("layer_index", e.layerIndex);
    v.field("phase", e.phase);
    v.field("tensor", e.tensor);
    v.field("nan", e.nan);
    v.field("pos_inf", e.posInf);
    v.field("neg_inf", e.negInf);
    v.field("numel", e.numel);
    // Runs written before events said how they were found checked every step.
    v.fieldOr("located_by", e.locatedBy, std::string(nonfinite_located_by::kCheck));
    v.fieldOr("replay_missed_step", e.replayMissedStep, int64_t{0});
    v.fieldIfSet("op", e.op);
    v.fieldIfSet("op_phase", e.opPhase);
    v.fieldIfSet("op_module", e.opModule);
    v.fieldIfSet("op_node", e.opNode);
    v.fieldIfSet("via", e.via);
    v.listOr("frames", r.frames, [](auto& sub, auto& f) { visitStatsFrame(sub, f); }, kStatsFrame);
}

template <class V, class R>
void visitUpdateRatio(V& v, R& r) {
    auto& u = r.ratio;
    v.type(probe_record_type::kUpdateRatio);
    v.field("step", r.step);
    v.field("layer", u.layer);
    v.field("layer_index", u.layerIndex);
    v.field("numel", u.numel);
    v.number("ratio", u.ratio);
    v.number("weight_norm", u.weightNorm);
    v.number("update_norm", u.updateNorm);
    // Lost updates only where they were measured; the fraction follows from the counts.
    if (v.present("intended_nonzero", u.measuredLoss())) {
        v.field("intended_nonzero", u.intendedNonZero);
        v.field("lost", u.lost);
        v.writeOnlyNumber("lost_fraction", u.lostFraction());
    }
}

const auto kHistogramFields = [](auto& v, auto& r) { visitHistogram(v, r); };
const auto kUnderflowFields = [](auto& v, auto& r) { visitUnderflow(v, r); };
const auto kNonFiniteFields = [](auto& v, auto& r) { visitNonFinite(v, r); };
const auto kUpdateRatioFields = [](auto& v, auto& r) { visitUpdateRatio(v, r); };
const auto kTensorStatsFields = [](auto& v, auto& s) { visitTensorStats(v, s); };
const auto kStatsFrameFields = [](auto& v, auto& f) { visitStatsFrame(v, f); };

}  // namespace

json tensorStatsToJson(const TensorStats& s) { return encode(s, kTensorStatsFields); }
TensorStats tensorStatsFromJson(const json& j) {
    return decode<TensorStats>(j, kTensorStats, kTensorStatsFields);
}
json statsFrameToJson(const StatsFrame& f) { return encode(f, kStatsFrameFields); }
StatsFrame statsFrameFromJson(const json& j) {
    return decode<StatsFrame>(j, kStatsFrame, kStatsFrameFields);
}

json toJson(const HistogramRecord& r) { return encode(r, kHistogramFields); }
json toJson(const UnderflowRecord& r) { return encode(r, kUnderflowFields); }
json toJson(const NonFiniteRecord& r) { return encode(r, kNonFiniteFields); }
json toJson(const UpdateRatioRecord& r) { return encode(r, kUpdateRatioFields); }

HistogramRecord histogramRecordFromJson(const json& j) {
    return decode<HistogramRecord>(j, probe_record_type::kHistogram, kHistogramFields);
}
bool histogramRecordFromText(const record_text::FlatLine& line, HistogramRecord& out) {
    return record_text::decodeFlat(line, ReadRule::Strict, kHistogramFields, out);
}
bool underflowRecordFromText(const record_text::FlatLine& line, UnderflowRecord& out) {
    return record_text::decodeFlat(line, ReadRule::Strict, kUnderflowFields, out);
}

UnderflowRecord underflowRecordFromJson(const json& j) {
    return decode<UnderflowRecord>(j, probe_record_type::kUnderflow, kUnderflowFields);
}
NonFiniteRecord nonFiniteRecordFromJson(const json& j) {
    return decode<NonFiniteRecord>(j, probe_record_type::kNonFinite, kNonFiniteFields);
}
UpdateRatioRecord updateRatioRecordFromJson(const json& j) {
    return decode<UpdateRatioRecord>(j, probe_record_type::kUpdateRatio, kUpdateRatioFields);
}

json probeRecordKeys() {
    return {{probe_record_type::kHistogram, keysOf<HistogramRecord>(kHistogramFields)},
            {probe_record_type::kUnderflow, keysOf<UnderflowRecord>(kUnderflowFields)},
            {probe_record_type::kNonFinite, keysOf<NonFiniteRecord>(kNonFiniteFields)},
            {probe_record_type::kUpdateRatio, keysOf<UpdateRatioRecord>(kUpdateRatioFields)}};
}

}  // namespace ampscope
