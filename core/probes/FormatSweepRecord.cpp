#include "probes/FormatSweepRecord.h"

#include <nlohmann/json.hpp>

#include "run/RecordCodec.h"
#include "run/RecordKeys.h"

namespace ampscope {
using namespace record_codec;
using json = nlohmann::json;

namespace {

template <class V, class R>
void visitFormatSweep(V& v, R& r) {
    v.type(probe_record_type::kFormatSweep);
    v.field("step", r.step);
    v.field("layer", r.layer);
    v.field("tensor", r.tensor);
    v.field("format", r.format);
    v.field("elements", r.elements);
    v.field("underflowed", r.underflowed);
    v.field("saturated", r.saturated);
    v.field("non_finite", r.nonFinite);
    v.number("squared_error", r.squaredError);
    v.number("squared_signal", r.squaredSignal);
    // Derived, for a reader without arithmetic (jq, a spreadsheet, the CSV export).
    v.writeOnlyNumber("underflow_fraction", r.underflowFraction());
    v.writeOnlyNumber("saturated_fraction", r.saturatedFraction());
    v.writeOnlyNumber("snr_db", r.snrDb());
}

const auto kFormatSweepFields = [](auto& v, auto& r) { visitFormatSweep(v, r); };

}  // namespace

json toJson(const FormatSweepRecord& r) { return encode(r, kFormatSweepFields); }

FormatSweepRecord formatSweepRecordFromJson(const json& j) {
    return decode<FormatSweepRecord>(j, probe_record_type::kFormatSweep, kFormatSweepFields);
}

json formatSweepRecordKeys() {
    return {{probe_record_type::kFormatSweep, keysOf<FormatSweepRecord>(kFormatSweepFields)}};
}

}  // namespace ampscope
