#pragma once
// ScenarioRunner: a scenario's runs (a built-in's or an opened lesson's: ScenarioShelf),
// trained one after another through the window's run control, each joining the run set
// under its scenario run name.
//
// Contract:
// - run(name, overrides): starts the first run; the next starts when the previous one
//   finished; a run that is stopped or fails ends the sequence (finished() is not
//   emitted). `key` is the shelf's (a built-in's name, a lesson's path); a key the shelf
//   does not know fails with the catalogue's one line; so does a first run that does not
//   start.
// - While a scenario with several runs trains, its earlier runs stay compared (every
//   view overlays them under the one training) and the runs that were in the set before
//   it are unchecked, so what is shown is the scenario's contrast.
// - When every run finished: all of them are in the set, compared, and the view the
//   narrative starts with is shown (viewRequested with the scenario's first view, or
//   its first run focused when it has no views); finished(name) follows, with the
//   side-by-side table (core/scenarios/ComparisonTable.h) for a scenario of several runs.
// - runIds(): the set's runs of the last scenario run, by scenario run name.
#include <QObject>
#include <QString>
#include <map>
#include <string>
#include <vector>

#include "engine/RunSummary.h"
#include "runset/RunChanges.h"
#include "scenarios/ComparisonTable.h"
#include "scenarios/ScenarioCatalogue.h"

namespace ampscope::ui {

class RunControl;
class RunSet;
class ScenarioShelf;

class ScenarioRunner : public QObject {
    Q_OBJECT
public:
    ScenarioRunner(RunControl* control, RunSet* set, ScenarioShelf* shelf, QObject* parent = nullptr);

    bool run(const QString& key, const std::vector<std::string>& overrides, QString* error);
    ScenarioShelf* shelf() const { return shelf_; }
    bool isRunning() const { return running_; }
    QString scenario() const { return scenario_; }
    // The run directories recorded by the last run(), in run order.
    QStringList recordedRunDirectories() const { return recorded_; }
    const std::map<QString, RunId>& runIds() const { return ids_; }
    // The side-by-side table of the last scenario that ended (empty before).
    QString comparisonTable() const { return table_; }
    // The runs of the last scenario that ended, each with its summary (the table's rows).
    const std::vector<ComparisonRow>& comparisonRows() const { return rows_; }

Q_SIGNALS:
    // The run the sequence is at (0-based) started.
    void runStarted(int index);
    // Show this part of the scenario (its runs are in the set).
    void viewRequested(const ampscope::ScenarioView& view);
    void finished(const QString& scenario, const QString& comparisonTable);

private:
    void startRun(std::size_t index);
    void onRunEnded(const RunSummary& summary);
    void finish();

    RunControl* control_;
    RunSet* set_;
    ScenarioShelf* shelf_;
    QString scenario_;
    std::vector<NamedRunConfig> configs_;
    bool running_ = false;
    std::size_t index_ = 0;
    QStringList recorded_;
    std::map<QString, RunId> ids_;
    std::vector<ComparisonRow> rows_;
    QString table_;
};

}  // namespace ampscope::ui
