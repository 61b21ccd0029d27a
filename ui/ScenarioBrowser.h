#pragma once
// ScenarioBrowser: the window's start page for the built-in teaching scenarios
// (core/scenarios/ScenarioCatalogue.h). A list with one line per scenario, the chosen
// scenario's narrative (what to look at, in which plot, why, and the fix) and its runs.
//
// Contract:
// - loadScenario() puts the scenario's first run config into the window's Configure
//   panel and shows its narrative; it starts nothing. Choosing a run in the run list
//   loads that run's config instead.
// - runScenario() loads it and starts its runs one after another through the
//   window's own Start (each recorded in its own run directory). The next run starts
//   when the previous one finished; a run that is stopped or fails ends the sequence.
//   When every run finished, a scenario with several runs shows the side-by-side
//   table (core/scenarios/ComparisonTable.h) under the narrative.
// - A scenario with several runs is a contrast: its runs replace the Compare dock's
//   list as they start (labelled by run name, refreshed about once a second while one
//   trains and when it ends), and the loss plot draws the earlier runs under the one
//   training, so the last run ends with all of them overlaid.
// - setOverrides() applies "key.path=value" to every run config the browser loads
//   (the same path as ampscope-cli's --set): how tests shorten a scenario.
// - Unknown names fail with the one-line message that lists the valid ones.
#include <QStringList>
#include <QWidget>
#include <string>
#include <vector>

#include "scenarios/ComparisonTable.h"
#include "scenarios/ScenarioCatalogue.h"

class QLabel;
class QListWidget;
class QPushButton;
class QTextBrowser;
class QTimer;

namespace ampscope::ui {

class MainWindow;

class ScenarioBrowser : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioBrowser(MainWindow* window);

    bool loadScenario(const QString& name, QString* error = nullptr);
    bool runScenario(const QString& name, QString* error = nullptr);
    void setOverrides(const std::vector<std::string>& overrides) { overrides_ = overrides; }

    QString loadedScenario() const { return loaded_; }
    bool isRunningScenario() const { return running_; }
    // The run directories recorded by the last runScenario(), in run order.
    QStringList recordedRunDirectories() const { return recorded_; }
    QString comparisonTable() const { return table_; }
    QListWidget* scenarioList() const { return list_; }
    QListWidget* runList() const { return runs_; }
    QTextBrowser* narrativeView() const { return narrative_; }
    QPushButton* runButton() const { return runButton_; }

Q_SIGNALS:
    void scenarioLoaded(const QString& name);
    // Every run of the scenario finished (recordedRunDirectories() holds them).
    void scenarioFinished(const QString& name);

private:
    void showScenario(const Scenario& scenario);
    void onRunEnded(const QString& status);
    void startRun(size_t index);
    void reportError(const QString& message, QString* error);
    bool overlaysRuns() const { return configs_.size() > 1; }
    void refreshComparedRuns();

    MainWindow* window_;
    QListWidget* list_ = nullptr;
    QTextBrowser* narrative_ = nullptr;
    QLabel* runsLabel_ = nullptr;
    QListWidget* runs_ = nullptr;
    QPushButton* loadButton_ = nullptr;
    QPushButton* runButton_ = nullptr;

    std::vector<std::string> overrides_;
    QString loaded_;
    std::vector<NamedRunConfig> configs_;
    bool running_ = false;
    size_t runIndex_ = 0;
    QStringList recorded_;
    int listedInCompare_ = 0;  // of recorded_, how many the Compare dock lists
    QTimer* compareRefresh_ = nullptr;
    std::vector<ComparisonRow> rows_;
    QString table_;
};

}  // namespace ampscope::ui
