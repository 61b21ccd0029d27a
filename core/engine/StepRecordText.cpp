#include "engine/StepRecordText.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>

#include "engine/RunRecords.h"

namespace ampscope {
namespace {

class RecordText {
public:
    explicit RecordText(std::string& out) : out_(out) { out_ += '{'; }
    ~RecordText() { out_ += '}'; }
    RecordText(const RecordText&) = delete;
    RecordText& operator=(const RecordText&) = delete;

    void integer(std::string_view key, long long value) {
        putKey(key);
        char text[24];
        const auto end = std::to_chars(text, text + sizeof text, value).ptr;
        out_.append(text, static_cast<std::size_t>(end - text));
    }
    void boolean(std::string_view key, bool value) {
        putKey(key);
        out_ += value ? "true" : "false";
    }
    void string(std::string_view key, std::string_view value) {  // plain ASCII words only
        putKey(key);
        out_ += '"';
        out_ += value;
        out_ += '"';
    }
    // A double as nlohmann writes one: shortest round-trip (Grisu2), ".0" on whole
    // numbers, null when not finite.
    void number(std::string_view key, double value) {
        putKey(key);
        if (!std::isfinite(value)) {
            out_ += "null";
            return;
        }
        char text[64];
        const char* end = nlohmann::detail::to_chars(text, text + sizeof text, value);
        out_.append(text, static_cast<std::size_t>(end - text));
    }
    // The run-directory rule for a number that can be NaN/Inf: "<key>_nonfinite" comes
    // after its key in sorted order, and the caller places it there.
    static const char* nonFiniteTag(double value) {
        return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
    }

private:
    void putKey(std::string_view key) {
        if (!first_) out_ += ',';
        first_ = false;
        out_ += '"';
        out_ += key;
        out_ += "\":";
    }

    std::string& out_;
    bool first_ = true;
};

}  // namespace

void appendStepRecordText(const StepMetrics& m, std::string& out) {
    if (!m.scaleChange.empty() || !m.firstNonFiniteLayer.empty()) {
        out += stepRecord(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
    }
    // Keys in the order nlohmann's std::map sorts them (a test compares with dump()).
    RecordText r(out);
    const auto finite = [](double v) { return std::isfinite(v); };
    r.integer("epoch", m.epoch);
    r.boolean("found_inf", m.foundInf);
    r.number("grad_norm", m.gradNorm);
    r.number("grad_norm_clipped", m.gradNormClipped);
    if (!finite(m.gradNormClipped))
        r.string("grad_norm_clipped_nonfinite", RecordText::nonFiniteTag(m.gradNormClipped));
    if (!finite(m.gradNorm)) r.string("grad_norm_nonfinite", RecordText::nonFiniteTag(m.gradNorm));
    r.integer("growth_tracker", m.growthTracker);
    r.number("loss", m.loss);
    if (!finite(m.loss)) r.string("loss_nonfinite", RecordText::nonFiniteTag(m.loss));
    r.number("lr", m.lr);
    r.number("samples_per_second", m.samplesPerSecond);
    r.number("scale", m.scale);
    r.number("scale_after", m.scaleAfter);
    if (!finite(m.scaleAfter))
        r.string("scale_after_nonfinite", RecordText::nonFiniteTag(m.scaleAfter));
    if (!finite(m.scale)) r.string("scale_nonfinite", RecordText::nonFiniteTag(m.scale));
    r.integer("step", m.step);
    r.number("step_seconds", m.stepSeconds);
    r.boolean("step_skipped", m.stepSkipped);
    r.string("type", "step");
}

}  // namespace ampscope
