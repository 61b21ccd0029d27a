#include "probes/FormatQuantRecord.h"

#include <nlohmann/json.hpp>

#include "run/RecordCodec.h"

namespace ampscope {
using namespace record_codec;
using json = nlohmann::json;

namespace {

template <class V, class R>
void visitFormatQuant(V& v, R& r) {
    auto& p = r.point;
    v.type(probe_record_type::kFormatQuant);
    v.field("step", r.step);
    v.field("layer", p.layer);
    v.field("operand", p.operand);
    v.field("direction", p.direction);
    v.field("format", p.format);
    v.field("recipe", p.recipe);
    v.field("tensors", p.tensors);
    v.field("elements", p.elements);
    v.field("underflowed", p.underflowed);
    v.field("saturated", p.saturated);
    v.field("non_finite", p.nonFinite);
    v.number("squared_error", p.squaredError);
    v.number("squared_signal", p.squaredSignal);
    v.number("amax", p.amax);
    v.number("scale", p.scale);
    v.number("scale_amax", p.scaleAmax);
    // Derived, for a reader without arithmetic (jq, a spreadsheet).
    v.writeOnlyNumber("underflow_fraction", p.underflowFraction());
    v.writeOnlyNumber("saturated_fraction", p.saturatedFraction());
    v.writeOnlyNumber("snr_db", p.snrDb());
}

const auto kFormatQuantFields = [](auto& v, auto& r) { visitFormatQuant(v, r); };

}  // namespace

json toJson(const FormatQuantRecord& r) { return encode(r, kFormatQuantFields); }

FormatQuantRecord formatQuantRecordFromJson(const json& j) {
    return decode<FormatQuantRecord>(j, probe_record_type::kFormatQuant, kFormatQuantFields);
}

}  // namespace ampscope
