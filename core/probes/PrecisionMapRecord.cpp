#include "probes/PrecisionMapRecord.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "probes/HistogramFields.h"
#include "probes/NonFiniteEvent.h"
#include "run/RecordCodec.h"

namespace ampscope {
using namespace record_codec;

namespace {

constexpr std::string_view kOp = "precision map op";
constexpr std::string_view kModule = "precision map module";
constexpr std::string_view kUnmatched = "precision map unmatched op";
constexpr std::string_view kHistogram = "precision map histogram";

template <class V, class O>
void visitOp(V& v, O& o) {
    v.field("op", o.op);
    v.field("module", o.module);
    v.field("phase", o.phase);
    v.fieldOr("node", o.node, std::string());
    v.fieldOr("output", o.output, 0);
    v.field("elements", o.elements);
    v.number("rel_error", o.relError);
    v.number("snr_db", o.snrDb);
    v.number("added_error", o.addedError);
    v.number("input_error", o.inputError);
    v.number("ulps_max", o.ulpsMax);
    v.number("ulps_rms", o.ulpsRms);
    v.number("flushed", o.flushed);
    v.number("saturated", o.saturated);
    v.field("new_nan", o.newNan);
    v.field("new_inf", o.newInf);
    const auto histogram = [](auto& sub, auto& h) { histogram_fields::visitHistogram(sub, h, true); };
    v.object("histogram", o.run, histogram, kHistogram);
    v.object("reference_histogram", o.reference, histogram, kHistogram);
}

template <class V, class M>
void visitModule(V& v, M& m) {
    v.field("module", m.module);
    v.field("phase", m.phase);
    v.field("first_op", m.firstOp);
    v.field("ops", m.ops);
    v.number("input_error", m.inputError);
    v.number("output_error", m.outputError);
    v.writeOnlyNumber("gain", m.gain());
}

template <class V, class U>
void visitUnmatched(V& v, U& u) {
    v.field("side", u.side);
    v.field("op", u.op);
    v.field("module", u.module);
    v.field("phase", u.phase);
}

template <class V, class R>
void visitPrecisionMap(V& v, R& r) {
    v.type(probe_record_type::kPrecisionMap);
    v.field("step", r.step);
    v.field("mode", r.mode);
    v.field("reference", r.reference);
    v.field("format_forward", r.formatForward);
    v.field("format_backward", r.formatBackward);
    v.field("bits_forward", r.bitsForward);
    v.field("bits_backward", r.bitsBackward);
    v.number("seconds", r.seconds);
    v.list("ops", r.ops, [](auto& sub, auto& o) { visitOp(sub, o); }, kOp);
    v.list("modules", r.modules, [](auto& sub, auto& m) { visitModule(sub, m); }, kModule);
    v.listOr("unmatched", r.unmatched, [](auto& sub, auto& u) { visitUnmatched(sub, u); }, kUnmatched);
}

const auto kPrecisionMapFields = [](auto& v, auto& r) { visitPrecisionMap(v, r); };

}  // namespace

double PrecisionMapRecord::unitRoundoff(std::string_view phase) const {
    return std::ldexp(1.0, -(phase == nonfinite_phase::kBackward ? bitsBackward : bitsForward));
}

std::optional<size_t> PrecisionMapRecord::firstPastTolerance() const {
    for (size_t k = 0; k < ops.size(); ++k) {
        const double e = ops[k].relError;
        // A NaN error (no finite element on one side) or new NaN/Inf counts as past.
        if (!(e <= tolerance(ops[k].phase)) || ops[k].newNan > 0 || ops[k].newInf > 0) return k;
    }
    return std::nullopt;
}

std::vector<size_t> PrecisionMapRecord::largestAdded(size_t count) const {
    std::vector<size_t> measured;
    for (size_t k = 0; k < ops.size(); ++k)
        if (!std::isnan(ops[k].addedError)) measured.push_back(k);
    // Stable: of equal errors the earlier op first.
    std::stable_sort(measured.begin(), measured.end(),
                     [&](size_t a, size_t b) { return ops[a].addedError > ops[b].addedError; });
    if (measured.size() > count) measured.resize(count);
    return measured;
}

json toJson(const PrecisionMapRecord& r) { return encode(r, kPrecisionMapFields); }

PrecisionMapRecord precisionMapRecordFromJson(const json& j) {
    return decode<PrecisionMapRecord>(j, probe_record_type::kPrecisionMap, kPrecisionMapFields);
}

}  // namespace ampscope
