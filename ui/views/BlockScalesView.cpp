#include "views/BlockScalesView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "RunRecordParsing.h"
#include "plots/ExponentBarsPlot.h"
#include "plots/PowerOfTwoText.h"
#include "run/EventSchema.h"
#include "views/ChooserRow.h"

namespace ampscope::ui {

BlockScalesView::BlockScalesView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("blockScalesView"));
    pointBox_ = new QComboBox(this);
    pointBox_->setObjectName(QStringLiteral("blockScalesPoint"));
    pointBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    summaryLabel_ = makeDockNote(this, QStringLiteral("blockScalesSummary"));
    QHBoxLayout* controls = makeChooserRow(this, {{tr("Tensor:"), pointBox_}}, summaryLabel_);

    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("blockScalesStep"));
    slider_->setRange(0, 0);
    stepLabel_ = new QLabel(this);
    stepLabel_->setMinimumWidth(110);
    auto* sliderRow = new QHBoxLayout;
    sliderRow->addWidget(new QLabel(tr("Step:"), this));
    sliderRow->addWidget(slider_, 1);
    sliderRow->addWidget(stepLabel_);

    plot_ = new ExponentBarsPlot(this);
    plot_->setObjectName(QStringLiteral("block-scales"));
    plot_->setLabels(tr("block scale (powers of two; NVFP4: rounded down)"), tr("blocks"));

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addWidget(plot_, 1);
    main->addLayout(sliderRow);

    connect(pointBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (updating_) return;
        followLatest_ = true;
        chosenByClick_ = false;
        updateSlider();
        redraw();
    });
    connect(slider_, &QSlider::valueChanged, this, [this](int index) {
        if (updating_) return;
        followLatest_ = index == slider_->maximum();
        redraw();
    });
    connect(plot_, &ExponentBarsPlot::exponentClicked, this, [this](int e) { choose(e, true); });
    redraw();
}

void BlockScalesView::beginRun(const RunContext& context) {
    (void)context;
    history_.clear();
    chosen_.reset();
    chosenByClick_ = false;
    followLatest_ = true;
    updateChooser();
    updateSlider();
    redraw();
}

void BlockScalesView::takeRecord(const nlohmann::json& record) {
    const std::string type = recordType(record);
    if (type == event_type::kRunInfo)
        dirty_ |= history_.takeRunInfo(record);
    else if (type == probe_record_type::kFormatQuant)
        dirty_ |= history_.take(record);
}

void BlockScalesView::endOfBatch() {
    if (!dirty_) return;
    dirty_ = false;
    updateChooser();
    updateSlider();
    redraw();
}

bool BlockScalesView::setPoint(const QString& label) {
    const int index = pointBox_->findText(label);
    if (index < 0) return false;
    pointBox_->setCurrentIndex(index);
    return true;
}

QString BlockScalesView::point() const {
    return pointBox_->currentText();
}

void BlockScalesView::setStepIndex(int index) {
    slider_->setValue(index);
}

void BlockScalesView::updateChooser() {
    const QString current = pointBox_->currentData().toString();
    // Block formats' points first: they are what this dock is for.
    QStringList blockPoints, others;
    for (const QString& key : history_.points()) {
        const auto* s = history_.series(key);
        (s && !s->empty() && s->back().blocks > 0 ? blockPoints : others) << key;
    }
    const QStringList keys = blockPoints + others;
    QStringList shown;
    for (int i = 0; i < pointBox_->count(); ++i) shown << pointBox_->itemData(i).toString();
    if (shown == keys) return;
    updating_ = true;
    pointBox_->clear();
    for (const QString& key : keys) pointBox_->addItem(FormatQuantHistory::label(key), key);
    const int keep = pointBox_->findData(current);
    pointBox_->setCurrentIndex(keep >= 0 ? keep : 0);
    updating_ = false;
}

void BlockScalesView::updateSlider() {
    const auto* s = history_.series(pointBox_->currentData().toString());
    const int count = s ? static_cast<int>(s->size()) : 0;
    int index = slider_->value();
    if (s && !followLatest_ && shownStep_ >= 0)
        index = std::max<int>(0, static_cast<int>(s->indexAtOrBefore(shownStep_)));
    updating_ = true;
    slider_->setRange(0, std::max(0, count - 1));
    slider_->setValue(followLatest_ ? slider_->maximum() : std::min(index, slider_->maximum()));
    slider_->setEnabled(count > 1);
    updating_ = false;
}

void BlockScalesView::redraw() {
    const auto* s = history_.series(pointBox_->currentData().toString());
    if (!s || s->empty()) {
        shownStep_ = -1;
        plot_->setBars({});
        plot_->setPlaceholder(tr("No format_quant records: they are written on probe steps by runs in "
                                 "fp8, mxfp8, mxfp4 or nvfp4"));
        stepLabel_->setText(tr("no probe step yet"));
        summaryLabel_->setText(tr("Block-scale exponents of a block format's tensor at one probe step."));
        return;
    }
    const std::size_t index = std::min<std::size_t>(static_cast<std::size_t>(slider_->value()), s->size() - 1);
    shownStep_ = s->step(index);
    const FormatQuantMeasurement& m = s->entry(index);
    stepLabel_->setText(tr("step %1 (%2 of %3)").arg(shownStep_).arg(index + 1).arg(s->size()));
    plot_->setBars(m.blockScaleExponents);
    if (m.blocks == 0) {
        plot_->setPlaceholder(tr("%1, %2 scaling: one scale per tensor, no block scales (see Scaling)")
                                  .arg(QString::fromStdString(m.format), QString::fromStdString(m.recipe)));
        summaryLabel_->setText(QString());
        return;
    }
    plot_->setPlaceholder(QString());
    QString text = tr("%1 blocks of %2 elements (%3); crushed by an outlier: %4 elements (%5% of %6 elements).")
                       .arg(m.blocks)
                       .arg(m.recipe == "nvfp4" ? 16 : 32)
                       .arg(QString::fromStdString(m.format))
                       .arg(m.crushedByOutlier)
                       .arg(100.0 * m.crushedFraction(), 0, 'g', 3)
                       .arg(m.elements);
    if (m.recipe == "nvfp4") text += tr(" Blocks whose e4m3 scale rounded to 0: %1.").arg(m.zeroScaleBlocks);
    summaryLabel_->setText(text);

    // The chosen scale: the user's bar while this step has it, else the most common.
    element_ = QString::fromStdString(m.format);
    std::optional<int> wanted;
    if (chosenByClick_ && chosen_ && m.blockScaleExponents.count(*chosen_)) {
        wanted = chosen_;
    } else {
        int64_t most = 0;
        for (const auto& [e, blocks] : m.blockScaleExponents)
            if (blocks > most) {
                most = blocks;
                wanted = e;
            }
        chosenByClick_ = false;
    }
    choose(wanted, chosenByClick_);
}

void BlockScalesView::choose(std::optional<int> exponent, bool clicked) {
    chosenByClick_ = clicked;
    plot_->setSelectedExponent(exponent);
    const bool changed = clicked || exponent != chosen_ || element_ != lastEmittedElement_;
    chosen_ = exponent;
    if (exponent && changed) {
        lastEmittedElement_ = element_;
        Q_EMIT blockScaleChosen(*exponent, element_);
    }
}

}  // namespace ampscope::ui
