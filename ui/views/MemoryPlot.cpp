#include "views/MemoryPlot.h"

#include <algorithm>
#include <cmath>

#include "runset/RunSet.h"

namespace ampscope::ui {

MemoryPlot::MemoryPlot(RunSet* set, QWidget* parent) : RunSetTimePlot(set, RunChange::Memory, parent) {
    setObjectName(QStringLiteral("memory"));
    yAxis->setLabel(tr("memory (MiB)"));
    rebuild();
}

QCPGraph* MemoryPlot::rssGraph() const {
    return lines_.empty() ? nullptr : lines_.front().rss->graph();
}

QCPGraph* MemoryPlot::peakRssGraph() const {
    return lines_.empty() ? nullptr : lines_.front().peakRss->graph();
}

QCPGraph* MemoryPlot::cudaPeakGraph() const {
    return lines_.empty() ? nullptr : lines_.front().cudaPeak->graph();
}

QCPGraph* MemoryPlot::activationGraph(const std::string& dtype) const {
    for (const auto& [name, s] : activations_)
        if (name == dtype) return s->graph();
    return nullptr;
}

void MemoryPlot::addRunGraphs(const RunModel& run, bool focused, bool several) {
    if (focused) {
        lines_.clear();
        activations_.clear();
    }
    const MemorySeries& m = run.memory();
    const QColor colour = run.colour();
    RunLines lines;
    lines.rss = addSeries(yAxis, lineName(run, several, tr("process RSS")), QPen(colour, 1.5), m.rss());
    lines.peakRss = addSeries(yAxis, lineName(run, several, tr("peak RSS")), QPen(colour, 1.5, Qt::DashLine),
                              m.peakRss());
    lines.cudaPeak = addSeries(yAxis, lineName(run, several, tr("CUDA peak allocated")),
                               QPen(colour, 1.5, Qt::DotLine), m.cudaPeak());
    // Records come on probe steps only: a few of them are points, a line needs two.
    lines.rss->setSparseMarker(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    lines.peakRss->setSparseMarker(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    lines.cudaPeak->setSparseMarker(QCPScatterStyle(QCPScatterStyle::ssSquare, 4));
    lines_.push_back(lines);
    if (focused) addActivationLines();
}

// The focused run's dtypes, as its records named them so far.
void MemoryPlot::addActivationLines() {
    const RunModel* focused = runSet()->focused();
    if (!focused) return;
    for (const auto& [dtype, series] : focused->memory().activations()) {
        if (activationGraph(dtype)) continue;
        const Qt::PenStyle style = activations_.size() % 2 ? Qt::DashDotDotLine : Qt::DashDotLine;
        SeriesGraph* line = addSeries(yAxis, tr("activations, %1").arg(QString::fromStdString(dtype)),
                                      QPen(focused->colour().darker(130), 1.5, style), series);
        line->setSparseMarker(QCPScatterStyle(QCPScatterStyle::ssDiamond, 4));
        activations_.emplace_back(dtype, line);
    }
}

std::vector<RunSetTimePlot::BandQuantity> MemoryPlot::bandQuantities() const {
    // RSS filled; its peak and CUDA's unfilled, as their lines are dashed and dotted.
    return {{yAxis, [](const RunModel& r) -> const DecimatedSeries& { return r.memory().rss(); }, tr("process RSS"),
             true, Qt::SolidLine},
            {yAxis, [](const RunModel& r) -> const DecimatedSeries& { return r.memory().peakRss(); }, tr("peak RSS"),
             false, Qt::DashLine},
            {yAxis, [](const RunModel& r) -> const DecimatedSeries& { return r.memory().cudaPeak(); },
             tr("CUDA peak allocated"), false, Qt::DotLine}};
}

void MemoryPlot::afterRebuild() {
    if (shownRuns().empty()) lines_.clear(), activations_.clear();
    updateLegend();
}

void MemoryPlot::updateLegend() {
    for (const RunLines& l : lines_)
        for (SeriesGraph* s : {l.rss, l.peakRss, l.cudaPeak}) {
            const bool in = legend->hasItemWithPlottable(s->graph());
            if (s->series().empty() && in) s->graph()->removeFromLegend();
            if (!s->series().empty() && !in) s->graph()->addToLegend();
        }
    // A band's quantity that no member recorded (CUDA on a CPU job) stays out of it too.
    const std::vector<BandQuantity> quantities = bandQuantities();
    for (int b = 0; b < static_cast<int>(bands().size()); ++b)
        for (int q = 0; q < static_cast<int>(quantities.size()); ++q)
            if (QCPGraph* median = bandMedianGraph(b, q)) {
                const auto& members = bands()[static_cast<std::size_t>(b)].members;
                const bool recorded = std::any_of(members.begin(), members.end(), [&](const RunModel* m) {
                    return !quantities[static_cast<std::size_t>(q)].series(*m).empty();
                });
                const bool in = legend->hasItemWithPlottable(median);
                if (!recorded && in) median->removeFromLegend();
                if (recorded && !in) median->addToLegend();
            }
}

QString MemoryPlot::emptyText() const {
    for (const RunModel* run : shownRuns())
        if (!run->memory().empty()) return QString();
    return noProbeRecordsText(tr("memory records"));
}

void MemoryPlot::applyAutoRanges() {
    addActivationLines();  // a dtype first named in this batch
    updateLegend();
    double lastStep = 0.0, maxMiB = 0.0;
    for (const RunModel* run : shownRuns()) {
        lastStep = std::max(lastStep, run->memory().lastStep());
        maxMiB = std::max(maxMiB, run->memory().maxMiB());
    }
    setXRangeToData(lastStep);
    yAxis->setRange(0.0, maxMiB > 0.0 ? maxMiB * 1.08 : 1.0);
}

QString MemoryPlot::hoverText(double step, QPoint pixel) const {
    (void)pixel;
    QString text;
    auto line = [&](const QString& name, const DecimatedSeries& d) {
        if (d.empty()) return;
        const std::size_t i = d.nearestIndex(step);
        if (text.isEmpty()) text = tr("step %1").arg(static_cast<qint64>(d.x(i)));
        text += tr("\n%1: %2 MiB").arg(name, formatValue(d.y(i)));
    };
    const bool several = shownRuns().size() > 1;
    for (const RunModel* run : shownRuns()) {
        if (!isDrawn(*run)) continue;  // a band's member: the band's line below says it
        const MemorySeries& m = run->memory();
        line(lineName(*run, several, tr("process RSS")), m.rss());
        line(lineName(*run, several, tr("peak RSS")), m.peakRss());
        line(lineName(*run, several, tr("CUDA peak allocated")), m.cudaPeak());
        if (run != shownRuns().front()) continue;
        for (const auto& [dtype, series] : m.activations())
            line(tr("activations, %1").arg(QString::fromStdString(dtype)), series);
    }
    return text + bandHoverText(step);
}

}  // namespace ampscope::ui
