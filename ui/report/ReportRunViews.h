#pragma once
// ReportRunViews: the window's own views, built offscreen (never shown) over the report's
// run set, so a report draws exactly what the window would, one run at a time: the loss,
// the loss scale, the gradient-histogram heatmap of the most affected layers and the
// underflow map.
//
// Contract:
// - Built before the set is fed (as a window's docks are), so the views follow it as it
//   loads; show(id, run) then points them at that run alone (focused, the only one
//   compared) and reads what the run's stores keep.
// - affectedLayers(): up to `count` layers, the first non-finite layer first, then by
//   mean fraction of scaled parameter-gradient elements fp16 loses (flushed + subnormal
//   + overflowed, over the probe steps the run's UnderflowSeries keeps), highest first,
//   zero fractions left out. Empty when the run has no such counts.
// - showHistogramOf(layer) switches the histogram heatmap to that layer's scaled
//   parameter gradients (what fp16 holds), or its unscaled ones when the run recorded no
//   scaled histogram for it; false when the layer has no histogram at all.
#include <QString>
#include <QStringList>
#include <memory>
#include <utility>
#include <vector>

#include "report/ReportRun.h"
#include "runset/RunChanges.h"

class QCustomPlot;
class QWidget;

namespace ampscope::ui {

class GradientHistogramView;
class LossPlot;
class RunSet;
class ScalePlot;
class UnderflowView;

class ReportRunViews {
public:
    explicit ReportRunViews(RunSet& set);
    ~ReportRunViews();

    void show(RunId id, const ReportRun& run);

    LossPlot* loss() const { return loss_; }
    ScalePlot* scale() const { return scale_; }
    GradientHistogramView* histograms() const { return histograms_; }
    UnderflowView* underflow() const { return underflow_; }
    QCustomPlot* histogramHeatmap() const;
    QCustomPlot* underflowHeatmap() const;

    bool hasHistograms() const { return hasHistograms_; }
    bool hasUnderflow() const { return hasUnderflow_; }
    // Some scaled parameter-gradient element was flushed to 0 at some probe step.
    bool anyFlushed() const { return anyFlushed_; }
    QStringList affectedLayers(int count) const;
    bool showHistogramOf(const QString& layer);
    QString histogramKindText() const;

private:
    RunSet& set_;
    std::unique_ptr<QWidget> host_;  // parent of the views; never shown
    LossPlot* loss_ = nullptr;
    ScalePlot* scale_ = nullptr;
    GradientHistogramView* histograms_ = nullptr;
    UnderflowView* underflow_ = nullptr;
    std::vector<std::pair<QString, double>> lossByLayer_;  // mean lost fraction
    QString culprit_;
    QStringList scaledLayers_, unscaledLayers_;
    bool hasHistograms_ = false;
    bool hasUnderflow_ = false;
    bool anyFlushed_ = false;
};

}  // namespace ampscope::ui
