#pragma once
// PrecisionMapHistory: what a run in the set keeps, for the Precision map dock and its
// report section, of its `precision_map` records (core/probes/PrecisionMapRecord.h): the
// maps by step, at most kMaxMaps (the oldest go).
//
// Contract:
// - takeRecord parses with precisionMapRecordFromJson; a record that does not read is
//   skipped and counted (malformedRecords(), runset/ParsedRecord.h). A second map of a step replaces
//   the first.
// - beginRun forgets every map.
#include <cstdint>
#include <map>

#include "probes/PrecisionMapRecord.h"
#include "runset/RunStore.h"

namespace ampscope::ui {

class PrecisionMapHistory : public RunStore {
public:
    static constexpr std::size_t kMaxMaps = 32;

    void beginRun(const RunContext& context) override;
    void takeRecord(const nlohmann::json& record) override;

    const std::map<int64_t, PrecisionMapRecord>& maps() const { return maps_; }
    // The map of `step`; null when that step was not mapped (or its map went).
    const PrecisionMapRecord* map(int64_t step) const;
    int64_t latestStep() const { return maps_.empty() ? -1 : maps_.rbegin()->first; }

private:
    std::map<int64_t, PrecisionMapRecord> maps_;
};

}  // namespace ampscope::ui
