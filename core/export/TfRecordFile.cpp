#include "export/TfRecordFile.h"

#include <cstring>

#include "common/InputError.h"
#include "export/Crc32c.h"
#include "run/RunFiles.h"

namespace ampscope {
namespace {

void putLittleEndian(std::string& out, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFFu);
}

uint64_t getLittleEndian(const std::string& in, std::size_t at, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
        value |= static_cast<uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
    return value;
}

}  // namespace

std::string frameTfRecord(std::string_view data) {
    std::string framed;
    framed.reserve(data.size() + 16);
    putLittleEndian(framed, data.size(), 8);
    putLittleEndian(framed, maskCrc32c(crc32c(framed)), 4);
    framed.append(data);
    putLittleEndian(framed, maskCrc32c(crc32c(data)), 4);
    return framed;
}

TfRecordWriter::TfRecordWriter(const std::string& path)
    : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw InputError(path + ": cannot be written (" + std::strerror(errno) + ")");
}

void TfRecordWriter::write(std::string_view data) {
    const std::string framed = frameTfRecord(data);
    out_.write(framed.data(), static_cast<std::streamsize>(framed.size()));
}

void TfRecordWriter::close() {
    out_.flush();
    const bool ok = out_.good();
    out_.close();
    if (!ok) throw InputError(path_ + ": write failed (disk full?)");
}

std::vector<std::string> readTfRecordFile(const std::string& path) {
    std::string bytes;
    if (const int error = runfiles::readWholeFile(path, bytes))
        throw InputError(path + ": cannot be read (" + runfiles::errnoText(error) + ")");
    std::vector<std::string> records;
    std::size_t at = 0;
    while (at < bytes.size()) {
        const std::string where = path + ": record " + std::to_string(records.size() + 1) +
                                  " at byte " + std::to_string(at);
        if (bytes.size() - at < 12) throw InputError(where + ": truncated length header");
        const uint64_t length = getLittleEndian(bytes, at, 8);
        const uint32_t lengthCrc = static_cast<uint32_t>(getLittleEndian(bytes, at + 8, 4));
        if (unmaskCrc32c(lengthCrc) != crc32c(std::string_view(bytes).substr(at, 8)))
            throw InputError(where + ": length CRC mismatch");
        if (length > bytes.size() - at - 12 || bytes.size() - at - 12 - length < 4)
            throw InputError(where + ": truncated (" + std::to_string(length) +
                             " bytes announced)");
        const std::string_view data = std::string_view(bytes).substr(at + 12, length);
        const uint32_t dataCrc = static_cast<uint32_t>(getLittleEndian(bytes, at + 12 + length, 4));
        if (unmaskCrc32c(dataCrc) != crc32c(data)) throw InputError(where + ": data CRC mismatch");
        records.emplace_back(data);
        at += 12 + length + 4;
    }
    return records;
}

}  // namespace ampscope
