#include "views/UpdatesView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "views/ChooserRow.h"
#include "views/UpdatesPlot.h"

namespace ampscope::ui {

UpdatesView::UpdatesView(RunSet* set, QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("updatesView"));
    plot_ = new UpdatesPlot(set, this);
    measureBox_ = new QComboBox(this);
    measureBox_->setObjectName(QStringLiteral("updatesMeasure"));
    measureBox_->addItem(tr("lost updates (w + \u0394w == w)"), static_cast<int>(UpdatesPlot::Measure::LostUpdates));
    measureBox_->addItem(tr("update ratio |\u0394w| / |w|"), static_cast<int>(UpdatesPlot::Measure::UpdateRatio));
    measureBox_->addItem(tr("gradient norm, before and after clipping"),
                         static_cast<int>(UpdatesPlot::Measure::GradientNorm));
    // What each measure is made of, as the chooser's tip: a note beside it wraps to many
    // lines in a narrow dock and makes the whole window taller than a laptop screen.
    measureBox_->setToolTip(tr("Per layer on probe steps (update_ratio records); the gradient norm on every step."));
    QHBoxLayout* controls = makeChooserRow(this, {{tr("Show:"), measureBox_}}, new QLabel(this));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(plot_, 1);
    // The chooser row sits above the plot: the plot gives up that row's height so that
    // this dock is no taller than the per-step docks it is tabbed with, and the window's
    // rows of docks still fit a 1280x800 screen.
    plot_->setMinimumHeight(plot_->minimumHeight() - controls->sizeHint().height() - layout->spacing());
    connect(measureBox_, &QComboBox::currentIndexChanged, this, [this] {
        plot_->setMeasure(static_cast<UpdatesPlot::Measure>(measureBox_->currentData().toInt()));
    });
}

}  // namespace ampscope::ui
