#include "views/ScalingView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include "plots/ScalingPlot.h"
#include "runset/RunModel.h"
#include "views/ChooserRow.h"

namespace ampscope::ui {

ScalingView::ScalingView(RunSet* set, QWidget* parent) : RunPairView(set, RunChange::FormatQuant, parent) {
    setObjectName(QStringLiteral("scalingView"));
    pointBox_ = new QComboBox(this);
    pointBox_->setObjectName(QStringLiteral("scalingPoint"));
    pointBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    pointBox_->setToolTip(tr("The rounding point: a layer's matmul/conv input or weight (forward), "
                             "or the gradient arriving at its output (backward)"));
    noteLabel_ = makeDockNote(this, QStringLiteral("scalingNote"));
    QHBoxLayout* controls = makeChooserRow(this, {{tr("Tensor:"), pointBox_}}, noteLabel_);
    QHBoxLayout* sidesRow = makeSides(QStringLiteral("scaling"), [this](int side, QWidget* box) {
        plots_[side] = new ScalingPlot(box);
        return QList<QWidget*>{plots_[side]};
    });
    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addLayout(sidesRow, 1);
    connect(pointBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (updatingChooser_) return;
        rebuildPlots();
        for (ScalingPlot* plot : plots_) plot->resetView();  // another tensor: its own ranges
    });
    followRuns();
}

void ScalingView::shownRunChanged() {
    updateChooser();
    rebuildPlots();
}

void ScalingView::showRuns() {
    updateChooser();
    rebuildPlots();
    for (ScalingPlot* plot : plots_) plot->resetView();
}

bool ScalingView::setPoint(const QString& label) {
    const int index = pointBox_->findText(label);
    if (index < 0) return false;
    pointBox_->setCurrentIndex(index);
    return true;
}

QString ScalingView::point() const {
    return pointBox_->currentText();
}

QStringList ScalingView::pointLabels() const {
    QStringList labels;
    for (int i = 0; i < pointBox_->count(); ++i) labels << pointBox_->itemText(i);
    return labels;
}

std::vector<int64_t> ScalingView::overflowSteps() const {
    std::vector<int64_t> steps;
    const RunModel* a = sideRun(kA);
    if (const auto* s = a ? a->formatQuant().series(pointBox_->currentData().toString()) : nullptr)
        for (std::size_t i = 0; i < s->size(); ++i)
            if (s->entry(i).saturated > 0) steps.push_back(s->step(i));
    return steps;
}

void ScalingView::updateChooser() {
    const QString current = pointBox_->currentData().toString();
    QStringList keys;
    for (int side : {kA, kB})
        if (const RunModel* run = sideRun(side))
            for (const QString& key : run->formatQuant().points())
                if (!keys.contains(key)) keys << key;
    QStringList shown;
    for (int i = 0; i < pointBox_->count(); ++i) shown << pointBox_->itemData(i).toString();
    if (shown == keys) return;
    updatingChooser_ = true;
    pointBox_->clear();
    for (const QString& key : keys) pointBox_->addItem(FormatQuantHistory::label(key), key);
    const int keep = pointBox_->findData(current);
    pointBox_->setCurrentIndex(keep >= 0 ? keep : 0);
    updatingChooser_ = false;
}

void ScalingView::rebuildPlots() {
    const QString note = fill(kA);
    fill(kB);
    noteLabel_->setText(note);
}

QString ScalingView::fill(int side) {
    ScalingPlot* plot = plots_[side];
    plot->clearPoints();
    const RunModel* run = sideRun(side);
    const auto* s = run ? run->formatQuant().series(pointBox_->currentData().toString()) : nullptr;
    if (!s || s->empty()) {
        plot->setPerTensorScale(true);
        plot->setEmptyText(tr("No format_quant records: they are written on probe steps by runs "
                              "in fp8, mxfp8, mxfp4 or nvfp4"));
        plot->redraw();
        return tr("Per tensor: its amax and the scale chosen for it over the probe steps.");
    }
    const FormatQuantMeasurement& last = s->back();
    const bool perTensor = !std::isnan(last.scale);
    plot->setPerTensorScale(perTensor);
    int overflows = 0;
    for (std::size_t i = 0; i < s->size(); ++i) {
        const FormatQuantMeasurement& m = s->entry(i);
        const bool overflow = m.saturated > 0;
        overflows += overflow ? 1 : 0;
        plot->append(static_cast<double>(s->step(i)), m.amax, m.scaleAmax, m.scale, overflow);
    }
    plot->setEmptyText(QString());
    plot->redraw();
    QString note = tr("%1, %2 scaling.").arg(QString::fromStdString(last.format), QString::fromStdString(last.recipe));
    if (perTensor && last.scaleAmax > 0.0)
        note += tr(" Step %1: amax %2, scale from amax %3 (lag \u00D7%4).")
                    .arg(s->step(s->size() - 1))
                    .arg(last.amax, 0, 'g', 4)
                    .arg(last.scaleAmax, 0, 'g', 4)
                    .arg(last.amax / last.scaleAmax, 0, 'g', 3);
    else if (!perTensor)
        note += tr(" Block scales (no tensor scale): see Block scales.");
    note += tr(" Overflow steps: %1 of %2.").arg(overflows).arg(s->size());
    return note;
}

}  // namespace ampscope::ui
