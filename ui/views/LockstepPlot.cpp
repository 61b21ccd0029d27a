#include "views/LockstepPlot.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "probes/ComparisonRecords.h"
#include "probes/ProbeRecords.h"

namespace ampscope::ui {

namespace {

QColor layerColour(std::size_t index) {
    static const QColor kColours[8] = {QColor(31, 119, 180),  QColor(44, 160, 44),
                                       QColor(148, 103, 189), QColor(140, 86, 75),
                                       QColor(227, 119, 194), QColor(127, 127, 127),
                                       QColor(188, 189, 34),  QColor(23, 190, 207)};
    return kColours[index % 8];
}

}  // namespace

LockstepPlot::LockstepPlot(QWidget* parent) : TimeSeriesPlot(parent) {
    setObjectName(QStringLiteral("lockstep"));
    yAxis->setLabel(tr("gradient cosine A vs B (per layer)"));
    yAxis2->setVisible(true);
    yAxis2->setLabel(tr("loss difference A − B"));
    addLossSeries();
    setPlaceholder(tr("No run yet"));
}

void LockstepPlot::addLossSeries() {
    lossDiff_ = addSeries(yAxis2, tr("loss A − B"), QPen(QColor(214, 39, 40), 1.2));
    lossDiff_->graph()->removeFromLegend();
}

void LockstepPlot::beginRun(const RunContext& context) {
    removeAllSeries();
    cosines_.clear();
    layerOrder_.clear();
    addLossSeries();
    runMode_ = QString::fromStdString(context.config.precision.mode);
    partnerMode_ = QString::fromStdString(context.config.lockstep.mode);
    lastStep_ = 0.0;
    minCosine_ = 1.0;
    maxAbsDiff_ = 0.0;
    setPlaceholder(partnerMode_.isEmpty()
                       ? tr("No lock-step partner in this run: set lockstep.mode (e.g. fp32) to "
                            "train a second mode on the same seed and batches")
                       : tr("Waiting for the first lock-step step…"));
}

QCPGraph* LockstepPlot::cosineGraph(const std::string& layer) const {
    const auto it = cosines_.find(layer);
    return it == cosines_.end() ? nullptr : it->second->graph();
}

void LockstepPlot::takeRecord(const nlohmann::json& record) {
    if (record.value("type", std::string()) != probe_record_type::kLockstep) return;
    LockstepRecord r;
    try {
        r = lockstepRecordFromJson(record);
    } catch (const std::exception&) {
        return;  // a malformed record: the reader's warnings say so
    }
    const double step = static_cast<double>(r.step);
    if (partnerMode_.isEmpty()) partnerMode_ = QString::fromStdString(r.mode);
    if (std::isfinite(r.lossDiff)) {
        lossDiff_->append(step, r.lossDiff);
        if (lossDiff_->series().size() == 1) {
            lossDiff_->graph()->setName(tr("loss %1 − %2").arg(runMode_, partnerMode_));
            lossDiff_->graph()->addToLegend();
        }
        maxAbsDiff_ = std::max(maxAbsDiff_, std::abs(r.lossDiff));
    }
    for (const GradientComparison& layer : r.layers) {
        if (!std::isfinite(layer.cosine)) continue;
        auto it = cosines_.find(layer.layer);
        if (it == cosines_.end()) {
            SeriesGraph* s = addSeries(yAxis, QString::fromStdString(layer.layer),
                                       QPen(layerColour(layerOrder_.size()), 1.5));
            s->graph()->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
            it = cosines_.emplace(layer.layer, s).first;
            layerOrder_.push_back(layer.layer);
        }
        it->second->append(step, layer.cosine);
        minCosine_ = std::min(minCosine_, layer.cosine);
    }
    lastStep_ = std::max(lastStep_, step);
    setPlaceholder(QString());
}

void LockstepPlot::applyAutoRanges() {
    setXRangeToData(lastStep_);
    // Cosines near 1 are the normal case: show down to the lowest seen, with a margin.
    const double low = std::max(-1.0, std::min(0.9, minCosine_) - 0.02);
    yAxis->setRange(low, 1.005);
    const double d = maxAbsDiff_ > 0.0 ? maxAbsDiff_ * 1.1 : 1e-6;
    yAxis2->setRange(-d, d);
}

QString LockstepPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    QString text;
    if (!lossDiff_->series().empty()) {
        const DecimatedSeries& d = lossDiff_->series();
        const std::size_t i = d.nearestIndex(step);
        text = tr("step %1\nloss %2 − %3: %4")
                   .arg(static_cast<qint64>(d.x(i)))
                   .arg(runMode_, partnerMode_, formatValue(d.y(i)));
    }
    for (const std::string& layer : layerOrder_) {
        const DecimatedSeries& d = cosines_.at(layer)->series();
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
