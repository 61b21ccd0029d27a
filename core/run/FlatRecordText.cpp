#include "run/FlatRecordText.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <system_error>

namespace ampscope::record_text {
namespace {

// Short keys differ early: a loop beats a call to memcmp.
inline bool sameText(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// <0, 0, >0 as a sorts before, with or after b, byte by byte (std::map's order of keys).
inline int compareText(std::string_view a, std::string_view b) {
    const std::size_t n = a.size() < b.size() ? a.size() : b.size();
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]) ? -1 : 1;
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

inline bool before(std::string_view a, std::string_view b) { return compareText(a, b) < 0; }

// Bytes a string holds as they are: printable ASCII but '"' and '\\'.
constexpr auto kPlainByte = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x7f; ++c) plain[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return plain;
}();

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }

// `"text"` at p: printable ASCII, no '"' or '\\' inside. p moves past the closing quote.
bool scanString(const char*& p, const char* end, std::string_view& out) {
    if (p == end || *p != '"') return false;
    const char* begin = ++p;
    while (p != end && kPlainByte[static_cast<unsigned char>(*p)]) ++p;
    if (p == end || *p != '"') return false;  // an escape, a control or non-ASCII byte
    out = std::string_view(begin, static_cast<std::size_t>(p - begin));
    ++p;
    return true;
}

// A JSON number at p: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. p moves past it.
// A number whose magnitude could pass double's range (the JSON parser refuses those)
// is refused too, so that the text path never accepts a line the JSON path does not.
bool scanNumber(const char*& p, const char* end, bool& isInteger) {
    constexpr long kSafeMagnitude = 290;  // decimal exponent, well inside double's 308
    const char* at = p;
    if (at != end && *at == '-') ++at;
    if (at == end) return false;
    long integerDigits = 0;
    if (*at == '0') {
        ++at;
    } else if (isDigit(*at)) {
        while (at != end && isDigit(*at)) ++at, ++integerDigits;
    } else {
        return false;
    }
    isInteger = true;
    if (at != end && *at == '.') {
        ++at;
        isInteger = false;
        if (at == end || !isDigit(*at)) return false;
        while (at != end && isDigit(*at)) ++at;
    }
    long exponent = 0;
    if (at != end && (*at == 'e' || *at == 'E')) {
        ++at;
        isInteger = false;
        bool negative = false;
        if (at != end && (*at == '+' || *at == '-')) negative = *at++ == '-';
        if (at == end || !isDigit(*at)) return false;
        while (at != end && isDigit(*at)) {
            if (exponent < 100000) exponent = exponent * 10 + (*at - '0');
            ++at;
        }
        if (negative) exponent = -exponent;
    }
    if (integerDigits + exponent >= kSafeMagnitude) return false;
    p = at;
    return true;
}

bool scanLiteral(const char*& p, const char* end, std::string_view word) {
    if (static_cast<std::size_t>(end - p) < word.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i)
        if (p[i] != word[i]) return false;
    p += word.size();
    return true;
}

bool scanValue(const char*& p, const char* end, FlatLine::Value& value) {
    if (p == end) return false;
    const char* begin = p;
    switch (*p) {
        case '"':
            value.kind = FlatLine::Kind::String;
            return scanString(p, end, value.text);
        case 't':
            value.kind = FlatLine::Kind::True;
            return scanLiteral(p, end, "true");
        case 'f':
            value.kind = FlatLine::Kind::False;
            return scanLiteral(p, end, "false");
        case 'n':
            value.kind = FlatLine::Kind::Null;
            return scanLiteral(p, end, "null");
        case '[': {
            // Numbers only: histogram bins, a list of counts.
            ++p;
            begin = p;
            if (p != end && *p == ']') {
                value = {FlatLine::Kind::Array, std::string_view(begin, 0)};
                ++p;
                return true;
            }
            for (;;) {
                bool isInteger = false;
                if (!scanNumber(p, end, isInteger) || p == end) return false;
                if (*p == ']') break;
                if (*p != ',') return false;
                ++p;
            }
            value = {FlatLine::Kind::Array, std::string_view(begin, static_cast<std::size_t>(p - begin))};
            ++p;
            return true;
        }
        default: {
            bool isInteger = false;
            if (!scanNumber(p, end, isInteger)) return false;
            value = {isInteger ? FlatLine::Kind::Integer : FlatLine::Kind::Float,
                     std::string_view(begin, static_cast<std::size_t>(p - begin))};
            return true;
        }
    }
}

