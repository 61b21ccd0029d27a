#include "run/RunLifecycleRecords.h"

#include <ctime>
#include <nlohmann/json.hpp>

#include "run/EventSchema.h"
#include "run/RecordCodec.h"
#include "run/RecordKeys.h"

namespace ampscope {
using namespace record_codec;
namespace {

// The field lists (run/RecordCodec.h).

template <class V, class R>
void visitRunStart(V& v, R& r) {
    v.type(event_type::kRunStart);
    v.field("schema_version", r.schemaVersion);  // RunReader checks it on the first line
    v.fieldOr("time", r.time, std::string());
    v.fieldOr("ampscope_version", r.ampscopeVersion, std::string());
    v.fieldIfSet("device", r.device);
    v.fieldIfSet("threads", r.threads);
    v.fieldIfSet(kSourceField.data(), r.source);
}

template <class V, class R>
void visitRunInfo(V& v, R& r) {
    v.type(event_type::kRunInfo);
    v.fieldOr("total_steps", r.totalSteps, int64_t{0});
    v.fieldOr("description", r.description, std::string());
    v.fieldOr("device", r.device, std::string());
    v.fieldOr("device_name", r.deviceName, std::string());
    v.fieldOr("threads", r.threads, 0);
    v.fieldOr("torch_version", r.torchVersion, std::string());
    v.fieldIfSet("cuda_version", r.cudaVersion);
    v.fieldOr("git_revision", r.gitRevision, std::string());
    if (v.present("precision", true))
        v.object("precision", r, [](auto& sub, auto& p) { visitPrecisionFacts(sub, p); });
    v.fieldOr("model", r.model, std::string());
    v.fieldOr("parameters", r.parameters, int64_t{0});
    v.fieldOr("layers", r.layers, std::vector<std::string>());
    v.fieldIfSet(kSourceField.data(), r.source);
}

template <class V, class R>
void visitError(V& v, R& r) {
    v.type(event_type::kError);
    v.fieldOr("step", r.step, int64_t{0});  // the recorder writes null before the first step
    v.fieldOr("message", r.message, std::string());
    v.fieldOr("input_error", r.inputError, false);
}

template <class V, class R>
void visitRunEnd(V& v, R& r) {
    v.type(event_type::kRunEnd);
    v.fieldOr("status", r.status, std::string());
    v.fieldOr("step", r.step, int64_t{0});
    v.fieldOr("time", r.time, std::string());
}

template <class V, class F>
void visitFault(V& v, F& f) {
    v.type(event_type::kFault);
    v.fieldOr("step", f.step, int64_t{0});
    v.fieldOr("kind", f.kind, std::string());
    v.fieldOr("layer", f.layer, std::string());
    v.fieldOr("factor", f.factor, 1.0);
}

const auto kRunStartFields = [](auto& v, auto& r) { visitRunStart(v, r); };
const auto kRunInfoFields = [](auto& v, auto& r) { visitRunInfo(v, r); };
const auto kErrorFields = [](auto& v, auto& r) { visitError(v, r); };
const auto kRunEndFields = [](auto& v, auto& r) { visitRunEnd(v, r); };
const auto kFaultFields = [](auto& v, auto& f) { visitFault(v, f); };

// The record read leniently when it is of `type`; nullopt for any other.
template <class R, class F>
std::optional<R> ofType(const json& record, std::string_view type, const F& fields) {
    if (typeOf(record) != type) return std::nullopt;
    return decodeLenient<R>(record, type, fields);
}

}  // namespace

json toJson(const RunStartRecord& r) { return encode(r, kRunStartFields); }
json toJson(const RunInfoRecord& r) { return encode(r, kRunInfoFields); }
json toJson(const ErrorRecord& r) { return encode(r, kErrorFields); }
json toJson(const RunEndRecord& r) { return encode(r, kRunEndFields); }
json faultRecord(const FaultConfig& fault) { return encode(fault, kFaultFields); }

std::optional<RunStartRecord> runStartFromJson(const json& record) {
    return ofType<RunStartRecord>(record, event_type::kRunStart, kRunStartFields);
}
std::optional<RunInfoRecord> runInfoFromJson(const json& record) {
    return ofType<RunInfoRecord>(record, event_type::kRunInfo, kRunInfoFields);
}
std::optional<ErrorRecord> errorFromJson(const json& record) {
    return ofType<ErrorRecord>(record, event_type::kError, kErrorFields);
}
std::optional<RunEndRecord> runEndFromJson(const json& record) {
    return ofType<RunEndRecord>(record, event_type::kRunEnd, kRunEndFields);
}
std::optional<FaultConfig> faultFromJson(const json& record) {
    return ofType<FaultConfig>(record, event_type::kFault, kFaultFields);
}

json runLifecycleRecordKeys() {
    return {{event_type::kRunStart, keysOf<RunStartRecord>(kRunStartFields)},
            {event_type::kRunInfo, keysOf<RunInfoRecord>(kRunInfoFields)},
            {event_type::kError, keysOf<ErrorRecord>(kErrorFields)},
            {event_type::kRunEnd, keysOf<RunEndRecord>(kRunEndFields)},
            {event_type::kFault, keysOf<FaultConfig>(kFaultFields)}};
}

std::string utcTimeNow() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace ampscope
