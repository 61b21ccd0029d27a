#include "scenarios/ZipArchive.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "common/InputError.h"

namespace ampscope::zip {
namespace {

// Record signatures and fixed sizes (APPNOTE.TXT sections 4.3.7, 4.3.12, 4.3.16).
constexpr std::uint32_t kLocalSignature = 0x04034b50;
constexpr std::uint32_t kCentralSignature = 0x02014b50;
constexpr std::uint32_t kEndSignature = 0x06054b50;
constexpr std::uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr std::size_t kLocalHeaderBytes = 30;
constexpr std::size_t kCentralHeaderBytes = 46;
constexpr std::size_t kEndRecordBytes = 22;
constexpr std::size_t kZip64LocatorBytes = 20;
constexpr std::size_t kMaxCommentBytes = 0xFFFF;
constexpr std::uint16_t kStored = 0;
constexpr std::uint16_t kDeflated = 8;
constexpr std::uint16_t kFlagEncrypted = 0x0001;
constexpr std::uint16_t kFlagUtf8Names = 0x0800;
constexpr std::uint16_t kVersionNeeded = 20;  // 2.0: deflate and folders
constexpr std::uint16_t kHostUnix = 3;        // "version made by" high byte: external attributes hold a mode
constexpr std::uint32_t kModeTypeMask = 0170000;
constexpr std::uint32_t kModeSymlink = 0120000;
constexpr std::uint32_t kModeRegularFile = 0100644;
constexpr std::uint16_t kDosDate1980January1 = (0 << 9) | (1 << 5) | 1;  // year-1980, month, day
constexpr std::uint32_t kNotZip64 = 0xFFFFFFFF;  // a size or offset at this value moved to ZIP64

std::uint16_t u16(const std::string& bytes, std::size_t at) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[at]) |
                                      static_cast<unsigned char>(bytes[at + 1]) << 8);
}

std::uint32_t u32(const std::string& bytes, std::size_t at) {
    return static_cast<std::uint32_t>(u16(bytes, at)) | static_cast<std::uint32_t>(u16(bytes, at + 2)) << 16;
}

void put16(std::string& out, std::uint16_t value) {
    out.push_back(static_cast<char>(value & 0xFF));
    out.push_back(static_cast<char>(value >> 8));
}

void put32(std::string& out, std::uint32_t value) {
    put16(out, static_cast<std::uint16_t>(value & 0xFFFF));
    put16(out, static_cast<std::uint16_t>(value >> 16));
}

std::uint32_t crcOf(const std::string& bytes) {
    uLong crc = crc32(0L, Z_NULL, 0);
    std::size_t at = 0;
    while (at < bytes.size()) {  // zlib's lengths are uInt: feed large members in pieces
        const uInt piece = static_cast<uInt>(std::min<std::size_t>(bytes.size() - at, 1u << 30));
        crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), piece);
        at += piece;
    }
    return static_cast<std::uint32_t>(crc);
}

// What the central directory says of one member.
struct DirectoryEntry {
    std::string name;
    std::uint16_t method = 0;
    std::uint32_t crc = 0;
    std::uint32_t compressedSize = 0;
    std::uint32_t size = 0;
    std::uint32_t localOffset = 0;
};

class ArchiveReader {
public:
    ArchiveReader(std::string path, const ReadLimits& limits) : path_(std::move(path)), limits_(limits) {}

    std::vector<Member> read() {
        load();
        const std::vector<DirectoryEntry> entries = directory();
        std::vector<Member> members;
        members.reserve(entries.size());
        for (const DirectoryEntry& entry : entries) members.push_back({entry.name, content(entry)});
        return members;
    }

private:
    [[noreturn]] void refuse(const std::string& what) const { throw InputError(path_ + ": " + what); }

    void load() {
        namespace fs = std::filesystem;
        std::error_code error;
        if (!fs::is_regular_file(path_, error)) refuse("not a lesson file (no such file, or not a regular file)");
        const std::uintmax_t size = fs::file_size(path_, error);
        if (error) refuse("cannot be read (" + error.message() + ")");
        if (size > limits_.maxArchiveBytes)
            refuse(std::to_string(size) + " bytes; a lesson file may be at most " +
                   std::to_string(limits_.maxArchiveBytes) + " bytes");
        std::ifstream in(path_, std::ios::binary);
        bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (in.bad()) refuse("cannot be read");
    }

    // The end of central directory record: the last one whose comment ends the file.
    std::size_t endRecord() const {
        if (bytes_.size() < kEndRecordBytes) refuse("not a zip file (shorter than a zip's end record)");
        const std::size_t last = bytes_.size() - kEndRecordBytes;
        const std::size_t first = last > kMaxCommentBytes ? last - kMaxCommentBytes : 0;
        for (std::size_t at = last + 1; at-- > first;) {
            if (u32(bytes_, at) == kEndSignature && at + kEndRecordBytes + u16(bytes_, at + 20) == bytes_.size())
                return at;
        }
        refuse("not a zip file (no end of central directory record)");
    }

