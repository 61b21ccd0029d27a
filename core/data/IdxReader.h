#pragma once
// IdxReader: reads one MNIST-format IDX file (the format of MNIST and FashionMNIST),
// gzip-compressed or raw, into memory. Plain C++ and zlib: no torch, no Qt.
//
// Contract:
//  - Compression is detected from the content (gzip magic 1f 8b), never the file name.
//  - Only the unsigned-byte element type (0x08) is supported; the array may have any
//    number of dimensions >= 1 (MNIST uses 3 for images and 1 for labels).
//  - The whole file is validated: magic, header length, non-zero dimensions, a size
//    limit checked before anything is allocated (a lying header cannot make us
//    allocate), exact payload length (missing and trailing bytes are both errors) and,
//    for gzip, the integrity of the compressed stream up to its checksum.
//  - Every problem is an ampscope::InputError whose what() is one line
//    "PATH: problem", e.g. "PATH: truncated header (5 bytes, need 16)".
#include <cstdint>
#include <string>
#include <vector>

namespace ampscope {

struct IdxArray {
    std::vector<int64_t> dims;  // as in the header, outermost first, every one >= 1
    std::vector<uint8_t> data;  // row-major, size == product of dims

    int64_t count() const { return dims.empty() ? 0 : dims.front(); }  // samples
};

// Largest payload accepted. Far above any MNIST-like set (FashionMNIST train is
// 47 MB); it exists so that a corrupted header is an error, not an allocation.
inline constexpr uint64_t kIdxMaxPayloadBytes = uint64_t{4} << 30;

IdxArray readIdxFile(const std::string& path);

}  // namespace ampscope