// An integer token (already checked) as int64_t; nullopt beyond its range, where JSON
// makes an unsigned or a double of it.
std::optional<std::int64_t> integerToken(std::string_view token) {
    // Up to 18 digits cannot overflow: summed here (most tokens are one or two digits).
    const bool negative = !token.empty() && token.front() == '-';
    const std::size_t digits = token.size() - (negative ? 1 : 0);
    if (digits >= 1 && digits <= 18) {
        std::int64_t sum = 0;
        for (std::size_t i = negative ? 1 : 0; i < token.size(); ++i) sum = sum * 10 + (token[i] - '0');
        return negative ? -sum : sum;
    }
    std::int64_t value = 0;
    const auto got = std::from_chars(token.data(), token.data() + token.size(), value);
    if (got.ec != std::errc() || got.ptr != token.data() + token.size()) return std::nullopt;
    return value;
}

std::optional<double> floatToken(std::string_view token) {
    double value = 0.0;
    // Correctly rounded, as the JSON parser's strtod; out of double's range (which the
    // JSON parser refuses or reads as zero) is left to it.
    const auto got = std::from_chars(token.data(), token.data() + token.size(), value);
    if (got.ec != std::errc() || got.ptr != token.data() + token.size()) return std::nullopt;
    return value;
}

// Calls visit(token, isInteger) for each number of an array's inside.
template <class Visit>
bool forEachNumber(std::string_view inside, Visit&& visit) {
    const char* p = inside.data();
    const char* end = p + inside.size();
    while (p != end) {
        const char* begin = p;
        bool isInteger = false;
        if (!scanNumber(p, end, isInteger)) return false;
        if (!visit(std::string_view(begin, static_cast<std::size_t>(p - begin)), isInteger)) return false;
        if (p != end) ++p;  // the comma (split checked the shape)
    }
    return true;
}

}  // namespace

bool takeNumber(std::string_view& text, FlatLine::Value& value) {
    const char* p = text.data();
    const char* end = p + text.size();
    bool isInteger = false;
    if (!scanNumber(p, end, isInteger)) return false;
    const auto length = static_cast<std::size_t>(p - text.data());
    value = {isInteger ? FlatLine::Kind::Integer : FlatLine::Kind::Float, text.substr(0, length)};
    text.remove_prefix(length);
    return true;
}

bool FlatLine::split(std::string_view line) {
    count_ = 0;
    cursor_ = 0;
    typeIndex_ = -1;
    const char* p = line.data();
    const char* end = p + line.size();
    if (p == end || *p != '{') return false;
    ++p;
    if (p != end && *p == '}') return p + 1 == end;
    for (;;) {
        if (count_ == kMaxKeys) return false;
        Pair& pair = pairs_[count_];
        if (!scanString(p, end, pair.key) || p == end || *p != ':') return false;
        ++p;
        if (!scanValue(p, end, pair.value) || p == end) return false;
        if (count_ > 0 && !before(pairs_[count_ - 1].key, pair.key)) return false;
        if (sameText(pair.key, "type")) typeIndex_ = count_;
        ++count_;
        if (*p == '}') return p + 1 == end;
        if (*p != ',') return false;
        ++p;
    }
}

std::string_view FlatLine::type() const {
    if (typeIndex_ < 0) return {};
    const Value& v = pairs_[typeIndex_].value;
    return v.kind == Kind::String ? v.text : std::string_view();
}

