#include "window/ViewDirector.h"

#include <QComboBox>

#include "window/DockLayout.h"
#include "runset/RunSet.h"
#include "views/BlockScalesView.h"
#include "views/GradientHistogramView.h"
#include "views/LossPlot.h"
#include "views/ScalingView.h"
#include "views/UnderflowView.h"

namespace ampscope::ui {

ViewDirector::ViewDirector(RunSet* set, DockLayout* layout, const WindowViews& views)
    : set_(set), layout_(layout), views_(views) {}

bool ViewDirector::show(const ScenarioView& view) {
    bool all = true;
    if (!view.run.empty()) {
        const QString name = QString::fromStdString(view.run);
        RunId found = kNoRun;
        for (const RunModel* run : set_->runs())
            if (run->name() == name) found = run->id();
        if (found != kNoRun) {
            set_->setCompared(found, true);
            set_->focus(found);
        } else {
            all = false;
        }
    }
    const QString dock = QString::fromStdString(view.dock);
    if (!dock.isEmpty()) all = layout_->raise(dock) && all;
    const QString layer = QString::fromStdString(view.layer);
    const QString kind = QString::fromStdString(view.kind);
    if (dock == QLatin1String("histograms")) {
        if (!kind.isEmpty()) views_.histograms->setKind(kind);
        if (!layer.isEmpty()) {
            views_.histograms->setLayer(layer);
            all = views_.histograms->layer() == layer && all;
        }
        if (view.step >= 0) views_.histograms->selectStep(view.step);
    } else if (dock == QLatin1String("underflow")) {
        if (!kind.isEmpty()) views_.underflow->setTensorKind(kind);
        if (!layer.isEmpty()) views_.underflow->setLayerChecked(layer, true);
    } else if (dock == QLatin1String("scaling") && !view.point.empty()) {
        all = views_.scaling->setPoint(QString::fromStdString(view.point)) && all;
    } else if (dock == QLatin1String("blockScales") && !view.point.empty()) {
        all = views_.blockScales->setPoint(QString::fromStdString(view.point)) && all;
    }
    if (view.axis == "log")
        views_.loss->setLogarithmic(true);
    else if (view.axis == "linear")
        views_.loss->setLogarithmic(false);
    return all;
}

}  // namespace ampscope::ui