    std::vector<DirectoryEntry> directory() const {
        const std::size_t end = endRecord();
        if (end >= kZip64LocatorBytes && u32(bytes_, end - kZip64LocatorBytes) == kZip64LocatorSignature)
            refuse("a ZIP64 archive (a lesson file is a plain zip)");
        const std::uint16_t disk = u16(bytes_, end + 4);
        const std::uint16_t directoryDisk = u16(bytes_, end + 6);
        const std::uint16_t onDisk = u16(bytes_, end + 8);
        const std::uint16_t count = u16(bytes_, end + 10);
        const std::uint32_t directorySize = u32(bytes_, end + 12);
        const std::uint32_t directoryOffset = u32(bytes_, end + 16);
        if (disk != 0 || directoryDisk != 0 || onDisk != count) refuse("a split (multi-disk) zip");
        if (count == 0xFFFF || directorySize == kNotZip64 || directoryOffset == kNotZip64)
            refuse("a ZIP64 archive (a lesson file is a plain zip)");
        if (count > limits_.maxMembers)
            refuse(std::to_string(count) + " members; a lesson file may hold at most " +
                   std::to_string(limits_.maxMembers));
        if (std::uint64_t(directoryOffset) + directorySize > end)
            refuse("damaged (the central directory lies past its end record)");

        std::vector<DirectoryEntry> entries;
        std::uint64_t total = 0;
        std::size_t at = directoryOffset;
        const std::size_t directoryEnd = std::size_t(directoryOffset) + directorySize;
        for (std::uint16_t index = 0; index < count; ++index) {
            if (at + kCentralHeaderBytes > directoryEnd || u32(bytes_, at) != kCentralSignature)
                refuse("damaged (member " + std::to_string(index + 1) + " of the central directory)");
            DirectoryEntry entry;
            const std::uint16_t madeBy = u16(bytes_, at + 4);
            const std::uint16_t flags = u16(bytes_, at + 8);
            entry.method = u16(bytes_, at + 10);
            entry.crc = u32(bytes_, at + 16);
            entry.compressedSize = u32(bytes_, at + 20);
            entry.size = u32(bytes_, at + 24);
            const std::size_t nameBytes = u16(bytes_, at + 28);
            const std::size_t extraBytes = u16(bytes_, at + 30);
            const std::size_t commentBytes = u16(bytes_, at + 32);
            const std::uint32_t external = u32(bytes_, at + 38);
            entry.localOffset = u32(bytes_, at + 42);
            const std::size_t next = at + kCentralHeaderBytes + nameBytes + extraBytes + commentBytes;
            if (next > directoryEnd) refuse("damaged (member " + std::to_string(index + 1) + "'s name runs past the directory)");
            entry.name = bytes_.substr(at + kCentralHeaderBytes, nameBytes);
            const std::string member = "member \"" + entry.name + "\"";
            if (flags & kFlagEncrypted) refuse(member + " is encrypted");
            if (entry.method != kStored && entry.method != kDeflated)
                refuse(member + " uses compression method " + std::to_string(entry.method) +
                       " (a lesson file is stored or deflated)");
            if ((madeBy >> 8) == kHostUnix && ((external >> 16) & kModeTypeMask) == kModeSymlink)
                refuse(member + " is a symbolic link (a lesson file holds files and folders only)");
            if (entry.size == kNotZip64 || entry.compressedSize == kNotZip64 || entry.localOffset == kNotZip64)
                refuse(member + " needs ZIP64 (a lesson file is a plain zip)");
            if (entry.size > limits_.maxMemberBytes)
                refuse(member + " inflates to " + std::to_string(entry.size) + " bytes; a lesson's file may be at most " +
                       std::to_string(limits_.maxMemberBytes));
            total += entry.size;
            if (total > limits_.maxTotalBytes)
                refuse("its members inflate to more than " + std::to_string(limits_.maxTotalBytes) +
                       " bytes, the most a lesson file may hold");
            entries.push_back(std::move(entry));
            at = next;
        }
        return entries;
    }

    std::string content(const DirectoryEntry& entry) const {
        const std::string member = "member \"" + entry.name + "\"";
        const std::size_t at = entry.localOffset;
        if (std::uint64_t(at) + kLocalHeaderBytes > bytes_.size() || u32(bytes_, at) != kLocalSignature)
            refuse("damaged (" + member + "'s local header is missing)");
        const std::size_t nameBytes = u16(bytes_, at + 26);
        const std::size_t extraBytes = u16(bytes_, at + 28);
        const std::size_t start = at + kLocalHeaderBytes + nameBytes + extraBytes;
        if (u16(bytes_, at + 8) != entry.method || start > bytes_.size() ||
            bytes_.compare(at + kLocalHeaderBytes, nameBytes, entry.name) != 0)
            refuse("damaged (" + member + "'s local header disagrees with the central directory)");
        if (std::uint64_t(start) + entry.compressedSize > bytes_.size())
            refuse("damaged (" + member + " is cut short)");
        std::string content;
        if (entry.method == kStored) {
            if (entry.compressedSize != entry.size) refuse("damaged (" + member + " is stored with two sizes)");
            content = bytes_.substr(start, entry.size);
        } else {
            content = inflated(bytes_.data() + start, entry, member);
        }
        if (crcOf(content) != entry.crc) refuse("damaged (" + member + "'s CRC-32 does not match its content)");
        return content;
    }

