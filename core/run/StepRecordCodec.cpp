#include "run/StepRecordCodec.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <system_error>

#include "run/EventSchema.h"
#include "run/FlatRecordText.h"
#include "run/RecordCodec.h"
#include "run/RecordKeys.h"

namespace ampscope {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr std::pair<ScaleChange, std::string_view> kScaleChangeNames[] = {
    {ScaleChange::Backoff, scale_change_name::kBackoff},
    {ScaleChange::Growth, scale_change_name::kGrowth},
};

// The step record's fields, in the order nlohmann sorts their keys (the text writer
// writes them in this order). A reader fills them in this order, so a default that names
// another field (the clipped norm defaults to the norm) reads that field first.
template <class V, class M>
void visitStep(V& v, M& m) {
    v.fieldOr("epoch", m.epoch, int64_t{0});
    v.fieldIfSet("first_nonfinite_layer", m.firstNonFiniteLayer);  // for a backoff
    v.fieldOr("found_inf", m.foundInf, false);
    v.numberOr("grad_norm", m.gradNorm, kNaN);
    v.numberOr("grad_norm_clipped", m.gradNormClipped, m.gradNorm);
    v.fieldOr("growth_tracker", m.growthTracker, int64_t{0});
    v.numberOr("loss", m.loss, kNaN);
    v.fieldOr("lr", m.lr, 0.0);
    v.fieldOr("samples_per_second", m.samplesPerSecond, 0.0);
    v.numberOr("scale", m.scale, 1.0);
    v.numberOr("scale_after", m.scaleAfter, m.scale);
    v.enumIfSet("scale_change", m.scaleChange, kScaleChangeNames);
    v.field("step", m.step);
    v.fieldOr("step_seconds", m.stepSeconds, 0.0);
    v.fieldOr("step_skipped", m.stepSkipped, false);
    v.type(event_type::kStep);
}

template <class V, class E>
void visitEpoch(V& v, E& e) {
    v.type(event_type::kEpoch);
    v.fieldOr("epoch", e.epoch, int64_t{0});
    v.fieldOr("step", e.step, int64_t{0});
    v.numberOr("train_loss", e.trainLoss, kNaN);
    v.numberOr("val_loss", e.valLoss, kNaN);
    v.numberOr("val_accuracy", e.valAccuracy, kNaN);
    v.fieldOr("seconds", e.seconds, 0.0);
}

const auto kStepFields = [](auto& v, auto& m) { visitStep(v, m); };
const auto kEpochFields = [](auto& v, auto& e) { visitEpoch(v, e); };

// ---- the text writer: a visitor that formats straight into the caller's buffer ----

// Printable ASCII without '"' and '\\': written as is, as nlohmann writes it.
bool plainText(std::string_view text) {
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
    }
    return true;
}

// Writes each field as it is visited, so the field list must name the keys in sorted
// order (the tests compare with nlohmann's text, which would show a misplaced key). A
// "<key>_nonfinite" tag sorts later than its key, after keys that extend it
// ("grad_norm_clipped" before "grad_norm_nonfinite"): it waits until the next key
// sorts after it.
class StepTextWriter {
public:
    explicit StepTextWriter(std::string& out) : out_(out) { out_ += '{'; }

    // Ends the object; false when a string needed escaping (then the text is unusable
    // and the caller writes the record through JSON).
    bool finish() {
        flushTagsBefore(std::string_view());
        out_ += '}';
        return plain_;
    }

