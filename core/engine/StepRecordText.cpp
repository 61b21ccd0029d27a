#include "engine/StepRecordText.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>

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

namespace {

// One value of a flat record, as the JSON path would classify it.
struct FlatValue {
    enum class Kind { Absent, Integer, Number, Null, Boolean, String } kind = Kind::Absent;
    double number = 0.0;    // Integer and Number
    long long integer = 0;  // Integer
    bool boolean = false;
    std::string_view text;  // String (no escapes)
};

// A JSON number token: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; sets isInteger.
bool isJsonNumber(std::string_view t, bool& isInteger) {
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t from = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
        return i > from;
    };
    if (i < t.size() && t[i] == '-') ++i;
    if (i < t.size() && t[i] == '0') {
        ++i;
    } else if (!digits()) {
        return false;
    }
    isInteger = true;
    if (i < t.size() && t[i] == '.') {
        ++i;
        isInteger = false;
        if (!digits()) return false;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        isInteger = false;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        if (!digits()) return false;
    }
    return i == t.size();
}

// Reads `"text"` at line[i] (no escapes, printable ASCII only); i moves past it.
bool readString(std::string_view line, std::size_t& i, std::string_view& out) {
    if (i >= line.size() || line[i] != '"') return false;
    const std::size_t begin = ++i;
    for (; i < line.size(); ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        if (c == '"') {
            out = line.substr(begin, i - begin);
            ++i;
            return true;
        }
        if (c == '\\' || c < 0x20 || c >= 0x80) return false;
    }
    return false;
}

bool readValue(std::string_view line, std::size_t& i, FlatValue& value) {
    if (i >= line.size()) return false;
    const char c = line[i];
    if (c == '"') {
        value.kind = FlatValue::Kind::String;
        return readString(line, i, value.text);
    }
    const std::size_t end = line.find_first_of(",}", i);
    if (end == std::string_view::npos) return false;
    const std::string_view token = line.substr(i, end - i);
    i = end;
    if (token == "null") {
        value.kind = FlatValue::Kind::Null;
    } else if (token == "true" || token == "false") {
        value.kind = FlatValue::Kind::Boolean;
        value.boolean = token == "true";
    } else {
        bool isInteger = false;
        if (!isJsonNumber(token, isInteger)) return false;
        if (isInteger) {
            // Beyond 64 bits the JSON path makes a float (or an unsigned): leave it to it.
            const auto got =
                std::from_chars(token.data(), token.data() + token.size(), value.integer);
            if (got.ec != std::errc() || got.ptr != token.data() + token.size()) return false;
            value.kind = FlatValue::Kind::Integer;
            value.number = static_cast<double>(value.integer);
        } else {
            const auto got =
                std::from_chars(token.data(), token.data() + token.size(), value.number);
            if (got.ec != std::errc() || got.ptr != token.data() + token.size()) return false;
            value.kind = FlatValue::Kind::Number;
        }
    }
    return true;
}

}  // namespace

bool parseStepRecordText(std::string_view line, StepMetrics& m) {
    // The fields stepFromRecord reads, and their "_nonfinite" tags.
    enum Field {
        Epoch,
        FoundInf,
        GradNorm,
        GradNormClipped,
        GrowthTracker,
        Loss,
        Lr,
        SamplesPerSecond,
        Scale,
        ScaleAfter,
        Step,
        StepSeconds,
        StepSkipped,
        Type,
        ScaleChange,
        FirstNonFinite,
        kFields
    };
    static constexpr std::string_view kNames[kFields] = {
        "epoch",          "found_inf",   "grad_norm",    "grad_norm_clipped",
        "growth_tracker", "loss",        "lr",           "samples_per_second",
        "scale",          "scale_after", "step",         "step_seconds",
        "step_skipped",   "type",        "scale_change", "first_nonfinite_layer"};
    static constexpr std::string_view kTagSuffix = "_nonfinite";
    FlatValue fields[kFields];
    std::string_view tags[kFields];  // the tag string of a numeric field, when present

    if (line.size() < 2 || line.front() != '{' || line.back() != '}') return false;
    std::size_t i = 1;
    if (line[i] != '}') {
        for (;;) {
            std::string_view key;
            if (!readString(line, i, key) || i >= line.size() || line[i] != ':') return false;
            ++i;
            FlatValue value;
            if (!readValue(line, i, value)) return false;
            int field = -1;
            for (int f = 0; f < kFields; ++f)
                if (key == kNames[f]) field = f;
            if (field >= 0) {
                fields[field] = value;
            } else if (key.size() > kTagSuffix.size() &&
                       key.substr(key.size() - kTagSuffix.size()) == kTagSuffix) {
                const std::string_view base = key.substr(0, key.size() - kTagSuffix.size());
                for (int f = 0; f < kFields; ++f)
                    if (base == kNames[f])
                        tags[f] = value.kind == FlatValue::Kind::String ? value.text : "?";
            }
            if (i >= line.size()) return false;
            if (line[i] == '}') break;
            if (line[i] != ',') return false;
            ++i;
        }
    }
    if (i + 1 != line.size()) return false;  // something after the object
    if (fields[Type].kind != FlatValue::Kind::String || fields[Type].text != "step") return false;
    if (fields[Step].kind != FlatValue::Kind::Integer) return false;

    const double nan = std::numeric_limits<double>::quiet_NaN();
    // ui's number(): a number as is; otherwise (null, a string, ...) the tag says which
    // infinity, NaN without one; the fallback only when the key is absent.
    const auto number = [&](Field f, double fallback) {
        const FlatValue& v = fields[f];
        if (v.kind == FlatValue::Kind::Absent) return fallback;
        if (v.kind == FlatValue::Kind::Integer || v.kind == FlatValue::Kind::Number)
            return v.number;
        if (tags[f] == "inf") return std::numeric_limits<double>::infinity();
        if (tags[f] == "-inf") return -std::numeric_limits<double>::infinity();
        return nan;
    };
    const auto integer = [&](Field f, int64_t fallback) {
        return fields[f].kind == FlatValue::Kind::Integer ? static_cast<int64_t>(fields[f].integer)
                                                          : fallback;
    };
    const auto boolean = [&](Field f) {
        return fields[f].kind == FlatValue::Kind::Boolean && fields[f].boolean;
    };
    const auto text = [&](Field f) {
        return fields[f].kind == FlatValue::Kind::String ? std::string(fields[f].text)
                                                         : std::string();
    };
    m = StepMetrics{};
    m.step = fields[Step].integer;
    m.epoch = integer(Epoch, 0);
    m.loss = number(Loss, nan);
    m.lr = number(Lr, 0.0);
    m.gradNorm = number(GradNorm, nan);
    m.gradNormClipped = number(GradNormClipped, m.gradNorm);
    m.stepSeconds = number(StepSeconds, 0.0);
    m.samplesPerSecond = number(SamplesPerSecond, 0.0);
    m.scale = number(Scale, 1.0);
    m.scaleAfter = number(ScaleAfter, m.scale);
    m.growthTracker = integer(GrowthTracker, 0);
    m.foundInf = boolean(FoundInf);
    m.stepSkipped = boolean(StepSkipped);
    m.scaleChange = text(ScaleChange);
    m.firstNonFiniteLayer = text(FirstNonFinite);
    return true;
}

}  // namespace ampscope