    // Raw deflate into a buffer one byte longer than declared: a stream that fills it
    // inflates past its declared size and is refused there, whatever it would have become.
    std::string inflated(const char* data, const DirectoryEntry& entry, const std::string& member) const {
        std::string out(std::size_t(entry.size) + 1, '\0');
        z_stream stream{};
        if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) refuse("cannot inflate (zlib could not start)");
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
        stream.avail_in = entry.compressedSize;
        stream.next_out = reinterpret_cast<Bytef*>(out.data());
        stream.avail_out = static_cast<uInt>(out.size());
        const int status = inflate(&stream, Z_FINISH);
        const uLong produced = stream.total_out;
        inflateEnd(&stream);
        if (produced > entry.size)
            refuse(member + " inflates past the " + std::to_string(entry.size) +
                   " bytes its header declares (a zip bomb, or a damaged file)");
        if (status != Z_STREAM_END || produced != entry.size)
            refuse("damaged (" + member + "'s deflated data " +
                   (status == Z_DATA_ERROR ? std::string("is corrupt") : std::string("ends early")) + ")");
        out.resize(entry.size);
        return out;
    }

    std::string path_;
    ReadLimits limits_;
    std::string bytes_;
};

// Raw deflate; the member is stored when deflating would not make it smaller.
std::pair<std::uint16_t, std::string> packed(const std::string& bytes) {
    z_stream stream{};
    if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return {kStored, bytes};
    std::string out(deflateBound(&stream, static_cast<uLong>(bytes.size())), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    stream.avail_in = static_cast<uInt>(bytes.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    if (status != Z_STREAM_END || out.size() >= bytes.size()) return {kStored, bytes};
    return {kDeflated, out};
}

}  // namespace

std::vector<Member> readArchive(const std::string& path, const ReadLimits& limits) {
    return ArchiveReader(path, limits).read();
}

void writeArchive(const std::string& path, const std::vector<Member>& members) {
    if (members.size() >= 0xFFFF) throw InputError(path + ": too many files for a plain zip");
    std::string body;
    std::string directory;
    for (const Member& member : members) {
        if (member.bytes.size() >= kNotZip64 || body.size() >= kNotZip64 || member.name.size() > 0xFFFF)
            throw InputError(path + ": " + member.name + " is too large for a plain zip");
        const auto [method, stored] = packed(member.bytes);
        const std::uint32_t crc = crcOf(member.bytes);
        const std::uint32_t offset = static_cast<std::uint32_t>(body.size());
        auto common = [&](std::string& out) {  // the fields both headers share, from "version needed" on
            put16(out, kVersionNeeded);
            put16(out, kFlagUtf8Names);
            put16(out, method);
            put16(out, 0);  // time 00:00:00
            put16(out, kDosDate1980January1);
            put32(out, crc);
            put32(out, static_cast<std::uint32_t>(stored.size()));
            put32(out, static_cast<std::uint32_t>(member.bytes.size()));
            put16(out, static_cast<std::uint16_t>(member.name.size()));
            put16(out, 0);  // no extra field
        };
        put32(body, kLocalSignature);
        common(body);
        body += member.name;
        body += stored;

        put32(directory, kCentralSignature);
        put16(directory, static_cast<std::uint16_t>(kHostUnix << 8 | kVersionNeeded));
        common(directory);
        put16(directory, 0);  // no comment
        put16(directory, 0);  // disk 0
        put16(directory, 0);  // internal attributes
        put32(directory, kModeRegularFile << 16);
        put32(directory, offset);
        directory += member.name;
    }
    if (body.size() + directory.size() >= kNotZip64) throw InputError(path + ": too large for a plain zip");
    std::string end;
    put32(end, kEndSignature);
    put16(end, 0);
    put16(end, 0);
    put16(end, static_cast<std::uint16_t>(members.size()));
    put16(end, static_cast<std::uint16_t>(members.size()));
    put32(end, static_cast<std::uint32_t>(directory.size()));
    put32(end, static_cast<std::uint32_t>(body.size()));
    put16(end, 0);  // no comment

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << body << directory << end;
    out.close();
    if (!out) throw InputError(path + ": cannot write the lesson file");
}

}  // namespace ampscope::zip