    void type(std::string_view name) { text("type", name); }
    void field(std::string_view key, int64_t value) {
        putKey(key);
        char buffer[24];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
        out_.append(buffer, static_cast<std::size_t>(end - buffer));
    }
    void field(std::string_view key, bool value) {
        putKey(key);
        out_ += value ? "true" : "false";
    }
    // Plain: a non-finite value is a bare null, as nlohmann writes a double.
    void field(std::string_view key, double value) {
        putKey(key);
        if (!std::isfinite(value)) {
            out_ += "null";
            return;
        }
        // nlohmann's own spelling: shortest round trip, ".0" on whole numbers.
        char buffer[64];
        const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, value);
        out_.append(buffer, static_cast<std::size_t>(end - buffer));
    }
    template <class T, class U>
    void fieldOr(std::string_view key, const T& value, const U&) {
        field(key, value);
    }
    void fieldIfSet(std::string_view key, const std::string& value) {
        if (value.empty()) return;
        if (!plainText(value)) plain_ = false;
        text(key, value);
    }
    void numberOr(std::string_view key, double value, double) {
        field(key, value);
        if (!std::isfinite(value)) addTag(key, record_codec::nonFiniteTag(value));
    }
    template <class E, std::size_t N>
    void enumIfSet(std::string_view key, E value, const std::pair<E, std::string_view> (&names)[N]) {
        for (const auto& [e, name] : names)
            if (e == value) text(key, name);
    }

private:
    struct Tag {
        std::string_view key;  // written as key + "_nonfinite"
        std::string_view value;
    };

    void text(std::string_view key, std::string_view value) {
        putKey(key);
        out_ += '"';
        out_ += value;
        out_ += '"';
    }
    void putKey(std::string_view key) {
        if (tagCount_ > 0) flushTagsBefore(key);
        if (!first_) out_ += ',';
        first_ = false;
        out_ += '"';
        out_ += key;
        out_.append("\":", 2);
    }
    void putTagKey(std::string_view key) {
        out_ += ',';  // a tag follows its key
        out_ += '"';
        out_ += key;
        out_ += record_codec::kNonFiniteSuffix;
        out_.append("\":", 2);
    }
    // Pending tags stay in key order.
    void addTag(std::string_view key, std::string_view value) {
        int at = tagCount_;
        while (at > 0 && tagLess(key, tags_[at - 1].key)) {
            tags_[at] = tags_[at - 1];
            --at;
        }
        tags_[at] = {key, value};
        ++tagCount_;
    }
    // Writes the pending tags that sort before `next` (all of them when it is empty).
    void flushTagsBefore(std::string_view next) {
        int written = 0;
        while (written < tagCount_ && (next.empty() || tagBefore(tags_[written].key, next))) {
            putTagKey(tags_[written].key);
            out_ += '"';
            out_ += tags_[written].value;
            out_ += '"';
            ++written;
        }
        for (int i = written; i < tagCount_; ++i) tags_[i - written] = tags_[i];
        tagCount_ -= written;
    }
    // Is key + "_nonfinite" < other (compared byte by byte, as std::map<std::string>)?
    static bool tagBefore(std::string_view key, std::string_view other) {
        const std::string_view suffix = record_codec::kNonFiniteSuffix;
        const std::size_t length = key.size() + suffix.size();
        for (std::size_t i = 0; i < length && i < other.size(); ++i) {
            const auto c = static_cast<unsigned char>(i < key.size() ? key[i] : suffix[i - key.size()]);
            const auto o = static_cast<unsigned char>(other[i]);
            if (c != o) return c < o;
        }
        return length < other.size();
    }
    // Two tags sort as their keys do (the same suffix follows both).
    static bool tagLess(std::string_view a, std::string_view b) {
        const std::string_view suffix = record_codec::kNonFiniteSuffix;
        const std::size_t la = a.size() + suffix.size(), lb = b.size() + suffix.size();
        for (std::size_t i = 0; i < la && i < lb; ++i) {
            const auto ca = static_cast<unsigned char>(i < a.size() ? a[i] : suffix[i - a.size()]);
            const auto cb = static_cast<unsigned char>(i < b.size() ? b[i] : suffix[i - b.size()]);
            if (ca != cb) return ca < cb;
        }
        return la < lb;
    }

    std::string& out_;
    bool first_ = true;
    bool plain_ = true;
    Tag tags_[8];  // the step record has five tagged numbers
    int tagCount_ = 0;
};

}  // namespace

nlohmann::json stepRecord(const StepMetrics& m) { return record_codec::encode(m, kStepFields); }

std::optional<StepMetrics> stepFromJson(const nlohmann::json& record) {
    return record_codec::decodeLenient<StepMetrics>(record, event_type::kStep, kStepFields);
}

