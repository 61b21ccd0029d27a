#include "plots/LossPlot.h"

#include <QAction>
#include <QMenu>
#include <algorithm>
#include <cmath>

namespace ampscope::ui {

namespace {

constexpr double kBottomRug = 0.03;
constexpr double kTopRug = 0.97;

bool isClassification(const std::string& dataset) {
    return dataset != "tiny_gradients";
}

}  // namespace

LossPlot::LossPlot(QWidget* parent) : TimeSeriesPlot(parent) {
    setObjectName(QStringLiteral("loss"));
    yAxis->setLabel(tr("training loss"));
    yAxis2->setLabel(tr("validation accuracy (%)"));
    yAxis2->setTickLabels(true);

    markerAxis_ = axisRect()->addAxis(QCPAxis::atRight);
    markerAxis_->setVisible(false);
    markerAxis_->setRange(0.0, 1.0);

    raw_ = addSeries(yAxis, tr("train loss"), QPen(QColor(120, 160, 210), 1.0));
    smoothed_ =
        addSeries(yAxis, tr("train loss, EMA %1").arg(kSmoothing), QPen(QColor(20, 70, 160), 2.0));
    valLoss_ = addSeries(yAxis, tr("val loss"), QPen(QColor(200, 90, 20), 2.0));
    valLoss_->graph()->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    valAccuracy_ = addSeries(yAxis2, tr("val accuracy (%)"), QPen(QColor(40, 140, 60), 2.0));
    valAccuracy_->graph()->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 7));

    skipped_ = addSeries(markerAxis_, tr("skipped step"), QPen(QColor(230, 130, 0)));
    skipped_->graph()->setLineStyle(QCPGraph::lsNone);
    skipped_->graph()->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssTriangle, QColor(230, 130, 0), QColor(230, 130, 0), 6));
    nonFinite_ = addSeries(markerAxis_, tr("loss NaN/Inf"), QPen(QColor(200, 0, 0)));
    nonFinite_->graph()->setLineStyle(QCPGraph::lsNone);
    nonFinite_->graph()->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, 7));
    for (SeriesGraph* s : {valLoss_, valAccuracy_, skipped_, nonFinite_})
        s->graph()->removeFromLegend();

    logAction_ = new QAction(tr("Logarithmic loss axis"), this);
    logAction_->setCheckable(true);
    connect(logAction_, &QAction::toggled, this, &LossPlot::setLogarithmic);

    setPlaceholder(tr("No run yet: press Start, or open a run directory (Ctrl+O)"));
}

void LossPlot::beginRun(const RunContext& context) {
    for (SeriesGraph* earlier : earlierRuns_) removeSeries(earlier);
    earlierRuns_.clear();
    runTitle_ = context.title;
    raw_->graph()->setName(tr("train loss"));
    smoothed_->graph()->setName(tr("train loss, EMA %1").arg(kSmoothing));
    clearAllSeries();
    for (SeriesGraph* s : {valLoss_, valAccuracy_, skipped_, nonFinite_})
        s->graph()->removeFromLegend();
    yAxis2->setVisible(false);
    ema_ = 0.0;
    emaWeight_ = 0.0;
    epochs_.clear();
    yAxis->setLabel(isClassification(context.config.data.dataset)
                        ? tr("training loss (cross-entropy, nats)")
                        : tr("training loss (mean squared error)"));
    setPlaceholder(tr("Waiting for the first step…"));
}

void LossPlot::addEarlierRun(const QString& name, const DecimatedSeries& losses) {
    // Colours apart from this run's blues and the validation orange/green.
    static const QColor kColours[4] = {QColor(214, 39, 40), QColor(148, 103, 189),
                                       QColor(140, 86, 75), QColor(227, 119, 194)};
    SeriesGraph* line = addSeries(yAxis, name, QPen(kColours[earlierRuns_.size() % 4], 1.5));
    for (std::size_t i = 0; i < losses.size(); ++i) line->append(losses.x(i), losses.y(i));
    earlierRuns_.push_back(line);
    // Two runs now share the plot: this run's lines say which run they are.
    raw_->graph()->setName(tr("%1: train loss").arg(runTitle_));
    smoothed_->graph()->setName(tr("%1: EMA %2").arg(runTitle_).arg(kSmoothing));
    setPlaceholder(QString());
    endOfBatch();
}

QCPGraph* LossPlot::earlierRunGraph(int index) const {
    if (index < 0 || index >= earlierRunCount()) return nullptr;
    return earlierRuns_[static_cast<std::size_t>(index)]->graph();
}

void LossPlot::showInLegend(SeriesGraph* series) {
    if (!legend->hasItemWithPlottable(series->graph())) series->graph()->addToLegend();
}

