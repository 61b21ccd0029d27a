#pragma once
// SensitivityHistory: what a run in the set keeps, for the Sensitivity dock and its
// report section, of its `sensitivity` records (core/probes/SensitivityRecord.h, written
// on probes.sensitivity_every's steps): the passes by step, at most kMaxPasses (the
// oldest go), and their mean (combineSensitivity: one batch's score is noisy).
//
// Contract:
// - takeRecord parses with sensitivityRecordFromJson; a record that does not read, or
//   one whose layers or formats differ from the kept passes' (a different model: it
//   cannot be averaged with them), is skipped and counted (malformedRecords(),
//   runset/ParsedRecord.h). A second pass of a step replaces the first.
// - latest() is the newest kept pass, mean() the combination of the kept passes; both
//   null while there is none.
// - beginRun forgets every pass.
#include <cstdint>
#include <map>
#include <optional>

#include "probes/SensitivityRecord.h"
#include "runset/RunStore.h"

namespace ampscope::ui {

class SensitivityHistory : public RunStore {
public:
    static constexpr std::size_t kMaxPasses = 64;

    void beginRun(const RunContext& context) override;
    void takeRecord(const nlohmann::json& record) override;

    const std::map<int64_t, SensitivityRecord>& passes() const { return passes_; }
    const SensitivityRecord* latest() const;
    const SensitivityRecord* mean() const { return mean_ ? &*mean_ : nullptr; }

private:
    std::map<int64_t, SensitivityRecord> passes_;
    std::optional<SensitivityRecord> mean_;
};

}  // namespace ampscope::ui
