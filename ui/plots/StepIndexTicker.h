#pragma once
// StepIndexTicker: x ticks of a column-indexed plot (a heatmap whose column i holds some
// training step) labelled with the step, so the axis reads in steps although the data
// is laid out by column. Tick positions are QCPAxisTicker's usual nice numbers.
#include <functional>

#include "plots/QCustomPlotInclude.h"

namespace ampscope::ui {

class StepIndexTicker : public QCPAxisTicker {
public:
    // Returns the label of column `index`, or an empty string where there is no column.
    using LabelForColumn = std::function<QString(int index)>;

    explicit StepIndexTicker(LabelForColumn labelForColumn);

protected:
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;

private:
    LabelForColumn labelForColumn_;
};

}  // namespace ampscope::ui
