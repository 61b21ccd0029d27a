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
    visitFormatElementStats(v, r);
    visitFormatElementFractions(v, r);
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
