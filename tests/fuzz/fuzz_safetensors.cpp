// Fuzzes SafetensorsFile (core/data/SafetensorsFile.h): the header of a safetensors file
// and the reading of every range it announces. Input: the file content as is.
// Contract checked: failures are InputErrors with a one-line what() naming the path; a
// file that opens has entries in the order of their bytes that tile the data exactly,
// each holding shape x element size bytes (int64-sized), readable in full, found by name.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "common/InputError.h"
#include "data/SafetensorsFile.h"

using ampscope::InputError;
using ampscope::SafetensorsEntry;
using ampscope::SafetensorsFile;
using ampscope::fuzz::isOneLine;
using ampscope::fuzz::MemoryFile;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const MemoryFile file(std::string(reinterpret_cast<const char*>(data), size));
    try {
        const SafetensorsFile tensors(file.path());
        FUZZ_CHECK(tensors.dataStart() <= tensors.fileSize(), "data starts past the end");
        FUZZ_CHECK(isOneLine(tensors.describeNames()), tensors.describeNames());
        uint64_t covered = 0;
        for (const SafetensorsEntry& entry : tensors.entries()) {
            FUZZ_CHECK(entry.begin == covered, "entries do not tile the data: " + entry.name);
            FUZZ_CHECK(entry.end >= entry.begin, "a reversed range: " + entry.name);
            FUZZ_CHECK(entry.elementSize >= 1 && entry.elementSize <= 8, entry.dtype);
            FUZZ_CHECK(entry.shape.size() <= ampscope::kSafetensorsMaxDims, entry.name);
            uint64_t elements = 1;
            for (const int64_t dim : entry.shape) {
                FUZZ_CHECK(dim >= 0, "a negative dimension: " + entry.name);
                elements *= static_cast<uint64_t>(dim);  // bounded: it was checked not to wrap
            }
            FUZZ_CHECK(static_cast<uint64_t>(entry.numel()) == elements, entry.name);
            FUZZ_CHECK(elements * entry.elementSize == entry.byteCount(),
                       "shape and byte count disagree: " + entry.name);
            FUZZ_CHECK(tensors.find(entry.name) == &entry, "not found by its name: " + entry.name);
            // Every range lies inside the file, so reading it cannot fail or overrun.
            std::vector<unsigned char> bytes(static_cast<std::size_t>(entry.byteCount()));
            tensors.read(entry, bytes.data());
            covered = entry.end;
        }
        FUZZ_CHECK(covered == tensors.dataSize(), "bytes after the last tensor");
    } catch (const InputError& error) {
        const std::string what = error.what();
        FUZZ_CHECK(isOneLine(what), what);
        FUZZ_CHECK(what.rfind(file.path() + ": ", 0) == 0, what);
    }
    return 0;
}
