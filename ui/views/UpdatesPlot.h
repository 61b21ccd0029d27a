#pragma once
// UpdatesPlot: how the optimizer steps of the shown runs moved their weights, over the
// steps, in the Updates dock:
// - lost updates: per layer, the fraction of the intended updates that rounded away
//   (w + dw == w; measured where the weights are stored in low precision: pure modes);
// - update ratio: per layer, |dw| / |w| on probe steps (log axis);
// - gradient norm: the global norm of the unscaled gradients before clipping (solid) and
//   after (dashed) on every step (log axis).
// Each run in its colour, each layer in its own dash pattern; the legend names the run
// once several are shown. The gradient norm of a job's ranks or many seeds of one config
// is drawn as their band (RunSetTimePlot), the outliers and the focused run as lines; the
// per-layer measures draw every shown run's layers (a band per layer would be a band per
// line: the recorder does not write them, and seeds trained here are few).
#include <vector>

#include "views/RunSetTimePlot.h"

namespace ampscope::ui {

class UpdatesPlot : public RunSetTimePlot {
    Q_OBJECT
public:
    enum class Measure { LostUpdates, UpdateRatio, GradientNorm };

    explicit UpdatesPlot(RunSet* set, QWidget* parent = nullptr);

    void setMeasure(Measure measure);
    Measure measure() const { return measure_; }
    // The graph of a shown run's layer (or, for the gradient norm, "before"/"after").
    QCPGraph* graphOf(int shownRun, const QString& line) const;

    QString hoverText(double step, QPoint pixel) const override;

protected:
    void addRunGraphs(const RunModel& run, bool focused, bool several) override;
    void afterRebuild() override;
    QString emptyText() const override;
    void applyAutoRanges() override;
    std::vector<BandQuantity> bandQuantities() const override;

private:
    struct Line {
        int shownRun;
        QString name;
        SeriesGraph* graph;
    };
    void addLayerLines(int shownRun, const RunModel& run, bool several);

    Measure measure_ = Measure::LostUpdates;
    std::vector<Line> lines_;
    std::vector<std::size_t> layersDrawn_;  // per shown run
};

}  // namespace ampscope::ui
