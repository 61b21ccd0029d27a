#pragma once
// Plain (no torch). Reading the common records of events.jsonl straight from their text,
// without building JSON: another visitor of a record's one field list (RecordCodec.h), so
// it reads exactly what JsonReader reads from the parsed line.
//
// Why: a run of 10^6 steps is 10^6 step lines and ~650,000 probe records, and building an
// nlohmann::json object for each (a map node per key, a value per histogram bin, and as
// much again to destroy it) costs several times the line itself; the window opens many
// such runs at once.
//
// FlatLine::split(line) accepts a line only when it is one flat JSON object as this
// program's writers write it: keys in strictly rising byte order (nlohmann and the
// Python recorder sort them; this also rules out a key written twice), no whitespace,
// strings of printable ASCII without escapes, and values that are strings, numbers,
// true, false, null or arrays of numbers. Every number is checked against JSON's grammar
// when the line is split, and one whose magnitude might pass double's range (which the
// JSON parser refuses) is not accepted either, so a line the JSON parser would refuse is
// never accepted here.
//
// decodeFlat(line, record, rule, fields, out) reads the field list from a split line.
// It returns true with `out` filled exactly as JsonReader would fill it under `rule`
// (defaults, the non-finite rule's tags, int truncation), and false whenever the text
// path cannot be sure of that: a value the JSON path reads differently (an integer
// beyond int64, a number out of double's range), a nested object, or a record the JSON
// reader would refuse or read as unusable. The caller then parses the line as JSON,
// which gives the same result slowly, or the same error.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "run/RecordCodec.h"

namespace ampscope::record_text {

class FlatLine {
public:
    enum class Kind : std::uint8_t { Integer, Float, Null, True, False, String, Array };
    struct Value {
        Kind kind;
        std::string_view text;  // a number's token, a string without quotes, an array's inside
    };

    // False when the line is not a flat object as above (or has more than kMaxKeys keys).
    bool split(std::string_view line);
    // "type"'s string; empty when there is none.
    std::string_view type() const;

    // The value under key. Field lists ask in key order, so a sorted line is walked
    // forward from the last find.
    const Value* find(std::string_view key) const;
    // The value under prefix + suffix (a "<key>_nonfinite" tag), anywhere in the line.
    const Value* find(std::string_view prefix, std::string_view suffix) const;

    static constexpr int kMaxKeys = 48;
    int size() const { return count_; }
    std::string_view keyAt(int i) const { return pairs_[i].key; }
    const Value& valueAt(int i) const { return pairs_[i].value; }

private:
    struct Pair {
        std::string_view key;
        Value value;
    };
    Pair pairs_[kMaxKeys];
    int count_ = 0;
    int typeIndex_ = -1;
    mutable int cursor_ = 0;
};

// An array of numbers from a flat line with the accessors of a JSON array that a field
// list's custom decoder uses (is_array, size, [i].is_number_integer(), [i].get<T>()), so
// that one generic decoder (`const auto& value`) serves both readers.
class NumberList {
public:
    struct Item {
        bool integer;
        std::int64_t whole;
        double number;
        bool is_number() const { return true; }
        bool is_number_integer() const { return integer; }
        template <class T>
        T get() const {
            if constexpr (std::is_integral_v<T>)
                return static_cast<T>(whole);
            else
                return static_cast<T>(number);
        }
    };
    // False when an item is a number the JSON path reads otherwise (see above).
    bool read(std::string_view inside);
    bool is_array() const { return true; }
    std::size_t size() const { return items_.size(); }
    const Item& operator[](std::size_t i) const { return items_[i]; }

private:
    std::vector<Item> items_;
};

// The number at the start of `text` (JSON's grammar, kept inside double's range as
// split() keeps them) as a Value; text moves past it. False when there is none.
bool takeNumber(std::string_view& text, FlatLine::Value& value);

// The number a value holds as JSON would give it to get<int64_t>() / get<double>();
// nullopt when the text path cannot match the JSON path (see above).
std::optional<std::int64_t> integerOf(const FlatLine::Value& value);
std::optional<double> doubleOf(const FlatLine::Value& value);

// The split line as the JSON value nlohmann's parser makes of the same text (numbers
// typed as it types them: a non-negative integer unsigned, a negative one signed, others
// double), built without the parser's lexing: the records no field list reads here
// (format sweeps, update ratios, ...) still come to their readers as JSON, sooner. False
// when a number is one the text path leaves to the parser (see above).
bool toJson(const FlatLine& line, nlohmann::json& out);

// A field-list visitor over a split line (the calls of RecordCodec.h's JsonReader).
class FlatReader {
public:
    using ReadRule = record_codec::ReadRule;
    FlatReader(const FlatLine& line, ReadRule rule) : line_(line), rule_(rule) {}

    // False once the text path cannot give JsonReader's result (the caller parses JSON).
    bool ok() const { return ok_; }
    void fail(const std::string&) { ok_ = false; }

