#pragma once
// TFRecord framing, the container of TensorBoard's event files. Each record is
//   uint64 length (little-endian) | uint32 masked CRC-32C of those 8 bytes |
//   length bytes of data          | uint32 masked CRC-32C of the data
// (Crc32c.h for the mask). The payload is opaque here; TfEventsExport.h puts Event
// protobufs in it.
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace ampscope {

// One record's bytes, framed.
std::string frameTfRecord(std::string_view data);

class TfRecordWriter {
public:
    // Creates (truncates) `path`; throws InputError naming it when it cannot.
    explicit TfRecordWriter(const std::string& path);
    void write(std::string_view data);
    // Flushes and closes; throws InputError naming the path when a write failed.
    void close();

private:
    std::string path_;
    std::ofstream out_;
};

// Every record of a TFRecord file, both CRCs checked. Throws InputError naming the file,
// the record and its byte offset on a CRC mismatch or a truncated record.
std::vector<std::string> readTfRecordFile(const std::string& path);

}  // namespace ampscope
