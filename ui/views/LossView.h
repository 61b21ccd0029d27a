#pragma once
// LossView: the "Loss" dock: the loss plot of the shown runs (LossPlot) under a visible
// switch for its axis: "Logarithmic axis", checked while the axis is logarithmic. The
// plot chooses by itself (the curves spanning more than three decades turn it
// logarithmic, "(auto)" says so); clicking the switch decides instead.
#include <QWidget>

class QCheckBox;

namespace ampscope::ui {

class LossPlot;
class RunSet;

class LossView : public QWidget {
    Q_OBJECT
public:
    explicit LossView(RunSet* set, QWidget* parent = nullptr);

    LossPlot* plot() const { return plot_; }
    QCheckBox* logarithmicSwitch() const { return switch_; }

private:
    void showAxis();

    LossPlot* plot_ = nullptr;
    QCheckBox* switch_ = nullptr;
};

}  // namespace ampscope::ui
