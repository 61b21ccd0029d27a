#pragma once
// SafetensorsFile: the checked header of a safetensors file and the raw bytes of the
// tensors asked for. Plain C++ and nlohmann_json (no torch, no Qt), so that the fuzzer
// (tests/fuzz, torch-free) runs every check; SafetensorsReader.h turns the bytes into
// torch tensors.
//
// The format (github.com/huggingface/safetensors): 8 bytes little-endian u64 N, then N
// bytes of UTF-8 JSON, then the data buffer. The JSON is an object mapping each tensor's
// name to {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]} (offsets in
// bytes, relative to the start of the data buffer; elements little-endian, row-major),
// plus an optional "__metadata__" object of strings. Loading it runs no code.
//
// Contract:
//  - The constructor reads and checks the whole header, and only the header: tensor bytes
//    are read by read(), one range at a time, into memory the caller sized from an entry.
//    Every number an entry carries has been checked against the file's size by then, so a
//    lying header cannot make anyone allocate more than the file holds.
//  - How strict (chosen to accept exactly the files the reference implementation, Rust
//    safetensors' Metadata::validate, accepts, so that a file that loads here loads in
//    Python too, and a writer's bug is named instead of read as data):
//      * the header is at most 100,000,000 bytes (the reference's limit), UTF-8 JSON,
//        an object, nested no deeper than kMaxJsonNesting (common/JsonNesting.h). Trailing
//        spaces are JSON whitespace: the reference pads its headers with them to a multiple
//        of 8 bytes. Leading whitespace is accepted too (the reference's 0.4 refuses it);
//      * every entry is an object with a string dtype, a shape of integers >= 0 and
//        data_offsets [begin, end] of integers with begin <= end <= the data's size; other
//        keys in an entry are ignored (as serde ignores them);
//      * shape x the dtype's size equals end - begin, and the non-zero dimensions times the
//        size fit in int64 (numel overflow is an error, not a wrap-around);
//      * the ranges, sorted by offset, tile the data buffer: each begins where the previous
//        ends, the first at 0, the last at the end of the file. An overlap names both
//        tensors; a gap or trailing bytes name the bytes nobody owns;
//      * dtype is one of the names the reference writes for whole-byte elements (BOOL, U8,
//        I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, F8_E4M3, F8_E5M2, F8_E8M0,
//        C64); anything else, sub-byte F4/F6 types included, is an unknown dtype and
//        refuses the file (its layout cannot be checked). Which dtypes can be *read* into
//        tensors is SafetensorsReader's business: a file may hold an F64 tensor no one asks for.
//      * duplicate names: nlohmann keeps the last, so the first one's range is a gap.
//  - Every problem is an ampscope::InputError whose what() is one line "PATH: problem",
//    e.g. "batches.safetensors: header length 999999 is beyond the file (312 bytes)";
//    tensor names appear as JSON strings, cut short when long.
//  - read() may run on several threads at once: it uses pread, and nothing changes after
//    the constructor.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ampscope {

// The largest header accepted: the reference implementation's MAX_HEADER_SIZE.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;
// More dimensions than any data set has; it bounds what a message or torch is handed.
inline constexpr std::size_t kSafetensorsMaxDims = 32;

struct SafetensorsEntry {
    std::string name;
    std::string dtype;            // as the header spells it: "F32", "BF16", ...
    std::size_t elementSize = 0;  // bytes per element of dtype
    std::vector<int64_t> shape;   // outermost first; [] is a scalar (one element)
    uint64_t begin = 0;           // byte range [begin, end) of the data buffer
    uint64_t end = 0;

    uint64_t byteCount() const { return end - begin; }
    int64_t numel() const;  // checked against int64 when the header was read
};

class SafetensorsFile {
public:
    // Opens `path`, reads and checks its header; throws InputError.
    explicit SafetensorsFile(std::string path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::string& path() const { return path_; }
    uint64_t fileSize() const { return fileSize_; }
    uint64_t dataStart() const { return 8 + headerBytes_; }  // where the data buffer begins
    uint64_t dataSize() const { return fileSize_ - dataStart(); }

    // Every tensor, in the order of their bytes in the file.
    const std::vector<SafetensorsEntry>& entries() const { return entries_; }
    const SafetensorsEntry* find(const std::string& name) const;  // nullptr when absent
    // The names in file order, quoted, the first `shown` of them and then how many in all:
    // "\"x\", \"y\", \"xv\"" or "\"a\", \"b\", ... (40 tensors)"; "no tensors" when empty.
    std::string describeNames(std::size_t shown = 8) const;

    const std::map<std::string, std::string>& metadata() const { return metadata_; }

    // Reads entry.byteCount() bytes of `entry` (one of entries()) into `out`. Throws
    // InputError when the file ends early (it changed since the header was read).
    void read(const SafetensorsEntry& entry, void* out) const;

    // "PATH: problem" as an InputError: for the callers' own checks on this file.
    [[noreturn]] void fail(const std::string& problem) const;

private:
    void readHeader();

    std::string path_;
    int fd_ = -1;
    uint64_t fileSize_ = 0;
    uint64_t headerBytes_ = 0;
    std::vector<SafetensorsEntry> entries_;
    std::map<std::string, std::size_t> index_;  // name -> position in entries_
    std::map<std::string, std::string> metadata_;
};

// A tensor name as messages show it: a JSON string, cut short when long ("\"x\"").
std::string quotedTensorName(const std::string& name);

}  // namespace ampscope
