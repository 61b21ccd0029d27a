#include "plots/PlotMagnifier.h"

#include <algorithm>

#include "plots/FontSize.h"
#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {

namespace {

// The sizes kept per element: one slot each.
enum Slot : int {
    kLabelFont,
    kTickLabelFont,
    kBasePen,
    kTickPen,
    kSubTickPen,
    kFont,
    kSelectedFont,
    kPen,
    kMarker,
    kIconWidth,
    kIconHeight,
};

QPen widened(QPen pen, double width) {
    pen.setWidthF(width);
    return pen;
}

}  // namespace

PlotMagnifier::PlotMagnifier(QCustomPlot* plot) : QObject(plot), plot_(plot) {
    // Before each replot lays the plot out: what the plot changed since is scaled in time.
    connect(plot_, &QCustomPlot::beforeReplot, this, [this] {
        if (factor_ != 1.0) magnify();
    });
}

void PlotMagnifier::setFactor(double factor) {
    if (factor == factor_) return;
    factor_ = factor;
    magnify();
    if (factor_ == 1.0) sizes_.clear();  // every base is back
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PlotMagnifier::scale(QObject* owner, int slot, const std::function<double()>& read,
                          const std::function<void(double)>& write) {
    Sized& sized = sizes_[{owner, slot}];
    const double now = read();
    // New, or set again by the plot since it was scaled: what it is now is its base.
    if (!sized.owner || now != sized.applied) {
        sized.owner = owner;
        sized.base = now;
    }
    // A hairline (width 0) is one pixel wide; magnified it is a line of `factor` pixels.
    const double wanted = factor_ == 1.0 ? sized.base : std::max(sized.base, 1.0) * factor_;
    if (now != wanted) write(wanted);
    sized.applied = read();
}

void PlotMagnifier::magnify() {
    const auto axisSizes = [this](QCPAxis* axis) {
        scale(axis, kLabelFont, [axis] { return fontSize(axis->labelFont()); },
              [axis](double s) { axis->setLabelFont(withFontSize(axis->labelFont(), s)); });
        scale(axis, kTickLabelFont, [axis] { return fontSize(axis->tickLabelFont()); },
              [axis](double s) { axis->setTickLabelFont(withFontSize(axis->tickLabelFont(), s)); });
        scale(axis, kBasePen, [axis] { return axis->basePen().widthF(); },
              [axis](double w) { axis->setBasePen(widened(axis->basePen(), w)); });
        scale(axis, kTickPen, [axis] { return axis->tickPen().widthF(); },
              [axis](double w) { axis->setTickPen(widened(axis->tickPen(), w)); });
        scale(axis, kSubTickPen, [axis] { return axis->subTickPen().widthF(); },
              [axis](double w) { axis->setSubTickPen(widened(axis->subTickPen(), w)); });
    };
    for (QCPAxisRect* rect : plot_->axisRects())
        for (QCPAxis* axis : rect->axes()) axisSizes(axis);

    for (QCPLayoutElement* element : plot_->plotLayout()->elements(true)) {
        if (auto* title = qobject_cast<QCPTextElement*>(element)) {
            scale(title, kFont, [title] { return fontSize(title->font()); },
                  [title](double s) { title->setFont(withFontSize(title->font(), s)); });
            scale(title, kSelectedFont, [title] { return fontSize(title->selectedFont()); },
                  [title](double s) { title->setSelectedFont(withFontSize(title->selectedFont(), s)); });
        } else if (auto* legend = qobject_cast<QCPLegend*>(element)) {
            // The legend passes its font on to its items.
            scale(legend, kFont, [legend] { return fontSize(legend->font()); },
                  [legend](double s) { legend->setFont(withFontSize(legend->font(), s)); });
            scale(legend, kIconWidth, [legend] { return double(legend->iconSize().width()); },
                  [legend](double w) { legend->setIconSize(qRound(w), legend->iconSize().height()); });
            scale(legend, kIconHeight, [legend] { return double(legend->iconSize().height()); },
                  [legend](double h) { legend->setIconSize(legend->iconSize().width(), qRound(h)); });
        } else if (auto* colourScale = qobject_cast<QCPColorScale*>(element)) {
            axisSizes(colourScale->axis());
        }
    }

    for (int i = 0; i < plot_->plottableCount(); ++i) {
        QCPAbstractPlottable* plottable = plot_->plottable(i);
        scale(plottable, kPen, [plottable] { return plottable->pen().widthF(); },
              [plottable](double w) { plottable->setPen(widened(plottable->pen(), w)); });
        if (auto* graph = qobject_cast<QCPGraph*>(plottable)) {
            if (graph->scatterStyle().isNone()) continue;
            scale(graph, kMarker, [graph] { return graph->scatterStyle().size(); }, [graph](double size) {
                QCPScatterStyle marker = graph->scatterStyle();
                marker.setSize(size);
                graph->setScatterStyle(marker);
            });
        }
    }

    for (int i = 0; i < plot_->itemCount(); ++i) {
        QCPAbstractItem* item = plot_->item(i);
        if (auto* text = qobject_cast<QCPItemText*>(item)) {
            scale(text, kFont, [text] { return fontSize(text->font()); },
                  [text](double s) { text->setFont(withFontSize(text->font(), s)); });
        } else if (auto* line = qobject_cast<QCPItemLine*>(item)) {
            scale(line, kPen, [line] { return line->pen().widthF(); },
                  [line](double w) { line->setPen(widened(line->pen(), w)); });
        } else if (auto* straight = qobject_cast<QCPItemStraightLine*>(item)) {
            scale(straight, kPen, [straight] { return straight->pen().widthF(); },
                  [straight](double w) { straight->setPen(widened(straight->pen(), w)); });
        } else if (auto* tracer = qobject_cast<QCPItemTracer*>(item)) {
            scale(tracer, kPen, [tracer] { return tracer->pen().widthF(); },
                  [tracer](double w) { tracer->setPen(widened(tracer->pen(), w)); });
            scale(tracer, kMarker, [tracer] { return tracer->size(); }, [tracer](double s) { tracer->setSize(s); });
        }
    }
}

}  // namespace ampscope::ui
