#include "plots/SeriesGraph.h"

#include <algorithm>
#include <utility>

namespace ampscope::ui {

SeriesGraph::SeriesGraph(QCPGraph* graph, std::size_t directLimit)
    : graph_(graph), directLimit_(directLimit), source_(&own_) {}

SeriesGraph::SeriesGraph(QCPGraph* graph, const DecimatedSeries& source, std::size_t directLimit)
    : graph_(graph), directLimit_(directLimit), source_(&source) {}

void SeriesGraph::clear() {
    own_.clear();
    graph_->data()->clear();
    graph_->setAdaptiveSampling(true);
    shownCount_ = 0;
    decimated_ = false;
    viewWidth_ = -1;
    viewAppended_ = 0;
    viewLastX_ = 0.0;
    cleared_ = true;
}

void SeriesGraph::setSparseMarker(const QCPScatterStyle& marker) {
    sparseMarker_ = marker;
    updateDensityStyle(std::max(1, graph_->keyAxis()->axisRect()->width()));
}

void SeriesGraph::updateDensityStyle(int width) {
    const bool sparse = graph_->dataCount() <= width;
    if (graph_->antialiased() != sparse) graph_->setAntialiased(sparse);
    if (sparseMarker_.isNone()) return;
    const bool marked = graph_->dataCount() * kMarkerSpacing <= width;
    if (marked != !graph_->scatterStyle().isNone()) graph_->setScatterStyle(marked ? sparseMarker_ : QCPScatterStyle());
}

bool SeriesGraph::refresh() {
    const int width = std::max(1, graph_->keyAxis()->axisRect()->width());
    // Direct while every appended point is still kept (the series has not merged any).
    if (!decimated_ && source_->size() <= directLimit_ &&
        source_->appendedCount() == static_cast<std::int64_t>(source_->size())) {
        if (shownCount_ == source_->size()) return std::exchange(cleared_, false);
        appendTail();
        updateDensityStyle(width);
        cleared_ = false;
        return true;
    }
    const QCPRange range = graph_->keyAxis()->range();
    const bool rangeChanged = !decimated_ || range != viewRange_ || width != viewWidth_;
    // New points matter only when they land inside (or just past) the visible range:
    // they come after the last x of the previous view.
    const bool newDataVisible =
        source_->appendedCount() != viewAppended_ && viewLastX_ <= range.upper;
    if (!rangeChanged && !newDataVisible) {
        viewAppended_ = source_->appendedCount();
        viewLastX_ = source_->lastX();
        return false;
    }
    rebuildView(range, width);
    updateDensityStyle(width);
    return true;
}

void SeriesGraph::appendTail() {
    const std::size_t count = source_->size() - shownCount_;
    QVector<double> keys(static_cast<qsizetype>(count));
    QVector<double> values(static_cast<qsizetype>(count));
    for (std::size_t i = 0; i < count; ++i) {
        keys[static_cast<qsizetype>(i)] = source_->x(shownCount_ + i);
        values[static_cast<qsizetype>(i)] = source_->y(shownCount_ + i);
    }
    graph_->addData(keys, values, true);
    shownCount_ = source_->size();
}

void SeriesGraph::rebuildView(const QCPRange& range, int width) {
    source_->view(range.lower, range.upper, width, scratch_);
    QVector<QCPGraphData> data(static_cast<qsizetype>(scratch_.size()));
    for (std::size_t i = 0; i < scratch_.size(); ++i)
        data[static_cast<qsizetype>(i)] = QCPGraphData(scratch_[i].x, scratch_[i].y);
    graph_->data()->set(data, true);
    // The view is already at pixel resolution; QCustomPlot's own sampling on top of it
    // merges neighbouring buckets again and leaves unpainted pixel columns.
    graph_->setAdaptiveSampling(false);
    decimated_ = true;
    viewRange_ = range;
    viewWidth_ = width;
    viewAppended_ = source_->appendedCount();
    viewLastX_ = source_->lastX();
}

}  // namespace ampscope::ui