    void type(std::string_view name) {
        const FlatLine::Value* v = line_.find("type");
        if (!v || v->kind != FlatLine::Kind::String || v->text != name) ok_ = false;
    }
    template <class T>
    void field(std::string_view key, T& value) {
        const FlatLine::Value* v = line_.find(key);
        if (!v || !read(key, *v, value)) ok_ = false;  // missing, or unusable: JSON's verdict
    }
    template <class T, class U>
    void fieldOr(std::string_view key, T& value, const U& fallback) {
        const FlatLine::Value* v = line_.find(key);
        if (!v || !read(key, *v, value)) value = fallback;
    }
    template <class T>
    void fieldIfSet(std::string_view key, T& value) {
        fieldOr(key, value, T{});
    }
    void number(std::string_view key, double& value) { field(key, value); }
    void numberOr(std::string_view key, double& value, double fallback) { fieldOr(key, value, fallback); }
    template <class T>
    void optional(std::string_view key, std::optional<T>& value) {
        value.reset();
        const FlatLine::Value* v = line_.find(key);
        if (!v || v->kind == FlatLine::Kind::Null) return;
        T t{};
        if (read(key, *v, t)) value = std::move(t);
    }
    // Nested objects and lists of objects: a flat line has none, so the field is absent
    // or of another kind. Absent where that is allowed reads as JSON reads it; anything
    // else is left to the JSON path.
    template <class T, class F>
    void object(std::string_view, T&, F&&, std::string_view = {}) {
        ok_ = false;
    }
    template <class T, class F>
    void optionalObject(std::string_view key, std::optional<T>& value, F&&, std::string_view = {}) {
        value.reset();
        absentOrNull(key);
    }
    template <class T, class F>
    void nullableObject(std::string_view key, std::optional<T>& value, F&&, std::string_view = {}) {
        value.reset();
        absentOrNull(key);
    }
    template <class T, class F>
    void list(std::string_view, std::vector<T>&, F&&, std::string_view = {}) {
        ok_ = false;
    }
    template <class T, class F>
    void listOr(std::string_view key, std::vector<T>& items, F&&, std::string_view = {}) {
        items.clear();
        if (line_.find(key)) ok_ = false;
    }
    template <class T, class F>
    void listIfSet(std::string_view key, std::vector<T>& items, F&& fields, std::string_view part = {}) {
        listOr(key, items, fields, part);
    }
    template <class E, std::size_t N>
    void enumIfSet(std::string_view key, E& value, const std::pair<E, std::string_view> (&names)[N]) {
        value = E{};
        const FlatLine::Value* v = line_.find(key);
        if (!v || v->kind != FlatLine::Kind::String) return;
        for (const auto& [e, name] : names)
            if (v->text == name) value = e;
    }
    template <class T>
    void writeOnly(std::string_view, const T&) {}
    void writeOnlyNumber(std::string_view, double) {}
    bool present(std::string_view key, bool) const {
        const FlatLine::Value* v = line_.find(key);
        return v && v->kind != FlatLine::Kind::Null;
    }
    template <class T, class Encode, class Decode>
    void custom(std::string_view key, T& value, Encode&&, Decode&& decode) {
        const FlatLine::Value* v = line_.find(key);
        if (!v) {
            if (rule_ == ReadRule::Strict) ok_ = false;
            return;
        }
        // Only arrays of numbers (histogram bins); any other custom value goes the JSON way.
        // One list per thread, kept: a long run reads hundreds of thousands of them.
        thread_local NumberList list;
        if (v->kind != FlatLine::Kind::Array || !list.read(v->text)) {
            ok_ = false;
            return;
        }
        decode(list, value, *this);
    }

private:
    void absentOrNull(std::string_view key) {
        const FlatLine::Value* v = line_.find(key);
        if (v && v->kind != FlatLine::Kind::Null) ok_ = false;
    }
    // Each read returns false where JsonReader's would (a wrong kind), and leaves the text
    // path (ok_ = false) where JsonReader would read a value the text path cannot give.
    bool wrong() {
        if (rule_ == ReadRule::Strict) ok_ = false;
        return false;
    }
    bool read(std::string_view, const FlatLine::Value& v, std::int64_t& out);
    bool read(std::string_view key, const FlatLine::Value& v, int& out);
    bool read(std::string_view, const FlatLine::Value& v, bool& out);
    bool read(std::string_view, const FlatLine::Value& v, std::string& out);
    bool read(std::string_view key, const FlatLine::Value& v, double& out);
    bool read(std::string_view, const FlatLine::Value& v, std::vector<std::int64_t>& out);
    bool read(std::string_view, const FlatLine::Value& v, std::map<std::string, std::int64_t>& out);

    const FlatLine& line_;
    ReadRule rule_;
    bool ok_ = true;
};

// Reads `out` from a split line with its field list; see the contract above.
template <class T, class F>
bool decodeFlat(const FlatLine& line, record_codec::ReadRule rule, F&& fields, T& out) {
    T value{};
    FlatReader reader(line, rule);
    fields(reader, value);
    if (!reader.ok()) return false;
    out = std::move(value);
    return true;
}

}  // namespace ampscope::record_text
