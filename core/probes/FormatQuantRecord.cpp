#include "probes/FormatQuantRecord.h"

#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "run/RecordCodec.h"
#include "run/RecordKeys.h"

namespace ampscope {
using namespace record_codec;
using json = nlohmann::json;

namespace {

// {"-3": 12, "-2": 40}: JSON object keys are strings.
json encodeExponentCounts(const std::map<int, int64_t>& counts) {
    json out = json::object();
    for (const auto& [exponent, blocks] : counts) out[std::to_string(exponent)] = blocks;
    return out;
}

template <class Reader>
void decodeExponentCounts(const json& value, std::map<int, int64_t>& counts, Reader& reader) {
    if (!value.is_object()) return reader.fail("field \"block_scale_exponents\" must be an object");
    for (auto it = value.begin(); it != value.end(); ++it) {
        size_t used = 0;
        int exponent = 0;
        try {
            exponent = std::stoi(it.key(), &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != it.key().size() || !it.value().is_number_integer())
            return reader.fail("\"block_scale_exponents\" must map exponents to block counts");
        counts[exponent] = it.value().get<int64_t>();
    }
}

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
    visitFormatElementStats(v, p);
    // Absent in runs written before the bias was recorded: read as 0.
    v.numberOr("magnitude_error", p.magnitudeError, 0.0);
    v.numberOr("absolute_signal", p.absoluteSignal, 0.0);
    v.number("amax", p.amax);
    v.number("scale", p.scale);
    v.number("scale_amax", p.scaleAmax);
    // Absent in runs written before block statistics were recorded: read as none.
    v.fieldOr("blocks", p.blocks, int64_t{0});
    v.fieldOr("zero_scale_blocks", p.zeroScaleBlocks, int64_t{0});
    v.fieldOr("crushed_by_outlier", p.crushedByOutlier, int64_t{0});
    if (v.present("block_scale_exponents", true))
        v.custom("block_scale_exponents", p.blockScaleExponents, encodeExponentCounts,
                 [](const json& value, auto& counts, auto& reader) { decodeExponentCounts(value, counts, reader); });
    // Derived, for a reader without arithmetic (jq, a spreadsheet).
    visitFormatElementFractions(v, p);
    v.writeOnlyNumber("crushed_fraction", p.crushedFraction());
    v.writeOnlyNumber("magnitude_bias", p.magnitudeBias());
}

const auto kFormatQuantFields = [](auto& v, auto& r) { visitFormatQuant(v, r); };

}  // namespace

std::string blockScaleExponentsText(const std::map<int, int64_t>& counts) {
    std::string text;
    for (const auto& [exponent, blocks] : counts) {
        if (!text.empty()) text += ' ';
        text += std::to_string(exponent) + ':' + std::to_string(blocks);
    }
    return text;
}

json toJson(const FormatQuantRecord& r) { return encode(r, kFormatQuantFields); }

FormatQuantRecord formatQuantRecordFromJson(const json& j) {
    return decode<FormatQuantRecord>(j, probe_record_type::kFormatQuant, kFormatQuantFields);
}

json formatQuantRecordKeys() {
    return {{probe_record_type::kFormatQuant, keysOf<FormatQuantRecord>(kFormatQuantFields)}};
}

}  // namespace ampscope
