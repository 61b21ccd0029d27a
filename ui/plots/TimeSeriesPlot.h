#pragma once
// TimeSeriesPlot: the common behaviour of the per-step plots (loss, scale, throughput).
//
// Contract:
// - x is the training step; every series is a SeriesGraph (a bounded DecimatedSeries that
//   keeps each bucket's first point, extremes and first non-finite value; the full data
//   stays in the run directory), added with addSeries().
// - redraw() is the only redraw: it sets axis ranges from the series' running
//   extents (no rescaleAxes() per frame) while the view follows the run, refreshes the
//   graphs, and asks for one queued replot. A graph whose data changed moves to the
//   "growing" layer (buffered on its own): while the axes, the legend and the
//   placeholder are as the last full replot drew them, redraw() repaints that layer
//   alone, so the runs that do not change (compared, recorded ones) are not drawn again
//   each tick. Anything else asks for a full replot.
// - The user zooms (wheel) and pans (drag) both axes; doing so stops following the run
//   until "Reset view" (context menu, double click, or resetView()) restores it.
// - Hovering shows a tooltip with exact values, written by hoverText() of the subclass
//   (the mouse itself: InteractivePlot).
// - The context menu has Reset view, the subclass's extra actions and Save image…
// - While there is no data, a placeholder line in the middle says why the plot is empty.
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "plots/InteractivePlot.h"
#include "plots/SeriesGraph.h"

class QAction;
class QMenu;

namespace ampscope::ui {

class TimeSeriesPlot : public InteractivePlot {
    Q_OBJECT
public:
    explicit TimeSeriesPlot(QWidget* parent = nullptr);
    ~TimeSeriesPlot() override;

    // Axis ranges (while following), the graphs, one queued replot.
    void redraw();

    bool isFollowing() const { return following_; }
    QAction* resetViewAction() const { return resetViewAction_; }
    // Graph points per series currently handed to QCustomPlot (for tests and benchmarks).
    int shownPointCount(const QCPGraph* graph) const;
    // The buffered layer of the graphs whose data changed since they were made.
    QCPLayer* growingLayer() const { return growingLayer_; }
    // Full replots and growing-layer-only repaints so far (for tests and benchmarks).
    int fullReplotCount() const { return fullReplots_; }
    int layerReplotCount() const { return layerReplots_; }

    // The text the tooltip would show with the mouse at x = `step` (empty: none).
    virtual QString hoverText(double step, QPoint pixel) const = 0;
    // Inside the plot area: hoverText() of the step under the mouse; outside: none.
    QString tooltipText(QPoint pixel) const final;

public Q_SLOTS:
    void resetView() override;

protected:
    // Creates a graph on the given axes and the SeriesGraph that feeds it: from a series
    // of its own (append), or drawing `source` (a run's series in the run set).
    SeriesGraph* addSeries(QCPAxis* valueAxis, const QString& name, const QPen& pen);
    SeriesGraph* addSeries(QCPAxis* valueAxis, const QString& name, const QPen& pen,
                           const DecimatedSeries& source);
    void clearAllSeries();
    // Removes every series and its graph (plots whose series depend on the run).
    void removeAllSeries();
    // Removes one series and its graph.
    void removeSeries(SeriesGraph* series);
    // Sets the axis ranges from running extents; called while following.
    virtual void applyAutoRanges() = 0;
    // Extra context-menu actions of a subclass (added before "Save image…").
    virtual void addContextActions(QMenu& menu) { (void)menu; }

    void setPlaceholder(const QString& text);  // empty hides it
    // Vertical place of the placeholder, as a fraction of the plot height from the top.
    void setPlaceholderHeight(double fromTop);
    // Switches an axis between linear and log10 without counting as a user zoom.
    void setAxisLogarithmic(QCPAxis* axis, bool logarithmic);
    void setXRangeToData(double lastStep);
    static QCPRange paddedRange(double low, double high, bool logarithmic);
    static QString formatValue(double value);

    // Lays out, then shortens a y label longer than the plot is high: it is drawn centred
    // on the axis, and a longer one would run over the legend row above the plot.
    void updateLayout() override;

private:
    struct FittedLabel {
        QString full;   // what was set
        QString shown;  // what the axis shows (elided when the plot is short)
    };
    bool fitAxisLabel(QCPAxis* axis, FittedLabel& fitted);
    bool fitLegendColumns();

    void showContextMenu(const QPoint& position);
    void refreshSeries();
    void onRangeChanged();

    // What a full replot drew besides the graphs: while it stays the same, repainting the
    // growing layer alone is enough.
    struct Chrome {
        std::vector<double> numbers;  // axis ranges, scale types, visibility, sizes, counts
        QStringList texts;            // axis labels, the placeholder
        bool operator==(const Chrome& other) const = default;
    };
    Chrome chrome() const;
    void queueFullReplot();
    void queueGrowingLayerReplot();

    std::vector<std::unique_ptr<SeriesGraph>> series_;
    QCPLayer* growingLayer_ = nullptr;
    Chrome drawnChrome_;
    bool fullReplotQueued_ = false;
    bool layerReplotQueued_ = false;
    int fullReplots_ = 0;
    int layerReplots_ = 0;
    QCPItemText* placeholder_ = nullptr;
    QAction* resetViewAction_ = nullptr;
    bool following_ = true;
    bool inAutoRange_ = false;
    FittedLabel yLabel_, y2Label_;
};

}  // namespace ampscope::ui
