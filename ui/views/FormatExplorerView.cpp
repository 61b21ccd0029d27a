#include "views/FormatExplorerView.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "plots/FormatRangesPlot.h"
#include "plots/PowerOfTwoText.h"
#include "precision/formats/FormatTable.h"
#include "precision/formats/ScalingRules.h"
#include "precision/formats/ValueInFormats.h"
#include "probes/ProbeRecords.h"
#include "runset/RunSet.h"

namespace ampscope::ui {

namespace {

const QString kBlockRow = QStringLiteral("block");

// The shortest decimal that reads back as the same double: exact for every value the
// small formats hold (0.0999755859375), readable for fp32's.
QString decimal(double value) {
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("+inf") : QStringLiteral("-inf");
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString relativeError(double value, double rounded) {
    if (!std::isfinite(value) || !std::isfinite(rounded) || value == 0.0) return QStringLiteral("\u2013");
    const double error = (rounded - value) / value;
    if (error == 0.0) return QStringLiteral("0");
    return QString::number(error, 'e', 2);
}

FormatSpan spanOf(const FormatDescription& d) {
    return {QString::fromLatin1(d.name), d.minSubnormal, d.minNormal, d.maxFinite};
}

}  // namespace

FormatExplorerView::FormatExplorerView(RunSet* set, QWidget* parent) : QWidget(parent), set_(set) {
    setObjectName(QStringLiteral("formatExplorer"));

    valueEdit_ = new QLineEdit(this);
    valueEdit_->setObjectName(QStringLiteral("explorerValue"));
    valueEdit_->setToolTip(tr("A number (0.1, -3e-5, 300); Enter shows it in every format"));
    valueEdit_->setMaximumWidth(200);
    errorLabel_ = new QLabel(this);
    errorLabel_->setObjectName(QStringLiteral("explorerError"));
    errorLabel_->setStyleSheet(QStringLiteral("color: #b71c1c;"));
    errorLabel_->hide();
    scaleSpin_ = new QSpinBox(this);
    scaleSpin_->setObjectName(QStringLiteral("explorerScaleExponent"));
    scaleSpin_->setRange(kE8m0MinExponent, kE8m0MaxExponent);
    scaleSpin_->setPrefix(QStringLiteral("2^"));
    scaleSpin_->setToolTip(tr("The block scale 2^e (an e8m0 code); the Block scales dock sets it "
                              "when a bar is chosen there"));
    elementBox_ = new QComboBox(this);
    elementBox_->setObjectName(QStringLiteral("explorerElement"));
    elementBox_->addItem(tr("e4m3 (MXFP8)"), QStringLiteral("e4m3"));
    elementBox_->addItem(tr("e5m2 (MXFP8 gradients)"), QStringLiteral("e5m2"));
    elementBox_->addItem(tr("e2m1 (MXFP4, NVFP4)"), QStringLiteral("e2m1"));
    scaleLabel_ = new QLabel(this);
    scaleLabel_->setObjectName(QStringLiteral("explorerScale"));

    auto* inputRow = new QHBoxLayout;
    inputRow->addWidget(new QLabel(tr("Value:"), this));
    inputRow->addWidget(valueEdit_);
    inputRow->addSpacing(12);
    inputRow->addWidget(new QLabel(tr("Block scale:"), this));
    inputRow->addWidget(scaleSpin_);
    inputRow->addWidget(new QLabel(tr("element:"), this));
    inputRow->addWidget(elementBox_);
    inputRow->addWidget(scaleLabel_, 1);

    table_ = new QTableWidget(0, kColumns, this);
    table_->setObjectName(QStringLiteral("explorerTable"));
    table_->setHorizontalHeaderLabels({tr("format"), tr("s-e-m"), tr("code"), tr("bits (sign exponent mantissa)"),
                                       tr("rounds to"), tr("relative error"), tr("what happened")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Compact rows, all of them shown where the dock is tall enough; in a short dock the
    // table scrolls before the ranges plot gets too short to read.
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 2);
    table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);

    layerBox_ = new QComboBox(this);
    layerBox_->setObjectName(QStringLiteral("explorerLayer"));
    layerBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    histogramNote_ = new QLabel(this);
    histogramNote_->setObjectName(QStringLiteral("explorerHistogramNote"));
    histogramNote_->setWordWrap(true);
    histogramNote_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* layerRow = new QHBoxLayout;
    layerRow->addWidget(new QLabel(tr("Gradient histogram of:"), this));
    layerRow->addWidget(layerBox_);
    layerRow->addWidget(histogramNote_, 1);

    ranges_ = new FormatRangesPlot(this);
    std::vector<FormatSpan> spans{{QStringLiteral("fp32"), static_cast<double>(std::numeric_limits<float>::denorm_min()),
                                   static_cast<double>(std::numeric_limits<float>::min()),
                                   static_cast<double>(std::numeric_limits<float>::max())}};
    for (NumberFormat f : {NumberFormat::Fp16, NumberFormat::Bf16, NumberFormat::E4M3, NumberFormat::E5M2,
                           NumberFormat::E2M1})
        spans.push_back(spanOf(describe(f)));
    ranges_->setFormats(spans);

    auto* lower = lower_ = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addLayout(layerRow);
    lowerLayout->addWidget(ranges_, 1);

    auto* main = new QVBoxLayout(this);
    main->setContentsMargins(4, 4, 4, 4);
    main->addLayout(inputRow);
    main->addWidget(errorLabel_);
    main->addWidget(table_);
    main->addWidget(lower, 1);

    connect(valueEdit_, &QLineEdit::returnPressed, this, &FormatExplorerView::readValue);
    connect(valueEdit_, &QLineEdit::editingFinished, this, &FormatExplorerView::readValue);
    connect(scaleSpin_, &QSpinBox::valueChanged, this, &FormatExplorerView::updateTable);
    connect(elementBox_, &QComboBox::currentIndexChanged, this, &FormatExplorerView::updateTable);
    connect(layerBox_, &QComboBox::currentIndexChanged, this, [this] {
        if (!updatingLayers_) updateHistogram();
    });
    connect(ranges_, &FormatRangesPlot::binClicked, this, &FormatExplorerView::exploreBin);

    valueEdit_->setText(decimal(value_));
    updateTable();
    connect(set_, &RunSet::changed, this, &FormatExplorerView::onChanged);
    updateLayers();
}

void FormatExplorerView::onChanged(RunId run, RunChanges what) {
    if ((what & (RunChange::Added | RunChange::Removed | RunChange::Focus)) ||
        (run == set_->focusedId() && (what & RunChange::Histograms)))
        updateLayers();
}

void FormatExplorerView::updateLayers() {
    const QString current = layerBox_->currentText();
    const RunModel* run = set_->focused();
    const QString unscaled = QString::fromUtf8(probe_kind::kParamGrad.data(), probe_kind::kParamGrad.size());
    QStringList names;
    if (run)
        for (const QString& name : run->histograms().layers().names())
            if (run->histograms().series(unscaled, name)) names << name;
    QStringList shown;
    for (int i = 0; i < layerBox_->count(); ++i) shown << layerBox_->itemText(i);
    if (names != shown) {
        updatingLayers_ = true;
        layerBox_->clear();
        layerBox_->addItems(names);
        const int keep = layerBox_->findText(current);
        layerBox_->setCurrentIndex(keep >= 0 ? keep : 0);
        updatingLayers_ = false;
    }
    updateHistogram();
}

void FormatExplorerView::setValueText(const QString& text) {
    valueEdit_->setText(text);
    readValue();
}

void FormatExplorerView::readValue() {
    bool ok = false;
    const double parsed = QLocale::c().toDouble(valueEdit_->text().trimmed(), &ok);
    if (!ok) {
        errorLabel_->setText(tr("\u201C%1\u201D is not a number: write it like 0.1, -3e-5 or 300")
                                 .arg(valueEdit_->text()));
        errorLabel_->show();
        return;
    }
    errorLabel_->clear();
    errorLabel_->hide();
    value_ = parsed;
    updateTable();
}

void FormatExplorerView::setBlockScale(int exponent, const QString& element) {
    const int index = elementBox_->findData(element);
    if (index >= 0) elementBox_->setCurrentIndex(index);
    scaleSpin_->setValue(exponent);
}

void FormatExplorerView::exploreBin(int exponent) {
    setValueText(decimal(std::exp2(exponent + 0.5)));
}

void FormatExplorerView::updateTable() {
    std::vector<std::pair<QString, ValueCast>> rows;
    for (ValueCast& cast : castToEveryFormat(value_)) rows.emplace_back(QString::fromStdString(cast.format), cast);
    const QString element = elementBox_->currentData().toString();
    const NumberFormat elementFormat = formatFromName(element.toStdString()).value_or(NumberFormat::E4M3);
    const BlockScaledCast block = castUnderBlockScale(elementFormat, scaleSpin_->value(), value_);
    ValueCast blockRow = block.element;
    blockRow.value = block.value;  // the element's value scaled back
    rows.emplace_back(kBlockRow, blockRow);

    table_->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const auto& [name, cast] = rows[static_cast<std::size_t>(r)];
        const bool isBlock = name == kBlockRow;
        const int width = 1 + cast.exponentBits + cast.mantissaBits;
        const QString texts[kColumns] = {
            isBlock ? tr("%1 \u00D7 %2").arg(QString::fromStdString(cast.format), powerOfTwoText(block.scaleExponent))
                    : name,
            QString::fromStdString(cast.layout),
            cast.bits ? QString::fromStdString(hexCode(*cast.bits, width)) : QStringLiteral("\u2013"),
            cast.bits ? QString::fromStdString(bitFields(*cast.bits, cast.exponentBits, cast.mantissaBits))
                      : QStringLiteral("\u2013"),
            decimal(cast.value),
            relativeError(value_, cast.value),
            QString::fromStdString(outcomeName(cast.outcome))};
        for (int c = 0; c < kColumns; ++c) {
            auto* item = new QTableWidgetItem(texts[c]);
            item->setData(Qt::UserRole, isBlock ? kBlockRow : name);
            if (cast.outcome == CastOutcome::Flushed || cast.outcome == CastOutcome::Saturated ||
                cast.outcome == CastOutcome::Overflow || cast.outcome == CastOutcome::NoCode)
                item->setForeground(QColor(183, 28, 28));
            table_->setItem(r, c, item);
        }
    }
    int height = table_->horizontalHeader()->sizeHint().height() + 2 * table_->frameWidth();
    for (int r = 0; r < table_->rowCount(); ++r) height += table_->rowHeight(r);
    if (table_->horizontalScrollBar()->isVisible()) height += table_->horizontalScrollBar()->sizeHint().height();
    tableFullHeight_ = height;
    fitTable();
    scaleLabel_->setText(tr("block row: %1 / %2 rounded in %3, times %2 (e8m0 code %4)")
                             .arg(decimal(value_), powerOfTwoText(block.scaleExponent), element,
                                  QString::fromStdString(hexCode(block.scaleBits, 8))));
    ranges_->setMarkedValue(value_);
}

void FormatExplorerView::updateHistogram() {
    const RunModel* run = set_->focused();
    const QString unscaled = QString::fromUtf8(probe_kind::kParamGrad.data(), probe_kind::kParamGrad.size());
    const QString layer = layerBox_->currentText();
    const HistogramSeries::Series* series = run ? run->histograms().series(unscaled, layer) : nullptr;
    if (!series) {
        ranges_->setHistogram({}, tr("gradient histogram"));
        ranges_->setPlaceholder(tr("No gradient histogram yet (histogram records of the weight gradients)"));
        histogramNote_->setText(tr("Click a bin to explore its geometric middle 2^(k+\u00BD)."));
        return;
    }
    const int64_t step = series->step(series->size() - 1);
    const ExponentHistogram& histogram = series->back();
    std::map<int, int64_t> bins;
    for (int k = kMinExponent; k <= kMaxExponent; ++k)
        if (const int64_t count = histogram.countAt(k)) bins[k] = count;
    ranges_->setHistogram(bins, tr("%1 weight gradient, step %2").arg(layer).arg(step));
    ranges_->setPlaceholder(bins.empty() ? tr("Every element of this gradient was 0 or not finite") : QString());
    histogramNote_->setText(tr("Step %1; %2 zeros not drawn. Click a bin to explore its geometric middle "
                               "2^(k+\u00BD).")
                                .arg(step)
                                .arg(histogram.zero));
}

void FormatExplorerView::fitTable() {
    // Every row where the dock has room for them and for the plot's minimum; else the
    // table scrolls (down to three rows) and the plot keeps what it needs to be read.
    const int others = std::max(0, height() - table_->height() - lower_->height());
    const int room = height() - others - lower_->minimumSizeHint().height();
    const int minimum = tableFullHeight_ - 4 * table_->rowHeight(0);
    table_->setFixedHeight(std::clamp(room, minimum, tableFullHeight_));
}

void FormatExplorerView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitTable();
}

int FormatExplorerView::rowOf(const QString& format) const {
    for (int r = 0; r < table_->rowCount(); ++r)
        if (table_->item(r, 0) && table_->item(r, 0)->data(Qt::UserRole).toString() == format) return r;
    return -1;
}

QString FormatExplorerView::cellText(const QString& format, Column column) const {
    const int row = rowOf(format);
    return row < 0 || !table_->item(row, column) ? QString() : table_->item(row, column)->text();
}

QString FormatExplorerView::errorText() const {
    return errorLabel_->text();
}

void FormatExplorerView::setLayer(const QString& layer) {
    const int index = layerBox_->findText(layer);
    if (index >= 0) layerBox_->setCurrentIndex(index);
}

QString FormatExplorerView::layer() const {
    return layerBox_->currentText();
}

}  // namespace ampscope::ui
