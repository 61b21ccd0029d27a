#pragma once
// ProbeSeriesStore: what a probe view keeps of one series of probe records (one layer and
// kind of histogram, one kind of underflow counts, the loss-scale changes): one entry per
// probe step, steps strictly increasing, at most `capacity` entries, so that a view's
// memory and redraw cost stay flat however long the run. The run directory keeps every
// record; this is the window's bounded copy. Plain C++ (no Qt, no torch): the views read
// it, the test suite checks it without a window.
//
// Contract:
// - entryFor(step) is how records come in, in the order the run wrote them:
//   a step after the last one opens a new entry (default-constructed, for the caller to
//   fill); the last step again gives its entry back (a probe step's records arrive one
//   layer at a time); an earlier step gives none (a replayed record: the store already
//   moved past it).
// - The thinning rule, the only one the probe views use: when a new step would make the
//   store hold more than `capacity` entries, neighbouring pairs (0,1), (2,3), ... are
//   thinned to one each first: the one with the larger weight(entry), the first of the
//   pair when the weights are equal (an odd last entry stays). The kept entries are real
//   probe steps, not averages, and the weight decides which moments stay in view (the
//   views weigh by how much fp16 lost there: NaN/Inf elements, flushed fractions). With
//   no weight function every pair keeps its first entry, i.e. every second step.
//   After thinning the store holds ceil(capacity / 2) entries, then the new one.
// - thinnings() counts the thinnings since construction or clear(), so that a view whose
//   plot indexes the entries knows to redraw from what is left.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

namespace ampscope::ui {

// The thinning rule on its own: which indices survive when the entries with these
// weights are thinned pairwise (see ProbeSeriesStore). Increasing indices.
std::vector<std::size_t> indicesKeptByThinning(const std::vector<double>& weights);

template <typename Entry>
class ProbeSeriesStore {
public:
    using Weight = std::function<double(const Entry&)>;

    // `capacity` below 2 is taken as 2 (thinning needs a pair).
    explicit ProbeSeriesStore(std::size_t capacity, Weight weight = {})
        : capacity_(std::max<std::size_t>(2, capacity)), weight_(std::move(weight)) {}

    // The entry for a record of `step` (see the contract); nullptr for a step before the
    // last one. `opened` is set to whether the entry is new.
    Entry* entryFor(int64_t step, bool* opened = nullptr) {
        if (opened) *opened = false;
        if (!steps_.empty()) {
            if (step < steps_.back()) return nullptr;
            if (step == steps_.back()) return &entries_.back();
        }
        if (steps_.size() >= capacity_) thin();
        steps_.push_back(step);
        entries_.emplace_back();
        if (opened) *opened = true;
        return &entries_.back();
    }

    void clear() {
        steps_.clear();
        entries_.clear();
        thinnings_ = 0;
    }

    std::size_t capacity() const { return capacity_; }
    std::size_t size() const { return steps_.size(); }
    bool empty() const { return steps_.empty(); }
    const std::vector<int64_t>& steps() const { return steps_; }
    int64_t step(std::size_t index) const { return steps_[index]; }
    const Entry& entry(std::size_t index) const { return entries_[index]; }
    const Entry& back() const { return entries_.back(); }
    int thinnings() const { return thinnings_; }

    // The index of the entry whose step is the latest at or before `step`; -1 when every
    // kept step is later.
    std::ptrdiff_t indexAtOrBefore(int64_t step) const {
        const auto after = std::upper_bound(steps_.begin(), steps_.end(), step);
        return std::distance(steps_.begin(), after) - 1;
    }

private:
    void thin() {
        std::vector<double> weights(entries_.size(), 0.0);
        if (weight_)
            for (std::size_t i = 0; i < entries_.size(); ++i) weights[i] = weight_(entries_[i]);
        std::size_t kept = 0;
        for (std::size_t pick : indicesKeptByThinning(weights)) {
            steps_[kept] = steps_[pick];
            if (kept != pick) entries_[kept] = std::move(entries_[pick]);
            ++kept;
        }
        steps_.resize(kept);
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(kept), entries_.end());
        ++thinnings_;
    }

    std::size_t capacity_;
    Weight weight_;
    std::vector<int64_t> steps_;
    std::vector<Entry> entries_;
    int thinnings_ = 0;
};

}  // namespace ampscope::ui
