#include "run/StepRecordCodec.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <system_error>

#include "run/EventSchema.h"
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

// ---- the text parser: the line split into its keys and values, then the field list ----

// One value of a flat record, as the JSON path would classify it. No member
// initializers: the parser's array of them is not cleared per line; readValue sets
// the kind and what that kind reads.
struct FlatValue {
    enum class Kind { Integer, Number, Null, Boolean, String } kind;
    double number;          // Integer and Number
    long long integer;      // Integer
    bool boolean;           // Boolean
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
    if (line[i] == '"') {
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
            const auto got = std::from_chars(token.data(), token.data() + token.size(), value.integer);
            if (got.ec != std::errc() || got.ptr != token.data() + token.size()) return false;
            value.kind = FlatValue::Kind::Integer;
            value.number = static_cast<double>(value.integer);
        } else {
            const auto got = std::from_chars(token.data(), token.data() + token.size(), value.number);
            if (got.ec != std::errc() || got.ptr != token.data() + token.size()) return false;
            value.kind = FlatValue::Kind::Number;
        }
    }
    return true;
}

// a < b byte by byte; keys are short and differ early, so a loop beats a memcmp call.
inline bool keyBefore(std::string_view a, std::string_view b) {
    const std::size_t n = a.size() < b.size() ? a.size() : b.size();
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
    return a.size() < b.size();
}

// Reads the field list from a split line with JsonReader's lenient rules.
class StepTextReader {
public:
    // False when the line is not one flat object of plain values (or has too many keys).
    bool split(std::string_view line) {
        if (line.size() < 2 || line.front() != '{' || line.back() != '}') return false;
        std::size_t i = 1;
        if (line[i] != '}') {
            for (;;) {
                if (count_ >= kMaxPairs) return false;
                Pair& pair = pairs_[count_++];
                if (!readString(line, i, pair.key) || i >= line.size() || line[i] != ':') return false;
                ++i;
                if (!readValue(line, i, pair.value)) return false;
                // Keys in strictly rising order (as every writer of this program sorts
                // them) also means no key twice: find() can then walk forward.
                if (count_ > 1 && !keyBefore(pairs_[count_ - 2].key, pair.key)) sorted_ = false;
                if (i >= line.size()) return false;
                if (line[i] == '}') break;
                if (line[i] != ',') return false;
                ++i;
            }
        }
        return i + 1 == line.size();  // nothing after the object
    }
    bool ok() const { return ok_; }

    void type(std::string_view name) {
        const FlatValue* v = find("type");
        if (!v || v->kind != FlatValue::Kind::String || v->text != name) ok_ = false;
    }
    void field(std::string_view key, int64_t& value) {
        const FlatValue* v = find(key);
        if (!v || v->kind != FlatValue::Kind::Integer) {
            ok_ = false;
            return;
        }
        value = v->integer;
    }
    void fieldOr(std::string_view key, int64_t& value, int64_t fallback) {
        const FlatValue* v = find(key);
        value = v && v->kind == FlatValue::Kind::Integer ? static_cast<int64_t>(v->integer) : fallback;
    }
    void fieldOr(std::string_view key, bool& value, bool fallback) {
        const FlatValue* v = find(key);
        value = v && v->kind == FlatValue::Kind::Boolean ? v->boolean : fallback;
    }
    // A number as is; anything else by its "_nonfinite" tag; the fallback when absent.
    void fieldOr(std::string_view key, double& value, double fallback) {
        const FlatValue* v = find(key);
        if (!v) {
            value = fallback;
        } else if (v->kind == FlatValue::Kind::Integer || v->kind == FlatValue::Kind::Number) {
            value = v->number;
        } else {
            const FlatValue* tag = find(key, record_codec::kNonFiniteSuffix);
            value = tag && tag->kind == FlatValue::Kind::String
                        ? record_codec::valueOfNonFiniteTag(tag->text)
                        : kNaN;
        }
    }
    void numberOr(std::string_view key, double& value, double fallback) { fieldOr(key, value, fallback); }
    void fieldIfSet(std::string_view key, std::string& value) {
        const FlatValue* v = find(key);
        value = v && v->kind == FlatValue::Kind::String ? std::string(v->text) : std::string();
    }
    template <class E, std::size_t N>
    void enumIfSet(std::string_view key, E& value, const std::pair<E, std::string_view> (&names)[N]) {
        value = E{};
        const FlatValue* v = find(key);
        if (!v || v->kind != FlatValue::Kind::String) return;
        for (const auto& [e, name] : names)
            if (v->text == name) value = e;
    }

private:
    struct Pair {
        std::string_view key;
        FlatValue value;
    };
    static constexpr int kMaxPairs = 32;  // a step line has at most 21 keys

    // The value under key. The field list asks in sorted key order, so on a sorted line
    // the search goes on from where the last one stopped.
    const FlatValue* find(std::string_view key) {
        if (!sorted_) return find(std::string_view(), key);
        // Nearly always the next key is the one asked for.
        if (cursor_ < count_ && pairs_[cursor_].key == key) return &pairs_[cursor_++].value;
        int at = cursor_;
        while (at < count_ && keyBefore(pairs_[at].key, key)) ++at;
        if (at == count_ || pairs_[at].key != key) return nullptr;
        cursor_ = at + 1;
        return &pairs_[at].value;
    }
    // The last value under key (prefix + suffix), as the JSON path keeps the last one.
    const FlatValue* find(std::string_view prefix, std::string_view suffix) const {
        const std::size_t length = prefix.size() + suffix.size();
        for (int i = count_ - 1; i >= 0; --i) {
            const std::string_view key = pairs_[i].key;
            if (key.size() == length && key.substr(0, prefix.size()) == prefix &&
                key.substr(prefix.size()) == suffix)
                return &pairs_[i].value;
        }
        return nullptr;
    }

    Pair pairs_[kMaxPairs];
    int count_ = 0;
    bool sorted_ = true;
    int cursor_ = 0;  // find()'s place on a sorted line
    bool ok_ = true;
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

bool parseStepRecordText(std::string_view line, StepMetrics& m) {
    StepTextReader reader;
    if (!reader.split(line)) return false;
    StepMetrics parsed;
    visitStep(reader, parsed);
    if (!reader.ok()) return false;
    m = std::move(parsed);
    return true;
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
