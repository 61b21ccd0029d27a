#include "runset/RunModel.h"

#include "runset/RunPalette.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope::ui {

RunModel::RunModel(RunId id, const RunContext& context, int colourSlot, Notify notify)
    : id_(id), context_(context), colourSlot_(colourSlot), notify_(std::move(notify)) {
    for (RunStore* store : stores()) {
        store->beginRun(context_);
        (void)store->takeChanges();  // joining the set is the news (RunChange::Added)
    }
}

std::vector<RunStore*> RunModel::stores() {
    return {&info_,     &steps_,       &histograms_,  &underflow_, &nonFinite_,
            &memory_,   &lockstep_,    &formatQuant_, &formatSweep_, &updates_, &precisionMap_, &sensitivity_,
            &outcome_};
}

QColor RunModel::colour() const {
    return run_palette::colour(colourSlot_);
}

int64_t RunModel::firstNonFiniteStep() const {
    if (nonFinite_.step() >= 0) return nonFinite_.step();
    return steps_.firstNonFiniteLossStep();
}

QString RunModel::badgeText() const {
    QStringList parts{info_.executionWord()};
    if (!info_.mode().isEmpty()) parts << info_.mode();
    if (!info_.device().isEmpty()) parts << info_.device();
    return parts.join(QStringLiteral(" \u00B7 "));
}

void RunModel::beginRun(const RunContext& context) {
    context_ = context;
    for (RunStore* store : stores()) store->beginRun(context_);
    pending_ |= RunChange::Identity;
}

void RunModel::appendSteps(const std::vector<StepMetrics>& steps) {
    for (RunStore* store : stores()) store->appendSteps(steps);
}

void RunModel::appendEpoch(const EpochMetrics& epoch) {
    for (RunStore* store : stores()) store->appendEpoch(epoch);
}

void RunModel::takeModelModules(const ModelModulesRecord& record) {
    for (RunStore* store : stores()) store->takeModelModules(record);
}

void RunModel::takeRecord(const nlohmann::json& record) {
    if (const auto info = runInfoFromJson(record)) {
        for (RunStore* store : stores()) store->takeRunInfo(*info);
        return;
    }
    for (RunStore* store : stores()) store->takeRecord(record);
}

void RunModel::takeHistogram(const HistogramRecord& record) {
    for (RunStore* store : stores()) store->takeHistogram(record);
}

void RunModel::takeUnderflow(const UnderflowRecord& record) {
    for (RunStore* store : stores()) store->takeUnderflow(record);
}

void RunModel::takeRunStart(const RunStartRecord& start) {
    outcome_.takeRunStart(start);
}

void RunModel::takeSummary(const SummaryReading& summary) {
    outcome_.takeSummary(summary);
    pending_ |= outcome_.takeChanges();
}

void RunModel::endOfBatch() {
    RunChanges changes = pending_;
    pending_ = {};
    for (RunStore* store : stores()) {
        store->endOfBatch();
        changes |= store->takeChanges();
    }
    // The run list marks the first non-finite step: news for whoever shows the run.
    if (firstNonFiniteStep() != shownNonFiniteStep_) {
        shownNonFiniteStep_ = firstNonFiniteStep();
        changes |= RunChange::Identity;
    }
    if (changes && notify_) notify_(id_, changes);
}

}  // namespace ampscope::ui