const FlatLine::Value* FlatLine::find(std::string_view key) const {
    // Field lists mostly ask in key order: nearly always the key at the cursor, or one a
    // little after it.
    int high = count_;
    if (cursor_ < count_) {
        int order = compareText(pairs_[cursor_].key, key);
        if (order == 0) return &pairs_[cursor_++].value;
        if (order < 0) {
            int at = cursor_ + 1;
            while (at < count_ && (order = compareText(pairs_[at].key, key)) < 0) ++at;
            cursor_ = at;
            if (at == count_ || order > 0) return nullptr;
            ++cursor_;
            return &pairs_[at].value;
        }
        high = cursor_;  // it sorts before the cursor
    }
    const int limit = high;
    int low = 0;
    while (low < high) {
        const int middle = (low + high) / 2;
        if (before(pairs_[middle].key, key))
            low = middle + 1;
        else
            high = middle;
    }
    if (low == limit || !sameText(pairs_[low].key, key)) return nullptr;
    cursor_ = low + 1;
    return &pairs_[low].value;
}

const FlatLine::Value* FlatLine::find(std::string_view prefix, std::string_view suffix) const {
    const std::size_t length = prefix.size() + suffix.size();
    for (int i = 0; i < count_; ++i) {
        const std::string_view key = pairs_[i].key;
        if (key.size() == length && sameText(key.substr(0, prefix.size()), prefix) &&
            sameText(key.substr(prefix.size()), suffix))
            return &pairs_[i].value;
    }
    return nullptr;
}

std::optional<std::int64_t> integerOf(const FlatLine::Value& value) {
    if (value.kind != FlatLine::Kind::Integer) return std::nullopt;
    return integerToken(value.text);
}

std::optional<double> doubleOf(const FlatLine::Value& value) {
    if (value.kind == FlatLine::Kind::Integer) {
        const auto integer = integerToken(value.text);
        if (!integer) return std::nullopt;
        return static_cast<double>(*integer);
    }
    if (value.kind == FlatLine::Kind::Float) return floatToken(value.text);
    return std::nullopt;
}

bool NumberList::read(std::string_view inside) {
    // split() checked every token's grammar; this pass only converts. Histogram bins are
    // mostly short integers, summed digit by digit.
    items_.clear();
    const char* p = inside.data();
    const char* end = p + inside.size();
    while (p != end) {
        const char* begin = p;
        const bool negative = *p == '-';
        if (negative) ++p;
        const char* digits = p;
        // Unsigned, so that a number too long for the sum wraps instead of overflowing
        // (undefined); such a number (over 18 digits) is read again below, whole.
        std::uint64_t sum = 0;
        while (p != end && isDigit(*p)) sum = sum * 10 + static_cast<std::uint64_t>(*p++ - '0');
        Item item{true, 0, 0.0};
        if (p != end && (*p == '.' || *p == 'e' || *p == 'E')) {
            while (p != end && *p != ',') ++p;
            const auto number = floatToken(std::string_view(begin, static_cast<std::size_t>(p - begin)));
            if (!number) return false;
            item.integer = false;
            item.number = *number;
        } else if (p - digits > 18) {
            const auto integer = integerToken(std::string_view(begin, static_cast<std::size_t>(p - begin)));
            if (!integer) return false;
            item.whole = *integer;
            item.number = static_cast<double>(*integer);
        } else {
            item.whole = negative ? -static_cast<std::int64_t>(sum) : static_cast<std::int64_t>(sum);
            item.number = static_cast<double>(item.whole);
        }
        items_.push_back(item);
        if (p != end) ++p;  // the comma
    }
    return true;
}

namespace {

// A number as nlohmann types it (unsigned when not negative), or nothing when the text
// path cannot be sure to give the parser's value.
bool numberJson(std::string_view token, bool isInteger, nlohmann::json& out) {
    if (isInteger) {
        const auto integer = integerToken(token);
        if (!integer) return false;
        if (token.front() != '-')  // "-0" is a signed zero to the parser
            out = static_cast<std::uint64_t>(*integer);
        else
            out = *integer;
        return true;
    }
    const auto number = floatToken(token);
    if (!number) return false;
    out = *number;
    return true;
}

bool valueJson(const FlatLine::Value& v, nlohmann::json& out) {
    switch (v.kind) {
        case FlatLine::Kind::Integer:
            return numberJson(v.text, true, out);
        case FlatLine::Kind::Float:
            return numberJson(v.text, false, out);
        case FlatLine::Kind::Null:
            out = nullptr;
            return true;
        case FlatLine::Kind::True:
            out = true;
            return true;
        case FlatLine::Kind::False:
            out = false;
            return true;
        case FlatLine::Kind::String:
            out = std::string(v.text);
            return true;
        case FlatLine::Kind::Array: {
            nlohmann::json::array_t items;
            items.reserve(static_cast<std::size_t>(std::count(v.text.begin(), v.text.end(), ',')) + 1);
            const char* p = v.text.data();
            const char* end = p + v.text.size();
            while (p != end) {
                const char* begin = p;
                bool isInteger = false;
                if (!scanNumber(p, end, isInteger)) return false;
                nlohmann::json item;
                if (!numberJson(std::string_view(begin, static_cast<std::size_t>(p - begin)), isInteger, item))
                    return false;
                items.push_back(std::move(item));
                if (p != end) ++p;
            }
            out = std::move(items);
            return true;
        }
    }
    return false;
}

}  // namespace

