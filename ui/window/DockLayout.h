#pragma once
// DockLayout: the window's docks and how they are laid out, and the settings that keep
// the layout. Every view is a dock the user can move, float or close; the View menu lists
// them all, so a closed one can be brought back, and Reset layout restores the first
// arrangement.
//
// Contract:
// - add(id, title, widget, area) makes the dock "<id>Dock" (saveState keys docks by
//   name; the ids are `ampscope --show-dock`'s and scenario.json's) and lists it in the
//   View menu above Reset layout. A view whose form is taller than a laptop's lower tab
//   group allows is added with Shorter::Scrolls: it scrolls inside a short dock instead
//   of holding every dock of its tab group at its own least height.
// - raise(id) shows a dock and brings it to the front of its tab group; an unknown id is
//   passed over (false).
// - Tab titles are never elided: ten docks share the large tab group, and "Scal…" says
//   nothing; the tab bar scrolls where the window is too narrow.
// - With persistSettings, QSettings keeps geometry, dock layout and the last config (as
//   config JSON); without (tests, --screenshot) nothing is read or written. The user's
//   restored sizes win over the default proportions, which are measured on the window
//   as first shown.
#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

class QDockWidget;
class QMainWindow;
class QMenu;
class QWidget;

namespace ampscope::ui {

class DockLayout : public QObject {
    Q_OBJECT
public:
    DockLayout(QMainWindow* window, QMenu* viewMenu, bool persistSettings);

    enum class Shorter { Squeezes, Scrolls };
    QDockWidget* add(const QString& id, const QString& title, QWidget* widget, Qt::DockWidgetArea area,
                     Shorter shorter = Shorter::Squeezes);
    QDockWidget* dock(const QString& id) const;
    const QList<QDockWidget*>& docks() const { return docks_; }
    bool raise(const QString& id);
    // The ids of the docks one can see now: shown, and in front of their tab group.
    QStringList docksInView() const;

    // The window at a laptop's 1280x800, or the screen's available size where smaller.
    void startAtLaptopSize();
    // The arrangement as built: what Reset layout goes back to.
    void keepInitialLayout();
    void resetLayout();
    // The first show: default proportions (unless restored), whole tab titles, and the
    // window no larger than the screen once laid out.
    void windowShown();
    // Shrinks the window to the screen's available size where it is larger (as far as
    // the docks' least sizes allow); true when its size changed.
    bool fitTheScreen();
    void keepTabTitlesWhole();
    // The window was resized by the program (a screenshot filling the screen): the
    // default proportions again for its new size, unless the user's layout was restored.
    // Without it the growth goes to the Configure column (half of a 1920-pixel window).
    void windowResized();
    // Widens the Configure dock (up to 2/5 of the window, never narrower) to `wanted`.
    void widenConfigure(int wanted);

    // QSettings (with persistSettings only): restore() hands the saved config JSON to
    // `config` (nothing when none was saved); save() keeps `configJson`.
    bool hasSavedConfig() const;
    void restore(const std::function<void(const QString& configJson)>& config);
    void save(const QString& configJson);

private:
    void applyDefaultSizes();

    QMainWindow* window_;
    QMenu* viewMenu_;
    bool persist_;
    QList<QDockWidget*> docks_;
    QByteArray initialLayout_;
    bool layoutRestored_ = false;
    bool shownOnce_ = false;
};

}  // namespace ampscope::ui
