#pragma once
// Small POSIX file helpers shared by the run-directory code (writer, reader,
// follower). Internal to core/run: paths are plain strings as users typed them,
// so messages name the path the user gave, not a canonicalised one.
#include <string>
#include <string_view>

namespace ampscope::runfiles {

// "dir" + "/" + name, without doubling a trailing slash of dir.
std::string joinPath(const std::string& dir, std::string_view name);

// strerror text for an errno value ("No space left on device"), thread-safe.
std::string errnoText(int error);

// Reads a whole file into out. Returns 0, or the errno that stopped it.
int readWholeFile(const std::string& path, std::string& out);

// Writes all of data to fd, looping over short writes and EINTR. Returns 0, or
// the errno of the write that failed.
int writeAll(int fd, const char* data, std::size_t size);

// nlohmann's exception text without its "[json.exception.parse_error.101] "
// prefix, which means nothing to a user.
std::string jsonErrorText(const char* what);

}  // namespace ampscope::runfiles
