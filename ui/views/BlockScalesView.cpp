#include "views/BlockScalesView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>

#include "plots/ExponentBarsPlot.h"
#include "runset/RunModel.h"
#include "views/ChooserRow.h"

namespace ampscope::ui {

BlockScalesView::BlockScalesView(RunSet* set, QWidget* parent)
    : RunPairView(set, RunChange::FormatQuant, parent) {
    setObjectName(QStringLiteral("blockScalesView"));
    pointBox_ = new QComboBox(this);
    pointBox_->setObjectName(QStringLiteral("blockScalesPoint"));
    pointBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Tensor:"), this));
    controls->addWidget(pointBox_);
    controls->addStretch(1);

    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("blockScalesStep"));
    slider_->setRange(0, 0);
    stepLabel_ = new QLabel(this);
    stepLabel_->setMinimumWidth(110);
    auto* sliderRow = new QHBoxLayout;
    sliderRow->addWidget(new QLabel(tr("Step:"), this));
    sliderRow->addWidget(slider_, 1);
    sliderRow->addWidget(stepLabel_);

    QHBoxLayout* sidesRow = makeSides(QStringLiteral("blockScales"), [this](int i, QWidget* box) {
        Side& side = sides_[i];
        side.plot = new ExponentBarsPlot(box);
        side.plot->setObjectName(i == kA ? QStringLiteral("block-scales") : QStringLiteral("block-scales-b"));
        side.plot->setLabels(tr("block scale (powers of two; NVFP4: rounded down)"), tr("blocks"));
        side.summary = makeDockNote(box, i == kA ? QStringLiteral("blockScalesSummary")
                                                 : QStringLiteral("blockScalesSummaryB"));
        return QList<QWidget*>{side.summary, side.plot};
    });

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(controls);
    main->addLayout(sidesRow, 1);
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
    connect(sides_[kA].plot, &ExponentBarsPlot::exponentClicked, this, [this](int e) { choose(e, true); });
    followRuns();
}

void BlockScalesView::shownRunChanged() {
    updateChooser();
    updateSlider();
    redraw();
}

void BlockScalesView::showRuns() {
    chosen_.reset();
    chosenByClick_ = false;
    followLatest_ = true;
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

const FormatQuantHistory::Series* BlockScalesView::seriesOf(int side) const {
    const RunModel* run = sideRun(side);
    return run ? run->formatQuant().series(pointBox_->currentData().toString()) : nullptr;
}

void BlockScalesView::updateChooser() {
    const QString current = pointBox_->currentData().toString();
    // Block formats' points first: they are what this dock is for.
    QStringList blockPoints, others;
    for (int side : {kA, kB}) {
        const RunModel* run = sideRun(side);
        if (!run) continue;
        const FormatQuantHistory& history = run->formatQuant();
        for (const QString& key : history.points()) {
            if (blockPoints.contains(key) || others.contains(key)) continue;
            const auto* s = history.series(key);
            (s && !s->empty() && s->back().blocks > 0 ? blockPoints : others) << key;
        }
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
    const auto* s = seriesOf(kA);
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

const FormatQuantMeasurement* BlockScalesView::draw(int i) {
    Side& side = sides_[i];
    const auto* s = seriesOf(i);
    const std::ptrdiff_t index = s && shownStep_ >= 0 ? s->indexAtOrBefore(shownStep_) : -1;
    if (index < 0) {
        side.plot->setBars({});
        side.plot->setPlaceholder(tr("No format_quant records: they are written on probe steps by runs in "
                                     "fp8, mxfp8, mxfp4 or nvfp4"));
        side.summary->setText(tr("Block-scale exponents of a block format's tensor at one probe step."));
        return nullptr;
    }
    const FormatQuantMeasurement& m = s->entry(static_cast<std::size_t>(index));
    side.plot->setBars(m.blockScaleExponents);
    if (m.blocks == 0) {
        side.plot->setPlaceholder(tr("%1, %2 scaling: one scale per tensor, no block scales (see Scaling)")
                                      .arg(QString::fromStdString(m.format), QString::fromStdString(m.recipe)));
        side.summary->setText(QString());
        return &m;
    }
    side.plot->setPlaceholder(QString());
    QString text = tr("%1 blocks of %2 elements (%3); crushed by an outlier: %4 elements (%5% of %6 elements).")
                       .arg(m.blocks)
                       .arg(m.recipe == "nvfp4" ? 16 : 32)
                       .arg(QString::fromStdString(m.format))
                       .arg(m.crushedByOutlier)
                       .arg(100.0 * m.crushedFraction(), 0, 'g', 3)
                       .arg(m.elements);
    if (m.recipe == "nvfp4") text += tr(" Blocks whose e4m3 scale rounded to 0: %1.").arg(m.zeroScaleBlocks);
    side.summary->setText(text);
    return &m;
}

void BlockScalesView::redraw() {
    const auto* s = seriesOf(kA);
    shownStep_ = -1;
    if (s && !s->empty()) {
        const std::size_t index = std::min<std::size_t>(static_cast<std::size_t>(slider_->value()), s->size() - 1);
        shownStep_ = s->step(index);
        stepLabel_->setText(tr("step %1 (%2 of %3)").arg(shownStep_).arg(index + 1).arg(s->size()));
    } else {
        stepLabel_->setText(tr("no probe step yet"));
    }
    const FormatQuantMeasurement* a = draw(kA);
    const FormatQuantMeasurement* b = sideBox(kB)->isVisibleTo(this) ? draw(kB) : nullptr;
    // One scale for A and B: the exponents and counts of both.
    if (a && b && !a->blockScaleExponents.empty() && !b->blockScaleExponents.empty()) {
        int low = a->blockScaleExponents.begin()->first, high = a->blockScaleExponents.rbegin()->first;
        int64_t highest = 0;
        for (const auto* m : {a, b}) {
            low = std::min(low, m->blockScaleExponents.begin()->first);
            high = std::max(high, m->blockScaleExponents.rbegin()->first);
            for (const auto& [e, blocks] : m->blockScaleExponents) highest = std::max(highest, blocks);
        }
        for (Side& side : sides_) side.plot->setSharedExtent(low, high, highest);
    }
    if (!a || a->blocks == 0) return;
    // The chosen scale: the user's bar while this step has it, else the most common.
    element_ = QString::fromStdString(a->format);
    std::optional<int> wanted;
    if (chosenByClick_ && chosen_ && a->blockScaleExponents.count(*chosen_)) {
        wanted = chosen_;
    } else {
        int64_t most = 0;
        for (const auto& [e, blocks] : a->blockScaleExponents)
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
    sides_[kA].plot->setSelectedExponent(exponent);
    const bool changed = clicked || exponent != chosen_ || element_ != lastEmittedElement_;
    chosen_ = exponent;
    if (exponent && changed) {
        lastEmittedElement_ = element_;
        Q_EMIT blockScaleChosen(*exponent, element_);
    }
}

}  // namespace ampscope::ui
