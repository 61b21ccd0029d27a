#pragma once
// MemoryPlot: the memory of the runs a run set shows, over their steps, from their
// "memory" records (MemorySeries): process RSS (solid) and its peak (dashed), CUDA's
// peak allocated bytes where a run used CUDA (dotted), each run in its colour, and for
// the focused run the bytes of activations a step kept, one line per dtype (dash-dot).
// All in MiB on one axis from 0. A line joins the legend once it has data (by run name
// once several runs are shown). A job's ranks or many seeds of one config are drawn as
// their bands of the three quantities (RunSetTimePlot), with the outliers and the focused
// run as lines: a job of 512 ranks is not 1536 lines and legend entries. Otherwise a
// TimeSeriesPlot (zoom/pan, tooltip...).
#include <string>
#include <vector>

#include "views/RunSetTimePlot.h"

namespace ampscope::ui {

class MemoryPlot : public RunSetTimePlot {
    Q_OBJECT
public:
    explicit MemoryPlot(RunSet* set, QWidget* parent = nullptr);

    QString hoverText(double step, QPoint pixel) const override;

    // The focused run's graphs (nullptr with no run shown).
    QCPGraph* rssGraph() const;
    QCPGraph* peakRssGraph() const;
    QCPGraph* cudaPeakGraph() const;
    // nullptr until a record of the focused run names that dtype.
    QCPGraph* activationGraph(const std::string& dtype) const;

protected:
    void addRunGraphs(const RunModel& run, bool focused, bool several) override;
    void afterRebuild() override;
    QString emptyText() const override;
    void applyAutoRanges() override;
    std::vector<BandQuantity> bandQuantities() const override;

private:
    struct RunLines {
        SeriesGraph* rss = nullptr;
        SeriesGraph* peakRss = nullptr;
        SeriesGraph* cudaPeak = nullptr;
    };
    void addActivationLines();
    void updateLegend();

    std::vector<RunLines> lines_;  // per shown run, the focused one first
    std::vector<std::pair<std::string, SeriesGraph*>> activations_;  // the focused run's
};

}  // namespace ampscope::ui
