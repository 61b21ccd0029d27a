#include "views/StatsFramesTable.h"

#include <QHeaderView>
#include <cmath>

#include "precision/Fp16Limits.h"

namespace ampscope::ui {

namespace {

const QString kActivation = QString::fromUtf8(probe_kind::kActivation.data(), probe_kind::kActivation.size());
const QString kGradient = QStringLiteral("gradient");
const QString kLoss = QString::fromUtf8(kLossLayerName.data(), kLossLayerName.size());
const QString kNonFiniteStat = QStringLiteral("NaN/Inf");

const TensorStats* statsOf(const StatsFrame& frame, const QString& layer, const QString& tensor) {
    if (layer == kLoss && tensor == kLoss) return frame.loss ? &*frame.loss : nullptr;
    for (const LayerFrame& l : frame.layers) {
        if (QString::fromStdString(l.layer) != layer) continue;
        const auto& stats = tensor == kActivation ? l.activation : l.gradient;
        return stats ? &*stats : nullptr;
    }
    return nullptr;
}

QString number(double value) {
    if (std::isnan(value)) return QStringLiteral("\u2014");  // no finite element
    return QString::number(value, 'g', 5);
}

}  // namespace

QString nonFiniteCountsText(int64_t nan, int64_t posInf, int64_t negInf) {
    if (nan == 0 && posInf == 0 && negInf == 0) return QStringLiteral("0");
    QStringList parts;
    if (nan) parts << QObject::tr("%1 NaN").arg(nan);
    if (posInf) parts << QObject::tr("%1 +Inf").arg(posInf);
    if (negInf) parts << QObject::tr("%1 -Inf").arg(negInf);
    return parts.join(QStringLiteral(", "));
}

StatsFramesTable::StatsFramesTable(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("nanFrames"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::SingleSelection);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    horizontalHeader()->setDefaultSectionSize(fontMetrics().horizontalAdvance(QStringLiteral("-0.0000e-00")) + 12);
}

void StatsFramesTable::clearFrames() {
    clear();
    setRowCount(0);
    setColumnCount(0);
    rows_.clear();
    shown_ = false;
}

QString StatsFramesTable::note() const {
    if (!shown_) return tr("The statistics of the steps before the first NaN/Inf appear here.");
    if (columnCount() == 0) return tr("No statistics frames were kept before the event (probes.ring_steps).");
    return tr("The last %1 steps up to the event: statistics of the finite elements; "
              "red = holds NaN/Inf, strong red = the first hit, orange = beyond fp16's "
              "%2, \u2014 = no finite element.")
        .arg(columnCount())
        .arg(fp16::kMax);
}

int StatsFramesTable::rowOf(const QString& layer, const QString& tensor, const QString& stat) const {
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].layer == layer && rows_[i].tensor == tensor && rows_[i].stat == stat)
            return static_cast<int>(i);
    return -1;
}

void StatsFramesTable::scrollToLayer(const QString& layer) {
    for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
        if (rows_[static_cast<std::size_t>(r)].layer != layer) continue;
        if (columnCount() > 0) scrollToItem(item(r, columnCount() - 1), QAbstractItemView::PositionAtTop);
        return;
    }
}

void StatsFramesTable::showFrames(const NonFiniteRecord& record, const QStringList& layers) {
    const auto& frames = record.frames;
    const NonFiniteEvent& e = record.event;
    clear();
    rows_.clear();
    shown_ = true;
    const QStringList stats = {tr("min"), tr("max"), tr("mean"), tr("max |x|"), kNonFiniteStat};
    for (const QString& layer : layers) {
        if (layer == kLoss) continue;
        for (const QString& tensor : {kActivation, kGradient})
            for (const QString& stat : stats) rows_.push_back({layer, tensor, stat});
    }
    bool anyLoss = false;
    for (const StatsFrame& f : frames) anyLoss = anyLoss || f.loss.has_value();
    if (anyLoss || e.layer == "loss") {
        rows_.push_back({kLoss, kLoss, tr("value")});
        rows_.push_back({kLoss, kLoss, kNonFiniteStat});
    }

    setRowCount(static_cast<int>(rows_.size()));
    setColumnCount(static_cast<int>(frames.size()));
    QStringList rowLabels;
    for (const RowKey& key : rows_)
        rowLabels << (key.layer == kLoss ? tr("loss \u00B7 %1").arg(key.stat)
                                         : QStringLiteral("%1 \u00B7 %2 \u00B7 %3")
                                               .arg(key.layer, key.tensor, key.stat));
    setVerticalHeaderLabels(rowLabels);
    QStringList columnLabels;
    for (const StatsFrame& f : frames)
        columnLabels << (f.step == e.step ? tr("step %1 \u26A0").arg(f.step)
                                          : tr("step %1").arg(f.step));
    setHorizontalHeaderLabels(columnLabels);

    const QString culprit = QString::fromStdString(e.layer);
    const QString culpritTensor = e.tensor == "loss" ? kLoss : QString::fromStdString(e.tensor);
    for (int c = 0; c < static_cast<int>(frames.size()); ++c) {
        const StatsFrame& frame = frames[static_cast<std::size_t>(c)];
        for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
            const RowKey& key = rows_[static_cast<std::size_t>(r)];
            auto* item = new QTableWidgetItem;
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            const TensorStats* s = statsOf(frame, key.layer, key.tensor);
            if (!s) {
                item->setBackground(QColor(238, 238, 238));
                item->setToolTip(key.tensor == kGradient
                                     ? tr("No gradient reached this layer at this step")
                                     : tr("Not measured at this step"));
                setItem(r, c, item);
                continue;
            }
            double value = 0.0;
            const bool countsRow = key.stat == kNonFiniteStat;
            if (countsRow) {
                item->setText(nonFiniteCountsText(s->nan, s->posInf, s->negInf));
            } else {
                const int which = stats.indexOf(key.stat);
                value = key.tensor == kLoss ? s->mean
                        : which == 0        ? s->min
                        : which == 1        ? s->max
                        : which == 2        ? s->mean
                                            : s->absMax;
                item->setText(number(value));
                item->setToolTip(std::isnan(value) ? tr("No finite element in this tensor")
                                                   : QString::number(value, 'g', 17));
            }
            const bool culpritCell =
                frame.step == e.step && key.layer == culprit && key.tensor == culpritTensor;
            if (culpritCell) {
                item->setBackground(culpritTint());
                QFont bold = item->font();
                bold.setBold(true);
                item->setFont(bold);
                item->setToolTip(tr("The first non-finite value of the run: %1")
                                     .arg(nonFiniteCountsText(e.nan, e.posInf, e.negInf)));
            } else if (!s->finite()) {
                item->setBackground(nonFiniteTint());
            } else if (!countsRow && std::isfinite(value) && std::abs(value) >= fp16::kMax) {
                item->setBackground(fp16RangeTint());
                item->setToolTip(tr("%1: at or beyond fp16's largest finite value %2")
                                     .arg(QString::number(value, 'g', 17))
                                     .arg(fp16::kMax));
            }
            setItem(r, c, item);
        }
    }
    // The culprit's rows read in bold in the row header too.
    for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
        if (rows_[static_cast<std::size_t>(r)].layer != culprit) continue;
        QTableWidgetItem* label = verticalHeaderItem(r);
        QFont bold = label->font();
        bold.setBold(true);
        label->setFont(bold);
        label->setForeground(QColor(183, 28, 28));
    }
    resizeColumnsToContents();
    scrollToLayer(culprit);
}

}  // namespace ampscope::ui
