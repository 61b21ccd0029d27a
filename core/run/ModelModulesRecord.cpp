#include "run/ModelModulesRecord.h"

#include "run/EventSchema.h"
#include "run/RecordCodec.h"
#include "run/RecordKeys.h"

namespace ampscope {

namespace {

template <class V, class M>
void visitModule(V& v, M& m) {
    v.field("name", m.name);
    v.fieldOr("type", m.type, std::string());
    v.fieldOr("parameters", m.parameters, int64_t{0});
    v.fieldOr("depth", m.depth, 0);
    v.fieldOr("probed", m.probed, false);
}

template <class V, class R>
void visitModelModules(V& v, R& r) {
    v.type(event_type::kModelModules);
    v.fieldOr("path", r.path, std::string());
    v.fieldOr("sha256", r.sha256, std::string());
    v.list("modules", r.modules, [](auto& sub, auto& m) { visitModule(sub, m); }, "module");
}

const auto kFields = [](auto& v, auto& r) { visitModelModules(v, r); };

}  // namespace

nlohmann::json toJson(const ModelModulesRecord& record) { return record_codec::encode(record, kFields); }

std::optional<ModelModulesRecord> modelModulesFromJson(const nlohmann::json& record) {
    return record_codec::decodeLenient<ModelModulesRecord>(record, "model_modules", kFields);
}

nlohmann::json modelModulesRecordKeys() {
    return {{event_type::kModelModules, record_codec::keysOf<ModelModulesRecord>(kFields)}};
}

}  // namespace ampscope
