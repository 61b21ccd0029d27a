#include "plots/TimeSeriesPlot.h"

#include <QAction>
#include <QMenu>
#include <algorithm>
#include <cmath>

#include "plots/LegendRow.h"
#include "plots/PlotExport.h"

namespace ampscope::ui {

TimeSeriesPlot::TimeSeriesPlot(QWidget* parent) : InteractivePlot(parent) {
    // Antialiasing a long line while dragging is what makes panning feel slow.
    setNoAntialiasingOnDrag(true);
    setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels);
    setMinimumSize(260, 170);

    xAxis->setLabel(QStringLiteral("training step"));
    xAxis->setRange(0, 100);
    // The legend sits in its own row above the plot: inside it would hide live data.
    placeLegendInRow(*this, 0, 3, 2);
    legend->setRowSpacing(0);  // its rows packed: up to three of them on a short dock
    plotLayout()->setRowSpacing(0);

    // The graphs that grow each tick get a paint buffer of their own, above the static
    // ones and below the axes.
    addLayer(QStringLiteral("growing"), layer(QStringLiteral("main")), QCustomPlot::limAbove);
    growingLayer_ = layer(QStringLiteral("growing"));
    growingLayer_->setMode(QCPLayer::lmBuffered);
    connect(this, &QCustomPlot::afterReplot, this, [this] {
        ++fullReplots_;
        fullReplotQueued_ = false;
        layerReplotQueued_ = false;
        drawnChrome_ = chrome();
    });

    placeholder_ = new QCPItemText(this);
    placeholder_->setPositionAlignment(Qt::AlignCenter);
    placeholder_->position->setType(QCPItemPosition::ptAxisRectRatio);
    placeholder_->position->setCoords(0.5, 0.5);
    placeholder_->setColor(QColor(120, 120, 120));
    placeholder_->setClipToAxisRect(true);

    resetViewAction_ = new QAction(tr("Reset view"), this);
    resetViewAction_->setToolTip(tr("Fit the whole run and follow new steps again"));
    connect(resetViewAction_, &QAction::triggered, this, &TimeSeriesPlot::resetView);

    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, &TimeSeriesPlot::showContextMenu);
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &TimeSeriesPlot::onRangeChanged);
    connect(yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &TimeSeriesPlot::onRangeChanged);
}

TimeSeriesPlot::~TimeSeriesPlot() = default;

void TimeSeriesPlot::updateLayout() {
    const bool columns = fitLegendColumns();
    QCustomPlot::updateLayout();
    const bool changed = fitAxisLabel(yAxis, yLabel_) | fitAxisLabel(yAxis2, y2Label_);
    if (changed || columns) QCustomPlot::updateLayout();
}

// As many legend entries side by side as the widest one allows: a fixed count cut the
// names of three runs in a narrow dock ("manual-pure-fp" for "manual-pure-fp16").
bool TimeSeriesPlot::fitLegendColumns() {
    int widest = 0, entries = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem* entry = legend->item(i)) {  // a grid's empty cell: null
            widest = std::max(widest, entry->minimumOuterSizeHint().width());
            ++entries;
        }
    if (widest == 0) return false;
    const int spacing = legend->columnSpacing();
    const int room = width() - legend->margins().left() - legend->margins().right();
    const int columns = std::clamp((room + spacing) / (widest + spacing), 1, std::max(1, entries));
    if (columns == legend->wrap()) return false;
    legend->setWrap(columns);
    legend->setFillOrder(legend->fillOrder(), true);  // rearranged into the new rows
    return true;
}

bool TimeSeriesPlot::fitAxisLabel(QCPAxis* axis, FittedLabel& fitted) {
    if (axis->label() != fitted.shown) fitted.full = axis->label();  // set since the last fit
    const int room = axisRect()->height() - 4;
    QString shown = fitted.full;
    if (room > 0) {
        // Too long for the axis: the parenthesis (units, a gloss) goes before the words
        // that name the quantity are cut ("training loss (cross-entropy, nats)").
        const QFontMetrics metrics(axis->labelFont());
        const qsizetype gloss = shown.indexOf(QStringLiteral(" ("));
        if (metrics.horizontalAdvance(shown) > room && gloss > 0) shown = shown.left(gloss);
        shown = metrics.elidedText(shown, Qt::ElideRight, room);
    }
    fitted.shown = shown;
    if (axis->label() == shown) return false;
    axis->setLabel(shown);
    return true;
}

SeriesGraph* TimeSeriesPlot::addSeries(QCPAxis* valueAxis, const QString& name, const QPen& pen) {
    QCPGraph* graph = addGraph(xAxis, valueAxis);
    graph->setName(name);
    graph->setPen(pen);
    series_.push_back(std::make_unique<SeriesGraph>(graph));
    return series_.back().get();
}

SeriesGraph* TimeSeriesPlot::addSeries(QCPAxis* valueAxis, const QString& name, const QPen& pen,
                                       const DecimatedSeries& source) {
    QCPGraph* graph = addGraph(xAxis, valueAxis);
    graph->setName(name);
    graph->setPen(pen);
    series_.push_back(std::make_unique<SeriesGraph>(graph, source));
    return series_.back().get();
}

void TimeSeriesPlot::clearAllSeries() {
    for (auto& s : series_) s->clear();
    following_ = true;
}

void TimeSeriesPlot::removeSeries(SeriesGraph* series) {
    const auto it = std::find_if(series_.begin(), series_.end(),
                                 [series](const auto& s) { return s.get() == series; });
    if (it == series_.end()) return;
    removeGraph(series->graph());
    series_.erase(it);
}

