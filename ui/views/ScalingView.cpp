#include "views/ScalingView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <cmath>
#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "plots/ScalingPlot.h"
#include "run/EventSchema.h"
#include "views/ChooserRow.h"

namespace ampscope::ui {

ScalingView::ScalingView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("scalingView"));
    pointBox_ = new QComboBox(this);
    pointBox_->setObjectName(QStringLiteral("scalingPoint"));
    pointBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    pointBox_->setToolTip(tr("The rounding point: a layer's matmul/conv input or weight (forward), "
                             "or the gradient arriving at its output (backward)"));
    noteLabel_ = makeDockNote(this, QStringLiteral("scalingNote"));
    QHBoxLayout* controls = makeChooserRow(this, {{tr("Tensor:"), pointBox_}}, noteLabel_);
    plot_ = new ScalingPlot(this);
    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addWidget(plot_, 1);
    connect(pointBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (updatingChooser_) return;
        rebuildPlot();
        plot_->resetView();  // another tensor: its own ranges
    });
    rebuildPlot();
}

void ScalingView::beginRun(const RunContext& context) {
    (void)context;
    history_.clear();
    updateChooser();
    rebuildPlot();
}

void ScalingView::takeRecord(const nlohmann::json& record) {
    const std::string type = recordType(record);
    if (type == event_type::kRunInfo)
        dirty_ |= history_.takeRunInfo(record);
    else if (type == probe_record_type::kFormatQuant)
        dirty_ |= history_.take(record);
}

void ScalingView::endOfBatch() {
    if (!dirty_) return;
    dirty_ = false;
    updateChooser();
    rebuildPlot();
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
    if (const auto* s = history_.series(pointBox_->currentData().toString()))
        for (std::size_t i = 0; i < s->size(); ++i)
            if (s->entry(i).saturated > 0) steps.push_back(s->step(i));
    return steps;
}

void ScalingView::updateChooser() {
    const QString current = pointBox_->currentData().toString();
    const QStringList keys = history_.points();
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

void ScalingView::rebuildPlot() {
    plot_->clearPoints();
    const auto* s = history_.series(pointBox_->currentData().toString());
    if (!s || s->empty()) {
        plot_->setPerTensorScale(true);
        plot_->setEmptyText(tr("No format_quant records: they are written on probe steps by runs "
                               "in fp8, mxfp8, mxfp4 or nvfp4"));
        noteLabel_->setText(tr("Per tensor: its amax and the scale chosen for it over the probe steps."));
        plot_->endOfBatch();
        return;
    }
    const FormatQuantMeasurement& last = s->back();
    const bool perTensor = !std::isnan(last.scale);
    plot_->setPerTensorScale(perTensor);
    int overflows = 0;
    for (std::size_t i = 0; i < s->size(); ++i) {
        const FormatQuantMeasurement& m = s->entry(i);
        const bool overflow = m.saturated > 0;
        overflows += overflow ? 1 : 0;
        plot_->append(static_cast<double>(s->step(i)), m.amax, m.scaleAmax, m.scale, overflow);
    }
    plot_->setEmptyText(QString());
    QString note = tr("%1, %2 scaling.").arg(QString::fromStdString(last.format),
                                            QString::fromStdString(last.recipe));
    if (perTensor && last.scaleAmax > 0.0)
        note += tr(" Step %1: amax %2, scale from amax %3 (lag \u00D7%4).")
                    .arg(s->step(s->size() - 1))
                    .arg(last.amax, 0, 'g', 4)
                    .arg(last.scaleAmax, 0, 'g', 4)
                    .arg(last.amax / last.scaleAmax, 0, 'g', 3);
    else if (!perTensor)
        note += tr(" Block scales (no tensor scale): see Block scales.");
    note += tr(" Overflow steps: %1 of %2.").arg(overflows).arg(s->size());
    noteLabel_->setText(note);
    plot_->endOfBatch();
}

}  // namespace ampscope::ui
