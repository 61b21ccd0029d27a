#pragma once
// The zip format as far as a lesson file needs it (PKWARE's APPNOTE.TXT, "ZIP File Format
// Specification": local file headers, the central directory, the end of central directory
// record; stored and deflated members; no ZIP64, no encryption, one disk).
//
// A zip file comes from someone else, so reading trusts nothing in it:
// - the central directory is the one list of members; each member's local header must
//   agree with it on name and method;
// - how many members there are, each member's size and the sum of the sizes are bounded
//   before anything is inflated, and inflating stops at the size the directory declares
//   (a zip bomb declares small and inflates large: it is refused at the declared size);
// - each member's CRC-32 is checked; a symbolic link (a Unix mode of S_IFLNK) is refused,
//   as are encrypted, split and ZIP64 archives, and methods other than stored and deflate.
// Each refusal is an InputError of one line: the archive's path, then what is wrong.
//
// Writing makes archives any unzip tool reads: deflated members, Unix modes 0644, and the
// timestamp fixed at 1980-01-01 00:00 (the format's first day) so that the same files make
// the same bytes. No torch, no Qt.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ampscope::zip {

struct Member {
    std::string name;   // '/'-separated, as stored (a directory's name ends with '/')
    std::string bytes;  // the content (empty for a directory)
};

struct ReadLimits {
    std::uint64_t maxArchiveBytes = 0;  // the zip file itself
    std::size_t maxMembers = 0;
    std::uint64_t maxMemberBytes = 0;  // one member, inflated
    std::uint64_t maxTotalBytes = 0;   // all members, inflated
};

// Every member in central-directory order, directories included; InputError on anything
// above. Names are returned as stored: whether they are safe to write is the caller's rule.
std::vector<Member> readArchive(const std::string& path, const ReadLimits& limits);

// Writes `members` (names as they should be stored, files only) to `path`; InputError when
// the file cannot be written, naming it.
void writeArchive(const std::string& path, const std::vector<Member>& members);

}  // namespace ampscope::zip
