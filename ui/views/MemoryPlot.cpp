#include "views/MemoryPlot.h"

#include <algorithm>
#include <cmath>

#include "views/MemoryRecord.h"

namespace ampscope::ui {

namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

QColor activationColour(std::size_t index) {
    static const QColor kColours[4] = {QColor(44, 160, 44), QColor(148, 103, 189),
                                       QColor(227, 119, 194), QColor(188, 189, 34)};
    return kColours[index % 4];
}

}  // namespace

MemoryPlot::MemoryPlot(QWidget* parent) : TimeSeriesPlot(parent) {
    setObjectName(QStringLiteral("memory"));
    yAxis->setLabel(tr("memory (MiB)"));
    addFixedSeries();
    setPlaceholder(tr("No run yet"));
}

void MemoryPlot::addFixedSeries() {
    rss_ = addSeries(yAxis, tr("process RSS"), QPen(QColor(20, 110, 160), 1.5));
    peakRss_ = addSeries(yAxis, tr("peak RSS"), QPen(QColor(20, 110, 160), 1.5, Qt::DashLine));
    cudaPeak_ = addSeries(yAxis, tr("CUDA peak allocated"), QPen(QColor(200, 60, 30), 1.5));
    for (SeriesGraph* s : {rss_, peakRss_, cudaPeak_}) s->graph()->removeFromLegend();
}

void MemoryPlot::beginRun(const RunContext& context) {
    (void)context;
    removeAllSeries();
    activations_.clear();
    addFixedSeries();
    maxMiB_ = 0.0;
    lastStep_ = 0.0;
    setPlaceholder(tr("No memory records yet"));
}

QCPGraph* MemoryPlot::activationGraph(const std::string& dtype) const {
    const auto it = activations_.find(dtype);
    return it == activations_.end() ? nullptr : it->second->graph();
}

void MemoryPlot::append(SeriesGraph* series, double step, double bytes) {
    if (!std::isfinite(bytes)) return;
    const double mib = bytes / kBytesPerMiB;
    series->append(step, mib);
    if (series->series().size() == 1) series->graph()->addToLegend();
    maxMiB_ = std::max(maxMiB_, mib);
    lastStep_ = std::max(lastStep_, step);
}

void MemoryPlot::takeRecord(const nlohmann::json& record) {
    const auto sample = memorySampleFromRecord(record);
    if (!sample) return;
    const double step = static_cast<double>(sample->step);
    if (sample->rssBytes) append(rss_, step, *sample->rssBytes);
    if (sample->peakRssBytes) append(peakRss_, step, *sample->peakRssBytes);
    if (sample->cudaPeakAllocatedBytes) append(cudaPeak_, step, *sample->cudaPeakAllocatedBytes);
    for (const auto& [dtype, bytes] : sample->activationBytes) {
        auto it = activations_.find(dtype);
        if (it == activations_.end()) {
            SeriesGraph* s =
                addSeries(yAxis, tr("activations, %1").arg(QString::fromStdString(dtype)),
                          QPen(activationColour(activations_.size()), 1.5));
            it = activations_.emplace(dtype, s).first;
        }
        append(it->second, step, bytes);
    }
    setPlaceholder(QString());
}

void MemoryPlot::applyAutoRanges() {
    setXRangeToData(lastStep_);
    yAxis->setRange(0.0, maxMiB_ > 0.0 ? maxMiB_ * 1.08 : 1.0);
}

QString MemoryPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    QString text;
    auto line = [&](const QString& name, const SeriesGraph* s) {
        const DecimatedSeries& d = s->series();
        if (d.empty()) return;
        const std::size_t i = d.nearestIndex(step);
        if (text.isEmpty()) text = tr("step %1").arg(static_cast<qint64>(d.x(i)));
        text += tr("\n%1: %2 MiB").arg(name, formatValue(d.y(i)));
    };
    line(tr("process RSS"), rss_);
    line(tr("peak RSS"), peakRss_);
    line(tr("CUDA peak allocated"), cudaPeak_);
    for (const auto& [dtype, s] : activations_)
        line(tr("activations, %1").arg(QString::fromStdString(dtype)), s);
    return text;
}

}  // namespace ampscope::ui
