#pragma once
// StatsFramesTable: the NaN inspector's table of the statistics frames kept before a
// run's first non-finite value (its nonfinite record, core/probes/ProbeRecords.md).
//
// Contract:
// - showFrames: one column per frame (oldest first, the event's step last, marked), rows
//   per layer in the order given x tensor (activation = the layer's forward output,
//   gradient = the gradient arriving at it) x statistic (min, max, mean, max |x| of the
//   finite elements, and the non-finite counts), then the loss. A tensor with NaN/Inf in
//   a frame has its cells tinted (nonFiniteTint); the culprit's cells at the event step
//   are tinted strongly and bold (culpritTint), its row labels bold; a finite value at or
//   beyond fp16's largest (65504) is tinted orange (fp16RangeTint). "\u2014": no finite
//   element; empty and grey: not measured (no gradient reached the layer). It scrolls to
//   the culprit's rows.
// - note(): the line above the table that says what it shows and what the tints mean.
#include <QColor>
#include <QString>
#include <QStringList>
#include <QTableWidget>
#include <cstdint>
#include <vector>

#include "probes/ProbeRecords.h"

namespace ampscope::ui {

// "0", or "2 NaN, 1 +Inf": a tensor's non-finite counts.
QString nonFiniteCountsText(int64_t nan, int64_t posInf, int64_t negInf);

class StatsFramesTable : public QTableWidget {
    Q_OBJECT
public:
    explicit StatsFramesTable(QWidget* parent = nullptr);

    void showFrames(const NonFiniteRecord& record, const QStringList& layers);
    void clearFrames();
    QString note() const;
    // The row of a layer's tensor statistic ("activation"/"gradient", "min"...), -1: none.
    int rowOf(const QString& layer, const QString& tensor, const QString& stat) const;
    // Scrolls to the first row of `layer`, at the newest frame.
    void scrollToLayer(const QString& layer);

    static QColor nonFiniteTint() { return QColor(255, 205, 210); }
    static QColor culpritTint() { return QColor(239, 83, 80); }
    static QColor fp16RangeTint() { return QColor(255, 224, 178); }

private:
    struct RowKey {
        QString layer;
        QString tensor;
        QString stat;
    };
    std::vector<RowKey> rows_;
    bool shown_ = false;  // showFrames since the last clearFrames
};

}  // namespace ampscope::ui
