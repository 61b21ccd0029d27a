#pragma once
// RunSetTimePlot: a per-step plot of the runs a run set shows (RunSet::shownRuns: the
// focused run, then the compared ones), each run's lines in its colour (RunPalette.h),
// the legend by run name once several runs share the plot. The base of the Loss, Loss
// scale, Throughput, Memory and Lock-step plots.
//
// Contract:
// - The plot draws the runs' own series (SeriesGraph over the run's store: no copies).
//   When the shown runs change (a run added, removed, focused, checked), every graph is
//   made again (a run's name and colour never change) (addRunGraphs per shown run, the focused
//   run first) and the view follows the data again; when a shown run's data named by
//   dataChanges() changed, the graphs refresh and the plot redraws once.
// - With no run shown the placeholder says what to do; subclasses say why a run's plot
//   is empty (emptyText()).
#include "plots/TimeSeriesPlot.h"
#include "runset/RunChanges.h"

namespace ampscope::ui {

class RunModel;
class RunSet;

class RunSetTimePlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    RunSetTimePlot(RunSet* set, RunChanges dataChanges, QWidget* parent = nullptr);

    RunSet* runSet() const { return set_; }
    // Runs drawn now, the focused one first.
    int shownRunCount() const { return static_cast<int>(shown_.size()); }

protected:
    // Adds the graphs of one shown run. `several`: more than one run is shown, so names
    // in the legend say which run a line is.
    virtual void addRunGraphs(const RunModel& run, bool focused, bool several) = 0;
    // Why the plot is empty for the shown runs (empty: it is not).
    virtual QString emptyText() const = 0;
    // Called after the graphs were made again.
    virtual void afterRebuild() {}
    // A change to one run that leaves the shown runs as they are, before the plot redraws
    // (a subclass drawing something derived from several runs brings it up to date here).
    virtual void runChanged(RunId run, RunChanges what) {
        (void)run;
        (void)what;
    }
    const std::vector<const RunModel*>& shownRuns() const { return shown_; }
    // "what" alone, or "run: what" when several runs are shown.
    static QString lineName(const RunModel& run, bool several, const QString& what);

    void rebuild();

private:
    void onChanged(RunId run, RunChanges what);

    RunSet* set_;
    RunChanges dataChanges_;
    std::vector<const RunModel*> shown_;
};

}  // namespace ampscope::ui
