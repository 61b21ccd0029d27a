#include "probes/StepAuditRecords.h"

#include <nlohmann/json.hpp>

#include "probes/ProbeRecords.h"
#include "probes/RecordFields.h"

namespace ampscope {
using namespace record_fields;

json toJson(const OpDtypesRecord& r) {
    json layers = json::array();
    for (const auto& layer : r.layers) {
        json ops = json::array();
        for (const auto& op : layer.ops) {
            json o = {{"op", op.op}, {"input", op.input}};
            if (!op.weight.empty()) o["weight"] = op.weight;
            o["output"] = op.output;
            o["emulated"] = op.emulated;
            if (op.emulated) {
                o["emulated_as"] = op.emulatedAs;
                o["storage"] = "float32";
            }
            ops.push_back(std::move(o));
        }
        layers.push_back({{"layer", layer.layer}, {"ops", std::move(ops)}});
    }
    return {{"type", probe_record_type::kOpDtypes}, {"step", r.step}, {"layers", std::move(layers)}};
}

OpDtypesRecord opDtypesRecordFromJson(const json& j) {
    constexpr std::string_view kWhat = probe_record_type::kOpDtypes;
    requireType(j, kWhat);
    OpDtypesRecord r;
    r.step = intField(j, "step", kWhat);
    for (const auto& entry : arrayField(j, "layers", kWhat)) {
        LayerOps layer;
        layer.layer = stringField(entry, "layer", kWhat);
        for (const auto& o : arrayField(entry, "ops", kWhat)) {
            OpDtype op;
            op.op = stringField(o, "op", kWhat);
            op.input = stringField(o, "input", kWhat);
            op.weight = o.contains("weight") ? stringField(o, "weight", kWhat) : "";
            op.output = stringField(o, "output", kWhat);
            op.emulated = boolField(o, "emulated", kWhat);
            if (op.emulated) op.emulatedAs = stringField(o, "emulated_as", kWhat);
            layer.ops.push_back(std::move(op));
        }
        r.layers.push_back(std::move(layer));
    }
    return r;
}

namespace {

json bytesByDtype(const std::map<std::string, int64_t>& bytes) {
    json j = json::object();
    for (const auto& [dtype, count] : bytes) j[dtype] = count;
    return j;
}

std::map<std::string, int64_t> bytesByDtypeFromJson(const json& j, const char* key) {
    constexpr std::string_view kWhat = probe_record_type::kMemory;
    const json& v = field(j, key, kWhat);
    if (!v.is_object()) fail(kWhat, std::string("field \"") + key + "\" must be an object");
    std::map<std::string, int64_t> bytes;
    for (const auto& [dtype, count] : v.items()) {
        if (!count.is_number_integer())
            fail(kWhat, std::string("field \"") + key + "\": \"" + dtype + "\" must be an integer");
        bytes[dtype] = count.get<int64_t>();
    }
    return bytes;
}

}  // namespace

json toJson(const MemoryRecord& r) {
    const MemoryUsage& u = r.usage;
    json j = {{"type", probe_record_type::kMemory},
              {"step", r.step},
              {"rss_bytes", u.rssBytes},
              {"peak_rss_bytes", u.peakRssBytes}};
    j["cuda_peak_allocated_bytes"] =
        u.cudaPeakAllocatedBytes ? json(*u.cudaPeakAllocatedBytes) : json(nullptr);
    j["activation_bytes"] = bytesByDtype(u.activationBytes);
    j["activation_bytes_real"] = bytesByDtype(u.activationBytesReal);
    return j;
}

MemoryRecord memoryRecordFromJson(const json& j) {
    constexpr std::string_view kWhat = probe_record_type::kMemory;
    requireType(j, kWhat);
    MemoryRecord r;
    r.step = intField(j, "step", kWhat);
    MemoryUsage& u = r.usage;
    u.rssBytes = intField(j, "rss_bytes", kWhat);
    u.peakRssBytes = intField(j, "peak_rss_bytes", kWhat);
    if (j.contains("cuda_peak_allocated_bytes") && !j.at("cuda_peak_allocated_bytes").is_null())
        u.cudaPeakAllocatedBytes = intField(j, "cuda_peak_allocated_bytes", kWhat);
    u.activationBytes = bytesByDtypeFromJson(j, "activation_bytes");
    u.activationBytesReal = bytesByDtypeFromJson(j, "activation_bytes_real");
    return r;
}

}  // namespace ampscope
