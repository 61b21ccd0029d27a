#pragma once
// HeatmapPlot: a fixed-size colour map of counts over training steps, for per-layer
// gradient-exponent histograms and underflow maps.
//
// Contract:
// - configure() fixes the rows: `valueBins` rows, row r covering y in [firstBinY + r,
//   firstBinY + r + 1) (e.g. bin k of log2|g| holds |g| in [2^k, 2^(k+1)), k = -64..32,
//   so y reads as log2|g| and a line at y = -24 is exactly 2^-24), then one row per name
//   in `extraRows` ("NaN", "+Inf", "-Inf"), labelled by name. With value bins, the named
//   rows get a strip of their own above the map (fixed height per row, same x axis and
//   colours), so they stay readable however many bins there are; with no value bins the
//   named rows alone make the map (a layer x step map). configure() clears data and
//   overlays.
// - appendColumn(step, counts) adds one column (counts.size() == rowCount()). The x axis
//   is in training steps and spans the run (from 0 to the last column, or to the last step
//   the view was told of with setStepExtent): each column stands at its step, as wide as
//   half the way to its neighbours on each side (a lone column: a few percent of the
//   span), so probes every N steps make a map of columns N steps wide. The plot draws the
//   columns it is handed, nothing averaged: the run's store bounds and thins them (one
//   rule: ProbeSeriesStore), and `capacity` is the most a store hands over. The grid
//   holds one cell per pixel column of the map (at most twice `capacity`): a finer grid
//   is only scaled down when drawn, and colouring and scaling it were most of a frame
//   with maps side by side.
// - Colours are on a log scale from the smallest positive to the largest value seen, or
//   over the range setColourRange() gives (maps side by side share one scale); zero
//   cells are transparent (no mass is different from little mass). A colour bar with
//   its label sits on the right.
// - Overlays: horizontal lines and bands at y values in row units, each with a label
//   at the right edge; they can be moved (the fp16 limits shifted by log2(scale) move
//   with the scale) and removed. showFp16Limits() places the fp16 facts.
// - The mouse as in every plot (InteractivePlot): zoom/pan, double click resets, the
//   tooltip gives the exact cell value; a click on a column emits columnClicked(step). One queued replot per refresh().
// The overlays and placeholder are defined in HeatmapOverlays.cpp, the map here.
#include <QStringList>
#include <cstdint>
#include <map>
#include <vector>

#include "plots/InteractivePlot.h"

namespace ampscope::ui {

struct HeatmapLayout {
    double firstBinY = -64.0;
    int valueBins = 97;  // -64 .. 32
    QStringList extraRows;
    QString yLabel = QStringLiteral("log\u2082 |gradient|");
    QString colourLabel = QStringLiteral("elements");
    int capacity = 1024;
};

class HeatmapPlot : public InteractivePlot {
    Q_OBJECT
public:
    explicit HeatmapPlot(QWidget* parent = nullptr);

    void configure(const HeatmapLayout& layout);
    const HeatmapLayout& heatmapLayout() const { return layout_; }
    int rowCount() const { return layout_.valueBins + static_cast<int>(layout_.extraRows.size()); }
    // Centre of a row in y (row r spans [firstBinY + r, firstBinY + r + 1)).
    double rowY(int row) const { return layout_.firstBinY + row + 0.5; }
    double valueBinsTopY() const { return layout_.firstBinY + layout_.valueBins; }
    // The strip of named rows above the map (nullptr when there is none).
    QCPAxisRect* namedRowsRect() const { return namedRowsRect_; }

    void appendColumn(int64_t step, const std::vector<double>& counts);
    void clear();
    // Sets the colour range, refreshes the axes and queues one replot.
    void refresh();
    // The colour scale spans [lowPositive, high] from now on (several maps, one scale);
    // a low of 0 goes back to the map's own extremes.
    void setColourRange(double lowPositive, double high);
    // The smallest positive and the largest value of the columns (0 when none).
    double smallestPositive() const { return minPositive_; }
    double largest() const { return maxValue_; }
    // The y range the view shows while it follows the run (and after a reset): where the
    // data and the marks that matter are, instead of every row. configure() drops it.
    void setFocusYRange(double low, double high);

    // The last step of the run so far: the x axis reaches at least this far, so that
    // columns stand where they were measured along the whole run. Kept across clear() and
    // configure() (a view rebuilds its map mid-run); a new run sets it again.
    void setStepExtent(int64_t lastStep);