nlohmann::json epochRecord(const EpochMetrics& e) { return record_codec::encode(e, kEpochFields); }

std::optional<EpochMetrics> epochFromJson(const nlohmann::json& record) {
    return record_codec::decodeLenient<EpochMetrics>(record, event_type::kEpoch, kEpochFields);
}

void appendStepRecordText(const StepMetrics& m, std::string& out) {
    const std::size_t start = out.size();
    StepTextWriter writer(out);
    visitStep(writer, m);
    if (writer.finish()) return;
    // A layer name that needs escaping (rare): nlohmann's text, escaping and all.
    out.resize(start);
    out += stepRecord(m).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// The step line as the engine writes it for nearly every step (every number finite, no
// scale change, no layer named), read in one pass over its known keys. Each value is read
// as the field list's lenient reader reads it from the split line; anything else (a null,
// a tag, another key, an integer written as a float) is left to the general text path.
class EngineStepLine {
public:
    explicit EngineStepLine(std::string_view line) : rest_(line) {}

    bool read(StepMetrics& m) {
        const bool read = literal("{\"epoch\":") && integer(m.epoch) && literal(",\"found_inf\":") &&
                          boolean(m.foundInf) && literal(",\"grad_norm\":") && number(m.gradNorm) &&
                          literal(",\"grad_norm_clipped\":") && number(m.gradNormClipped) &&
                          literal(",\"growth_tracker\":") && integer(m.growthTracker) &&
                          literal(",\"loss\":") && number(m.loss) && literal(",\"lr\":") && number(m.lr) &&
                          literal(",\"samples_per_second\":") && number(m.samplesPerSecond) &&
                          literal(",\"scale\":") && number(m.scale) && literal(",\"scale_after\":") &&
                          number(m.scaleAfter) && literal(",\"step\":") && integer(m.step) &&
                          literal(",\"step_seconds\":") && number(m.stepSeconds) &&
                          literal(",\"step_skipped\":") && boolean(m.stepSkipped) &&
                          literal(",\"type\":\"step\"}") && rest_.empty();
        if (!read) return false;
        m.scaleChange = ScaleChange::None;
        m.firstNonFiniteLayer.clear();
        return true;
    }

private:
    bool literal(std::string_view text) {
        if (rest_.size() < text.size() || rest_.compare(0, text.size(), text) != 0) return false;
        rest_.remove_prefix(text.size());
        return true;
    }
    bool integer(int64_t& out) {
        record_text::FlatLine::Value v;
        if (!record_text::takeNumber(rest_, v)) return false;
        const auto value = record_text::integerOf(v);  // a float token: the general path's default
        if (!value) return false;
        out = *value;
        return true;
    }
    bool number(double& out) {
        record_text::FlatLine::Value v;
        if (!record_text::takeNumber(rest_, v)) return false;
        const auto value = record_text::doubleOf(v);
        if (!value) return false;
        out = *value;
        return true;
    }
    bool boolean(bool& out) {
        if (literal("true")) return out = true, true;
        if (literal("false")) return out = false, true;
        return false;
    }

    std::string_view rest_;
};

}  // namespace

bool parseStepRecordText(std::string_view line, StepMetrics& m) {
    if (StepMetrics read; EngineStepLine(line).read(read)) {
        m = std::move(read);
        return true;
    }
    record_text::FlatLine flat;
    return flat.split(line) && parseStepRecordText(flat, m);
}

bool parseStepRecordText(const record_text::FlatLine& line, StepMetrics& m) {
    return record_text::decodeFlat(line, record_codec::ReadRule::Lenient, kStepFields, m);
}

std::string_view scaleChangeName(ScaleChange change) {
    for (const auto& [e, name] : kScaleChangeNames)
        if (e == change) return name;
    return {};
}

nlohmann::json stepRecordKeys() {
    return {{event_type::kStep, record_codec::keysOf<StepMetrics>(kStepFields)},
            {event_type::kEpoch, record_codec::keysOf<EpochMetrics>(kEpochFields)}};
}

}  // namespace ampscope
