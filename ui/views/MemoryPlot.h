#pragma once
// MemoryPlot: the run's memory over the steps, from "memory" records (MemoryRecord.h):
// process RSS and its peak, CUDA's peak allocated bytes where the run used CUDA, and the
// bytes of activations a step kept, one line per dtype. All in MiB on one axis from 0.
// A line joins the legend once it has data; a record without a field adds no point to
// that line. Otherwise a TimeSeriesPlot (zoom/pan, double click resets, tooltip).
#include <map>
#include <string>

#include "plots/TimeSeriesPlot.h"

namespace ampscope::ui {

class MemoryPlot : public TimeSeriesPlot {
    Q_OBJECT
public:
    explicit MemoryPlot(QWidget* parent = nullptr);

    void beginRun(const RunContext& context) override;
    void appendSteps(const std::vector<StepMetrics>& steps) override { (void)steps; }
    void takeRecord(const nlohmann::json& record) override;

    QString hoverText(double step, QPoint pixel) const override;

    QCPGraph* rssGraph() const { return rss_->graph(); }
    QCPGraph* peakRssGraph() const { return peakRss_->graph(); }
    QCPGraph* cudaPeakGraph() const { return cudaPeak_->graph(); }
    // nullptr until a record names that dtype.
    QCPGraph* activationGraph(const std::string& dtype) const;

protected:
    void applyAutoRanges() override;

private:
    void addFixedSeries();
    void append(SeriesGraph* series, double step, double bytes);

    SeriesGraph* rss_ = nullptr;
    SeriesGraph* peakRss_ = nullptr;
    SeriesGraph* cudaPeak_ = nullptr;
    std::map<std::string, SeriesGraph*> activations_;
    double maxMiB_ = 0.0;
    double lastStep_ = 0.0;
};

}  // namespace ampscope::ui
