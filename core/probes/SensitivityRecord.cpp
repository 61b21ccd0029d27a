#include "probes/SensitivityRecord.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/InputError.h"
#include "run/RecordCodec.h"

namespace ampscope {
using namespace record_codec;

namespace {

constexpr std::string_view kLayer = "sensitivity layer";
constexpr std::string_view kFormat = "sensitivity format";

template <class V, class F>
void visitFormat(V& v, F& f) {
    v.field("format", f.format);
    v.number("score", f.score);
    v.number("loss_change", f.lossChange);
    v.number("fisher", f.fisher);
    v.field("elements", f.elements);
    v.field("saturated", f.saturated);
    v.field("flushed", f.flushed);
}

template <class V, class L>
void visitLayer(V& v, L& l) {
    v.field("layer", l.layer);
    v.number("flops", l.flops);
    v.list("formats", l.formats, [](auto& sub, auto& f) { visitFormat(sub, f); }, kFormat);
}

template <class V, class R>
void visitSensitivity(V& v, R& r) {
    v.type(probe_record_type::kSensitivity);
    v.field("step", r.step);
    v.number("loss", r.loss);
    v.number("seconds", r.seconds);
    v.field("formats", r.formats);
    v.list("layers", r.layers, [](auto& sub, auto& l) { visitLayer(sub, l); }, kLayer);
}

const auto kSensitivityFields = [](auto& v, auto& r) { visitSensitivity(v, r); };

}  // namespace

std::vector<std::string> parseSensitivityFormats(const std::string& list, const std::string& what) {
    std::vector<std::string> formats;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string name = list.substr(start, comma - start);
        start = comma + 1;
        if (name.empty()) continue;
        const auto& known = sensitivityFormats();
        if (name != "fp32" && std::find(known.begin(), known.end(), name) == known.end()) {
            std::string valid;
            for (const auto& k : known) valid += (valid.empty() ? "" : ", ") + k;
            throw InputError(what + ": unknown format '" + name + "' (valid: " + valid + ")");
        }
        if (std::find(formats.begin(), formats.end(), name) == formats.end()) formats.push_back(name);
    }
    if (formats.empty()) throw InputError(what + ": no format");
    return formats;
}

const LayerFormatSensitivity* LayerSensitivity::in(const std::string& format) const {
    for (const auto& f : formats)
        if (f.format == format) return &f;
    return nullptr;
}

nlohmann::json toJson(const SensitivityRecord& record) { return encode(record, kSensitivityFields); }

SensitivityRecord sensitivityRecordFromJson(const nlohmann::json& json) {
    return decode<SensitivityRecord>(json, probe_record_type::kSensitivity, kSensitivityFields);
}

SensitivityRecord combineSensitivity(const std::vector<SensitivityRecord>& records) {
    if (records.empty()) throw std::invalid_argument("combineSensitivity: no records");
    SensitivityRecord combined = records.front();
    const double n = static_cast<double>(records.size());
    for (size_t r = 1; r < records.size(); ++r) {
        const auto& next = records[r];
        if (next.formats != combined.formats || next.layers.size() != combined.layers.size())
            throw std::invalid_argument("combineSensitivity: the records measure different layers or formats");
        combined.step = next.step;
        combined.loss += next.loss;
        combined.seconds += next.seconds;
        for (size_t k = 0; k < combined.layers.size(); ++k) {
            auto& into = combined.layers[k];
            const auto& from = next.layers[k];
            if (from.layer != into.layer || from.formats.size() != into.formats.size())
                throw std::invalid_argument("combineSensitivity: layer " + from.layer + " differs between records");
            into.flops += from.flops;
            for (size_t f = 0; f < into.formats.size(); ++f) {
                into.formats[f].score += from.formats[f].score;
                into.formats[f].lossChange += from.formats[f].lossChange;
                into.formats[f].fisher += from.formats[f].fisher;
                into.formats[f].elements += from.formats[f].elements;
                into.formats[f].saturated += from.formats[f].saturated;
                into.formats[f].flushed += from.formats[f].flushed;
            }
        }
    }
    // Scores, FLOPs and the loss are means per pass; the counts stay summed, so the
    // shares are over every element the passes quantized.
    combined.loss /= n;
    for (auto& layer : combined.layers) {
        layer.flops /= n;
        for (auto& f : layer.formats) {
            f.score /= n;
            f.lossChange /= n;
            f.fisher /= n;
        }
    }
    return combined;
}

std::vector<const LayerSensitivity*> rankByScore(const SensitivityRecord& record, const std::string& format) {
    std::vector<const LayerSensitivity*> ranked;
    for (const auto& layer : record.layers)
        if (layer.in(format)) ranked.push_back(&layer);
    const auto key = [&](const LayerSensitivity* l) {
        const double s = l->in(format)->score;
        return std::isnan(s) ? std::numeric_limits<double>::infinity() : s;
    };
    std::stable_sort(ranked.begin(), ranked.end(),
                     [&](const LayerSensitivity* a, const LayerSensitivity* b) { return key(a) > key(b); });
    return ranked;
}

}  // namespace ampscope
