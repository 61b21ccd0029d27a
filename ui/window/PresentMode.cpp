#include "window/PresentMode.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QTextEdit>
#include <QApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSignalBlocker>
#include <QTimer>
#include <QToolBar>

#include "window/DockLayout.h"
#include "lessons/ScenarioBrowser.h"
#include "lessons/ScenarioRunner.h"
#include "lessons/ScenarioShelf.h"
#include "plots/FontSize.h"
#include "plots/PlotMagnifier.h"
#include "plots/QCustomPlotInclude.h"
#include "scenarios/ScenarioCatalogue.h"

namespace ampscope::ui {

namespace {

const QString kNarrativeDock = QStringLiteral("scenarios");
// Set on a text widget while its font is magnified.
constexpr const char* kMagnifiedProperty = "ampscopePresentMagnified";

}  // namespace

PresentMode::PresentMode(Parts parts, QMenu* viewMenu) : QObject(parts.window), parts_(std::move(parts)) {
    action_ = new QAction(tr("&Present"), this);
    action_->setCheckable(true);
    action_->setShortcut(Qt::Key_F11);
    action_->setToolTip(tr("Full screen for a projector: larger text and lines, the narrative beside its view; "
                           "Space pauses, Right and Left walk the narrative's views, Esc leaves (F11)"));
    connect(action_, &QAction::toggled, this, [this](bool on) { on ? enter() : leave(); });
    // At the top of the View menu; on the window too, so that F11 works with the menu bar hidden.
    QAction* first = viewMenu->actions().value(0);
    viewMenu->insertAction(first, action_);
    viewMenu->insertSeparator(first);
    parts_.window->addAction(action_);
    connect(parts_.browser, &ScenarioBrowser::viewRequested, this, &PresentMode::followView);
    connect(parts_.runner, &ScenarioRunner::viewRequested, this, &PresentMode::followView);
}

const Scenario* PresentMode::loadedScenario() const {
    return parts_.browser->shelf()->find(parts_.browser->loadedScenario());
}

void PresentMode::enter() {
    if (presenting_) return;
    presenting_ = true;
    QMainWindow* window = parts_.window;
    dockState_ = window->saveState();
    if (QDockWidget* narrative = parts_.layout->dock(kNarrativeDock))
        narrativeWidths_ = {narrative->minimumWidth(), narrative->maximumWidth()};
    geometry_ = window->saveGeometry();
    windowStates_ = window->windowState();
    barsHidden_.clear();
    QList<QWidget*> bars = {window->menuBar()};
    for (QToolBar* bar : window->findChildren<QToolBar*>()) bars << bar;
    for (QWidget* bar : bars) {
        if (!bar || !bar->isVisible()) continue;
        barsHidden_.emplace_back(bar);
        bar->hide();
    }
    magnifyFonts();
    magnifyPlots(kMagnification);
    parts_.browser->setNarrativeOnly(true);
    qApp->installEventFilter(this);

    // The view last shown, else the scenario's first, else the dock in front.
    const Scenario* scenario = loadedScenario();
    const ScenarioView* last = scenario ? scenario->view(currentView_.toStdString()) : nullptr;
    if (last) {
        followView(*last);
    } else if (scenario && !scenario->views.empty()) {
        showViewAt(0);
    } else {
        QDockWidget* front = parts_.layout->dock(QStringLiteral("loss"));
        for (const QString& id : parts_.layout->docksInView())
            if (id != kNarrativeDock && id != QLatin1String("configure") && id != QLatin1String("runs")) {
                front = parts_.layout->dock(id);
                break;
            }
        arrange(front);
    }
    if (presentSize_.isValid())
        window->resize(presentSize_);
    else
        window->showFullScreen();
    QTimer::singleShot(0, this, &PresentMode::shareWidth);  // once the window has its new size
    const QSignalBlocker quiet(action_);
    action_->setChecked(true);
    Q_EMIT presentingChanged(true);
}

void PresentMode::leave() {
    if (!presenting_) return;
    presenting_ = false;
    qApp->removeEventFilter(this);
    QMainWindow* window = parts_.window;
    magnifyPlots(1.0);
    restoreFonts();
    parts_.browser->setNarrativeOnly(false);
    for (const QPointer<QWidget>& bar : barsHidden_)
        if (bar) bar->show();
    barsHidden_.clear();
    if (QDockWidget* narrative = parts_.layout->dock(kNarrativeDock)) {
        narrative->setMinimumWidth(narrativeWidths_.first);
        narrative->setMaximumWidth(narrativeWidths_.second);
    }
    window->restoreState(dockState_);
    window->setWindowState(windowStates_);
    window->restoreGeometry(geometry_);
    shownDock_ = nullptr;
    const QSignalBlocker quiet(action_);
    action_->setChecked(false);
    Q_EMIT presentingChanged(false);
}

bool PresentMode::nextView() {
    const Scenario* scenario = loadedScenario();
    if (!scenario) return false;
    int index = -1;
    for (size_t i = 0; i < scenario->views.size(); ++i)
        if (QString::fromStdString(scenario->views[i].id) == currentView_) index = static_cast<int>(i);
    return showViewAt(index + 1);
}

bool PresentMode::previousView() {
    const Scenario* scenario = loadedScenario();
    if (!scenario) return false;
    for (size_t i = 1; i < scenario->views.size(); ++i)
        if (QString::fromStdString(scenario->views[i].id) == currentView_) return showViewAt(static_cast<int>(i) - 1);
    return false;
}

bool PresentMode::showViewAt(int index) {
    const Scenario* scenario = loadedScenario();
    if (!scenario || index < 0 || static_cast<size_t>(index) >= scenario->views.size()) return false;
    const ScenarioView& view = scenario->views[static_cast<size_t>(index)];
    parts_.showView(view);
    followView(view);
    return true;
}

void PresentMode::followView(const ScenarioView& view) {
    currentView_ = QString::fromStdString(view.id);
    if (!presenting_) return;
    QDockWidget* dock = view.dock.empty() ? nullptr : parts_.layout->dock(QString::fromStdString(view.dock));
    arrange(dock ? dock : shownDock_.data());
    parts_.browser->markView(currentView_);
}

void PresentMode::arrange(QDockWidget* dock) {
    QDockWidget* narrative = parts_.layout->dock(kNarrativeDock);
    if (!dock) dock = parts_.layout->dock(QStringLiteral("loss"));
    shownDock_ = dock;
    for (QDockWidget* other : parts_.layout->docks())
        if (other != narrative && other != dock) other->hide();
    // Taken out of wherever they were (a tab group, a nest of splits) and put side by side
    // in one area afresh: moved in place, a dock kept its old neighbours' splits.
    for (QDockWidget* shown : {narrative, dock}) {
        parts_.window->removeDockWidget(shown);
        shown->setFloating(false);
    }
    parts_.window->addDockWidget(Qt::LeftDockWidgetArea, narrative);
    parts_.window->splitDockWidget(narrative, dock, Qt::Horizontal);
    narrative->show();
    dock->show();
    shareWidth();
}

void PresentMode::shareWidth() {
    QDockWidget* narrative = parts_.layout->dock(kNarrativeDock);
    if (!presenting_ || !narrative) return;
    // A dock coming in may need, for a moment, more than the screen: the window grows
    // and would stay wider than the projector shows. Back to the screen's size.
    QMainWindow* window = parts_.window;
    const QSize screen = presentSize_.isValid() ? presentSize_
                         : window->screen()    ? window->screen()->geometry().size()
                                               : window->size();
    if (window->size() != screen && window->minimumSizeHint().width() <= screen.width()) window->resize(screen);
    // Held at its share while presenting: the view beside it takes the rest. (resizeDocks
    // asked for the share did not hold once another dock had stood beside it.)
    narrative->setFixedWidth(static_cast<int>(screen.width() * kNarrativeShare));
}

void PresentMode::keepFont(QWidget* widget) {
    keptFonts_.push_back({widget, widget->testAttribute(Qt::WA_SetFont), widget->font()});
}

void PresentMode::magnifyFonts() {
    QMainWindow* window = parts_.window;
    // Each dock's content keeps the font it has (pinned on it), so that a plot made while
    // presenting takes its text sizes from an unmagnified font, as every other plot did:
    // plots are magnified by their PlotMagnifier, and the text widgets in the docks one by
    // one. What is outside the docks (their titles, the status bar) follows the window.
    keptFonts_.clear();
    keepFont(window);
    for (QDockWidget* dock : parts_.layout->docks()) {
        if (QWidget* content = dock->widget()) {
            keepFont(content);
            // Its size set explicitly (an inherited font sets nothing, and would follow).
            content->setFont(withFontSize(content->font(), fontSize(content->font())));
        }
    }
    window->setFont(withFontSize(window->font(), fontSize(window->font()) * kMagnification));
    for (QDockWidget* dock : parts_.layout->docks())
        if (QWidget* content = dock->widget())
            for (QWidget* widget : content->findChildren<QWidget*>()) magnifyText(widget);
}

void PresentMode::magnifyText(QWidget* widget) {
    const auto isText = [](const QWidget* w) {
        return qobject_cast<const QLabel*>(w) || qobject_cast<const QAbstractButton*>(w) ||
               qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
               qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractItemView*>(w) ||
               qobject_cast<const QTextEdit*>(w);
    };
    if (!isText(widget) || widget->property(kMagnifiedProperty).toBool()) return;
    // Only in a dock, and not a part of another text widget (a combo box's list, a
    // table's header), which grows with it.
    bool inDock = false;
    for (QWidget* up = widget->parentWidget(); up; up = up->parentWidget()) {
        if (isText(up) || qobject_cast<QCustomPlot*>(up)) return;
        if (qobject_cast<QDockWidget*>(up) && parts_.layout->docks().contains(static_cast<QDockWidget*>(up))) {
            inDock = true;
            break;
        }
    }
    if (!inDock) return;
    keepFont(widget);
    widget->setProperty(kMagnifiedProperty, true);
    widget->setFont(withFontSize(widget->font(), fontSize(widget->font()) * kMagnification));
}

void PresentMode::restoreFonts() {
    // Last kept first: the text widgets, then the docks' contents, then the window. A
    // widget that had no font of its own is given the default, which sets nothing: it
    // inherits again.
    for (auto kept = keptFonts_.rbegin(); kept != keptFonts_.rend(); ++kept) {
        if (!kept->widget) continue;
        kept->widget->setFont(kept->own ? kept->font : QFont());
        kept->widget->setProperty(kMagnifiedProperty, QVariant());
    }
    keptFonts_.clear();
}

void PresentMode::magnifyPlots(double factor) {
    for (QCustomPlot* plot : parts_.window->findChildren<QCustomPlot*>()) magnifyPlot(plot, factor);
}

void PresentMode::magnifyPlot(QCustomPlot* plot, double factor) {
    auto* magnifier = plot->findChild<PlotMagnifier*>(QString(), Qt::FindDirectChildrenOnly);
    if (!magnifier) magnifier = new PlotMagnifier(plot);
    magnifier->setFactor(factor);
}

bool PresentMode::eventFilter(QObject* watched, QEvent* event) {
    if (!presenting_) return false;
    if (event->type() == QEvent::KeyPress) {
        auto* widget = qobject_cast<QWidget*>(watched);
        if (!widget || widget->window() != parts_.window) return false;  // a dialog's keys are its own
        const auto* key = static_cast<QKeyEvent*>(event);
        if (key->modifiers() & ~Qt::KeypadModifier) return false;
        switch (key->key()) {
        case Qt::Key_Space:
            if (!key->isAutoRepeat() && parts_.pause && parts_.pause->isEnabled()) parts_.pause->trigger();
            return true;
        case Qt::Key_Right:
            nextView();
            return true;
        case Qt::Key_Left:
            previousView();
            return true;
        case Qt::Key_Escape:
            leave();
            return true;
        default:
            return false;
        }
    }
    if (event->type() == QEvent::Show) {
        // A plot or a text made while presenting (a compared run's pane) is magnified as
        // the others were.
        if (auto* plot = qobject_cast<QCustomPlot*>(watched)) {
            if (plot->window() == parts_.window) magnifyPlot(plot, kMagnification);
        } else if (auto* widget = qobject_cast<QWidget*>(watched); widget && widget->window() == parts_.window) {
            magnifyText(widget);
        }
        // A dock the window brought forward (the NaN inspector at the first NaN, a view's
        // dock) takes the place beside the narrative.
        auto* dock = qobject_cast<QDockWidget*>(watched);
        if (dock && dock != shownDock_ && parts_.layout->docks().contains(dock) &&
            dock != parts_.layout->dock(kNarrativeDock))
            QTimer::singleShot(0, this, [this, shown = QPointer<QDockWidget>(dock)] {
                if (presenting_ && shown) arrange(shown);
            });
    } else if (event->type() == QEvent::Resize && watched == parts_.window) {
        QTimer::singleShot(0, this, &PresentMode::shareWidth);
    }
    return false;
}

}  // namespace ampscope::ui
