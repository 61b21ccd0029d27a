#include "views/UnderflowMapPane.h"

#include <QLabel>
#include <QVBoxLayout>
#include <limits>

#include "plots/HeatmapPlot.h"
#include "runset/RunModel.h"
#include "views/RunTitle.h"

namespace ampscope::ui {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double underflowFractionOf(const Fp16ClassCounts& counts, UnderflowFraction fraction) {
    switch (fraction) {
        case UnderflowFraction::Flushed: return counts.flushedFraction();
        case UnderflowFraction::Subnormal: return counts.subnormalFraction();
        case UnderflowFraction::Overflow: return counts.overflowFraction();
    }
    return kNaN;
}

UnderflowMapPane::UnderflowMapPane(QWidget* parent) : QWidget(parent) {
    title_ = makeRunTitle(this, QStringLiteral("underflowRunTitle"));
    heatmap_ = new HeatmapPlot(this);
    heatmap_->setObjectName(QStringLiteral("underflow-map"));
    heatmap_->setMinimumSize(220, 120);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(1);
    layout->addWidget(title_);
    layout->addWidget(heatmap_, 1);
    title_->hide();
}

const UnderflowSeries::KindData* UnderflowMapPane::data() const {
    return run_ ? run_->underflow().data(kind_) : nullptr;
}

QStringList UnderflowMapPane::wantedRows() const {
    QStringList rows;
    if (!run_) return rows;
    const QStringList withData = run_->underflow().layersWithData(kind_);
    for (const QString& name : run_->underflow().layers().names())
        if (withData.contains(name)) rows << name;
    return rows;
}

void UnderflowMapPane::show(const RunModel* run, const QString& kind, UnderflowFraction fraction, bool titled) {
    run_ = run;
    kind_ = kind;
    fraction_ = fraction;
    showRunTitle(title_, run);
    title_->setVisible(titled && run);
    rows_ = wantedRows();
    // The map draws row 0 at the bottom: hand it the layers reversed, first layer on top.
    HeatmapLayout layout;
    layout.firstBinY = 0.0;
    layout.valueBins = 0;
    for (auto it = rows_.crbegin(); it != rows_.crend(); ++it) layout.extraRows << *it;
    if (layout.extraRows.isEmpty()) layout.extraRows << QString();
    layout.yLabel = tr("layer");
    layout.colourLabel = tr("fraction");  // the bar is short when there are few layers
    layout.capacity = static_cast<int>(UnderflowSeries::kMaxKeptProbeSteps);
    heatmap_->configure(layout);
    shownSteps_ = 0;
    thinningsSeen_ = data() ? data()->thinnings() : 0;
    heatmap_->setStepExtent(run ? run->underflow().lastStep() : 0);
    appendCompleteSteps();
    heatmap_->resetView();
}

void UnderflowMapPane::update() {
    if (!run_) return;
    const bool thinned = data() && data()->thinnings() != thinningsSeen_;
    if (thinned || wantedRows() != rows_) {
        show(run_, kind_, fraction_, title_->isVisible());
        return;
    }
    heatmap_->setStepExtent(run_->underflow().lastStep());
    appendCompleteSteps();
}

bool UnderflowMapPane::stepComplete(std::size_t index) const {
    const UnderflowSeries::KindData* d = data();
    if (index + 1 < d->size()) return true;  // a later step came: nothing more will
    for (const QString& layer : rows_)
        if (!d->entry(index).count(layer)) return false;
    return true;
}

void UnderflowMapPane::appendCompleteSteps() {
    const UnderflowSeries::KindData* d = data();
    if (!d || rows_.isEmpty()) return;
    const int n = static_cast<int>(rows_.size());
    for (; shownSteps_ < d->size() && stepComplete(shownSteps_); ++shownSteps_) {
        const UnderflowSeries::StepCounts& reported = d->entry(shownSteps_);
        std::vector<double> column(static_cast<std::size_t>(n), kNaN);
        for (int r = 0; r < n; ++r) {
            const auto it = reported.find(rows_[r]);
            if (it != reported.end())
                column[static_cast<std::size_t>(n - 1 - r)] = underflowFractionOf(it->second, fraction_);
        }
        heatmap_->appendColumn(d->step(shownSteps_), column);
    }
}

double UnderflowMapPane::cell(const QString& layer, int column) const {
    const int index = static_cast<int>(rows_.indexOf(layer));
    if (index < 0) return kNaN;
    return heatmap_->value(column, static_cast<int>(rows_.size()) - 1 - index);
}

void UnderflowMapPane::setPlaceholder(const QString& text) {
    heatmap_->setPlaceholder(text);
}

}  // namespace ampscope::ui
