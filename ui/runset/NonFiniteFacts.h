#pragma once
// NonFiniteFacts: what a run in the set keeps for the NaN inspector and the run list:
// the run's first "nonfinite" record (core/probes/ProbeRecords.md; later ones do not
// count), its layers in model order (run_info, then the frames' layers), the module tree
// of a user's TorchScript model (its model_modules record: a run's tree comes from its
// records, never from loading its model file), and the config facts the inspector's
// rerun button needs.
#include <QString>
#include <QStringList>
#include <optional>
#include <string>
#include <vector>

#include "models/ScriptModuleInfo.h"
#include "probes/ProbeRecords.h"
#include "runset/RunStore.h"
#include "runset/LayerOrder.h"

namespace ampscope::ui {

class NonFiniteFacts : public RunStore {
public:
    void beginRun(const RunContext& context) override;
    void takeModelModules(const ModelModulesRecord& record) override;
    void takeRunInfo(const RunInfoRecord& info) override;
    void takeRecord(const nlohmann::json& record) override;

    const std::optional<NonFiniteRecord>& record() const { return record_; }
    // The step of the first non-finite value (-1: none so far).
    int64_t step() const { return record_ ? record_->event.step : -1; }
    // A rank of a torch.distributed job that got the value from another rank.
    bool receivedThroughAllReduce() const {
        return record_ && record_->event.via == nonfinite_via::kGradientAllReduce;
    }
    const LayerOrder& layers() const { return layers_; }
    const QStringList& keptInFp32() const { return keptInFp32_; }
    // probes.locate_nonfinite of the run: "off", "replay" or "always".
    const std::string& locateMode() const { return locateMode_; }
    // Recorded from a PyTorch run (python/ampscope): the lab cannot rerun it.
    bool recordedRun() const { return recordedRun_; }

    const std::vector<ScriptModuleInfo>& modules() const { return modules_; }
    // The model file the module tree came from, as the record names it.
    const QString& modulesFile() const { return modulesFile_; }
    const QString& modulesFileSha256() const { return modulesSha256_; }
    bool hasModulesRecord() const { return hasModulesRecord_; }

private:
    std::optional<NonFiniteRecord> record_;
    LayerOrder layers_;
    QStringList keptInFp32_;
    std::string locateMode_ = "replay";
    bool recordedRun_ = false;
    std::vector<ScriptModuleInfo> modules_;
    QString modulesFile_;
    QString modulesSha256_;
    bool hasModulesRecord_ = false;
};

}  // namespace ampscope::ui
