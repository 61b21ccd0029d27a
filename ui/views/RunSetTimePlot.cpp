#include "views/RunSetTimePlot.h"

#include "runset/RunSet.h"

namespace ampscope::ui {

RunSetTimePlot::RunSetTimePlot(RunSet* set, RunChanges dataChanges, QWidget* parent)
    : TimeSeriesPlot(parent), set_(set), dataChanges_(dataChanges) {
    connect(set_, &RunSet::changed, this, &RunSetTimePlot::onChanged);
}

QString RunSetTimePlot::lineName(const RunModel& run, bool several, const QString& what) {
    return several ? QStringLiteral("%1: %2").arg(run.name(), what) : what;
}

void RunSetTimePlot::onChanged(RunId run, RunChanges what) {
    if (what & kShownRunsChange) {
        rebuild();
        return;
    }
    runChanged(run, what);
    if (set_->isShown(run) && (what & dataChanges_)) {
        setPlaceholder(emptyText());
        redraw();
    }
}

void RunSetTimePlot::rebuild() {
    removeAllSeries();
    shown_ = set_->shownRuns();
    const bool several = shown_.size() > 1;
    for (const RunModel* run : shown_) addRunGraphs(*run, run == shown_.front(), several);
    afterRebuild();
    setPlaceholder(shown_.empty() ? tr("No run yet: press Start, or open a run (Ctrl+O)") : emptyText());
    resetView();
}

}  // namespace ampscope::ui
