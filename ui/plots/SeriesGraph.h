#pragma once
// SeriesGraph: one QCPGraph drawing one DecimatedSeries (bounded: DecimatedSeries.h; the
// full data stays in the run directory): a run's series in the run set, drawn where it
// is (never copied), or a series the plot fills itself (a quantity a view derives).
//
// Contract:
// - A graph of a run's series reads it at every refresh(); the series must outlive the
//   graph (views drop their graphs when the run set says a run was removed). A graph
//   of its own series: append() only stores.
// - refresh() brings the graph up to date and is meant to run once per UI tick (and
//   when the visible x range changes), never per point.
// - While the series is small (<= directLimit points) refresh() appends just the new tail
//   to the graph with addData(..., alreadySorted=true): cheap, and exact.
// - Past that the graph holds the decimated view (min/max per pixel column) of the visible
//   x range, rebuilt only when the range, the plot width or the data inside the range
//   changed, so a 10^6-point series costs about 2 x width graph points per replot.
// - Lines are antialiased only while there is at most one point per pixel: a denser line
//   looks the same without, and antialiasing it doubles the replot time. Likewise a
//   marker given with setSparseMarker() is drawn only while points stand at least
//   kMarkerSpacing pixels apart on average: denser, the markers only hide the line and
//   cost one shape per point.
// - refresh() also reports a clear() since the last refresh (the graph lost its points).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runset/DecimatedSeries.h"
#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {

class SeriesGraph {
public:
    static constexpr std::size_t kDefaultDirectLimit = 5000;
    static constexpr int kMarkerSpacing = 6;

    // A graph of its own series.
    explicit SeriesGraph(QCPGraph* graph, std::size_t directLimit = kDefaultDirectLimit);
    // A graph of `source` (a run's series in the run set).
    SeriesGraph(QCPGraph* graph, const DecimatedSeries& source, std::size_t directLimit = kDefaultDirectLimit);

    // Its own series only.
    void append(double x, double y) { own_.append(x, y); }
    // Empties the graph (and its own series).
    void clear();
    // Updates the graph's data; returns true when it changed.
    bool refresh();

    // A marker for each point while the line is sparse (see the contract).
    void setSparseMarker(const QCPScatterStyle& marker);

    QCPGraph* graph() const { return graph_; }
    const DecimatedSeries& series() const { return *source_; }
    bool isDecimated() const { return decimated_; }

private:
    void appendTail();
    void rebuildView(const QCPRange& range, int width);
    void updateDensityStyle(int width);

    QCPGraph* graph_;
    std::size_t directLimit_;
    DecimatedSeries own_;
    const DecimatedSeries* source_;  // own_, or a run's series
    std::size_t shownCount_ = 0;  // series points already handed to the graph (direct mode)
    bool decimated_ = false;
    bool cleared_ = false;  // clear() since the last refresh()
    QCPScatterStyle sparseMarker_;
    QCPRange viewRange_;
    int viewWidth_ = -1;
    std::int64_t viewAppended_ = 0;  // series_.appendedCount() when the view was last checked
    double viewLastX_ = 0.0;         // series_.lastX() then
    std::vector<DecimatedSeries::Point> scratch_;
};

}  // namespace ampscope::ui
