#pragma once
// UpdatesView: the "Updates" dock: what the optimizer steps did to the weights of the
// shown runs (UpdatesPlot) under a chooser of the measure: lost updates (pure modes:
// w + dw == w), the update ratio |dw| / |w|, or the gradient norm before and after
// clipping.
#include <QWidget>

class QComboBox;

namespace ampscope::ui {

class RunSet;
class UpdatesPlot;

class UpdatesView : public QWidget {
    Q_OBJECT
public:
    explicit UpdatesView(RunSet* set, QWidget* parent = nullptr);

    UpdatesPlot* plot() const { return plot_; }
    QComboBox* measureChooser() const { return measureBox_; }

private:
    UpdatesPlot* plot_ = nullptr;
    QComboBox* measureBox_ = nullptr;
};

}  // namespace ampscope::ui
