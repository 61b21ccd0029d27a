#include "window/DockLayout.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QSettings>
#include <QTabBar>
#include <QGuiApplication>
#include <QScreen>
#include <QScrollArea>
#include <QTimer>
#include <algorithm>

namespace ampscope::ui {

namespace {

const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
const char* const kConfigKey = "config/last";
constexpr int kRunsBeneathHeight = 950;  // window pixels

}  // namespace

DockLayout::DockLayout(QMainWindow* window, QMenu* viewMenu, bool persistSettings)
    : QObject(window), window_(window), viewMenu_(viewMenu), persist_(persistSettings) {}

QDockWidget* DockLayout::add(const QString& id, const QString& title, QWidget* widget, Qt::DockWidgetArea area,
                             Shorter shorter) {
    auto* dock = new QDockWidget(title, window_);
    dock->setObjectName(id + QStringLiteral("Dock"));  // saveState() keys docks by name
    if (shorter == Shorter::Scrolls) {
        auto* scroll = new QScrollArea(dock);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidget(widget);
        dock->setWidget(scroll);
    } else {
        dock->setWidget(widget);
    }
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable |
                      QDockWidget::DockWidgetFloatable);
    window_->addDockWidget(area, dock);
    // Dock entries go above the separator that precedes "Reset layout".
    QAction* separator = nullptr;
    for (QAction* action : viewMenu_->actions())
        if (action->isSeparator()) separator = action;
    viewMenu_->insertAction(separator, dock->toggleViewAction());
    docks_ << dock;
    // Tabbing a dock somewhere else may make a new tab bar.
    connect(dock, &QDockWidget::dockLocationChanged, this,
            [this] { QTimer::singleShot(0, this, &DockLayout::keepTabTitlesWhole); });
    return dock;
}

void DockLayout::startAtLaptopSize() {
    window_->resize(1280, 800);
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
        const QSize available = screen->availableSize();
        window_->resize(std::min(1280, available.width()), std::min(800, available.height()));
    }
}

QStringList DockLayout::docksInView() const {
    QStringList ids;
    for (const QDockWidget* d : docks_)
        if (d->isVisible() && !d->visibleRegion().isEmpty()) ids << d->objectName().chopped(int(qstrlen("Dock")));
    return ids;
}

QDockWidget* DockLayout::dock(const QString& id) const {
    const QString name = id + QStringLiteral("Dock");
    for (QDockWidget* d : docks_)
        if (d->objectName() == name) return d;
    return nullptr;
}

bool DockLayout::raise(const QString& id) {
    QDockWidget* d = dock(id);
    if (!d) return false;
    d->show();
    d->raise();
    return true;
}

void DockLayout::keepInitialLayout() {
    initialLayout_ = window_->saveState();
}

void DockLayout::resetLayout() {
    window_->restoreState(initialLayout_);
    keepTabTitlesWhole();
    for (QDockWidget* d : docks_) {
        d->setFloating(false);
        d->show();
    }
    applyDefaultSizes();
}

void DockLayout::keepTabTitlesWhole() {
    for (QTabBar* bar : window_->findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
        bar->setElideMode(Qt::ElideNone);
        bar->setUsesScrollButtons(true);
    }
}

void DockLayout::windowShown() {
    keepTabTitlesWhole();
    if (shownOnce_) return;
    shownOnce_ = true;
    if (!layoutRestored_) applyDefaultSizes();
    // Before its first show the window's least size counts docks that end up in tabs, and
    // a resize to the screen's size is refused then: once laid out, fit the screen.
    QTimer::singleShot(0, this, [this] {
        if (fitTheScreen() && !layoutRestored_) applyDefaultSizes();
    });
}

bool DockLayout::fitTheScreen() {
    const QScreen* screen = window_->screen();
    if (!screen) return false;
    const QSize room = screen->availableGeometry().size();
    const QSize now = window_->size();
    const QSize fitted(std::min(now.width(), room.width()), std::min(now.height(), room.height()));
    if (fitted == now) return false;
    window_->resize(fitted);
    return window_->size() != now;
}

void DockLayout::windowResized() {
    if (!layoutRestored_) applyDefaultSizes();
}

void DockLayout::applyDefaultSizes() {
    // Proportions of the window actually shown: sizes set before the first show are
    // measured against a window size that is not the final one.
    QDockWidget* configure = dock(QStringLiteral("configure"));
    QDockWidget* runs = dock(QStringLiteral("runs"));
    QDockWidget* loss = dock(QStringLiteral("loss"));
    QDockWidget* scale = dock(QStringLiteral("scale"));
    QDockWidget* throughput = dock(QStringLiteral("throughput"));
    if (!configure || !loss || !scale || !throughput) return;
    const int width = window_->width(), height = window_->height();
    const int formWidth = std::clamp(width / 4, 340, 420);
    window_->resizeDocks({configure, loss}, {formWidth, width - formWidth}, Qt::Horizontal);
    // Tall enough for the scenario list, a narrative and the runs: the list of runs
    // beneath the Configure and Scenarios tabs, always in view. Shorter (a laptop's 800
    // rows), it stays a tab beside them and the narrative keeps its height.
    if (runs && height >= kRunsBeneathHeight) {
        if (!window_->tabifiedDockWidgets(runs).isEmpty()) window_->splitDockWidget(configure, runs, Qt::Vertical);
        window_->resizeDocks({configure, runs}, {height * 72 / 100, height * 28 / 100}, Qt::Vertical);
    }
    window_->resizeDocks({loss, scale}, {height * 55 / 100, height * 45 / 100}, Qt::Vertical);
    const int plotsWidth = width - formWidth;
    window_->resizeDocks({scale, throughput}, {plotsWidth * 55 / 100, plotsWidth * 45 / 100}, Qt::Horizontal);
}

void DockLayout::widenConfigure(int wanted) {
    QDockWidget* configure = dock(QStringLiteral("configure"));
    if (!configure || configure->isFloating()) return;
    wanted = std::min(wanted, window_->width() * 2 / 5);
    if (wanted > configure->width()) window_->resizeDocks({configure}, {wanted}, Qt::Horizontal);
}

bool DockLayout::hasSavedConfig() const {
    return persist_ && QSettings().contains(kConfigKey);
}

void DockLayout::restore(const std::function<void(const QString&)>& config) {
    if (!persist_) return;
    QSettings settings;
    const QByteArray geometry = settings.value(kGeometryKey).toByteArray();
    if (!geometry.isEmpty()) window_->restoreGeometry(geometry);
    const QByteArray state = settings.value(kStateKey).toByteArray();
    if (!state.isEmpty()) layoutRestored_ = window_->restoreState(state);
    const QString json = settings.value(kConfigKey).toString();
    if (!json.isEmpty()) config(json);
}

void DockLayout::save(const QString& configJson) {
    if (!persist_) return;
    QSettings settings;
    settings.setValue(kGeometryKey, window_->saveGeometry());
    settings.setValue(kStateKey, window_->saveState());
    settings.setValue(kConfigKey, configJson);
}

}  // namespace ampscope::ui
