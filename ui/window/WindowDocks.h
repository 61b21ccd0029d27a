#pragma once
// buildWindowDocks: every view of the window, given the run set, as docks of a
// DockLayout, in the first arrangement: Configure, Scenarios and Runs tabbed on the left
// (the Runs list beneath them where the screen is tall enough: DockLayout); Loss on top of the right (the headline), Loss scale and Throughput side
// by side beneath; the probe and format docks tabbed with the loss in the large area;
// Memory with Throughput. The views' own links (the NaN inspector's fix, the block scale
// the explorer divides by) are the caller's to connect.
#include "window/WindowViews.h"

class QWidget;

namespace ampscope::ui {

class DockLayout;
class RunSet;
class ScenarioRunner;

WindowViews buildWindowDocks(RunSet* set, ScenarioRunner* scenarios, DockLayout& layout, QWidget* parent);

}  // namespace ampscope::ui
