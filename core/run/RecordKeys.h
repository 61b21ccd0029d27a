#pragma once
// Plain (no torch). A third visitor of the record field lists (run/RecordCodec.h), next
// to the JSON writer and reader: it collects each record's keys and how its reader
// takes them, so that a writer outside C++ (the Python recorder, python/ampscope) can
// be checked against the one definition (tests/tools/record_vocabulary.cpp prints them).
//
// keysOf<T>(fields) describes one record as a JSON object, key -> {
//   "read":     "required"     the reader refuses (strict) or drops (lenient) a record
//                              without it: v.type, field, number, object, list
//               "optional"     absent reads as a default: fieldOr, fieldIfSet, numberOr,
//                              optional, optionalObject, nullableObject, listOr,
//                              listIfSet, enumIfSet, custom, and the keys a field list
//                              reads only when v.present() says so
//               "written only" the reader does not read it: writeOnly
//   "nonfinite": true          a number under the non-finite rule ("<key>_nonfinite")
//   "fields":    {...}         a nested object's keys, or those of a list's entries
//   "list":      true          an array of such objects
// }
// A field list is visited on default values: a key written only for some values (an
// op_dtypes op's "emulated_as", only for emulated ops) does not show.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ampscope::record_codec {

class KeyCollector {
public:
    void type(std::string_view) { put("type", kRequired); }
    template <class T>
    void field(const char* key, const T&) {
        put(key, kRequired);
    }
    template <class T, class U>
    void fieldOr(const char* key, const T&, const U&) {
        put(key, kOptional);
    }
    template <class T>
    void fieldIfSet(const char* key, const T&) {
        put(key, kOptional);
    }
    void number(const char* key, double) { put(key, kRequired)["nonfinite"] = true; }
    void numberOr(const char* key, double, double) { put(key, kOptional)["nonfinite"] = true; }
    template <class T>
    void optional(const char* key, const std::optional<T>&) {
        put(key, kOptional);
    }
    template <class T, class F>
    void object(const char* key, const T& value, F&& fields, std::string_view = {}) {
        nested(key, kRequired, value, fields);
    }
    template <class T, class F>
    void optionalObject(const char* key, const std::optional<T>&, F&& fields, std::string_view = {}) {
        nested(key, kOptional, T{}, fields);
    }
    template <class T, class F>
    void nullableObject(const char* key, const std::optional<T>&, F&& fields, std::string_view = {}) {
        nested(key, kOptional, T{}, fields);
    }
    template <class T, class F>
    void list(const char* key, const std::vector<T>&, F&& fields, std::string_view = {}) {
        nested(key, kRequired, T{}, fields)["list"] = true;
    }
    template <class T, class F>
    void listOr(const char* key, const std::vector<T>&, F&& fields, std::string_view = {}) {
        nested(key, kOptional, T{}, fields)["list"] = true;
    }
    template <class T, class F>
    void listIfSet(const char* key, const std::vector<T>& items, F&& fields, std::string_view part = {}) {
        listOr(key, items, fields, part);
    }
    template <class E, class Names>
    void enumIfSet(const char* key, E, const Names&) {
        put(key, kOptional);
    }
    template <class T>
    void writeOnly(const char* key, const T&) {
        put(key, kWrittenOnly);
    }
    void writeOnlyNumber(const char* key, double) { put(key, kWrittenOnly)["nonfinite"] = true; }
    // Visited both ways (collect): the keys listed only when present() answers true
    // are read only when they are there.
    bool present(const char*, bool) const { return presentAnswer_; }
    template <class T, class Encode, class Decode>
    void custom(const char* key, const T&, Encode&&, Decode&&) {
        put(key, kOptional);
    }

    // The keys of `fields` visited on `value`.
    template <class T, class F>
    static nlohmann::json collect(F&& fields, const T& value) {
        KeyCollector all(true), unconditional(false);
        fields(all, value);
        fields(unconditional, value);
        nlohmann::json keys = std::move(all.keys_);
        for (auto& [key, entry] : keys.items())
            if (!unconditional.keys_.contains(key) && entry["read"] == kRequired) entry["read"] = kOptional;
        return keys;
    }

private:
    explicit KeyCollector(bool presentAnswer) : presentAnswer_(presentAnswer) {}

    static constexpr const char* kRequired = "required";
    static constexpr const char* kOptional = "optional";
    static constexpr const char* kWrittenOnly = "written only";

    nlohmann::json& put(const char* key, const char* read) {
        nlohmann::json& entry = keys_[key];
        entry["read"] = read;
        return entry;
    }
    template <class T, class F>
    nlohmann::json& nested(const char* key, const char* read, const T& value, F& fields) {
        nlohmann::json& entry = put(key, read);
        entry["fields"] = collect(fields, value);
        return entry;
    }

    bool presentAnswer_;
    nlohmann::json keys_ = nlohmann::json::object();
};

// The keys of the record whose field list is `fields`, visited on a T{}.
template <class T, class F>
nlohmann::json keysOf(F&& fields) {
    const T value{};
    return KeyCollector::collect(fields, value);
}

}  // namespace ampscope::record_codec
