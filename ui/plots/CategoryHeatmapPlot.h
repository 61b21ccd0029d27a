#pragma once
// CategoryHeatmapPlot: a small colour map of named rows by named columns (layers x number
// formats), each cell also written out as text, for the Format sweep and Sensitivity docks.
//
// Contract:
// - setCategories(rows, columns) fixes the grid: row 0 is drawn on top, column 0 on the
//   left, each labelled on its axis. setValues(values) fills it (values[row][column];
//   a NaN cell has no record and is drawn empty with "–").
// - Colours run linearly over [low, high] of setColourRange; `higherIsWorse` picks the
//   direction (fractions lost: dark for many; SNR: dark for little). +Inf (a format that
//   held the tensor exactly) takes the "best" end and reads "exact".
// - The cell text is the value as cellText() writes it (setValueStyle: percent, dB, or a
//   score in two significant digits).
// - ValueStyle::Score colours on a logarithmic scale over [low, high] (both > 0; the
//   colour bar's axis is logarithmic too). A cell of exactly 0 (a format that rounds
//   nothing there) has no place on it: it is drawn hatched grey, reading "0"; +Inf (a
//   score that was not finite) takes the worst end and reads "non-finite".
// - A left click on a cell emits cellClicked(row, column).
// - The mouse as in every plot (InteractivePlot): the tooltip names row, column, value;
//   double click resets the view to the whole grid.
#include <QStringList>
#include <utility>
#include <vector>

#include "plots/InteractivePlot.h"

namespace ampscope::ui {

class CategoryHeatmapPlot : public InteractivePlot {
    Q_OBJECT
public:
    enum class ValueStyle { Percent, Decibels, Score };

    explicit CategoryHeatmapPlot(QWidget* parent = nullptr);

    void setCategories(const QStringList& rows, const QStringList& columns);
    void setValues(const std::vector<std::vector<double>>& values);
    void setColourRange(double low, double high, bool higherIsWorse);
    void setValueStyle(ValueStyle style, const QString& colourLabel);
    void setAxisLabels(const QString& rowsLabel, const QString& columnsLabel);
    // A line in the middle saying why the grid is empty; an empty text hides it.
    void setPlaceholder(const QString& text);
    QString placeholderText() const;

    const QStringList& rows() const { return rows_; }
    const QStringList& columns() const { return columns_; }
    double value(int row, int column) const;
    QString cellText(double value) const;
    // The cell's text as drawn (for tests and screenshots).
    QString drawnText(int row, int column) const;
    QCPColorScale* colorScale() const { return colorScale_; }

    QString tooltipText(QPoint pixel) const override;
    // The cell under `pixel`: {row, column}, or {-1, -1} outside the grid.
    std::pair<int, int> cellAt(QPoint pixel) const;
    // The zero cells drawn hatched (Score style), row * columns + column.
    int zeroMarkCount() const { return static_cast<int>(zeroMarks_.size()); }

public Q_SLOTS:
    void resetView() override;

Q_SIGNALS:
    void cellClicked(int row, int column);

protected:
    void leftClicked(QPoint pixel) override;

private:
    void redraw();
    // Rows are drawn top down: row r stands at y = rowCount - 1 - r.
    double rowY(int row) const { return static_cast<double>(rows_.size() - 1 - row); }

    QCPColorMap* map_ = nullptr;
    QCPColorScale* colorScale_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    std::vector<QCPItemText*> cellLabels_;
    std::vector<QCPItemRect*> zeroMarks_;
    QStringList rows_;
    QStringList columns_;
    std::vector<std::vector<double>> values_;
    double low_ = 0.0;
    double high_ = 1.0;
    bool higherIsWorse_ = true;
    ValueStyle style_ = ValueStyle::Percent;
};

}  // namespace ampscope::ui
