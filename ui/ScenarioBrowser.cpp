#include "ScenarioBrowser.h"

#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "EngineBridge.h"
#include "MainWindow.h"
#include "engine/RunRecords.h"
#include "engine/SystemInfo.h"
#include "plots/LossPlot.h"
#include "views/CompareView.h"
#include "views/ComparedRun.h"
#include "run/EventSchema.h"

namespace ampscope::ui {

namespace {

constexpr int kNameRole = Qt::UserRole;

QString fromStd(const std::string& text) {
    return QString::fromStdString(text);
}

// summary.json of a recorded run; a missing or unreadable one reads as an error row.
RunSummary readSummary(const QString& directory) {
    QFile file(directory + QStringLiteral("/summary.json"));
    RunSummary summary;
    summary.status = "error";
    if (!file.open(QIODevice::ReadOnly)) return summary;
    try {
        return summaryFromJson(nlohmann::json::parse(file.readAll().toStdString()));
    } catch (const std::exception&) {
        return summary;
    }
}

}  // namespace

ScenarioBrowser::ScenarioBrowser(MainWindow* window) : QWidget(window), window_(window) {
    setObjectName(QStringLiteral("scenarioBrowser"));
    list_ = new QListWidget(this);
    list_->setObjectName(QStringLiteral("scenarioList"));
    list_->setWordWrap(false);
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    list_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // One name a line, nothing cut: a teacher picks by name; the one-line summary is the
    // tooltip and the narrative's subject.
    for (const Scenario& scenario : builtInScenarios()) {
        auto* item = new QListWidgetItem(fromStd(scenario.name), list_);
        item->setData(kNameRole, fromStd(scenario.name));
        item->setToolTip(fromStd(scenario.summary));
    }
    // Tall and wide enough for every name: the list never scrolls or elides.
    int widest = 0;
    for (int row = 0; row < list_->count(); ++row)
        widest = std::max(widest, list_->fontMetrics().horizontalAdvance(list_->item(row)->text()));
    const int frame = 2 * list_->frameWidth();
    list_->setFixedHeight(list_->sizeHintForRow(0) * list_->count() + frame + 2);
    list_->setMinimumWidth(widest + frame + 24);
    narrative_ = new QTextBrowser(this);
    narrative_->setObjectName(QStringLiteral("scenarioNarrative"));
    narrative_->setOpenExternalLinks(true);
    narrative_->setPlaceholderText(tr("Choose a scenario to read what it shows."));
    runsLabel_ = new QLabel(tr("Runs (click one to load its config):"), this);
    runs_ = new QListWidget(this);
    runs_->setObjectName(QStringLiteral("scenarioRuns"));
    runs_->setMaximumHeight(4 * runs_->fontMetrics().height() + 12);
    loadButton_ = new QPushButton(tr("&Load"), this);
    loadButton_->setToolTip(tr("Load the scenario's config and narrative without starting"));
    runButton_ = new QPushButton(tr("&Run scenario"), this);
    runButton_->setToolTip(tr("Load the scenario and train its runs one after another, each recorded"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(loadButton_);
    buttons->addWidget(runButton_);
    buttons->addStretch(1);
    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(narrative_, 1);
    lowerLayout->addWidget(runsLabel_);
    lowerLayout->addWidget(runs_);
    lowerLayout->addLayout(buttons);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(list_);
    layout->addWidget(lower, 1);

    const auto selectedName = [this] {
        const QListWidgetItem* item = list_->currentItem();
        return item ? item->data(kNameRole).toString() : QString();
    };
    connect(list_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { loadScenario(item->data(kNameRole).toString()); });
    connect(loadButton_, &QPushButton::clicked, this, [this, selectedName] {
        if (!selectedName().isEmpty()) loadScenario(selectedName());
    });
    connect(runButton_, &QPushButton::clicked, this, [this, selectedName] {
        const QString name = selectedName().isEmpty() ? loaded_ : selectedName();
        QString error;
        if (!name.isEmpty() && !runScenario(name, &error))
            QMessageBox::warning(this, tr("Run scenario"), error);
    });
    connect(runs_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        const int index = runs_->row(item);
        if (!running_ && index >= 0 && static_cast<size_t>(index) < configs_.size())
            window_->setConfig(configs_[static_cast<size_t>(index)].config);
    });
    connect(window_, &MainWindow::runEnded, this, &ScenarioBrowser::onRunEnded);
    compareRefresh_ = new QTimer(this);
    compareRefresh_->setInterval(1000);
    connect(compareRefresh_, &QTimer::timeout, this, &ScenarioBrowser::refreshComparedRuns);
}

void ScenarioBrowser::refreshComparedRuns() {
    CompareView* compare = window_->compareView();
    if (!compare || !overlaysRuns()) return;
    // A run is listed once its directory reads as a run (the engine writes config.json
    // after it starts); until then it is tried again on the next refresh.
    bool added = false;
    while (listedInCompare_ < recorded_.size()) {
        const auto index = static_cast<std::size_t>(listedInCompare_);
        if (!compare->addRun(recorded_[listedInCompare_], nullptr, fromStd(configs_[index].name))) break;
        ++listedInCompare_;
        added = true;
    }
    if (!added) compare->refresh();
}

void ScenarioBrowser::reportError(const QString& message, QString* error) {
    if (error) *error = message;
}

void ScenarioBrowser::showScenario(const Scenario& scenario) {
    narrative_->setMarkdown(fromStd(scenario.narrative));
    runs_->clear();
    for (const auto& run : configs_) runs_->addItem(fromStd(run.name));
    for (int row = 0; row < list_->count(); ++row)
        if (list_->item(row)->data(kNameRole).toString() == fromStd(scenario.name)) list_->setCurrentRow(row);
}

bool ScenarioBrowser::loadScenario(const QString& name, QString* error) {
    if (running_) {
        reportError(tr("A scenario is running; stop it before loading another."), error);
        return false;
    }
    try {
        const Scenario& scenario = scenarioNamed(name.toStdString());
        configs_ = scenarioRunConfigs(scenario, overrides_);
        loaded_ = name;
        table_.clear();
        showScenario(scenario);
        window_->setConfig(configs_.front().config);
    } catch (const std::exception& e) {
        reportError(QString::fromUtf8(e.what()), error);
        return false;
    }
    Q_EMIT scenarioLoaded(name);
    return true;
}

bool ScenarioBrowser::runScenario(const QString& name, QString* error) {
    if (window_->bridge() && window_->bridge()->isActive()) {
        reportError(tr("Stop the current run before starting a scenario."), error);
        return false;
    }
    if (!loadScenario(name, error)) return false;
    running_ = true;
    recorded_.clear();
    rows_.clear();
    listedInCompare_ = 0;
    if (overlaysRuns() && window_->compareView()) window_->compareView()->clearRuns();
    startRun(0);
    if (!running_) {
        reportError(tr("The scenario's first run did not start (is its config valid?)."), error);
        return false;
    }
    return true;
}

void ScenarioBrowser::startRun(size_t index) {
    runIndex_ = index;
    runs_->setCurrentRow(static_cast<int>(index));
    window_->setConfig(configs_[index].config);
    // Runs share the process: without the reset each would report the largest peak so far.
    resetPeakResidentBytes();
    if (!window_->startRun()) {
        running_ = false;
        return;
    }
    recorded_ << window_->runDirectory();
    if (!overlaysRuns()) return;
    for (size_t earlier = 0; earlier < index; ++earlier) {
        try {
            const QString name = fromStd(configs_[earlier].name);
            window_->lossPlot()->addEarlierRun(
                name, loadComparedRun(recorded_[static_cast<int>(earlier)], name).losses);
        } catch (const std::exception&) {
            // Its directory is gone: the run still trains, without that line.
        }
    }
    compareRefresh_->start();
}

void ScenarioBrowser::onRunEnded(const QString& status) {
    if (!running_) return;
    compareRefresh_->stop();
    refreshComparedRuns();
    rows_.push_back({configs_[runIndex_].name, readSummary(window_->runDirectory())});
    if (status.toStdString() != run_status::kFinished) {
        running_ = false;  // stopped or failed: the rest of the scenario is not run
        return;
    }
    if (runIndex_ + 1 < configs_.size()) {
        // After the window has finished handling this run's end.
        QTimer::singleShot(0, this, [this] {
            if (running_) startRun(runIndex_ + 1);
        });
        return;
    }
    running_ = false;
    if (configs_.size() > 1) {
        table_ = fromStd(formatComparisonTable(rows_));
        narrative_->append(QStringLiteral("<h3>%1</h3><pre>%2</pre>")
                               .arg(tr("Side by side"), table_.toHtmlEscaped()));
    }
    Q_EMIT scenarioFinished(loaded_);
}

}  // namespace ampscope::ui
