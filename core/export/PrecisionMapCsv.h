#pragma once
// The precision_map records as CSV (plain C++): one row per op of each map in
// precision_map.csv, one per module and phase in precision_map_modules.csv. The columns
// are the record's fields (probes/PrecisionMapRecord.h, ProbeRecords.md), led by the
// step and the op's position in the map (index, in execution order); the per-op
// histograms stay in events.jsonl.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "export/CsvWriter.h"
#include "probes/PrecisionMapRecord.h"

namespace ampscope {

class PrecisionMapCsv {
public:
    // Opens (truncates) both files; InputError naming a path that cannot be written.
    PrecisionMapCsv(const std::string& opsPath, const std::string& modulesPath);
    void write(const PrecisionMapRecord& record);
    // Closes both; returns the op rows written.
    int64_t close();
    int64_t moduleRows() const { return modules_.rows() - 1; }

private:
    CsvWriter ops_;
    CsvWriter modules_;
};

}  // namespace ampscope
