#include "probes/ComparisonRecords.h"

#include <nlohmann/json.hpp>

#include "probes/ProbeRecords.h"
#include "run/RecordCodec.h"
#include "run/RecordKeys.h"

namespace ampscope {
using namespace record_codec;

// The field lists (run/RecordCodec.h): each record's keys, written and read from here.

namespace {

constexpr std::string_view kComparison = "gradient comparison";

template <class V, class C>
void visitComparison(V& v, C& c) {
    v.field("layer", c.layer);
    v.number("rel_error", c.relError);
    v.number("cosine", c.cosine);
    // Counts are optional on read: a lock-step writer may leave them out.
    v.fieldOr("lost", c.lost, int64_t{0});
    v.fieldOr("nonzero", c.nonzero, int64_t{0});
    v.fieldOr("elements", c.elements, int64_t{0});
}

const auto kComparisonFields = [](auto& v, auto& c) { visitComparison(v, c); };

template <class V, class R>
void visitShadow(V& v, R& r) {
    v.type(probe_record_type::kShadow);
    v.field("step", r.step);
    v.list("layers", r.layers, kComparisonFields, kComparison);
}

template <class V, class R>
void visitLockstep(V& v, R& r) {
    v.type(probe_record_type::kLockstep);
    v.field("step", r.step);
    v.field("mode", r.mode);
    v.number("loss", r.loss);
    v.number("loss_diff", r.lossDiff);
    v.field("skipped", r.skipped);
    // Only probe steps compare gradients.
    v.listIfSet("layers", r.layers, kComparisonFields, kComparison);
}

const auto kShadowFields = [](auto& v, auto& r) { visitShadow(v, r); };
const auto kLockstepFields = [](auto& v, auto& r) { visitLockstep(v, r); };

}  // namespace

json gradientComparisonToJson(const GradientComparison& c) { return encode(c, kComparisonFields); }
GradientComparison gradientComparisonFromJson(const json& j) {
    return decode<GradientComparison>(j, kComparison, kComparisonFields);
}

json toJson(const ShadowRecord& r) { return encode(r, kShadowFields); }
json toJson(const LockstepRecord& r) { return encode(r, kLockstepFields); }

ShadowRecord shadowRecordFromJson(const json& j) {
    return decode<ShadowRecord>(j, probe_record_type::kShadow, kShadowFields);
}
LockstepRecord lockstepRecordFromJson(const json& j) {
    return decode<LockstepRecord>(j, probe_record_type::kLockstep, kLockstepFields);
}

json comparisonRecordKeys() {
    return {{probe_record_type::kShadow, keysOf<ShadowRecord>(kShadowFields)},
            {probe_record_type::kLockstep, keysOf<LockstepRecord>(kLockstepFields)}};
}

}  // namespace ampscope
