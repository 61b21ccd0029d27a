#pragma once
// ReportRunViews: the window's own views, built offscreen (never shown) over a run set of
// one recorded run (RunReplay.h), so a report draws exactly what the window would: the
// loss, the loss scale, the gradient-histogram heatmap of the most affected layers and
// the underflow map.
//
// Contract:
// - affectedLayers(): up to `count` layers, the first non-finite layer first, then by
//   mean fraction of scaled parameter-gradient elements fp16 loses (flushed + subnormal
//   + overflowed, from the run's underflow records), highest first, zero fractions left
//   out. Empty when the run has no such records.
// - showHistogramOf(layer) switches the histogram heatmap to that layer's scaled
//   parameter gradients (what fp16 holds), or its unscaled ones when the run recorded no
//   scaled histogram for it; false when the layer has no histogram at all.
#include <QString>
#include <QStringList>
#include <memory>

#include "runset/RunObserver.h"
#include "report/ReportRun.h"

class QCustomPlot;
class QWidget;

namespace ampscope::ui {

class GradientHistogramView;
class LossPlot;
class RunSet;
class ScalePlot;
class UnderflowView;

// The context a recorded run is replayed with (its config, title and directory; not live).
RunContext reportRunContext(const ReportRun& run);

class ReportRunViews {
public:
    explicit ReportRunViews(const ReportRun& run);
    ~ReportRunViews();

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
    class LayerScan;
    std::unique_ptr<RunSet> set_;    // the one run the views show
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
