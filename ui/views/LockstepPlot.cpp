#include "views/LockstepPlot.h"

#include <algorithm>
#include <cmath>

#include "runset/RunSet.h"

namespace ampscope::ui {

namespace {

QColor layerColour(std::size_t index) {
    static const QColor kColours[8] = {QColor(31, 119, 180),  QColor(44, 160, 44),  QColor(148, 103, 189),
                                       QColor(140, 86, 75),   QColor(227, 119, 194), QColor(127, 127, 127),
                                       QColor(188, 189, 34),  QColor(23, 190, 207)};
    return kColours[index % 8];
}

}  // namespace

LockstepPlot::LockstepPlot(RunSet* set, QWidget* parent) : RunSetTimePlot(set, RunChange::Lockstep, parent) {
    setObjectName(QStringLiteral("lockstep"));
    yAxis->setLabel(tr("gradient cosine A vs B (per layer)"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("loss difference A − B"));
    rebuild();
}

QString LockstepPlot::partnerMode() const {
    return run_ ? run_->lockstep().partnerMode() : QString();
}

QCPGraph* LockstepPlot::cosineGraph(const std::string& layer) const {
    const auto it = cosines_.find(layer);
    return it == cosines_.end() ? nullptr : it->second->graph();
}

void LockstepPlot::addRunGraphs(const RunModel& run, bool focused, bool several) {
    (void)several;
    if (!focused) return;  // A against B is one run's own pair of modes
    run_ = &run;
    cosines_.clear();
    const LockstepSeries& l = run.lockstep();
    lossDiff_ = addSeries(yAxis2, tr("loss %1 − %2").arg(l.runMode(), l.partnerMode()),
                          QPen(QColor(214, 39, 40), 1.2), l.lossDifference());
    addNewLayers();
}

void LockstepPlot::addNewLayers() {
    if (!run_) return;
    for (const auto& [layer, series] : run_->lockstep().cosines()) {
        if (cosines_.count(layer)) continue;
        SeriesGraph* s = addSeries(yAxis, QString::fromStdString(layer), QPen(layerColour(cosines_.size()), 1.5),
                                   series);
        s->setSparseMarker(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
        cosines_.emplace(layer, s);
    }
    if (lossDiff_) {
        lossDiff_->graph()->setName(tr("loss %1 − %2").arg(run_->lockstep().runMode(), run_->lockstep().partnerMode()));
        const bool any = !lossDiff_->series().empty();
        if (any && !legend->hasItemWithPlottable(lossDiff_->graph())) lossDiff_->graph()->addToLegend();
        if (!any && legend->hasItemWithPlottable(lossDiff_->graph())) lossDiff_->graph()->removeFromLegend();
    }
}

void LockstepPlot::afterRebuild() {
    if (shownRuns().empty()) {
        run_ = nullptr;
        lossDiff_ = nullptr;
        cosines_.clear();
    }
}

QString LockstepPlot::emptyText() const {
    if (!run_) return QString();
    const LockstepSeries& l = run_->lockstep();
    if (!l.lossDifference().empty() || !l.cosines().empty()) return QString();
    return l.partnerMode().isEmpty()
               ? tr("No lock-step partner in this run: set lockstep.mode (e.g. fp32) to "
                    "train a second mode on the same seed and batches")
               : tr("Waiting for the first lock-step step\u2026");
}

void LockstepPlot::applyAutoRanges() {
    addNewLayers();
    if (!run_) return;
    const LockstepSeries& l = run_->lockstep();
    setXRangeToData(l.lastStep());
    // Cosines near 1 are the normal case: show down to the lowest seen, with a margin.
    const double low = std::max(-1.0, std::min(0.9, l.minCosine()) - 0.02);
    yAxis->setRange(low, 1.005);
    const double d = l.maxAbsDifference() > 0.0 ? l.maxAbsDifference() * 1.1 : 1e-6;
    yAxis2->setRange(-d, d);
}

QString LockstepPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    if (!run_) return QString();
    const LockstepSeries& l = run_->lockstep();
    QString text;
    if (!l.lossDifference().empty()) {
        const DecimatedSeries& d = l.lossDifference();
        const std::size_t i = d.nearestIndex(step);
        text = tr("step %1\nloss %2 − %3: %4")
                   .arg(static_cast<qint64>(d.x(i)))
                   .arg(l.runMode(), l.partnerMode(), formatValue(d.y(i)));
    }
    for (const auto& [layer, d] : l.cosines()) {
        if (d.empty()) continue;
        const std::size_t i = d.nearestIndex(step);
        text += tr("\n%1 cosine (step %2): %3")
                    .arg(QString::fromStdString(layer))
                    .arg(static_cast<qint64>(d.x(i)))
                    .arg(formatValue(d.y(i)));
    }
    return text;
}

}  // namespace ampscope::ui
