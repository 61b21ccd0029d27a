#pragma once
// WindowViews: the window's docks' widgets, built and arranged by buildWindowDocks
// (WindowDocks.cpp). Every view is given the run set, never the window.
namespace ampscope::ui {

class BlockScalesView;
class ConfigPanel;
class FormatExplorerView;
class FormatSweepView;
class GradientHistogramView;
class LockstepPlot;
class LossPlot;
class LossView;
class MemoryPlot;
class NanInspectorView;
class PrecisionMapView;
class RunListView;
class ScalePlot;
class ScalingView;
class ScenarioBrowser;
class SensitivityView;
class ThroughputPlot;
class UnderflowView;
class UpdatesView;

struct WindowViews {
    ConfigPanel* config = nullptr;
    ScenarioBrowser* scenarios = nullptr;
    RunListView* runs = nullptr;
    LossView* lossView = nullptr;
    LossPlot* loss = nullptr;
    ScalePlot* scale = nullptr;
    ThroughputPlot* throughput = nullptr;
    MemoryPlot* memory = nullptr;
    GradientHistogramView* histograms = nullptr;
    UnderflowView* underflow = nullptr;
    NanInspectorView* nanInspector = nullptr;
    UpdatesView* updates = nullptr;
    LockstepPlot* lockstep = nullptr;
    FormatSweepView* formatSweep = nullptr;
    ScalingView* scaling = nullptr;
    BlockScalesView* blockScales = nullptr;
    FormatExplorerView* formatExplorer = nullptr;
    PrecisionMapView* precisionMap = nullptr;
    SensitivityView* sensitivity = nullptr;
};

}  // namespace ampscope::ui
