#include "data/SafetensorsFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <tuple>
#include <utility>

#include "common/InputError.h"
#include "common/JsonNesting.h"
#include "config/ConfigText.h"

namespace ampscope {
namespace {

using nlohmann::json;

// The file is little-endian; its bytes go straight into tensors, so the host must be too.
static_assert(std::endian::native == std::endian::little,
              "SafetensorsFile reads little-endian elements without swapping");

constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
// How much of nlohmann's own description of a syntax error a message keeps: its "last
// read" token can be a whole string literal, megabytes long.
constexpr std::size_t kMaxParseDetail = 120;

struct DtypeSize {
    std::string_view name;
    std::size_t bytes;
};

// The reference implementation's whole-byte dtypes (safetensors/src/tensor.rs, Dtype).
constexpr DtypeSize kDtypes[] = {
    {"BOOL", 1}, {"U8", 1},      {"I8", 1},      {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"F8_E8M0", 1},
    {"I16", 2},  {"U16", 2},     {"F16", 2},     {"BF16", 2},    {"I32", 4},     {"U32", 4},
    {"F32", 4},  {"F64", 8},     {"I64", 8},     {"U64", 8},     {"C64", 8},
};

std::size_t dtypeSize(const std::string& name) {
    for (const DtypeSize& dtype : kDtypes)
        if (dtype.name == name) return dtype.bytes;
    return 0;
}

std::string got(const json& value) { return " (got " + config_text::describe(value) + ")"; }

// Appended piece by piece: "[" + std::to_string(...) trips GCC 12's -Wrestrict.
std::string range(uint64_t begin, uint64_t end) {
    std::string text = "[";
    text += std::to_string(begin);
    text += ", ";
    text += std::to_string(end);
    return text + ")";
}

std::string shapeText(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) text += ", ";
        text += std::to_string(shape[i]);
    }
    return text + "]";
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1, column 5:
// syntax error ...": the position is given separately (in bytes of the header), so keep
// what follows it, printable ASCII only and cut short, so the message stays one clean line.
std::string parseDetail(const std::string& what) {
    std::string detail = what;
    if (const auto column = detail.find("column "); column != std::string::npos) {
        if (const auto colon = detail.find(": ", column); colon != std::string::npos)
            detail.erase(0, colon + 2);
    } else if (const auto bracket = detail.find("] "); bracket != std::string::npos) {
        detail.erase(0, bracket + 2);
    }
    for (char& c : detail)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    if (detail.size() > kMaxParseDetail) detail = detail.substr(0, kMaxParseDetail - 3) + "...";
    return detail;
}

// An integer >= 0 that fits int64 (shape dimensions, offsets), or false. JSON has no
// integer type: nlohmann reads 3 as unsigned, -3 as integer, 3.0 as float; like the
// reference (serde's usize), only the first is a count.
bool countFrom(const json& value, uint64_t& out) {
    if (!value.is_number_unsigned()) return false;
    out = value.get<uint64_t>();
    return out <= kInt64Max;
}

}  // namespace

int64_t SafetensorsEntry::numel() const {
    int64_t count = 1;
    for (const int64_t dim : shape) count *= dim;
    return count;
}

std::string quotedTensorName(const std::string& name) { return config_text::describe(json(name)); }

