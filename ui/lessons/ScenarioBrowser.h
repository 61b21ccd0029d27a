#pragma once
// ScenarioBrowser: the window's start page for the teaching scenarios: the built-ins
// (core/scenarios/ScenarioCatalogue.h) and the lessons opened (ScenarioShelf.h). A list
// with one line per scenario (a lesson's says where it came from), the chosen scenario's
// narrative (what to look at, in which plot, why, and the fix) and its runs.
//
// Contract:
// - Scenarios are named by their shelf key: a built-in's name, a lesson's absolute path.
// - openLesson(path): a lesson folder or file joins the list and is loaded; a lesson with
//   a problem is refused with its one line and the list and what is loaded stay as they
//   were. Not while a scenario runs (its runs read the lesson's files).
// - A lesson whose runs would load a TorchScript model (code) is loaded only when the
//   model trust says yes, asked each time it is loaded, with each model's file and
//   SHA-256 (by default a dialog; setModelTrust replaces it); nothing remembers the answer.
// - loadScenario() shows the narrative and offers the scenario's first run config
//   (configChosen, for the Configure panel); it starts nothing. Choosing a run in the run
//   list offers that run's config instead.
// - runScenario() loads it and trains its runs one after another (ScenarioRunner). When
//   every run finished, a scenario with several runs shows the side-by-side table
//   (core/scenarios/ComparisonTable.h) under the narrative.
// - The narrative's links [words](view:ID) are the scenario's views: clicking one asks to
//   show it (viewRequested: its run focused, its dock raised, its layer and axis set);
//   other links open in the browser.
// - setOverrides() applies "key.path=value" to every run config the browser loads
//   (the same path as ampscope-cli's --set): how tests shorten a scenario.
// - Unknown names fail with the one-line message that lists the valid ones.
#include <QStringList>
#include <QWidget>
#include <functional>
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "scenarios/LessonFolder.h"
#include "scenarios/ScenarioCatalogue.h"

class QListWidget;
class QPushButton;
class QTextBrowser;
class QUrl;

namespace ampscope::ui {

class ScenarioRunner;
class ScenarioShelf;

class ScenarioBrowser : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioBrowser(ScenarioRunner* runner, QWidget* parent = nullptr);

    bool loadScenario(const QString& key, QString* error = nullptr);
    bool runScenario(const QString& key, QString* error = nullptr);
    // The key of the lesson opened and loaded, or empty with `error`.
    QString openLesson(const QString& path, QString* error = nullptr);
    void setOverrides(const std::vector<std::string>& overrides) { overrides_ = overrides; }
    // Asked before a lesson whose runs load TorchScript models is loaded: true loads it.
    using ModelTrust = std::function<bool(const QString& lesson, const std::vector<LessonModel>& models)>;
    void setModelTrust(ModelTrust trust) { trust_ = std::move(trust); }
    ScenarioShelf* shelf() const;

    QString loadedScenario() const { return loaded_; }
    bool isRunningScenario() const;
    // The run directories recorded by the last runScenario(), in run order.
    QStringList recordedRunDirectories() const;
    QString comparisonTable() const;
    // Follows a narrative link as a click does (view:ID, or an outside address).
    void followLink(const QUrl& link);
    QListWidget* scenarioList() const { return list_; }
    QListWidget* runList() const { return runs_; }
    QTextBrowser* narrativeView() const { return narrative_; }
    QPushButton* runButton() const { return runButton_; }
    // Present mode: only the narrative, without the list of scenarios and the run controls.
    void setNarrativeOnly(bool only);
    // Selects the narrative's link to the view `id` and scrolls it into sight; false when
    // the narrative has no such link.
    bool markView(const QString& id);

Q_SIGNALS:
    void scenarioLoaded(const QString& name);
    // The config to show in the Configure panel (a scenario's first run, or the run chosen).
    void configChosen(const ampscope::RunConfig& config);
    void viewRequested(const ampscope::ScenarioView& view);
    // Every run of the scenario finished (recordedRunDirectories() holds them).
    void scenarioFinished(const QString& name);

private:
    void fillList();
    bool trusted(const Scenario& scenario, const std::vector<NamedRunConfig>& configs, QString* error);
    void showScenario(const QString& key, const Scenario& scenario);
    void sizeHeadings();
    bool eventFilter(QObject* watched, QEvent* event) override;
    void onFinished(const QString& name, const QString& table);

    ScenarioRunner* runner_;
    QListWidget* list_ = nullptr;
    QTextBrowser* narrative_ = nullptr;
    QListWidget* runs_ = nullptr;
    QPushButton* loadButton_ = nullptr;
    QPushButton* runButton_ = nullptr;
    QWidget* runControls_ = nullptr;  // the runs list and the buttons
    std::vector<std::string> overrides_;
    ModelTrust trust_;
    QString loaded_;
    std::vector<NamedRunConfig> configs_;
};

}  // namespace ampscope::ui
