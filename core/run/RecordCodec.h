#pragma once
// Plain (no torch). How a run-directory record's fields become JSON and come back, so
// that each record type is declared once, as a field list, and its writer and reader
// cannot drift apart: the pattern config/ConfigSchema.h uses for config.json.
//
// A record's field list is a template over a visitor V and the value (const for
// writing, mutable for reading):
//
//   template <class V, class R> void visitShadow(V& v, R& r) {
//       v.type(probe_record_type::kShadow);
//       v.field("step", r.step);
//       v.list("layers", r.layers, visitComparison<...>, "gradient comparison");
//   }
//
// JsonWriter puts each field into a JSON object (nlohmann sorts the keys on dump);
// JsonReader reads them back, either strictly (a missing or mistyped field throws
// RecordError "<record> record: <what>", for the probe records) or leniently (a field
// that is absent or of another type takes its default, and only a required field that
// is unusable makes the record unreadable: the step, epoch and summary records, which
// old runs wrote with fewer fields; a nested object or list entry that cannot be read
// is left at its default; reportMistyped() has it say which, one phrase per field, for a
// reader that shows a hand-edited file). The step record's fast text writer and parser
// (StepRecordCodec.cpp) are two more visitors of the same list.
//
// The visitor calls:
//   v.type(name)                       "type": name; read: must be name
//   v.field(key, value)                required (int64_t, int, bool, std::string, double,
//                                      std::vector<int64_t>, std::vector<std::string>,
//                                      std::map<std::string, int64_t>; an integer beyond
//                                      its type's range reads saturated)
//   v.fieldOr(key, value, fallback)    always written; absent reads as fallback
//   v.fieldIfSet(key, value)           written unless it is T{}; absent reads as T{}
//   v.number(key, value)               a double under the non-finite rule (below)
//   v.numberOr(key, value, fallback)   the same, absent reads as fallback
//   v.optional(key, std::optional<T>)  null when absent (written and read)
//   v.object(key, value, fields, part) a nested object listed by fields(v, value)
//   v.optionalObject(key, opt, fields, part)  left out when absent
//   v.nullableObject(key, opt, fields, part)  null when absent
//   v.list(key, items, fields, part)   an array of objects; listOr: absent reads empty;
//                                      listIfSet: left out when empty
//   v.enumIfSet(key, value, names)     an enum written by name, left out when E{}
//   v.writeOnly(key, value)            written, not read (a derived or constant field)
//   v.present(key, whenWriting)        writing: whenWriting; reading: key is there, not null
//   v.custom(key, value, encode, decode)  a field with its own shape, both ways
//                                      (leniently, an absent one is left as it is)
// `part` names nested objects in error messages ("tensor stats record: ...").
//
// The non-finite rule (JSON has no NaN or Inf), defined here once: a number that is
// not finite is written null, with "<key>_nonfinite": "nan" | "inf" | "-inf" saying
// which; a null without a tag reads as NaN ("not finite, or not measured").
// v.field on a double writes a non-finite value as a plain null, without the tag.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run/RecordError.h"

