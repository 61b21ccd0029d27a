#pragma once
// LossPlot: the training loss of the runs a run set shows, over their steps: per run its
// raw loss (faint) and an exponential moving average (StepSeries: debiased, as
// TensorBoard's), the validation loss and accuracy per epoch, all in the run's colour;
// for the focused run, marks for steps whose optimizer step was skipped (bottom rug,
// orange) and for non-finite losses (top rug, red).
//
// Contract:
// - Left axis: loss. It turns logarithmic by itself when the positive values shown span
//   more than kAutoLogDecades decades (a loss that stalls at 1e-7 beside one that falls
//   to 5e-9 is invisible on a linear axis), linear otherwise; setLogarithmic() (the
//   Loss dock's toggle, or the context menu) decides instead, until the shown runs
//   change. Right axis: validation accuracy in %, shown once a run reports one.
// - Legend: one run: "train loss", "train loss, EMA 0.95"...; several: the EMA line of
//   each run by run name (its raw line in a fainter shade beside it).
// - Marks sit on a hidden axis so they stay on the plot's edges whatever the zoom.
// - Seeds of one config among the shown runs (RunSeedGroups.h): each group is drawn as a
//   seed band behind the runs (SeedBandGraphs: the seeds' mean smoothed loss and the 95%
//   prediction interval of one more seed), named once in the legend; its runs stay drawn,
//   thinner and out of the legend. The grouping is derived again whenever the shown runs
//   or their identities change, the band whenever one of its runs has new steps.
// - Many runs of one config (a job's ranks, 8 or more seeds: RunSetTimePlot's bands) are
//   drawn as the band of their smoothed loss (median, 10-90%) with the outliers named.
#include <memory>
#include <vector>

#include "views/RunSetTimePlot.h"

namespace ampscope::ui {

class SeedBandGraphs;

class LossPlot : public RunSetTimePlot {
    Q_OBJECT
public:
    static constexpr double kAutoLogDecades = 3.0;

    explicit LossPlot(RunSet* set, QWidget* parent = nullptr);
    ~LossPlot() override;

    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const { return logarithmic_; }
    // The axis follows the data (kAutoLogDecades) rather than the user's choice.
    bool isAutoLogarithmic() const { return autoLog_; }
    void setAutoLogarithmic();
    QAction* logarithmicAction() const { return logAction_; }

    QString hoverText(double step, QPoint pixel) const override;

    // The focused run's graphs (nullptr with no run shown).
    QCPGraph* rawLossGraph() const;
    QCPGraph* smoothedLossGraph() const;
    QCPGraph* validationLossGraph() const;
    QCPGraph* validationAccuracyGraph() const;
    QCPGraph* skippedStepGraph() const { return skipped_ ? skipped_->graph() : nullptr; }
    // The EMA graph of the index-th shown run (0: the focused one).
    QCPGraph* runGraph(int index) const;
    // The seed bands drawn, in the set's order of their groups; a band's graph is its
    // high edge, filled down to its low edge.
    int seedBandCount() const { return static_cast<int>(bands_.size()); }
    QCPGraph* seedBandGraph(int index) const;
    QCPGraph* seedBandLowGraph(int index) const;
    QCPGraph* seedBandCentreGraph(int index) const;

Q_SIGNALS:
    // The axis changed between linear and logarithmic (by itself or by the user).
    void logarithmicChanged(bool logarithmic);

protected:
    void addRunGraphs(const RunModel& run, bool focused, bool several) override;
    QString emptyText() const override;
    void afterRebuild() override;
    void runChanged(RunId run, RunChanges what) override;
    void applyAutoRanges() override;
    void addContextActions(QMenu& menu) override;
    std::vector<BandQuantity> bandQuantities() const override;

private:
    struct RunLines {
        SeriesGraph* raw = nullptr;
        SeriesGraph* smoothed = nullptr;
        SeriesGraph* valLoss = nullptr;
        SeriesGraph* valAccuracy = nullptr;
    };
    void applyLogarithmic(bool logarithmic);
    void updateLegend();
    void addSeedBands();
    bool bandHolds(std::size_t band, RunId run) const;
    bool isSeedOfBand(RunId run) const;
    const SeedBandGraphs* bandAt(int index) const;

    QCPAxis* markerAxis_;
    QAction* logAction_;
    bool logarithmic_ = false;
    bool autoLog_ = true;
    std::vector<RunLines> lines_;  // per shown run, the focused one first
    SeriesGraph* skipped_ = nullptr;
    SeriesGraph* nonFinite_ = nullptr;
    std::vector<std::unique_ptr<SeedBandGraphs>> bands_;
    // Each band's runs (bands_' order): which band a run's new steps refill, and a new
    // grouping noticed.
    std::vector<std::vector<RunId>> bandRuns_;
    std::vector<QString> bandNames_;
};

}  // namespace ampscope::ui
