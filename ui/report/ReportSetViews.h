#pragma once
// ReportSetViews: the first pages of a report of several runs, the runs together. One run
// set holds them all, each compared, so the window's own Loss and Loss scale plots
// overlay them by name and colour (RunPalette: the colours the window gives them); two
// plots of the report's own overlay what the set keeps per run: the fraction of scaled
// parameter-gradient elements fp16 flushes to 0 (all layers together, per probe step) and
// the validation accuracy per epoch; and the Gradient histograms dock shows two runs side
// by side (one colour scale, one log2|g| axis) for the kinds and layers whose histograms
// differ most between the runs (HistogramContrast.h).
//
// Contract:
// - Built over the report's run set before it is fed (as ReportRunViews), never shown;
//   show(ids) then compares those runs and focuses the first (the overlays list it
//   first), and reads what their stores keep.
// - hasFlushed / hasAccuracy: some run recorded that; otherwise the plot is not drawn.
//   anyFlushed: some run's fp16 flushed some scaled parameter-gradient element.
// - Many runs of one config (RunBands.h: a job's ranks, 8 or more seeds) are drawn as the
//   window draws them: the Loss and Loss scale plots' bands (derived in show(), the set
//   having been fed with no event loop), and in the two overlays the members' median and
//   10% and 90% quantiles per step, with only the outliers (named with why) and the
//   focused run as lines of their own.
// - showContrast(c) focuses run c.runA, compares it with c.runB only, and picks c's
//   layer and kind; histogramPanes() are then the two runs' heatmaps, in that order.
#include <QString>
#include <memory>
#include <vector>

#include "report/HistogramContrast.h"
#include "runset/RunChanges.h"

class QCustomPlot;
class QWidget;

namespace ampscope::ui {

class GradientHistogramView;
class LossPlot;
class RunSet;
class ScalePlot;

class ReportSetViews {
public:
    // At most this many contrasts are ranked for the side-by-side pages.
    static constexpr std::size_t kShownContrasts = 2;

    explicit ReportSetViews(RunSet& set);
    ~ReportSetViews();

    void show(const std::vector<RunId>& ids);

    LossPlot* loss() const { return loss_; }
    ScalePlot* scale() const { return scale_; }
    QCustomPlot* flushed() const { return flushed_; }
    QCustomPlot* accuracy() const { return accuracy_; }
    bool hasFlushed() const { return hasFlushed_; }
    bool hasAccuracy() const { return hasAccuracy_; }
    bool anyFlushed() const { return anyFlushed_; }

    // Largest first (rankContrasts), at most kShownContrasts.
    const std::vector<HistogramContrast>& contrasts() const { return contrasts_; }
    void showContrast(const HistogramContrast& contrast);
    std::vector<QCustomPlot*> histogramPanes() const;
    QString histogramKindText() const;

private:
    void drawFlushed();
    void drawAccuracy();

    RunSet& set_;
    std::unique_ptr<QWidget> host_;  // parent of the views; never shown
    std::vector<RunId> ids_;         // the runs' ids in the set, in the report's order
    LossPlot* loss_ = nullptr;
    ScalePlot* scale_ = nullptr;
    GradientHistogramView* histograms_ = nullptr;
    QCustomPlot* flushed_ = nullptr;
    QCustomPlot* accuracy_ = nullptr;
    bool hasFlushed_ = false;
    bool hasAccuracy_ = false;
    bool anyFlushed_ = false;
    std::vector<HistogramContrast> contrasts_;
};

}  // namespace ampscope::ui
