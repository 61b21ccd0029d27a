#include "runset/RunSet.h"

#include <algorithm>

#include "runset/RunPalette.h"

namespace ampscope::ui {

RunSet::RunSet(QObject* parent) : QObject(parent) {
    qRegisterMetaType<ampscope::ui::RunChanges>();
}

RunSet::~RunSet() = default;

RunModel* RunSet::addRun(const RunContext& context, AddOptions options) {
    std::vector<int> slots;
    for (const auto& r : runs_) slots.push_back(r->colourSlot());
    const RunId id = nextId_++;
    runs_.push_back(std::make_unique<RunModel>(id, context, run_palette::firstFreeSlot(slots),
                                               [this](RunId run, RunChanges what) { Q_EMIT changed(run, what); }));
    RunModel* model = runs_.back().get();
    model->compared_ = options.compared;
    RunChanges what = RunChange::Added;
    if (options.focus || focused_ == kNoRun) {
        focused_ = id;
        what |= RunChange::Focus;
    }
    Q_EMIT changed(id, what);
    return model;
}

void RunSet::removeRun(RunId id) {
    const auto it = std::find_if(runs_.begin(), runs_.end(), [id](const auto& r) { return r->id() == id; });
    if (it == runs_.end()) return;
    std::unique_ptr<RunModel> leaving = std::move(*it);
    runs_.erase(it);
    const bool wasFocused = focused_ == id;
    if (wasFocused) focused_ = runs_.empty() ? kNoRun : runs_.back()->id();
    Q_EMIT changed(id, RunChange::Removed);
    if (wasFocused && focused_ != kNoRun) Q_EMIT changed(focused_, RunChange::Focus);
}

void RunSet::clear() {
    while (!runs_.empty()) removeRun(runs_.back()->id());
}

void RunSet::focus(RunId id) {
    if (id == focused_ || !run(id)) return;
    focused_ = id;
    Q_EMIT changed(id, RunChange::Focus);
}

void RunSet::setCompared(RunId id, bool compared) {
    RunModel* model = run(id);
    if (!model || model->compared_ == compared) return;
    model->compared_ = compared;
    Q_EMIT changed(id, RunChange::Compared);
}

void RunSet::setStatus(RunId id, const QString& status) {
    RunModel* model = run(id);
    if (!model || model->status_ == status) return;
    model->status_ = status;
    Q_EMIT changed(id, RunChange::Identity);
}

void RunSet::setTitle(RunId id, const QString& title) {
    RunModel* model = run(id);
    if (!model || model->context_.title == title) return;
    model->context_.title = title;
    Q_EMIT changed(id, RunChange::Identity);
}

void RunSet::setErrorMessage(RunId id, const QString& message) {
    RunModel* model = run(id);
    if (!model || model->errorMessage_ == message) return;
    model->errorMessage_ = message;
    Q_EMIT changed(id, RunChange::Identity);
}

RunId RunSet::firstNonFinite(const std::vector<RunId>& among) const {
    // At one step, a run (a rank) where the value appeared comes before one that received
    // it through the gradient all-reduce.
    RunId first = kNoRun;
    int64_t earliest = -1;
    bool firstReceived = false;
    for (RunId id : among) {
        const RunModel* model = run(id);
        const int64_t step = model ? model->firstNonFiniteStep() : -1;
        const bool received = model && model->nonFinite().receivedThroughAllReduce();
        if (step >= 0 && (earliest < 0 || step < earliest || (step == earliest && firstReceived && !received))) {
            earliest = step;
            firstReceived = received;
            first = id;
        }
    }
    return first;
}

void RunSet::focusFirstNonFinite(const std::vector<RunId>& among) {
    if (among.empty()) return;
    const RunId first = firstNonFinite(among);
    focus(first != kNoRun ? first : among.front());
}

std::vector<const RunModel*> RunSet::runs() const {
    std::vector<const RunModel*> list;
    for (const auto& r : runs_) list.push_back(r.get());
    return list;
}

RunModel* RunSet::run(RunId id) {
    for (const auto& r : runs_)
        if (r->id() == id) return r.get();
    return nullptr;
}

const RunModel* RunSet::run(RunId id) const {
    for (const auto& r : runs_)
        if (r->id() == id) return r.get();
    return nullptr;
}

const RunModel* RunSet::runAt(int index) const {
    return index >= 0 && index < size() ? runs_[static_cast<std::size_t>(index)].get() : nullptr;
}

int RunSet::indexOf(RunId id) const {
    for (int i = 0; i < size(); ++i)
        if (runs_[static_cast<std::size_t>(i)]->id() == id) return i;
    return -1;
}

std::vector<const RunModel*> RunSet::shownRuns() const {
    std::vector<const RunModel*> shown;
    if (const RunModel* f = focused()) shown.push_back(f);
    for (const auto& r : runs_)
        if (r->isCompared() && r->id() != focused_) shown.push_back(r.get());
    return shown;
}

bool RunSet::isShown(RunId id) const {
    const RunModel* model = run(id);
    return model && (id == focused_ || model->isCompared());
}

const RunModel* RunSet::partner() const {
    const std::vector<const RunModel*> shown = shownRuns();
    return shown.size() > 1 ? shown[1] : nullptr;
}

}  // namespace ampscope::ui
