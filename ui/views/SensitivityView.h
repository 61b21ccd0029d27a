#pragma once
// SensitivityView: the "Sensitivity" dock. What quantizing each matmul/conv layer alone in
// each number format costs the loss (the score, core/probes/SensitivityRecord.h: the
// squared first-order loss change, in loss units squared), for the focused run's
// sensitivity passes (probes.sensitivity_every): a heatmap, layer x format, on a
// logarithmic colour scale.
//
// Contract:
// - Reads the run set: the focused run's SensitivityHistory ("sensitivity" records).
// - A chooser picks the mean over the run's passes (the default: one batch's score is
//   noisy) or its latest pass.
// - Rows are the record's layers, sorted by their largest score over the formats, highest
//   on top (sortedLayers(): a NaN score, a layer whose values were not finite, ranks
//   first; ties keep model order); columns the formats in the record's order.
// - A score of exactly 0 (the format rounds nothing there) is drawn apart from the colour
//   scale (CategoryHeatmapPlot's Score style); the scale runs from the smallest non-zero
//   score shown to the largest.
// - Clicking a cell emits layerChosen(layer): the window shows that layer's gradient
//   histograms and underflow map, and selects it in the precision map.
// - With no pass the heatmap says how to get one.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "probes/SensitivityRecord.h"
#include "runset/RunChanges.h"

class QComboBox;
class QLabel;

namespace ampscope::ui {

class CategoryHeatmapPlot;
class RunModel;
class RunSet;

class SensitivityView : public QWidget {
    Q_OBJECT
public:
    enum class Passes { Mean, Latest };

    explicit SensitivityView(RunSet* set, QWidget* parent = nullptr);

    void setPasses(Passes passes);
    Passes passes() const;

    // The record shown: the focused run's mean or latest pass; null when it has none.
    const SensitivityRecord* shownRecord() const;
    // A layer's largest score over the formats (NaN: +Inf, it ranks first); the rows' order
    // is the layers sorted by it, highest first, ties in model order.
    static double largestScore(const LayerSensitivity& layer);
    static std::vector<const LayerSensitivity*> sortedLayers(const SensitivityRecord& record);

    CategoryHeatmapPlot* heatmap() const { return heatmap_; }
    QLabel* note() const { return note_; }
    QComboBox* passesChooser() const { return passesBox_; }

Q_SIGNALS:
    void layerChosen(const QString& layer);

private:
    void onChanged(RunId run, RunChanges what);
    void redraw();

    RunSet* set_;
    QComboBox* passesBox_ = nullptr;
    QLabel* note_ = nullptr;
    CategoryHeatmapPlot* heatmap_ = nullptr;
};

}  // namespace ampscope::ui
