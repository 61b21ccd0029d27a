#include "lessons/ScenarioRunner.h"

#include <QTimer>

#include "config/ConfigJson.h"
#include "feed/RunControl.h"
#include "engine/RunRecords.h"
#include "engine/SystemInfo.h"
#include "lessons/ScenarioShelf.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

ScenarioRunner::ScenarioRunner(RunControl* control, RunSet* set, ScenarioShelf* shelf, QObject* parent)
    : QObject(parent), control_(control), set_(set), shelf_(shelf) {
    connect(control_, &RunControl::runEnded, this, &ScenarioRunner::onRunEnded);
}

bool ScenarioRunner::run(const QString& key, const std::vector<std::string>& overrides, QString* error) {
    if (control_->isActive()) {
        if (error) *error = tr("Stop the current run before starting a scenario.");
        return false;
    }
    try {
        const Scenario* scenario = shelf_->find(key);
        configs_ = scenarioRunConfigs(scenario ? *scenario : scenarioNamed(key.toStdString()), overrides);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    scenario_ = key;
    recorded_.clear();
    ids_.clear();
    rows_.clear();
    table_.clear();
    // What is shown now is this scenario's contrast.
    for (const RunModel* run : set_->runs()) set_->setCompared(run->id(), false);
    running_ = true;
    startRun(0);
    if (!running_) {
        if (error) *error = tr("The scenario's first run did not start (is its config valid?).");
        return false;
    }
    return true;
}

void ScenarioRunner::startRun(std::size_t index) {
    index_ = index;
    // Runs share the process: without the reset each would report the largest peak so far.
    resetPeakResidentBytes();
    const QString name = QString::fromStdString(configs_[index].name);
    if (!control_->start(configs_[index].config, false, name)) {
        running_ = false;
        return;
    }
    recorded_ << control_->runDirectory();
    ids_[name] = control_->liveRun();
    Q_EMIT runStarted(static_cast<int>(index));
}

void ScenarioRunner::onRunEnded(const RunSummary& summary) {
    if (!running_) return;
    rows_.push_back({configs_[index_].name, summary, configToJson(configs_[index_].config)});
    if (summary.status != run_status::kFinished) {
        running_ = false;  // stopped or failed: the rest of the scenario is not run
        return;
    }
    if (index_ + 1 < configs_.size()) {
        // After the window has finished handling this run's end.
        QTimer::singleShot(0, this, [this] {
            if (running_) startRun(index_ + 1);
        });
        return;
    }
    finish();
}

void ScenarioRunner::finish() {
    running_ = false;
    for (const auto& [name, id] : ids_) set_->setCompared(id, true);
    if (configs_.size() > 1) table_ = QString::fromStdString(formatComparisonTable(rows_));
    // The window refuses to reopen a lesson while it runs, so the shelf still holds it.
    if (const Scenario* scenario = shelf_->find(scenario_)) {
        if (!scenario->views.empty()) {
            Q_EMIT viewRequested(scenario->views.front());
        } else if (const auto it = ids_.find(QString::fromStdString(scenario->startRun())); it != ids_.end()) {
            set_->focus(it->second);
        }
    }
    Q_EMIT finished(scenario_, table_);
}

}  // namespace ampscope::ui
