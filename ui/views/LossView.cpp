#include "views/LossView.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QVBoxLayout>

#include "views/LossPlot.h"

namespace ampscope::ui {

LossView::LossView(RunSet* set, QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("lossView"));
    plot_ = new LossPlot(set, this);
    switch_ = new QCheckBox(this);
    switch_->setObjectName(QStringLiteral("lossLogarithmic"));
    switch_->setToolTip(tr("The loss axis turns logarithmic by itself when the curves shown span more "
                           "than %1 decades; check or uncheck to choose yourself")
                            .arg(LossPlot::kAutoLogDecades));
    auto* row = new QHBoxLayout;
    row->setContentsMargins(4, 0, 4, 0);
    row->addStretch(1);
    row->addWidget(switch_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(row);
    layout->addWidget(plot_, 1);
    connect(switch_, &QCheckBox::clicked, this, [this](bool on) {
        plot_->setLogarithmic(on);
        showAxis();
    });
    connect(plot_, &LossPlot::logarithmicChanged, this, &LossView::showAxis);
    connect(plot_->logarithmicAction(), &QAction::triggered, this, &LossView::showAxis);
    showAxis();
}

void LossView::showAxis() {
    const QSignalBlocker quiet(switch_);
    switch_->setChecked(plot_->isLogarithmic());
    switch_->setText(plot_->isAutoLogarithmic() ? tr("Logarithmic axis (auto)") : tr("Logarithmic axis"));
}

}  // namespace ampscope::ui
