#pragma once
// PresentMode: the lab on a projector (View > Present, F11). The window fills the screen;
// its text, plot lines and markers are drawn 1.5 times their size; the narrative stands
// beside the one view it points at, every other dock, the menu bar and the tool bar
// hidden. The keys walk the lesson: Space pauses and resumes the run, Right and Left show
// the narrative's next and previous view (its run focused, its dock beside the narrative,
// its link selected, as clicking it does), Esc (or F11 again) leaves.
//
// Contract:
// - enter() keeps the window's state (geometry, docks, fonts) and leave() puts it back
//   as it was: the same docks in view, the same fonts, the same plot sizes.
// - The view shown is the one last shown while presenting (a link clicked, a key, the
//   scenario's first view at its end); on entering, the loaded scenario's first view
//   when none was, else the dock in front (the Loss dock when none is).
// - setPresentSize() presents in a window of that size instead of the full screen
//   (tests; a screenshot uses the screen's size).
// - The keys act only on the window itself, not on a dialog it opened.
#include <QByteArray>
#include <QFont>
#include <QObject>
#include <QPointer>
#include <QSize>
#include <QString>
#include <functional>
#include <vector>

class QAction;
class QCustomPlot;
class QDockWidget;
class QMainWindow;
class QMenu;
class QWidget;

namespace ampscope {
struct Scenario;
struct ScenarioView;
}  // namespace ampscope

namespace ampscope::ui {

class DockLayout;
class ScenarioBrowser;
class ScenarioRunner;

class PresentMode : public QObject {
    Q_OBJECT
public:
    // How much larger text, lines and markers are drawn.
    static constexpr double kMagnification = 1.5;
    // The narrative's share of the window's width.
    static constexpr double kNarrativeShare = 0.36;

    struct Parts {
        QMainWindow* window = nullptr;
        DockLayout* layout = nullptr;
        ScenarioBrowser* browser = nullptr;
        ScenarioRunner* runner = nullptr;  // its scenario's end shows the first view
        QAction* pause = nullptr;  // Space triggers it when it is enabled
        // Shows a scenario's view as its link does (MainWindow::showScenarioView).
        std::function<bool(const ScenarioView&)> showView;
    };
    PresentMode(Parts parts, QMenu* viewMenu);

    bool isPresenting() const { return presenting_; }
    QAction* action() const { return action_; }
    void setPresentSize(QSize size) { presentSize_ = size; }

    void enter();
    void leave();
    // The loaded scenario's next or previous view; false at either end, or without views.
    bool nextView();
    bool previousView();
    // The id of the view shown while presenting (empty: none yet).
    QString currentView() const { return currentView_; }
    // The dock beside the narrative.
    QDockWidget* shownDock() const { return shownDock_; }

public Q_SLOTS:
    // A view was shown (a link, the scenario's end; the browser's and the runner's
    // requests come here once the window has shown them): while presenting, it stands
    // beside the narrative.
    void followView(const ampscope::ScenarioView& view);

Q_SIGNALS:
    void presentingChanged(bool presenting);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    const Scenario* loadedScenario() const;
    bool showViewAt(int index);
    void arrange(QDockWidget* dock);
    void shareWidth();
    void keepFont(QWidget* widget);
    void magnifyFonts();
    void magnifyText(QWidget* widget);
    void restoreFonts();
    void magnifyPlots(double factor);
    void magnifyPlot(QCustomPlot* plot, double factor);

    Parts parts_;
    QAction* action_ = nullptr;
    bool presenting_ = false;
    QSize presentSize_;
    QString currentView_;
    QPointer<QDockWidget> shownDock_;

    // What leave() puts back.
    QByteArray dockState_;
    QByteArray geometry_;
    std::pair<int, int> narrativeWidths_;  // the narrative dock's least and most width
    Qt::WindowStates windowStates_;
    // A font changed while presenting: whether the widget had set one of its own, and which.
    struct KeptFont {
        QPointer<QWidget> widget;
        bool own = false;
        QFont font;
    };
    std::vector<KeptFont> keptFonts_;
    std::vector<QPointer<QWidget>> barsHidden_;                   // the menu bar and tool bars shown before
};

}  // namespace ampscope::ui