void LossPlot::appendSteps(const std::vector<StepMetrics>& steps) {
    for (const StepMetrics& m : steps) {
        const double x = static_cast<double>(m.step);
        raw_->append(x, m.loss);
        if (std::isfinite(m.loss)) {
            ema_ = kSmoothing * ema_ + (1.0 - kSmoothing) * m.loss;
            emaWeight_ = kSmoothing * emaWeight_ + (1.0 - kSmoothing);
        } else {
            nonFinite_->append(x, kTopRug);
        }
        smoothed_->append(x, emaWeight_ > 0.0 ? ema_ / emaWeight_ : std::nan(""));
        if (m.stepSkipped) skipped_->append(x, kBottomRug);
    }
    if (!skipped_->series().empty()) showInLegend(skipped_);
    if (!nonFinite_->series().empty()) showInLegend(nonFinite_);
    setPlaceholder(QString());
}

void LossPlot::appendEpoch(const EpochMetrics& epoch) {
    epochs_.push_back(epoch);
    const double x = static_cast<double>(epoch.step);
    valLoss_->append(x, epoch.valLoss);
    showInLegend(valLoss_);
    if (std::isfinite(epoch.valAccuracy)) {
        valAccuracy_->append(x, 100.0 * epoch.valAccuracy);
        showInLegend(valAccuracy_);
        yAxis2->setVisible(true);
    }
}

void LossPlot::setLogarithmic(bool logarithmic) {
    if (logarithmic == logarithmic_) return;
    logarithmic_ = logarithmic;
    logAction_->setChecked(logarithmic);
    setAxisLogarithmic(yAxis, logarithmic);
    resetView();
}

void LossPlot::applyAutoRanges() {
    const DecimatedSeries& loss = raw_->series();
    const DecimatedSeries& val = valLoss_->series();
    double lastStep = loss.lastX();
    if (!val.empty()) lastStep = std::max(lastStep, val.lastX());
    for (const SeriesGraph* earlier : earlierRuns_)
        if (!earlier->series().empty()) lastStep = std::max(lastStep, earlier->series().lastX());
    setXRangeToData(lastStep);

    double low = loss.minY(), high = loss.maxY();
    if (val.hasFiniteY()) {
        low = std::min(low, val.minY());
        high = std::max(high, val.maxY());
    }
    bool anyEarlier = false;
    for (const SeriesGraph* earlier : earlierRuns_) {
        const DecimatedSeries& e = earlier->series();
        if (!e.hasFiniteY()) continue;
        low = std::min(low, e.minY());
        high = std::max(high, e.maxY());
        anyEarlier = true;
    }
    if (logarithmic_) {
        double lowPositive = loss.minPositiveY();
        if (val.hasPositiveY()) lowPositive = std::min(lowPositive, val.minPositiveY());
        for (const SeriesGraph* earlier : earlierRuns_)
            if (earlier->series().hasPositiveY())
                lowPositive = std::min(lowPositive, earlier->series().minPositiveY());
        if (std::isfinite(lowPositive)) low = lowPositive;
    }
    if (loss.hasFiniteY() || val.hasFiniteY() || anyEarlier)
        yAxis->setRange(paddedRange(low, high, logarithmic_));
    else
        yAxis->setRange(logarithmic_ ? QCPRange(0.1, 10.0) : QCPRange(0.0, 1.0));

    const DecimatedSeries& accuracy = valAccuracy_->series();
    if (accuracy.hasFiniteY()) {
        const QCPRange r = paddedRange(accuracy.minY(), accuracy.maxY(), false);
        yAxis2->setRange(std::max(0.0, r.lower), std::min(100.0, r.upper));
    }
}

void LossPlot::addContextActions(QMenu& menu) {
    menu.addAction(logAction_);
}

QString LossPlot::hoverText(double step, QPoint pixel) const {
    // An epoch point near the mouse (within 8 px) wins over the step under it.
    for (const EpochMetrics& e : epochs_) {
        if (std::abs(xAxis->coordToPixel(static_cast<double>(e.step)) - pixel.x()) <= 8.0) {
            QString text = tr("epoch %1 ended at step %2\nval loss %3")
                               .arg(e.epoch)
                               .arg(e.step)
                               .arg(formatValue(e.valLoss));
            if (std::isfinite(e.valAccuracy))
                text += tr("\nval accuracy %1 %").arg(formatValue(100.0 * e.valAccuracy));
            text += tr("\nepoch mean train loss %1").arg(formatValue(e.trainLoss));
            return text;
        }
    }
    const DecimatedSeries& loss = raw_->series();
    if (loss.empty()) return QString();
    const std::size_t i = loss.nearestIndex(step);
    QString text = tr("step %1\ntrain loss %2\nsmoothed %3")
                       .arg(static_cast<qint64>(loss.x(i)))
                       .arg(formatValue(loss.y(i)))
                       .arg(formatValue(smoothed_->series().yNear(loss.x(i))));
    const DecimatedSeries& skipped = skipped_->series();
    const std::size_t k = skipped.lowerIndex(loss.x(i));
    if (k < skipped.size() && skipped.x(k) == loss.x(i))
        text += tr("\noptimizer step skipped (non-finite gradient)");
    return text;
}

}  // namespace ampscope::ui
