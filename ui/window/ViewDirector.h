#pragma once
// ViewDirector: shows a part of a scenario's narrative (a ScenarioView): its run focused
// in the run set, its dock raised, and that dock's choices set (the histogram's layer,
// kind and step; the underflow tensor; the loss axis; the Scaling / Block scales point).
// What the view does not name stays as it is.
//
// Contract:
// - show(view) finds the run by name among the set's runs, the newest of that name (a
//   scenario run twice names its runs alike); a name no run has leaves the focus.
//   Returns false when something it names is not there (no such run, dock, layer or
//   point), after showing the rest.
#include "window/WindowViews.h"
#include "scenarios/ScenarioCatalogue.h"

namespace ampscope::ui {

class DockLayout;
class RunSet;

class ViewDirector {
public:
    ViewDirector(RunSet* set, DockLayout* layout, const WindowViews& views);

    bool show(const ScenarioView& view);

private:
    RunSet* set_;
    DockLayout* layout_;
    WindowViews views_;
};

}  // namespace ampscope::ui
