// Fuzzes readIdxFile (core/data/IdxReader.h) on raw and gzip files.
// Input: one mode byte, then the file content. Mode % 4:
//   0  the content as is (raw IDX, or whatever gzip bytes the fuzzer makes)
//   1  the content gzip-compressed (so the IDX parser runs behind zlib)
//   2  compressed, then cut short at a point given by the next byte
//   3  compressed, then one byte flipped at a point given by the next byte
// Contract checked: failures are InputErrors with a one-line what() naming the
// path; a success has dims >= 1 whose product is data.size().
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "FuzzSupport.h"
#include "common/InputError.h"
#include "data/IdxReader.h"

using ampscope::InputError;
using ampscope::fuzz::isOneLine;
using ampscope::fuzz::MemoryFile;

namespace {

std::string gzipped(const std::string& content) {
    z_stream stream{};
    // windowBits 15 + 16: a gzip header and trailer, as gzip(1) writes.
    if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        std::abort();
    std::string out(deflateBound(&stream, content.size()) + 32, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(content.data()));
    stream.avail_in = static_cast<uInt>(content.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    if (deflate(&stream, Z_FINISH) != Z_STREAM_END) std::abort();
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const int mode = data[0] % 4;
    std::size_t skip = 1;
    uint8_t where = 0;
    if (mode >= 2) {
        if (size < 2) return 0;
        where = data[1];
        skip = 2;
    }
    std::string content(reinterpret_cast<const char*>(data) + skip, size - skip);
    if (mode >= 1) content = gzipped(content);
    const std::size_t at = content.size() * where / 256;
    if (mode == 2) content.resize(at);
    if (mode == 3 && !content.empty()) content[at] = static_cast<char>(content[at] ^ 0x5a);

    const MemoryFile file(content);
    try {
        const ampscope::IdxArray array = ampscope::readIdxFile(file.path());
        FUZZ_CHECK(!array.dims.empty(), "no dimensions");
        uint64_t product = 1;
        for (const int64_t dim : array.dims) {
            FUZZ_CHECK(dim >= 1, "a dimension below 1");
            product *= static_cast<uint64_t>(dim);
        }
        FUZZ_CHECK(product == array.data.size(), "payload size differs from the dimensions");
    } catch (const InputError& error) {
        const std::string what = error.what();
        FUZZ_CHECK(isOneLine(what), what);
        FUZZ_CHECK(what.rfind(file.path() + ": ", 0) == 0, what);
    }
    return 0;
}