    int columnCount() const { return static_cast<int>(steps_.size()); }
    // The x coordinate a column stands at (its step), and the column drawn at x (-1: none).
    double columnX(int column) const { return static_cast<double>(stepOfColumn(column)); }
    int columnAt(double x) const;
    int64_t stepOfColumn(int column) const { return steps_.at(static_cast<std::size_t>(column)); }
    double value(int column, int row) const;

    int addLine(double y, const QString& label, const QColor& colour,
                Qt::PenStyle style = Qt::DashLine);
    int addBand(double yLow, double yHigh, const QString& label, const QColor& fill);
    // Moves a line to yLow, or a band to [yLow, yHigh].
    void moveOverlay(int id, double yLow, double yHigh = 0.0);
    void removeOverlay(int id);
    void clearOverlays();
    int overlayCount() const { return static_cast<int>(overlays_.size()); }
    double overlayY(int id) const;      // a line's y, a band's lower y
    double overlayHighY(int id) const;  // a band's upper y (a line's y)

    // Bands for fp16's flush-to-0 (bins below -25: |x| <= 2^-25 rounds to 0, bin -25 rounds
    // up to 2^-24), subnormal (up to 2^-14) and overflow (from 2^16) ranges, the same limits
    // as the probe views draw (precision/Fp16Limits.h), and dashed lines at the same limits
    // minus log2(scale): where an unscaled gradient lands on a limit once multiplied by the
    // loss scale. Calling it again moves the scaled lines.
    void showFp16Limits(double log2Scale);

    // A line in the middle of the map that says why it is empty (probes off, nothing
    // recorded yet); an empty text hides it. Made on the first call, so that it is drawn
    // over the overlays added before.
    void setPlaceholder(const QString& text);
    QString placeholderText() const;

    // The cell under the mouse: its step, bin or row name, and exact value.
    QString tooltipText(QPoint pixel) const override;
    QCPColorMap* colorMap() const { return colorMap_; }
    QCPColorMap* namedRowsMap() const { return namedRowsMap_; }
    QCPColorScale* colorScale() const { return colorScale_; }

public Q_SLOTS:
    void resetView() override;

Q_SIGNALS:
    // A left click on a column (not a drag): the column's step.
    void columnClicked(int64_t step);

protected:
    void leftClicked(QPoint pixel) override;

private:
    struct Overlay {
        QCPAbstractItem* shape = nullptr;
        QCPItemText* label = nullptr;
        bool band = false;
    };

    // The grid: the colour maps hold gridCells() equal cells across the x range; a cell
    // shows the column whose span covers it, or, where several columns share it, the
    // largest count of each row among them. Redrawn on refresh() when dirty.
    int gridCells() const { return gridCells_; }
    // Cells for the map's width now (updateLayout: a resize regrids).
    int wantedGridCells() const;
    void resizeGrid(int cells);
    void updateLayout() override;
    void redrawGrid();
    std::vector<double> columnEdges() const;
    double xUpper() const;
    void setCell(int cell, int row, double value);
    void buildNamedRowsStrip();
    void removeNamedRowsStrip();
    int mainRowCount() const { return namedRowsRect_ ? layout_.valueBins : rowCount(); }
    void updateYTicks();
    void placeLabel(QCPItemText* label, double y);
    void applyXRange();

    HeatmapLayout layout_;
    QCPColorMap* colorMap_ = nullptr;
    QCPColorScale* colorScale_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    QCPMarginGroup* marginGroup_ = nullptr;
    std::vector<std::vector<double>> columns_;  // as handed over
    std::vector<int64_t> steps_;                // the step of each column
    double sharedLow_ = 0.0, sharedHigh_ = 0.0;  // setColourRange (0: none)
    int64_t stepExtent_ = 0;
    bool gridDirty_ = false;
    int gridCells_ = 64;
    double minPositive_ = 0.0;
    double maxValue_ = 0.0;
    std::map<int, Overlay> overlays_;
    int nextOverlayId_ = 1;
    QCPAxisRect* mapRect_ = nullptr;  // the map's axis rect (xAxis, yAxis)
    QCPAxisRect* namedRowsRect_ = nullptr;
    QCPColorMap* namedRowsMap_ = nullptr;
    bool following_ = true;
    bool inAutoRange_ = false;
    bool hasFocusY_ = false;
    QCPRange focusY_;
    std::vector<int> fp16Bands_;
    std::vector<int> fp16ScaledLines_;
};

}  // namespace ampscope::ui
