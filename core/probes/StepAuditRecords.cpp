#include "probes/StepAuditRecords.h"

#include <nlohmann/json.hpp>

#include "probes/ProbeRecords.h"
#include "run/RecordCodec.h"
#include "run/RecordKeys.h"

namespace ampscope {
using namespace record_codec;

// The field lists (run/RecordCodec.h): each record's keys, written and read from here.

namespace {

// Emulated ops hold their values in float32 storage; the record says so.
constexpr std::string_view kEmulatedStorage = "float32";

template <class V, class O>
void visitOp(V& v, O& op) {
    v.field("op", op.op);
    v.field("input", op.input);
    v.fieldIfSet("weight", op.weight);  // ops without a second tensor argument have none
    v.field("output", op.output);
    v.field("emulated", op.emulated);
    if (op.emulated) {  // read before this line, so both ways agree
        v.field("emulated_as", op.emulatedAs);
        v.writeOnly("storage", kEmulatedStorage);
    }
}

template <class V, class L>
void visitLayerOps(V& v, L& layer) {
    v.field("layer", layer.layer);
    v.list("ops", layer.ops, [](auto& sub, auto& op) { visitOp(sub, op); });
}

template <class V, class R>
void visitOpDtypes(V& v, R& r) {
    v.type(probe_record_type::kOpDtypes);
    v.field("step", r.step);
    v.list("layers", r.layers, [](auto& sub, auto& l) { visitLayerOps(sub, l); });
}

template <class V, class R>
void visitMemory(V& v, R& r) {
    auto& u = r.usage;
    v.type(probe_record_type::kMemory);
    v.field("step", r.step);
    v.field("rss_bytes", u.rssBytes);
    v.field("peak_rss_bytes", u.peakRssBytes);
    v.optional("cuda_peak_allocated_bytes", u.cudaPeakAllocatedBytes);  // null on CPU
    v.field("activation_bytes", u.activationBytes);
    v.field("activation_bytes_real", u.activationBytesReal);
}

const auto kOpDtypesFields = [](auto& v, auto& r) { visitOpDtypes(v, r); };
const auto kMemoryFields = [](auto& v, auto& r) { visitMemory(v, r); };

}  // namespace

json toJson(const OpDtypesRecord& r) { return encode(r, kOpDtypesFields); }
json toJson(const MemoryRecord& r) { return encode(r, kMemoryFields); }

OpDtypesRecord opDtypesRecordFromJson(const json& j) {
    return decode<OpDtypesRecord>(j, probe_record_type::kOpDtypes, kOpDtypesFields);
}
MemoryRecord memoryRecordFromJson(const json& j) {
    return decode<MemoryRecord>(j, probe_record_type::kMemory, kMemoryFields);
}

json stepAuditRecordKeys() {
    return {{probe_record_type::kOpDtypes, keysOf<OpDtypesRecord>(kOpDtypesFields)},
            {probe_record_type::kMemory, keysOf<MemoryRecord>(kMemoryFields)}};
}

}  // namespace ampscope
