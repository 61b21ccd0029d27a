#pragma once
// Shared by the fuzz targets: in-memory files for readers that take a path, and
// a check that aborts (so libFuzzer records the input) when a contract is broken.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace ampscope::fuzz {

// A contract violation is a finding, not just a crash: print it and abort.
#define FUZZ_CHECK(condition, detail)                                                         \
    do {                                                                                      \
        if (!(condition)) {                                                                   \
            std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d): %s\n", #condition, __FILE__, \
                         __LINE__, std::string(detail).c_str());                              \
            std::abort();                                                                     \
        }                                                                                     \
    } while (false)

// A file with the given bytes that lives in memory, reachable by a path
// (/proc/self/fd/N) for code that opens files by name. Closed on destruction.
class MemoryFile {
public:
    explicit MemoryFile(std::string_view bytes) {
        fd_ = ::memfd_create("ampscope-fuzz", MFD_CLOEXEC);
        if (fd_ < 0) std::abort();
        std::size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t wrote = ::write(fd_, bytes.data() + done, bytes.size() - done);
            if (wrote <= 0) std::abort();
            done += static_cast<std::size_t>(wrote);
        }
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    ~MemoryFile() { ::close(fd_); }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;
    const std::string& path() const { return path_; }

private:
    int fd_ = -1;
    std::string path_;
};

// Error messages are what the CLI prints as its one line.
inline bool isOneLine(const std::string& text) {
    return !text.empty() && text.find('\n') == std::string::npos;
}

}  // namespace ampscope::fuzz
