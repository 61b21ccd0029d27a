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
// - Many runs of one config (RunBands.h: a job's ranks, 8 or more seeds), in a plot that
//   names bandQuantities(): each quantity is drawn once for the group as its band
//   (QuantileBandGraphs: the median, the 10-90% quantiles filled), behind the runs; of
//   the members only the outliers (named with their reasons: runLabel) and the focused
//   run (any member, chosen in the Runs list, is drawn alone on its band) get their own
//   lines; the legend names the band and those, not every member. A member's new data
//   refreshes the bands at most every kBandRefreshMs, and never sooner after the last
//   refresh than kBandRefreshCostFactor times what it cost (a job of 512 ranks being read
//   costs ~0.1 s a refresh); a refresh that finds other outliers makes the graphs again.
#include <QTimer>
#include <memory>
#include <vector>

#include "plots/TimeSeriesPlot.h"
#include "runset/RunBands.h"
#include "runset/RunChanges.h"

namespace ampscope::ui {

class DecimatedSeries;
class QuantileBandGraphs;
class RunModel;
class RunSet;
class StepSeries;

class RunSetTimePlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    static constexpr int kBandRefreshMs = 200;
    static constexpr int kBandRefreshCostFactor = 4;

    RunSetTimePlot(RunSet* set, RunChanges dataChanges, QWidget* parent = nullptr);
    ~RunSetTimePlot() override;

    RunSet* runSet() const { return set_; }
    // Runs drawn now, the focused one first.
    int shownRunCount() const { return static_cast<int>(shown_.size()); }
    // Shown runs drawn with lines of their own (all of them, but for the band members that
    // are neither outliers nor focused).
    int drawnRunCount() const;

    // The bands drawn, in the set's order, and each band's graphs per quantity
    // (bandQuantities' order); the median's graph carries the legend entry.
    const std::vector<RunBand>& bands() const { return bands_; }
    QCPGraph* bandMedianGraph(int band, int quantity = 0) const;
    QCPGraph* bandLowGraph(int band, int quantity = 0) const;
    QCPGraph* bandHighGraph(int band, int quantity = 0) const;
    // Derives the bands now instead of at the next coalesced refresh (a report before it
    // draws; tests).
    void refreshBands();

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
    // Why a probe's records are missing, for emptyText(): "No <what> yet: the probes write
    // them on probe steps" while a shown run can still bring some, else that this run (these
    // runs, read from their folders) recorded none.
    QString noProbeRecordsText(const QString& what) const;
    // One quantity a band of many draws: a series of each member (its steps, its memory).
    struct BandQuantity {
        QCPAxis* axis = nullptr;
        const DecimatedSeries& (*series)(const RunModel& member) = nullptr;
        QString what;  // "smoothed train loss", in the legend
        bool filled = true;
        Qt::PenStyle style = Qt::SolidLine;
    };
    // None (the default): every shown run is drawn as lines, as many as there are.
    virtual std::vector<BandQuantity> bandQuantities() const { return {}; }
    // The run has lines of its own (not a member hidden in its band).
    bool isDrawn(const RunModel& run) const;
    // The run's name in the legend, with its reasons when it is a band's outlier.
    QString runLabel(const RunModel& run) const;
    // The bands at `step`, one line per band and quantity (empty: no band).
    QString bandHoverText(double step) const;
    // "what" alone, or "run: what" when several runs are shown.
    static QString lineName(const RunModel& run, bool several, const QString& what);

    void rebuild();

private:
    void onChanged(RunId run, RunChanges what);
    void rebuildWith(std::vector<RunBand> bands);
    void addBandGraphs(const RunBand& band);
    void scheduleBandRefresh();
    const QuantileBandGraphs* bandGraphs(int band, int quantity) const;

    RunSet* set_;
    RunChanges dataChanges_;
    std::vector<const RunModel*> shown_;
    std::vector<RunBand> bands_;
    // Per band, per quantity (bands_' and bandQuantities' order).
    std::vector<std::vector<std::unique_ptr<QuantileBandGraphs>>> bandGraphs_;
    QTimer bandTimer_;
    qint64 lastRefreshMs_ = 0;
};

}  // namespace ampscope::ui
