#pragma once
// UnderflowMapPane: one run's underflow heatmap in the Underflow dock, layer x step, of
// the fraction of a tensor's elements fp16 flushes to 0 (or holds as subnormals, or
// overflows), with its run's name above it; compared runs stand side by side, one pane
// each, on one colour scale (applyColourRange).
//
// Contract:
// - show(run, kind, fraction) draws that run's kept counts of that tensor kind
//   (UnderflowSeries: steps as the store hands them, nothing averaged again). Rows are
//   the run's layers with records of that kind, in model order (first layer on top). A
//   probe step's column is drawn once all those layers reported it (or a later step
//   came), so a batch that splits a step's records leaves no hole.
// - update() appends the complete steps that came since; the store thinning them, or a
//   new layer, draws the map again.
// - fraction = elements in that class / all elements of the tensor (zeros included), as
//   Fp16ClassCounts::fraction does.
#include <QStringList>
#include <QWidget>

#include "runset/UnderflowSeries.h"

class QLabel;

namespace ampscope::ui {

class HeatmapPlot;
class RunModel;

enum class UnderflowFraction { Flushed, Subnormal, Overflow };
double underflowFractionOf(const Fp16ClassCounts& counts, UnderflowFraction fraction);

class UnderflowMapPane : public QWidget {
    Q_OBJECT
public:
    explicit UnderflowMapPane(QWidget* parent = nullptr);

    void show(const RunModel* run, const QString& kind, UnderflowFraction fraction, bool titled);
    void update();
    const RunModel* run() const { return run_; }
    HeatmapPlot* heatmap() const { return heatmap_; }
    QStringList rows() const { return rows_; }
    // The heatmap cell of `layer` at its `column`-th column (NaN: none).
    double cell(const QString& layer, int column) const;
    // The run's kept counts of the kind shown (null: none).
    const UnderflowSeries::KindData* data() const;
    // Steps of data() already drawn (complete ones).
    std::size_t shownSteps() const { return shownSteps_; }
    void setPlaceholder(const QString& text);

private:
    QStringList wantedRows() const;
    bool stepComplete(std::size_t index) const;
    void appendCompleteSteps();

    QLabel* title_ = nullptr;
    HeatmapPlot* heatmap_ = nullptr;
    const RunModel* run_ = nullptr;
    QString kind_;
    UnderflowFraction fraction_ = UnderflowFraction::Flushed;
    QStringList rows_;
    std::size_t shownSteps_ = 0;
    int thinningsSeen_ = 0;
};

}  // namespace ampscope::ui
