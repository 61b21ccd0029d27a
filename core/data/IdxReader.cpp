#include "data/IdxReader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "common/InputError.h"

namespace ampscope {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
    throw InputError(path + ": " + problem);
}

std::string hex(uint32_t value, int digits) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%0*X", digits, value);
    return text;
}

// A sequential byte stream over the file's content (decompressed for gzip).
class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Fills up to `size` bytes; fewer only at the end of the content. Throws on errors.
    virtual size_t read(uint8_t* out, size_t size) = 0;
    // Content length when it is known without reading it (raw files only).
    virtual std::optional<uint64_t> knownSize() const = 0;
};

class RawSource final : public ByteSource {
public:
    RawSource(std::string path, int fd, uint64_t size)
        : path_(std::move(path)), fd_(fd), size_(size) {}
    ~RawSource() override { ::close(fd_); }

    size_t read(uint8_t* out, size_t size) override {
        size_t done = 0;
        while (done < size) {
            // Linux caps one read() near 2 GiB; loop so any size works.
            const size_t ask = std::min<size_t>(size - done, size_t{1} << 30);
            const ssize_t got = ::read(fd_, out + done, ask);
            if (got < 0) {
                if (errno == EINTR) continue;
                fail(path_, std::string("read error (") + std::strerror(errno) + ")");
            }
            if (got == 0) break;
            done += static_cast<size_t>(got);
        }
        return done;
    }
    std::optional<uint64_t> knownSize() const override { return size_; }

private:
    std::string path_;
    int fd_;
    uint64_t size_;
};

class GzipSource final : public ByteSource {
public:
    GzipSource(std::string path, int fd) : path_(std::move(path)) {
        file_ = gzdopen(fd, "rb");
        if (!file_) {
            ::close(fd);
            fail(path_, "cannot open gzip stream (out of memory)");
        }
        // Few, large reads of the compressed file; output goes straight into the
        // caller's buffer because requests are larger than this buffer.
        gzbuffer(file_, 1u << 18);
    }
    ~GzipSource() override { gzclose(file_); }

    size_t read(uint8_t* out, size_t size) override {
        size_t done = 0;
        while (done < size) {
            const unsigned ask = static_cast<unsigned>(std::min<size_t>(size - done, 1u << 30));
            const int got = gzread(file_, out + done, ask);
            // A truncated stream returns its partial data with Z_BUF_ERROR set and a
            // corrupted one may return data before failing: check after every call.
            throwIfFailed();
            if (got <= 0) break;
            done += static_cast<size_t>(got);
        }
        return done;
    }
    std::optional<uint64_t> knownSize() const override { return std::nullopt; }

private:
    void throwIfFailed() {
        int code = Z_OK;
        const char* message = gzerror(file_, &code);
        if (code == Z_OK) return;
        // gzerror prefixes the stream's name, "<fd:N>: " for gzdopen; the path is ours.
        std::string detail = message ? message : "unknown error";
        if (const size_t colon = detail.find(": ");
            detail.rfind("<fd:", 0) == 0 && colon != std::string::npos)
            detail.erase(0, colon + 2);
        if (code == Z_ERRNO) fail(path_, std::string("read error (") + std::strerror(errno) + ")");
        if (code == Z_BUF_ERROR) fail(path_, "gzip stream truncated (zlib: " + detail + ")");
        if (code == Z_MEM_ERROR) fail(path_, "out of memory while decompressing");
        fail(path_, "gzip stream corrupted (zlib: " + detail + ")");
    }

    std::string path_;
    gzFile file_ = nullptr;
};

std::unique_ptr<ByteSource> openSource(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(path, std::string("cannot open (") + std::strerror(errno) + ")");
    struct stat info {};
    if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
        const int error = S_ISDIR(info.st_mode) ? EISDIR : errno;
        ::close(fd);
        fail(path, std::string("cannot open (") + std::strerror(error) + ")");
    }
    if (info.st_size == 0) {
        ::close(fd);
        fail(path, "empty file");
    }
    uint8_t magic[2] = {0, 0};
    const ssize_t got = ::pread(fd, magic, 2, 0);  // pread: leaves the offset at 0
    const bool isGzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (isGzip) return std::make_unique<GzipSource>(path, fd);
    return std::make_unique<RawSource>(path, fd, static_cast<uint64_t>(info.st_size));
}

const char* elementTypeName(uint8_t type) {
    switch (type) {
        case 0x08:
            return "unsigned byte";
        case 0x09:
            return "signed byte";
        case 0x0B:
            return "int16";
        case 0x0C:
            return "int32";
        case 0x0D:
            return "float32";
        case 0x0E:
            return "float64";
        default:
            return nullptr;
    }
}