SafetensorsFile::SafetensorsFile(std::string path) : path_(std::move(path)) {
    // O_NONBLOCK: a FIFO named as data.path must not hang the open; it is refused below.
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) fail(std::string("cannot open (") + std::strerror(errno) + ")");
    try {
        struct stat info {};
        if (::fstat(fd_, &info) != 0) fail(std::string("cannot open (") + std::strerror(errno) + ")");
        if (S_ISDIR(info.st_mode)) fail(std::string("cannot open (") + std::strerror(EISDIR) + ")");
        if (!S_ISREG(info.st_mode)) fail("not a regular file");
        fileSize_ = static_cast<uint64_t>(info.st_size);
        readHeader();
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

SafetensorsFile::~SafetensorsFile() {
    if (fd_ >= 0) ::close(fd_);
}

void SafetensorsFile::fail(const std::string& problem) const {
    throw InputError(path_ + ": " + problem);
}

const SafetensorsEntry* SafetensorsFile::find(const std::string& name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? nullptr : &entries_[it->second];
}

std::string SafetensorsFile::describeNames(std::size_t shown) const {
    if (entries_.empty()) return "no tensors";
    std::string text;
    for (std::size_t i = 0; i < entries_.size() && i < shown; ++i)
        text += (i ? ", " : "") + quotedTensorName(entries_[i].name);
    if (entries_.size() > shown)
        text += ", ... (" + std::to_string(entries_.size()) + " tensors)";
    return text;
}

void SafetensorsFile::read(const SafetensorsEntry& entry, void* out) const {
    auto* bytes = static_cast<unsigned char*>(out);
    const uint64_t total = entry.byteCount();
    uint64_t done = 0;
    while (done < total) {
        // Linux caps one read near 2 GiB; loop so any size works.
        const auto ask = static_cast<std::size_t>(std::min<uint64_t>(total - done, uint64_t{1} << 30));
        const ssize_t got =
            ::pread(fd_, bytes + done, ask, static_cast<off_t>(dataStart() + entry.begin + done));
        if (got < 0) {
            if (errno == EINTR) continue;
            fail("read error in tensor " + quotedTensorName(entry.name) + " (" +
                 std::strerror(errno) + ")");
        }
        if (got == 0)
            fail("ended inside tensor " + quotedTensorName(entry.name) +
                 " (the file changed after its header was read)");
        done += static_cast<uint64_t>(got);
    }
}

void SafetensorsFile::readHeader() {
    if (fileSize_ < 8)
        fail(std::to_string(fileSize_) +
             " bytes, too short for a safetensors file (it begins with an 8-byte header length)");
    unsigned char prefix[8];
    if (::pread(fd_, prefix, 8, 0) != 8) fail(std::string("cannot read (") + std::strerror(errno) + ")");
    uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | prefix[i];
    // Against the file first: every later size is bounded by what the file holds.
    if (length > fileSize_ - 8)
        fail("header length " + std::to_string(length) + " is beyond the file (" +
             std::to_string(fileSize_) + " bytes)");
    if (length > kSafetensorsMaxHeaderBytes)
        fail("header length " + std::to_string(length) + " is above the format's limit of " +
             std::to_string(kSafetensorsMaxHeaderBytes) + " bytes");
    headerBytes_ = length;

    std::string text(static_cast<std::size_t>(length), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t got = ::pread(fd_, text.data() + done, text.size() - done,
                                    static_cast<off_t>(8 + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) fail("cannot read the header (the file changed while it was read)");
        done += static_cast<std::size_t>(got);
    }

    json header;
    try {
        header = json::parse(text);
    } catch (const json::parse_error& error) {
        // error.byte counts from 1 and points at the character that broke the parse.
        fail("header is not JSON (byte " + std::to_string(error.byte > 0 ? error.byte - 1 : 0) +
             " of the header: " + parseDetail(error.what()) + ")");
    } catch (const json::exception& error) {
        fail("header is not JSON (" + parseDetail(error.what()) + ")");
    }
    // Parsed first so that a syntax error reads as one; then no deeper than quoting a value
    // in a message (dump() recurses) can go.
    if (const std::size_t at = findExcessJsonNesting(text); at != std::string_view::npos)
        fail("header is nested deeper than " + std::to_string(kMaxJsonNesting) + " levels (byte " +
             std::to_string(at) + " of the header)");
    if (!header.is_object()) fail("header is not a JSON object" + got(header));

    const uint64_t dataBytes = dataSize();
    for (const auto& item : header.items()) {
        const std::string& name = item.key();
        const json& value = item.value();
        if (name == "__metadata__") {
            if (!value.is_object()) fail("__metadata__ must be an object of strings" + got(value));
            for (const auto& pair : value.items()) {
                if (!pair.value().is_string())
                    fail("__metadata__ " + quotedTensorName(pair.key()) + " must be a string" +
                         got(pair.value()));
                metadata_[pair.key()] = pair.value().get<std::string>();
            }
            continue;
        }
        const std::string tensor = "tensor " + quotedTensorName(name) + ": ";
        if (!value.is_object())
            fail(tensor + "expected an object with dtype, shape and data_offsets" + got(value));

        SafetensorsEntry entry;
        entry.name = name;
        const auto dtype = value.find("dtype");
        if (dtype == value.end()) fail(tensor + "no dtype");
        if (!dtype->is_string()) fail(tensor + "dtype must be a string" + got(*dtype));
        entry.dtype = dtype->get<std::string>();
        entry.elementSize = dtypeSize(entry.dtype);
        if (entry.elementSize == 0) fail(tensor + "unknown dtype " + quotedTensorName(entry.dtype));

        const auto shape = value.find("shape");
        if (shape == value.end()) fail(tensor + "no shape");
        if (!shape->is_array()) fail(tensor + "shape must be an array of integers" + got(*shape));
        if (shape->size() > kSafetensorsMaxDims)
            fail(tensor + "shape has " + std::to_string(shape->size()) +
                 " dimensions (at most " + std::to_string(kSafetensorsMaxDims) + ")");
        for (std::size_t i = 0; i < shape->size(); ++i) {
            uint64_t dim = 0;
            if (!countFrom((*shape)[i], dim))
                fail(tensor + "shape[" + std::to_string(i) + "] must be an integer >= 0" +
                     got((*shape)[i]));
            entry.shape.push_back(static_cast<int64_t>(dim));
        }

        const auto offsets = value.find("data_offsets");
        if (offsets == value.end()) fail(tensor + "no data_offsets");
        if (!offsets->is_array() || offsets->size() != 2 ||
            !countFrom((*offsets)[0], entry.begin) || !countFrom((*offsets)[1], entry.end))
            fail(tensor + "data_offsets must be [begin, end], two integers >= 0" + got(*offsets));
        const std::string offsetText =
            "data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) + "]";
        if (entry.end < entry.begin) fail(tensor + offsetText + " end before they begin");
        if (entry.end > dataBytes)
            fail(tensor + offsetText + " reach beyond the data (" + std::to_string(dataBytes) +
                 " bytes after the header)");

        // numel x element size, refused past int64 (torch's sizes) instead of wrapping. Zero
        // dimensions are left out of the check, so that no partial product of the shape, in
        // any order, can overflow either ([2^40, 2^40, 0] is refused, as the reference does).
        uint64_t bytes = entry.elementSize;
        bool overflow = false, empty = false;
        for (const int64_t dim : entry.shape) {
            if (dim == 0) empty = true;
            else overflow = overflow || __builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes);
        }
        if (overflow || bytes > kInt64Max)
            fail(tensor + "shape " + shapeText(entry.shape) + " of " + entry.dtype +
                 ": its dimensions multiply past 2^63 bytes");
        if (empty) bytes = 0;
        if (bytes != entry.byteCount())
            fail(tensor + "shape " + shapeText(entry.shape) + " of " + entry.dtype + " is " +
                 std::to_string(bytes) + " bytes but " + offsetText + " hold " +
                 std::to_string(entry.byteCount()));
        entries_.push_back(std::move(entry));
    }

    // The ranges must tile the data buffer, as the reference requires.
    std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
        return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
    });
    uint64_t covered = 0;
    const SafetensorsEntry* previous = nullptr;
    for (const SafetensorsEntry& entry : entries_) {
        if (entry.begin < covered)
            fail("tensors " + quotedTensorName(previous->name) + " (bytes " +
                 range(previous->begin, previous->end) + ") and " + quotedTensorName(entry.name) +
                 " (bytes " + range(entry.begin, entry.end) + ") overlap");
        if (entry.begin > covered)
            fail("data bytes " + range(covered, entry.begin) +
                 " belong to no tensor (safetensors stores tensors back to back)");
        covered = entry.end;
        previous = &entry;
    }
    if (covered < dataBytes)
        fail("data bytes " + range(covered, dataBytes) +
             " belong to no tensor (safetensors stores tensors back to back)");
    for (std::size_t i = 0; i < entries_.size(); ++i) index_.emplace(entries_[i].name, i);
}

}  // namespace ampscope