void TimeSeriesPlot::removeAllSeries() {
    for (auto& s : series_) removeGraph(s->graph());
    series_.clear();
    following_ = true;
}

int TimeSeriesPlot::shownPointCount(const QCPGraph* graph) const {
    return graph ? graph->dataCount() : 0;
}

void TimeSeriesPlot::setPlaceholder(const QString& text) {
    placeholder_->setText(text);
    placeholder_->setVisible(!text.isEmpty());
}

void TimeSeriesPlot::setPlaceholderHeight(double fromTop) {
    placeholder_->position->setCoords(0.5, fromTop);
}

void TimeSeriesPlot::setAxisLogarithmic(QCPAxis* axis, bool logarithmic) {
    const bool wasAuto = inAutoRange_;  // called from applyAutoRanges too
    inAutoRange_ = true;
    if (logarithmic) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("gb"));
    } else {
        axis->setScaleType(QCPAxis::stLinear);
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setNumberFormat(QStringLiteral("g"));
    }
    inAutoRange_ = wasAuto;
}

void TimeSeriesPlot::setXRangeToData(double lastStep) {
    // A little room on the right so the newest point is not glued to the border.
    xAxis->setRange(0.0, std::max(10.0, lastStep * 1.03));
}

QCPRange TimeSeriesPlot::paddedRange(double low, double high, bool logarithmic) {
    if (!std::isfinite(low) || !std::isfinite(high) || high < low) return QCPRange(0.0, 1.0);
    if (logarithmic) {
        if (low <= 0.0) low = std::max(high * 1e-6, 1e-300);
        if (high <= low) return QCPRange(low / 2.0, low * 2.0);
        const double factor = std::pow(high / low, 0.05);
        return QCPRange(low / factor, high * factor);
    }
    const double span = high - low;
    if (span <= 0.0) {
        const double pad = std::max(std::abs(high) * 0.05, 1e-3);
        return QCPRange(low - pad, high + pad);
    }
    return QCPRange(low - span * 0.05, high + span * 0.05);
}

QString TimeSeriesPlot::formatValue(double value) {
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("+Inf") : QStringLiteral("-Inf");
    return QString::number(value, 'g', 6);
}

void TimeSeriesPlot::redraw() {
    if (following_) {
        inAutoRange_ = true;
        applyAutoRanges();
        inAutoRange_ = false;
    }
    bool changed = false, moved = false;
    for (auto& s : series_) {
        if (!s->refresh()) continue;
        changed = true;
        if (s->graph()->layer() != growingLayer_) {
            s->graph()->setLayer(growingLayer_);
            moved = true;
        }
    }
    if (moved || fullReplotQueued_ || chrome() != drawnChrome_)
        queueFullReplot();
    else if (changed)
        queueGrowingLayerReplot();
}

void TimeSeriesPlot::resetView() {
    following_ = true;
    inAutoRange_ = true;
    applyAutoRanges();
    inAutoRange_ = false;
    refreshSeries();
    queueFullReplot();
}

void TimeSeriesPlot::queueFullReplot() {
    fullReplotQueued_ = true;
    replot(QCustomPlot::rpQueuedReplot);
}

void TimeSeriesPlot::queueGrowingLayerReplot() {
    if (layerReplotQueued_) return;
    layerReplotQueued_ = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            // A full replot that ran (or is queued) meanwhile draws the layer too.
            if (!layerReplotQueued_ || fullReplotQueued_) return;
            layerReplotQueued_ = false;
            ++layerReplots_;
            growingLayer_->replot();  // a full replot when the paint buffers need one
        },
        Qt::QueuedConnection);
}

TimeSeriesPlot::Chrome TimeSeriesPlot::chrome() const {
    Chrome c;
    c.numbers = {static_cast<double>(width()), static_cast<double>(height()),
                 static_cast<double>(legend->itemCount()), legend->visible() ? 1.0 : 0.0,
                 placeholder_->visible() ? 1.0 : 0.0};
    for (const QCPAxis* axis : axisRect()->axes()) {
        c.numbers.insert(c.numbers.end(), {axis->range().lower, axis->range().upper,
                                           static_cast<double>(axis->scaleType()), axis->visible() ? 1.0 : 0.0});
        c.texts << axis->label();
    }
    c.texts << placeholder_->text();
    return c;
}

void TimeSeriesPlot::refreshSeries() {
    for (auto& s : series_) s->refresh();
}

void TimeSeriesPlot::onRangeChanged() {
    if (inAutoRange_) return;
    // The user zoomed or dragged: keep their view until they reset it, and redo the
    // decimated views for the new range before QCustomPlot replots.
    following_ = false;
    refreshSeries();
}

void TimeSeriesPlot::showContextMenu(const QPoint& position) {
    QMenu menu(this);
    menu.addAction(resetViewAction_);
    addContextActions(menu);
    menu.addSeparator();
    QAction* save = menu.addAction(tr("Save image…"));
    connect(save, &QAction::triggered, this,
            [this] { savePlotWithDialog(this, this, objectName()); });
    menu.exec(mapToGlobal(position));
}

QString TimeSeriesPlot::tooltipText(QPoint pixel) const {
    if (!axisRect()->rect().contains(pixel)) return QString();
    return hoverText(xAxis->pixelToCoord(pixel.x()), pixel);
}

}  // namespace ampscope::ui