// Counts what is left in the source, so that the message can say how much is extra
// and, for gzip, so that the stream is checked up to its CRC.
uint64_t drain(ByteSource& source) {
    std::vector<uint8_t> scratch(size_t{1} << 16);
    uint64_t total = 0;
    while (const size_t got = source.read(scratch.data(), scratch.size())) total += got;
    return total;
}

constexpr size_t kShownDims = 4;  // dimensions named in a size error

}  // namespace

IdxArray readIdxFile(const std::string& path) {
    const std::unique_ptr<ByteSource> source = openSource(path);

    uint8_t magic[4];
    const size_t magicBytes = source->read(magic, 4);
    if (magicBytes == 0) fail(path, "empty file (the gzip stream holds no data)");
    if (magicBytes < 4)
        fail(path, "truncated header (" + std::to_string(magicBytes) + " bytes, need at least 4)");
    const uint32_t magicValue = (uint32_t{magic[0]} << 24) | (uint32_t{magic[1]} << 16) |
                                (uint32_t{magic[2]} << 8) | uint32_t{magic[3]};
    if (magic[0] != 0 || magic[1] != 0 || !elementTypeName(magic[2]) || magic[3] == 0)
        fail(path, "not an IDX file (magic " + hex(magicValue, 8) +
                       ", expected 0x00000801 or 0x00000803)");
    if (magic[2] != 0x08)
        fail(path, std::string("unsupported IDX element type ") + hex(magic[2], 2) + " (" +
                       elementTypeName(magic[2]) + "); only unsigned byte (0x08) is supported");

    const size_t rank = magic[3];
    const size_t headerBytes = 4 + 4 * rank;
    std::vector<uint8_t> dimBytes(4 * rank);
    const size_t dimBytesRead = source->read(dimBytes.data(), dimBytes.size());
    if (dimBytesRead < dimBytes.size())
        fail(path, "truncated header (" + std::to_string(4 + dimBytesRead) + " bytes, need " +
                       std::to_string(headerBytes) + ")");

    IdxArray array;
    array.dims.reserve(rank);
    uint64_t payload = 1;
    bool tooLarge = false;
    long double approximate = 1;  // only for the message when the exact product overflows
    std::string shape;
    for (size_t i = 0; i < rank; ++i) {
        const uint8_t* b = &dimBytes[4 * i];
        const uint32_t dim = (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) |
                             (uint32_t{b[2]} << 8) | uint32_t{b[3]};
        if (dim == 0) fail(path, "dimension " + std::to_string(i) + " is zero");
        array.dims.push_back(dim);
        approximate *= dim;
        // A corrupted rank byte can announce 255 dimensions: keep the message one
        // readable line.
        if (i < kShownDims) shape += (i ? " x " : "") + std::to_string(dim);
        // Checked before multiplying, so 255 dimensions of 2^32 cannot wrap around.
        if (!tooLarge && payload > kIdxMaxPayloadBytes / dim) tooLarge = true;
        if (!tooLarge) payload *= dim;
    }
    if (tooLarge || payload > kIdxMaxPayloadBytes) {
        char size[32];
        std::snprintf(size, sizeof size, "%.3Lg", approximate);
        if (rank > kShownDims) shape += " x ... (" + std::to_string(rank) + " dimensions)";
        fail(path, "dimensions " + shape + " = " + size + " bytes exceed the 4 GiB limit");
    }

    const auto describeLength = [&](uint64_t actual) {
        return "(header says " + std::to_string(payload) + " bytes, file has " +
               std::to_string(actual) + ")";
    };
    // Raw files: the length check needs no reading and happens before the allocation.
    if (const auto size = source->knownSize()) {
        const uint64_t available = *size - headerBytes;
        if (available < payload) fail(path, "truncated data " + describeLength(available));
        if (available > payload) fail(path, "trailing data " + describeLength(available));
    }

    // gzip hides the real length, so grow towards the announced size as data arrives
    // rather than trusting the header with one allocation of up to 4 GiB. Start at
    // 1 MiB: a few-byte file whose header lies costs 1 MiB, not 64 (doubling to the
    // 47 MB of FashionMNIST costs a few copies, next to inflating it).
    const uint64_t firstChunk = source->knownSize() ? payload : uint64_t{1} << 20;
    array.data.resize(static_cast<size_t>(std::min(payload, firstChunk)));
    uint64_t have = 0;
    while (have < payload) {
        if (have == array.data.size()) {
            // reserve first: resize alone may double the capacity past the payload.
            const auto grown = static_cast<size_t>(std::min(payload, 2 * have));
            array.data.reserve(grown);
            array.data.resize(grown);
        }
        const size_t got = source->read(array.data.data() + have, array.data.size() - have);
        if (got == 0) break;
        have += got;
    }
    if (have < payload) fail(path, "truncated data " + describeLength(have));

    const uint64_t extra = drain(*source);
    if (extra > 0) fail(path, "trailing data " + describeLength(payload + extra));
    return array;
}

}  // namespace ampscope
