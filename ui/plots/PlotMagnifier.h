#pragma once
// PlotMagnifier: a plot's text, lines and markers drawn `factor` times their size (Present
// mode, for a projector): axis labels and tick labels, titles, legends, item texts; the
// pens of axes, graphs, bars and items; scatter markers.
//
// Contract:
// - setFactor(f) scales every element from the size the plot gave it (its base), and
//   keeps doing so before each replot: an element the plot adds later, or one whose pen
//   or font the plot sets again (a graph re-coloured, a marker switched on), is scaled
//   from its new size. setFactor(1) puts back every base the plot has not changed since.
// - A hairline pen (width 0, one pixel) counts as width 1 while magnified.
// - It changes only sizes: colours, styles and the data stay the plot's.
#include <QObject>
#include <QPointer>
#include <functional>
#include <map>
#include <utility>

class QCustomPlot;

namespace ampscope::ui {

class PlotMagnifier : public QObject {
    Q_OBJECT
public:
    explicit PlotMagnifier(QCustomPlot* plot);

    void setFactor(double factor);
    double factor() const { return factor_; }

private:
    void magnify();
    // One size of one element: `read` gives it now, `write` sets it.
    void scale(QObject* owner, int slot, const std::function<double()>& read,
               const std::function<void(double)>& write);

    struct Sized {
        QPointer<QObject> owner;  // null once the element is gone (its address may be reused)
        double base = 0;
        double applied = 0;
    };
    QCustomPlot* plot_;
    double factor_ = 1.0;
    std::map<std::pair<const QObject*, int>, Sized> sizes_;
};

}  // namespace ampscope::ui
