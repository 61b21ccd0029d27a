#include "window/WindowDocks.h"

#include <QDockWidget>
#include <QMainWindow>

#include "configure/ConfigPanel.h"
#include "window/DockLayout.h"
#include "lessons/ScenarioBrowser.h"
#include "views/BlockScalesView.h"
#include "views/FormatExplorerView.h"
#include "views/FormatSweepView.h"
#include "views/GradientHistogramView.h"
#include "views/LockstepPlot.h"
#include "views/LossPlot.h"
#include "views/LossView.h"
#include "views/MemoryPlot.h"
#include "views/NanInspectorView.h"
#include "views/PrecisionMapView.h"
#include "views/RunListView.h"
#include "views/ScalePlot.h"
#include "views/ScalingView.h"
#include "views/SensitivityView.h"
#include "views/ThroughputPlot.h"
#include "views/UnderflowView.h"
#include "views/UpdatesView.h"
#include "probes/PrecisionMapRecord.h"

namespace ampscope::ui {

WindowViews buildWindowDocks(RunSet* set, ScenarioRunner* scenarios, DockLayout& layout, QWidget* parent) {
    auto* window = qobject_cast<QMainWindow*>(parent);
    const auto tr = [](const char* text) { return QObject::tr(text); };
    WindowViews v;
    v.config = new ConfigPanel(parent);
    v.config->setMinimumWidth(330);  // the form's labels and fields, without scrolling sideways
    QDockWidget* configure = layout.add(QStringLiteral("configure"), tr("Configure"), v.config, Qt::LeftDockWidgetArea);
    v.scenarios = new ScenarioBrowser(scenarios, parent);
    QDockWidget* scenarioDock = layout.add(QStringLiteral("scenarios"), tr("Scenarios"), v.scenarios, Qt::LeftDockWidgetArea);
    v.runs = new RunListView(set, parent);
    QDockWidget* runs = layout.add(QStringLiteral("runs"), tr("Runs"), v.runs, Qt::LeftDockWidgetArea);
    // The start page and the list of runs share the left column with Configure: a
    // narrative beside the plots, a run one click away (DockLayout puts the list beneath
    // them on a screen tall enough for both).
    window->tabifyDockWidget(configure, scenarioDock);
    window->tabifyDockWidget(scenarioDock, runs);

    v.lossView = new LossView(set, parent);
    v.loss = v.lossView->plot();
    v.scale = new ScalePlot(set, parent);
    v.throughput = new ThroughputPlot(set, parent);
    QDockWidget* loss = layout.add(QStringLiteral("loss"), tr("Loss"), v.lossView, Qt::RightDockWidgetArea);
    QDockWidget* scale = layout.add(QStringLiteral("scale"), tr("Loss scale"), v.scale, Qt::RightDockWidgetArea);
    QDockWidget* throughput =
        layout.add(QStringLiteral("throughput"), tr("Throughput"), v.throughput, Qt::RightDockWidgetArea);
    window->splitDockWidget(loss, scale, Qt::Vertical);
    window->splitDockWidget(scale, throughput, Qt::Horizontal);

    // The probe views need room: tabs next to the loss in the large area; memory next to
    // throughput. Loss and throughput stay in front.
    v.histograms = new GradientHistogramView(set, parent);
    v.underflow = new UnderflowView(set, parent);
    v.nanInspector = new NanInspectorView(set, parent);
    v.memory = new MemoryPlot(set, parent);
    v.updates = new UpdatesView(set, parent);
    QDockWidget* histograms =
        layout.add(QStringLiteral("histograms"), tr("Gradient histograms"), v.histograms, Qt::RightDockWidgetArea);
    QDockWidget* underflow = layout.add(QStringLiteral("underflow"), tr("Underflow"), v.underflow, Qt::RightDockWidgetArea);
    QDockWidget* nan = layout.add(QStringLiteral("nanInspector"), tr("NaN inspector"), v.nanInspector, Qt::RightDockWidgetArea);
    QDockWidget* memory = layout.add(QStringLiteral("memory"), tr("Memory"), v.memory, Qt::RightDockWidgetArea);
    QDockWidget* updates = layout.add(QStringLiteral("updates"), tr("Updates"), v.updates, Qt::RightDockWidgetArea);
    window->tabifyDockWidget(loss, histograms);
    window->tabifyDockWidget(histograms, underflow);
    window->tabifyDockWidget(underflow, nan);
    window->tabifyDockWidget(throughput, memory);
    window->tabifyDockWidget(memory, updates);

    // Lock-step A/B of the focused run, then the number formats beyond fp16: the sweep
    // over every format, per-tensor scaling and block scales, and the explorer.
    v.lockstep = new LockstepPlot(set, parent);
    v.formatSweep = new FormatSweepView(set, parent);
    v.scaling = new ScalingView(set, parent);
    v.blockScales = new BlockScalesView(set, parent);
    v.formatExplorer = new FormatExplorerView(set, parent);
    QDockWidget* lockstep = layout.add(QStringLiteral("lockstep"), tr("Lock-step A/B"), v.lockstep, Qt::RightDockWidgetArea);
    QDockWidget* sweep = layout.add(QStringLiteral("formatSweep"), tr("Format sweep"), v.formatSweep, Qt::RightDockWidgetArea);
    QDockWidget* scaling = layout.add(QStringLiteral("scaling"), tr("Scaling"), v.scaling, Qt::RightDockWidgetArea);
    QDockWidget* blocks = layout.add(QStringLiteral("blockScales"), tr("Block scales"), v.blockScales, Qt::RightDockWidgetArea);
    QDockWidget* explorer =
        layout.add(QStringLiteral("formatExplorer"), tr("Format explorer"), v.formatExplorer, Qt::RightDockWidgetArea,
                   DockLayout::Shorter::Scrolls);
    window->tabifyDockWidget(nan, lockstep);
    window->tabifyDockWidget(lockstep, sweep);
    window->tabifyDockWidget(sweep, scaling);
    window->tabifyDockWidget(scaling, blocks);
    window->tabifyDockWidget(blocks, explorer);
    // Where a step's error enters, op by op (precision_map records).
    v.precisionMap = new PrecisionMapView(set, parent);
    QDockWidget* precisionMap =
        layout.add(QStringLiteral("precisionMap"), tr("Precision map"), v.precisionMap, Qt::RightDockWidgetArea,
                   DockLayout::Shorter::Scrolls);
    window->tabifyDockWidget(explorer, precisionMap);
    // What quantizing each layer alone costs the loss, per format (sensitivity records); a
    // cell clicked shows its layer's gradient histograms and map, and its ops in the
    // precision map.
    v.sensitivity = new SensitivityView(set, parent);
    QDockWidget* sensitivity =
        layout.add(QStringLiteral("sensitivity"), tr("Sensitivity"), v.sensitivity, Qt::RightDockWidgetArea);
    window->tabifyDockWidget(precisionMap, sensitivity);
    QObject::connect(v.sensitivity, &SensitivityView::layerChosen, parent,
                     [histograms = v.histograms, map = v.precisionMap, dockLayout = &layout](const QString& layer) {
                         if (const PrecisionMapRecord* shown = map->shownMap())
                             for (std::size_t k = 0; k < shown->ops.size(); ++k)
                                 if (QString::fromStdString(shown->ops[k].module) == layer) {
                                     map->setSelectedOp(static_cast<int>(k));
                                     break;
                                 }
                         histograms->setLayer(layer);
                         dockLayout->raise(QStringLiteral("histograms"));
                     });
    loss->raise();
    throughput->raise();
    configure->raise();
    return v;
}

}  // namespace ampscope::ui
