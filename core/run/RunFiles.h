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

// Run directories travel (from a cluster, a colleague, a bug report): their files are
// untrusted. A file of a run directory is read only when it is a plain file of its
// own, opened without following a symbolic link (which could lead outside the folder:
// another run, ~/.ssh, /etc) and refusing FIFOs and devices (which could block or never
// end). kNotPlainFile is the "errno" for the second case; runFileErrorText() words both.
inline constexpr int kNotPlainFile = -1000;

// Opens a run-directory file for reading under that rule. Returns the descriptor, or
// -1 with `error` set (ENOENT, ELOOP for a symbolic link, kNotPlainFile, ...).
int openRunFile(const std::string& path, int& error);

// readWholeFile under the same rule. Returns 0, or the error as openRunFile gives it.
int readRunFile(const std::string& path, std::string& out);

// "is a symbolic link (...)", "is not a plain file (...)", or errnoText(error) in
// parentheses: the tail of "PATH: cannot read ..." messages, ready to append to the path.
std::string runFileErrorText(int error);

// Writes all of data to fd, looping over short writes and EINTR. Returns 0, or
// the errno of the write that failed.
int writeAll(int fd, const char* data, std::size_t size);

// nlohmann's exception text without its "[json.exception.parse_error.101] "
// prefix, which means nothing to a user.
std::string jsonErrorText(const char* what);

}  // namespace ampscope::runfiles