namespace ampscope {

namespace record_codec {

using json = nlohmann::json;

inline constexpr std::string_view kNonFiniteSuffix = "_nonfinite";

// "nan", "inf" or "-inf" for a value that is not finite.
inline const char* nonFiniteTag(double value) {
    return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
}
// What a null number with this tag stands for: +-Inf for "inf"/"-inf", NaN otherwise.
inline double valueOfNonFiniteTag(std::string_view tag) {
    if (tag == "inf") return std::numeric_limits<double>::infinity();
    if (tag == "-inf") return -std::numeric_limits<double>::infinity();
    return std::numeric_limits<double>::quiet_NaN();
}
inline std::string nonFiniteKey(std::string_view key) {
    return std::string(key) + std::string(kNonFiniteSuffix);
}
// Writes `value` under `key` by the non-finite rule.
inline void putNumber(json& record, const char* key, double value) {
    if (std::isfinite(value)) {
        record[key] = value;
        return;
    }
    record[key] = nullptr;
    record[nonFiniteKey(key)] = nonFiniteTag(value);
}
// A number read by the rule from a record's value (not a number: the tag decides).
inline double numberFrom(const json& record, const json& value, const char* key) {
    if (value.is_number()) return value.get<double>();
    const auto tag = record.find(nonFiniteKey(key));
    if (tag != record.end() && tag->is_string())
        return valueOfNonFiniteTag(tag->get_ref<const std::string&>());
    return std::numeric_limits<double>::quiet_NaN();
}

// An integer JSON value as int64_t, saturated to its range: get<int64_t>() would turn an
// unsigned 2^64-1 into -1.
inline int64_t saturatedInteger(const json& value) {
    if (value.is_number_unsigned()) {
        const auto wide = value.get<uint64_t>();
        constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        return wide > kMax ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(wide);
    }
    return value.get<int64_t>();
}
// The same saturated to int's range: get<int>() would wrap 4294967298 to 2.
inline int saturatedInt(const json& value) {
    const int64_t wide = saturatedInteger(value);
    return static_cast<int>(std::clamp<int64_t>(wide, std::numeric_limits<int>::min(),
                                                std::numeric_limits<int>::max()));
}

// The record's "type", or "" when it is not an object or has no string "type".
inline std::string typeOf(const json& record) {
    if (!record.is_object()) return {};
    const auto it = record.find("type");
    return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class JsonWriter {
public:
    explicit JsonWriter(json& out) : out_(out) {
        if (!out_.is_object()) out_ = json::object();
    }

    void type(std::string_view name) { out_["type"] = name; }
    template <class T>
    void field(const char* key, const T& value) {
        out_[key] = value;
    }
    template <class T, class U>
    void fieldOr(const char* key, const T& value, const U&) {
        field(key, value);
    }
    template <class T>
    void fieldIfSet(const char* key, const T& value) {
        if (!(value == T{})) field(key, value);
    }
    void number(const char* key, double value) { putNumber(out_, key, value); }
    void numberOr(const char* key, double value, double) { number(key, value); }
    template <class T>
    void optional(const char* key, const std::optional<T>& value) {
        out_[key] = value ? json(*value) : json(nullptr);
    }
    template <class T, class F>
    void object(const char* key, const T& value, F&& fields, std::string_view = {}) {
        json sub = json::object();
        JsonWriter w(sub);
        fields(w, value);
        out_[key] = std::move(sub);
    }
    template <class T, class F>
    void optionalObject(const char* key, const std::optional<T>& value, F&& fields,
                        std::string_view part = {}) {
        if (value) object(key, *value, fields, part);
    }
    template <class T, class F>
    void nullableObject(const char* key, const std::optional<T>& value, F&& fields,
                        std::string_view part = {}) {
        if (value)
            object(key, *value, fields, part);
        else
            out_[key] = nullptr;
    }
    template <class T, class F>
    void list(const char* key, const std::vector<T>& items, F&& fields, std::string_view = {}) {
        json array = json::array();
        for (const T& item : items) {
            json sub = json::object();
            JsonWriter w(sub);
            fields(w, item);
            array.push_back(std::move(sub));
        }
        out_[key] = std::move(array);
    }
    template <class T, class F>
    void listOr(const char* key, const std::vector<T>& items, F&& fields, std::string_view part = {}) {
        list(key, items, fields, part);
    }
    template <class T, class F>
    void listIfSet(const char* key, const std::vector<T>& items, F&& fields, std::string_view part = {}) {
        if (!items.empty()) list(key, items, fields, part);
    }
    template <class E, std::size_t N>
    void enumIfSet(const char* key, E value, const std::pair<E, std::string_view> (&names)[N]) {
        for (const auto& [e, name] : names)
            if (e == value && value != E{}) out_[key] = name;
    }
    template <class T>
    void writeOnly(const char* key, const T& value) {
        field(key, value);
    }
    void writeOnlyNumber(const char* key, double value) { number(key, value); }
    bool present(const char*, bool whenWriting) const { return whenWriting; }
    template <class T, class Encode, class Decode>
    void custom(const char* key, const T& value, Encode&& encode, Decode&&) {
        out_[key] = encode(value);
    }

private:
    json& out_;
};

enum class ReadRule {
    Strict,   // a missing or mistyped field throws RecordError
    Lenient,  // it takes its default; an unusable required field makes ok() false
};

class JsonReader {
public:
    JsonReader(const json& in, std::string_view record, ReadRule rule = ReadRule::Strict)
        : in_(in), record_(record), rule_(rule) {
        if (!in_.is_object()) fail("not a JSON object");
    }

    // Lenient reading: false once a required field was missing or unusable.
    bool ok() const { return ok_; }
    // Lenient reading that says what it passed over: each field present with another type
    // than its list's (a nested object or list entry that is no object included) adds one
    // phrase to `problems`, `"steps" must be an integer (got "many")`, a nested field
    // named by its path ("lockstep.mode", "underflow[2]"). The values read are the same.
    void reportMistyped(std::vector<std::string>* problems) { problems_ = problems; }
    // For a custom field's decoder: its value is not of the shape it reads.
    void mistyped(const char* key, const json& v, const char* what) { wrong(key, v, what); }
    // Strict: throws RecordError("<record> record: <what>"); lenient: the record is unreadable.
    void fail(const std::string& what) {
        if (rule_ == ReadRule::Strict) throw RecordError(std::string(record_) + " record: " + what);
        ok_ = false;
    }

    void type(std::string_view name) {
        const json* v = find("type");
        if (!v) return missing("type");
        if (!v->is_string()) return fail("field \"type\" must be a string");
        if (v->get_ref<const std::string&>() != name)
            fail("\"type\" is \"" + v->get<std::string>() + "\"");
    }
    template <class T>
    void field(const char* key, T& value) {
        const json* v = find(key);
        if (!v) return missing(key);
        if (!read(key, *v, value)) ok_ = false;
    }
    template <class T, class U>
    void fieldOr(const char* key, T& value, const U& fallback) {
        const json* v = find(key);
        if (!v || !read(key, *v, value)) value = fallback;
    }
    template <class T>
    void fieldIfSet(const char* key, T& value) {
        fieldOr(key, value, T{});
    }
    void number(const char* key, double& value) { field(key, value); }
    void numberOr(const char* key, double& value, double fallback) { fieldOr(key, value, fallback); }
    template <class T>
    void optional(const char* key, std::optional<T>& value) {
        value.reset();
        const json* v = find(key);
        if (!v || v->is_null()) return;
        T t{};
        if (read(key, *v, t)) value = std::move(t);
    }
    template <class T, class F>
    void object(const char* key, T& value, F&& fields, std::string_view part = {}) {
        const json* v = find(key);
        if (!v) return missing(key);
        readObject(key, *v, value, fields, part);
    }
    template <class T, class F>
    void optionalObject(const char* key, std::optional<T>& value, F&& fields, std::string_view part = {}) {
        value.reset();
        const json* v = find(key);
        if (!v || v->is_null()) return;
        T t{};
        if (readObject(key, *v, t, fields, part)) value = std::move(t);
    }
    template <class T, class F>
    void nullableObject(const char* key, std::optional<T>& value, F&& fields, std::string_view part = {}) {
        optionalObject(key, value, fields, part);
    }
    template <class T, class F>
    void list(const char* key, std::vector<T>& items, F&& fields, std::string_view part = {}) {
        items.clear();
        const json* v = find(key);
        if (!v) return missing(key);
        readList(key, *v, items, fields, part);
    }
    template <class T, class F>
    void listOr(const char* key, std::vector<T>& items, F&& fields, std::string_view part = {}) {
        items.clear();
        if (const json* v = find(key)) readList(key, *v, items, fields, part);
    }
    template <class T, class F>
    void listIfSet(const char* key, std::vector<T>& items, F&& fields, std::string_view part = {}) {
        listOr(key, items, fields, part);
    }
    template <class E, std::size_t N>
    void enumIfSet(const char* key, E& value, const std::pair<E, std::string_view> (&names)[N]) {
        value = E{};
        const json* v = find(key);
        if (!v || !v->is_string()) return;
        for (const auto& [e, name] : names)
            if (v->get_ref<const std::string&>() == name) value = e;
    }
    template <class T>
    void writeOnly(const char*, const T&) {}
    void writeOnlyNumber(const char*, double) {}
    bool present(const char* key, bool) const {
        const json* v = find(key);
        return v && !v->is_null();
    }
    template <class T, class Encode, class Decode>
    void custom(const char* key, T& value, Encode&&, Decode&& decode) {
        const json* v = find(key);
        if (!v) {
            if (rule_ == ReadRule::Strict) missing(key);
            return;
        }
        decode(*v, value, *this);
    }

private:
    const json* find(const char* key) const {
        if (!in_.is_object()) return nullptr;
        const auto it = in_.find(key);
        return it == in_.end() ? nullptr : &*it;
    }
    void missing(const char* key) { fail(std::string("missing field \"") + key + "\""); }
    bool wrong(const char* key, const json& v, const char* what) {
        if (rule_ == ReadRule::Strict) fail(std::string("field \"") + key + "\" " + what);
        if (problems_) problems_->push_back("\"" + path_ + key + "\" " + what + " (got " + shortText(v) + ")");
        return false;
    }
    // A value as the file has it, cut short: a problem stays one readable line.
    static std::string shortText(const json& v) {
        constexpr std::size_t kLongest = 40;
        std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
        if (text.size() > kLongest) text = text.substr(0, kLongest) + "...";
        return text;
    }

    bool read(const char* key, const json& v, int64_t& out) {
        if (!v.is_number_integer()) return wrong(key, v, "must be an integer");
        out = saturatedInteger(v);
        return true;
    }
    bool read(const char* key, const json& v, int& out) {
        if (!v.is_number_integer()) return wrong(key, v, "must be an integer");
        out = saturatedInt(v);
        return true;
    }
    bool read(const char* key, const json& v, bool& out) {
        if (!v.is_boolean()) return wrong(key, v, "must be true or false");
        out = v.get<bool>();
        return true;
    }
    bool read(const char* key, const json& v, std::string& out) {
        if (!v.is_string()) return wrong(key, v, "must be a string");
        out = v.get<std::string>();
        return true;
    }
    // A number, or null (or, read leniently, anything else) under the non-finite rule.
    bool read(const char* key, const json& v, double& out) {
        if (!v.is_number() && !v.is_null()) {
            if (rule_ == ReadRule::Strict) return wrong(key, v, "must be a number or null");
            wrong(key, v, "must be a number or null");  // read as NaN all the same
        }
        out = numberFrom(in_, v, key);
        return true;
    }
    bool read(const char* key, const json& v, std::vector<int64_t>& out) {
        if (!v.is_array()) return wrong(key, v, "must be an array");
        out.clear();
        for (const auto& e : v) {
            if (!e.is_number_integer()) return wrong(key, v, "must hold integers");
            out.push_back(e.get<int64_t>());
        }
        return true;
    }
    bool read(const char* key, const json& v, std::vector<std::string>& out) {
        if (!v.is_array()) return wrong(key, v, "must be an array");
        out.clear();
        for (const auto& e : v) {
            if (!e.is_string()) return wrong(key, v, "must hold strings");
            out.push_back(e.get<std::string>());
        }
        return true;
    }
    bool read(const char* key, const json& v, std::map<std::string, int64_t>& out) {
        if (!v.is_object()) return wrong(key, v, "must be an object");
        out.clear();
        for (const auto& [name, count] : v.items()) {
            if (!count.is_number_integer()) {
                fail(std::string("field \"") + key + "\": \"" + name + "\" must be an integer");
                return false;
            }
            out[name] = count.get<int64_t>();
        }
        return true;
    }

    // A nested reader says its problems where this one does, its fields named by their path
    // (built only then: the hot records are read without reporting).
    static constexpr std::size_t kNoIndex = std::numeric_limits<std::size_t>::max();
    void nest(JsonReader& sub, const char* key, std::size_t index = kNoIndex) const {
        if (!problems_) return;
        sub.problems_ = problems_;
        sub.path_ = path_ + key;
        if (index != kNoIndex) sub.path_.append("[").append(std::to_string(index)).append("]");
        sub.path_.append(".");
    }

    template <class T, class F>
    bool readObject(const char* key, const json& v, T& value, F& fields, std::string_view part) {
        // Strictly, the nested reader refuses it in its own words.
        if (!v.is_object() && rule_ == ReadRule::Lenient) wrong(key, v, "must be an object");
        JsonReader sub(v, part.empty() ? record_ : part, rule_);
        nest(sub, key);
        if (sub.ok()) fields(sub, value);
        // Strictly, sub has thrown already; leniently, only this object is lost.
        return sub.ok();
    }
    template <class T, class F>
    void readList(const char* key, const json& v, std::vector<T>& items, F& fields, std::string_view part) {
        if (!v.is_array()) {
            wrong(key, v, "must be an array");
            return;
        }
        for (std::size_t i = 0; i < v.size(); ++i) {
            const json& entry = v[i];
            if (!entry.is_object() && rule_ == ReadRule::Lenient && problems_) {
                std::string at(key);
                at.append("[").append(std::to_string(i)).append("]");
                wrong(at.c_str(), entry, "must be an object");
            }
            T item{};
            JsonReader sub(entry, part.empty() ? record_ : part, rule_);
            nest(sub, key, i);
            if (sub.ok()) fields(sub, item);
            // Leniently, an entry that cannot be read is left out; the rest still count.
            if (sub.ok()) items.push_back(std::move(item));
        }
    }

    const json& in_;
    std::string_view record_;
    ReadRule rule_;
    bool ok_ = true;
    std::vector<std::string>* problems_ = nullptr;  // reportMistyped()
    std::string path_;                              // "parent." for a nested reader
};

// Encodes `value` with its field list.
template <class T, class F>
json encode(const T& value, F&& fields) {
    json out = json::object();
    JsonWriter w(out);
    fields(w, value);
    return out;
}

// Decodes strictly: throws RecordError naming `record` and the field.
template <class T, class F>
T decode(const json& in, std::string_view record, F&& fields) {
    T value{};
    JsonReader r(in, record, ReadRule::Strict);
    fields(r, value);
    return value;
}

// Decodes leniently: nullopt when a required field is missing or unusable.
template <class T, class F>
std::optional<T> decodeLenient(const json& in, std::string_view record, F&& fields) {
    T value{};
    JsonReader r(in, record, ReadRule::Lenient);
    if (r.ok()) fields(r, value);
    if (!r.ok()) return std::nullopt;
    return value;
}

}  // namespace record_codec
}  // namespace ampscope
