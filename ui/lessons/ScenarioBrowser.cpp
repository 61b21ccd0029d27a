#include "lessons/ScenarioBrowser.h"

#include <QDesktopServices>
#include <QFileInfo>
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

#include "lessons/ModelTrustDialog.h"
#include "lessons/ScenarioRunner.h"
#include "lessons/ScenarioShelf.h"

namespace ampscope::ui {

namespace {

constexpr int kNameRole = Qt::UserRole;

QString fromStd(const std::string& text) {
    return QString::fromStdString(text);
}

// The side-by-side table turned on its side: a column per run, a line per quantity, so
// that it reads in a narrow dock (thirteen columns would not) and its cells wrap.
QString sideBySideHtml(const ComparisonCells& table) {
    QString html = QStringLiteral("<h3>%1</h3><table cellspacing=\"0\" cellpadding=\"3\">")
                       .arg(ScenarioBrowser::tr("Side by side"));
    for (size_t c = 0; c < table.headers.size(); ++c) {
        const bool heading = c == 0;  // the runs' names
        html += QStringLiteral("<tr><td><b>%1</b></td>").arg(fromStd(table.headers[c]).toHtmlEscaped());
        for (const auto& row : table.rows) {
            const QString cell = fromStd(row[c]).toHtmlEscaped();
            html += QStringLiteral("<td align=\"%1\">%2</td>")
                        .arg(table.rightAligned[c] ? QStringLiteral("right") : QStringLiteral("left"),
                             heading ? QStringLiteral("<b>%1</b>").arg(cell) : cell);
        }
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

}  // namespace

ScenarioBrowser::ScenarioBrowser(ScenarioRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
    setObjectName(QStringLiteral("scenarioBrowser"));
    list_ = new QListWidget(this);
    list_->setObjectName(QStringLiteral("scenarioList"));
    list_->setWordWrap(false);
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    list_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    fillList();
    connect(runner_->shelf(), &ScenarioShelf::lessonOpened, this, &ScenarioBrowser::fillList);
    narrative_ = new QTextBrowser(this);
    narrative_->setObjectName(QStringLiteral("scenarioNarrative"));
    narrative_->setOpenLinks(false);  // view: links show a part of the scenario (followLink)
    connect(narrative_, &QTextBrowser::anchorClicked, this, &ScenarioBrowser::followLink);
    narrative_->installEventFilter(this);
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
    runControls_ = new QWidget(this);
    auto* controlsLayout = new QVBoxLayout(runControls_);
    controlsLayout->setContentsMargins(0, 0, 0, 0);
    controlsLayout->addWidget(runsLabel);
    controlsLayout->addWidget(runs_);
    controlsLayout->addLayout(buttons);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(list_);
    layout->addWidget(narrative_, 1);
    layout->addWidget(runControls_);

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

ScenarioShelf* ScenarioBrowser::shelf() const {
    return runner_->shelf();
}

void ScenarioBrowser::fillList() {
    const QString current = list_->currentItem() ? list_->currentItem()->data(kNameRole).toString() : QString();
    list_->clear();
    // One name a line, nothing cut: a teacher picks by name; the one-line summary and where
    // the scenario came from are the tooltip.
    for (const ShelfEntry& entry : shelf()->entries()) {
        const QString name = fromStd(entry.scenario->name);
        auto* item = new QListWidgetItem(
            entry.isLesson() ? tr("%1 (lesson: %2)").arg(name, QFileInfo(entry.origin).fileName()) : name, list_);
        item->setData(kNameRole, entry.key);
        item->setToolTip(fromStd(entry.scenario->summary) + QLatin1Char('\n') +
                         (entry.isLesson() ? tr("Lesson from %1").arg(entry.origin) : tr("Built in")));
        if (entry.key == current) list_->setCurrentItem(item);
    }
    // Tall and wide enough for every name: the list never scrolls or elides.
    int widest = 0;
    for (int row = 0; row < list_->count(); ++row)
        widest = std::max(widest, list_->fontMetrics().horizontalAdvance(list_->item(row)->text()));
    const int frame = 2 * list_->frameWidth();
    list_->setFixedHeight(list_->sizeHintForRow(0) * list_->count() + frame + 2);
    list_->setMinimumWidth(widest + frame + 24);
}

QString ScenarioBrowser::openLesson(const QString& path, QString* error) {
    if (runner_->isRunning()) {
        if (error) *error = tr("A scenario is running; stop it before opening a lesson.");
        return {};
    }
    const QString key = shelf()->openLesson(path, error);
    if (key.isEmpty() || !loadScenario(key, error)) return {};
    return key;
}

bool ScenarioBrowser::trusted(const Scenario& scenario, const std::vector<NamedRunConfig>& configs, QString* error) {
    const std::vector<LessonModel> models = lessonModels(configs);
    if (models.empty()) return true;
    const bool yes = trust_ ? trust_(fromStd(scenario.name), models) : askModelTrust(this, fromStd(scenario.name), models);
    if (!yes && error)
        *error = tr("Lesson %1 not loaded: its TorchScript model %2 (SHA-256 %3) runs code as you, and was not trusted.")
                     .arg(fromStd(scenario.name), fromStd(models.front().path), fromStd(models.front().sha256));
    return yes;
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
    const Scenario* scenario = shelf()->find(loaded_);
    if (const ScenarioView* view = scenario ? scenario->view(link.path().toStdString()) : nullptr)
        Q_EMIT viewRequested(*view);
}

void ScenarioBrowser::showScenario(const QString& key, const Scenario& scenario) {
    narrative_->setMarkdown(fromStd(scenario.narrative));
    sizeHeadings();
    runs_->clear();
    for (const auto& run : configs_) runs_->addItem(fromStd(run.name));
    for (int row = 0; row < list_->count(); ++row)
        if (list_->item(row)->data(kNameRole).toString() == key) list_->setCurrentRow(row);
}

void ScenarioBrowser::sizeHeadings() {
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
}

bool ScenarioBrowser::eventFilter(QObject* watched, QEvent* event) {
    // The headings' size follows the text's (Present mode makes the narrative's larger).
    if (watched == narrative_ && event->type() == QEvent::FontChange) sizeHeadings();
    return QWidget::eventFilter(watched, event);
}

void ScenarioBrowser::setNarrativeOnly(bool only) {
    list_->setVisible(!only);
    runControls_->setVisible(!only);
}

bool ScenarioBrowser::markView(const QString& id) {
    const QString href = QStringLiteral("view:") + id;
    for (QTextBlock block = narrative_->document()->begin(); block.isValid(); block = block.next()) {
        for (auto fragment = block.begin(); !fragment.atEnd(); ++fragment) {
            if (fragment.fragment().charFormat().anchorHref() != href) continue;
            QTextCursor cursor(narrative_->document());
            cursor.setPosition(fragment.fragment().position());
            cursor.setPosition(fragment.fragment().position() + fragment.fragment().length(), QTextCursor::KeepAnchor);
            narrative_->setTextCursor(cursor);
            narrative_->ensureCursorVisible();
            return true;
        }
    }
    return false;
}

bool ScenarioBrowser::loadScenario(const QString& key, QString* error) {
    if (runner_->isRunning()) {
        if (error) *error = tr("A scenario is running; stop it before loading another.");
        return false;
    }
    try {
        const Scenario* found = shelf()->find(key);
        const Scenario& scenario = found ? *found : scenarioNamed(key.toStdString());
        std::vector<NamedRunConfig> configs = scenarioRunConfigs(scenario, overrides_);
        if (!trusted(scenario, configs, error)) return false;
        configs_ = std::move(configs);
        loaded_ = key;
        showScenario(key, scenario);
        Q_EMIT configChosen(configs_.front().config);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    Q_EMIT scenarioLoaded(key);
    return true;
}

bool ScenarioBrowser::runScenario(const QString& key, QString* error) {
    if (runner_->isRunning()) {
        if (error) *error = tr("Stop the current run before starting a scenario.");
        return false;
    }
    if (!loadScenario(key, error)) return false;
    return runner_->run(key, overrides_, error);
}

void ScenarioBrowser::onFinished(const QString& name, const QString& table) {
    if (!table.isEmpty()) narrative_->append(sideBySideHtml(comparisonTableCells(runner_->comparisonRows())));
    // Seeds among the runs: how each other run stands against their band, as comparison.txt says.
    const std::vector<std::string> band = comparisonBandLines(runner_->comparisonRows());
    if (!band.empty()) {
        QString list = tr("<p><b>Against the seed band</b>: %1</p><ul>").arg(QString::fromStdString(band.front()).toHtmlEscaped());
        for (std::size_t i = 1; i < band.size(); ++i)
            list += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(band[i]).toHtmlEscaped());
        narrative_->append(list + QStringLiteral("</ul>"));
    }
    Q_EMIT scenarioFinished(name);
}

}  // namespace ampscope::ui
