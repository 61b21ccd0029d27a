#include "ScenarioBrowser.h"

#include <QDesktopServices>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

#include "ScenarioRunner.h"

namespace ampscope::ui {

namespace {

constexpr int kNameRole = Qt::UserRole;

QString fromStd(const std::string& text) {
    return QString::fromStdString(text);
}

}  // namespace

ScenarioBrowser::ScenarioBrowser(ScenarioRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
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
    narrative_->setOpenLinks(false);  // view: links show a part of the scenario (followLink)
    connect(narrative_, &QTextBrowser::anchorClicked, this, &ScenarioBrowser::followLink);
    narrative_->setPlaceholderText(tr("Choose a scenario to read what it shows."));
    auto* runsLabel = new QLabel(tr("Runs (click one to load its config):"), this);
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
    lowerLayout->addWidget(runsLabel);
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
        if (!runner_->isRunning() && index >= 0 && static_cast<size_t>(index) < configs_.size())
            Q_EMIT configChosen(configs_[static_cast<size_t>(index)].config);
    });
    connect(runner_, &ScenarioRunner::runStarted, this, [this](int index) { runs_->setCurrentRow(index); });
    connect(runner_, &ScenarioRunner::finished, this, &ScenarioBrowser::onFinished);
}

bool ScenarioBrowser::isRunningScenario() const {
    return runner_->isRunning();
}

QStringList ScenarioBrowser::recordedRunDirectories() const {
    return runner_->recordedRunDirectories();
}

QString ScenarioBrowser::comparisonTable() const {
    return runner_->comparisonTable();
}

void ScenarioBrowser::followLink(const QUrl& link) {
    if (link.scheme() != QLatin1String("view")) {
        QDesktopServices::openUrl(link);
        return;
    }
    const Scenario* scenario = findScenario(loaded_.toStdString());
    if (const ScenarioView* view = scenario ? scenario->view(link.path().toStdString()) : nullptr)
        Q_EMIT viewRequested(*view);
}

void ScenarioBrowser::showScenario(const Scenario& scenario) {
    narrative_->setMarkdown(fromStd(scenario.narrative));
    // Markdown's headings come out at up to twice the text's size; in a dock a third of
    // the window wide that is three lines of title before the lesson: a little larger
    // than the text, bold, is enough.
    const qreal headingSize = narrative_->font().pointSizeF() * 1.2;
    for (QTextBlock block = narrative_->document()->begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().headingLevel() == 0) continue;
        QTextCursor cursor(block);
        cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        QTextCharFormat heading;
        heading.setProperty(QTextFormat::FontSizeAdjustment, 0);
        heading.setFontPointSize(headingSize);
        heading.setFontWeight(QFont::Bold);
        cursor.mergeCharFormat(heading);
    }
    runs_->clear();
    for (const auto& run : configs_) runs_->addItem(fromStd(run.name));
    for (int row = 0; row < list_->count(); ++row)
        if (list_->item(row)->data(kNameRole).toString() == fromStd(scenario.name)) list_->setCurrentRow(row);
}

bool ScenarioBrowser::loadScenario(const QString& name, QString* error) {
    if (runner_->isRunning()) {
        if (error) *error = tr("A scenario is running; stop it before loading another.");
        return false;
    }
    try {
        const Scenario& scenario = scenarioNamed(name.toStdString());
        configs_ = scenarioRunConfigs(scenario, overrides_);
        loaded_ = name;
        showScenario(scenario);
        Q_EMIT configChosen(configs_.front().config);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    Q_EMIT scenarioLoaded(name);
    return true;
}

bool ScenarioBrowser::runScenario(const QString& name, QString* error) {
    if (runner_->isRunning()) {
        if (error) *error = tr("Stop the current run before starting a scenario.");
        return false;
    }
    if (!loadScenario(name, error)) return false;
    return runner_->run(name, overrides_, error);
}

void ScenarioBrowser::onFinished(const QString& name, const QString& table) {
    if (!table.isEmpty())
        narrative_->append(QStringLiteral("<h3>%1</h3><pre>%2</pre>").arg(tr("Side by side"), table.toHtmlEscaped()));
    Q_EMIT scenarioFinished(name);
}

}  // namespace ampscope::ui