bool toJson(const FlatLine& line, nlohmann::json& out) {
    out = nlohmann::json::object();
    auto& object = *out.get_ptr<nlohmann::json::object_t*>();
    for (int i = 0; i < line.size(); ++i) {
        nlohmann::json value;
        if (!valueJson(line.valueAt(i), value)) return false;
        // The keys rise (split checked): each goes at the end of the map.
        object.emplace_hint(object.end(), std::string(line.keyAt(i)), std::move(value));
    }
    return true;
}

bool FlatReader::read(std::string_view, const FlatLine::Value& v, std::int64_t& out) {
    if (v.kind != FlatLine::Kind::Integer) return wrong();
    const auto integer = integerOf(v);
    if (!integer) {
        ok_ = false;  // an unsigned to JSON: its reading is the JSON path's
        return false;
    }
    out = *integer;
    return true;
}

bool FlatReader::read(std::string_view key, const FlatLine::Value& v, int& out) {
    std::int64_t wide = 0;
    if (!read(key, v, wide)) return false;
    out = static_cast<int>(wide);  // as get<int>() narrows
    return true;
}

bool FlatReader::read(std::string_view, const FlatLine::Value& v, bool& out) {
    if (v.kind != FlatLine::Kind::True && v.kind != FlatLine::Kind::False) return wrong();
    out = v.kind == FlatLine::Kind::True;
    return true;
}

bool FlatReader::read(std::string_view, const FlatLine::Value& v, std::string& out) {
    if (v.kind != FlatLine::Kind::String) return wrong();
    out.assign(v.text.data(), v.text.size());
    return true;
}

// record_codec::numberFrom's rule: a number as it is, anything else by its tag.
bool FlatReader::read(std::string_view key, const FlatLine::Value& v, double& out) {
    const bool isNumber = v.kind == FlatLine::Kind::Integer || v.kind == FlatLine::Kind::Float;
    if (!isNumber && v.kind != FlatLine::Kind::Null && rule_ == ReadRule::Strict) return wrong();
    if (isNumber) {
        const auto number = doubleOf(v);
        if (!number) {
            ok_ = false;
            return false;
        }
        out = *number;
        return true;
    }
    const FlatLine::Value* tag = line_.find(key, record_codec::kNonFiniteSuffix);
    out = tag && tag->kind == FlatLine::Kind::String ? record_codec::valueOfNonFiniteTag(tag->text)
                                                     : std::numeric_limits<double>::quiet_NaN();
    return true;
}

bool FlatReader::read(std::string_view, const FlatLine::Value& v, std::vector<std::int64_t>& out) {
    if (v.kind != FlatLine::Kind::Array) return wrong();
    out.clear();
    bool wrongKind = false;
    const bool read = forEachNumber(v.text, [&](std::string_view token, bool isInteger) {
        if (!isInteger) {
            wrongKind = true;
            return false;
        }
        const auto integer = integerToken(token);
        if (!integer) return false;
        out.push_back(*integer);
        return true;
    });
    if (wrongKind) return wrong();
    if (!read) ok_ = false;
    return read;
}

bool FlatReader::read(std::string_view, const FlatLine::Value&, std::map<std::string, std::int64_t>&) {
    return wrong();  // an object: never in a flat line
}

}  // namespace ampscope::record_text
