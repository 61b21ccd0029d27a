// The Configure form's sections: which fields it shows, in which section and with which
// widget. Help texts and limits are core's (config/ConfigFieldRules.h), attached by the
// binder, so none is written here.
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include "configure/ConfigPanel.h"
#include "configure/ConfigFieldBinder.h"
#include "configure/ModelFileRow.h"
#include "precision/PrecisionMode.h"
#include "scenarios/LessonLimits.h"

namespace ampscope::ui {

QFormLayout* ConfigPanel::addSection(const QString& title) {
    auto* box = new QGroupBox(title, formHost_);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    form->setContentsMargins(6, 6, 6, 6);
    formHost_->layout()->addWidget(box);
    return form;
}

void ConfigPanel::buildForm() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // The form narrows with its dock (fields shrink); it scrolls only vertically.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    outer->addWidget(scroll);
    formHost_ = new QWidget(scroll);
    auto* column = new QVBoxLayout(formHost_);
    column->setContentsMargins(4, 4, 4, 4);
    column->setSpacing(6);
    scroll->setWidget(formHost_);

    buildRunAndDataSections();

    QFormLayout* model = addSection(tr("Model"));
    fields_->addChoice(model, tr("Model"), QStringLiteral("model.name"), allowedModels(),
                       [](RunConfig& c) -> std::string& { return c.model.name; });
    modelFile_ = new ModelFileRow(this, model, *fields_, [this] { return config(); }, [this] { revalidate(); });

    buildPrecisionSection();
    buildTrainingSections();

    reset_ = new QPushButton(tr("Reset to defaults"), formHost_);
    reset_->setObjectName(QStringLiteral("resetConfig"));
    connect(reset_, &QPushButton::clicked, this, [this] { setConfig(RunConfig{}); });
    column->addWidget(reset_, 0, Qt::AlignLeft);

    problemsLabel_ = new QLabel(formHost_);
    problemsLabel_->setObjectName(QStringLiteral("problemsLabel"));
    problemsLabel_->setWordWrap(true);
    problemsLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    problemsLabel_->setStyleSheet(QStringLiteral("color: #b71c1c;"));
    problemsLabel_->hide();
    column->addWidget(problemsLabel_);
    column->addStretch(1);
}

void ConfigPanel::buildRunAndDataSections() {
    QFormLayout* run = addSection(tr("Run"));
    nameEdit_ = fields_->addText(run, tr("Name"), QStringLiteral("name"),
                                 [](RunConfig& c) -> std::string& { return c.name; });
    QLineEdit* seed = fields_->addLineEdit(run, tr("Seed"));
    fields_->add({QStringLiteral("seed"), seed,
                  [seed](const RunConfig& c) { seed->setText(QString::number(c.seed)); },
                  [seed](RunConfig& c) {
                      bool ok = false;
                      const qulonglong value = seed->text().trimmed().toULongLong(&ok);
                      if (!ok) return notParsedAs("an integer in [0, 2^64-1]", seed->text());
                      c.seed = value;
                      return QString();
                  }});
    // Not a config field: how many times Start trains the config (one seed group).
    seedsBox_ = new QSpinBox(formHost_);
    seedsBox_->setObjectName(QStringLiteral("seedsBox"));
    seedsBox_->setRange(1, lesson_limits::kMaxSeedsPerRun);
    seedsBox_->setToolTip(tr("Train this config with N seeds, one after another (seed, seed + 1, ...): "
                             "the Loss view draws their band, and other runs are judged against it. 1: one run."));
    run->addRow(tr("Seeds"), seedsBox_);
    fields_->addChoice(run, tr("Device"), QStringLiteral("device"), allowedDevices(),
                       [](RunConfig& c) -> std::string& { return c.device; });
    QLineEdit* threads = fields_->addLineEdit(run, tr("Threads"));
    fields_->add({QStringLiteral("threads"), threads,
                  [threads](const RunConfig& c) { threads->setText(QString::number(c.threads)); },
                  [threads](RunConfig& c) {
                      bool ok = false;
                      const int value = threads->text().trimmed().toInt(&ok);
                      if (!ok) return notParsedAs("an integer", threads->text());
                      c.threads = value;
                      return QString();
                  }});

    QFormLayout* data = addSection(tr("Data"));
    fields_->addChoice(data, tr("Dataset"), QStringLiteral("data.dataset"), allowedDatasets(),
                       [](RunConfig& c) -> std::string& { return c.data.dataset; });
    const PathRow path = addPathRow(data, tr("Data path"), tr("Browse…"));
    dataPathEdit_ = path.edit;
    browseData_ = path.browse;
    dataPathEdit_->setPlaceholderText(tr("default: %1").arg(fashionMnistDirectory_));
    browseData_->setObjectName(QStringLiteral("browseDataPath"));
    fields_->watch(dataPathEdit_);
    connect(browseData_, &QPushButton::clicked, this, &ConfigPanel::chooseDataDirectory);
    QLineEdit* edit = dataPathEdit_;
    fields_->add({QStringLiteral("data.path"), edit,
                  [edit](const RunConfig& c) { edit->setText(QString::fromStdString(c.data.path)); },
                  [edit](RunConfig& c) {
                      c.data.path = edit->text().toStdString();
                      return QString();
                  }});
    fields_->addInteger(data, tr("Synthetic samples"), QStringLiteral("data.synthetic_samples"),
                        [](RunConfig& c) -> int64_t& { return c.data.synthetic_samples; });
    datasetNote_ = new QLabel(data->parentWidget());
    datasetNote_->setObjectName(QStringLiteral("datasetNote"));
    datasetNote_->setWordWrap(true);
    datasetNote_->setStyleSheet(QStringLiteral("color: #a04000;"));
    data->addRow(datasetNote_);
}

void ConfigPanel::buildPrecisionSection() {
    QFormLayout* precision = addSection(tr("Precision"));
    modeCombo_ = fields_->addChoice(precision, tr("Mode"), QStringLiteral("precision.mode"), allowedModes(),
                                    [](RunConfig& c) -> std::string& { return c.precision.mode; });
    // Each mode's own tooltip says how it runs; the format modes run nowhere for real.
    for (int i = 0; i < modeCombo_->count(); ++i) {
        const PrecisionMode parsed = parsePrecisionMode(modeCombo_->itemText(i).toStdString());
        if (isFormatMode(parsed))
            modeCombo_->setItemData(i,
                                    tr("EMULATED (on CPU and CUDA alike): %1")
                                        .arg(QString::fromStdString(describeExecution(parsed, false).how)),
                                    Qt::ToolTipRole);
    }
    executionNote_ = new QLabel(precision->parentWidget());
    executionNote_->setObjectName(QStringLiteral("executionNote"));
    executionNote_->setWordWrap(true);
    executionNote_->setStyleSheet(QStringLiteral("color: #555555;"));
    precision->addRow(executionNote_);
    fields_->addNames(precision, tr("Keep in fp32"), QStringLiteral("precision.keep_fp32"),
                      [](RunConfig& c) -> std::vector<std::string>& { return c.precision.keep_fp32; })
        ->setPlaceholderText(tr("layer names, comma separated"));
    fields_->addChoice(precision, tr("Loss scaler"), QStringLiteral("precision.scaler.kind"), allowedScalerKinds(),
                       [](RunConfig& c) -> std::string& { return c.precision.scaler.kind; });
    fields_->addDouble(precision, tr("Initial scale"), QStringLiteral("precision.scaler.init_scale"),
                       [](RunConfig& c) -> double& { return c.precision.scaler.init_scale; });
    fields_->addDouble(precision, tr("Growth factor"), QStringLiteral("precision.scaler.growth_factor"),
                       [](RunConfig& c) -> double& { return c.precision.scaler.growth_factor; });
    fields_->addDouble(precision, tr("Backoff factor"), QStringLiteral("precision.scaler.backoff_factor"),
                       [](RunConfig& c) -> double& { return c.precision.scaler.backoff_factor; });
    fields_->addInteger(precision, tr("Growth interval"), QStringLiteral("precision.scaler.growth_interval"),
                        [](RunConfig& c) -> int64_t& { return c.precision.scaler.growth_interval; });
    buildFormatModeRows(precision);
}

void ConfigPanel::buildFormatModeRows(QFormLayout* precision) {
    precisionForm_ = precision;
    fp8Rows_ << fields_->addChoice(precision, tr("fp8 formats"), QStringLiteral("precision.fp8.format"),
                                   allowedFp8Formats(),
                                   [](RunConfig& c) -> std::string& { return c.precision.fp8.format; });
    fp8Rows_ << fields_->addChoice(precision, tr("fp8 scaling"), QStringLiteral("precision.fp8.recipe"),
                                   allowedFp8Recipes(),
                                   [](RunConfig& c) -> std::string& { return c.precision.fp8.recipe; });
    fp8Rows_ << fields_->addInteger(precision, tr("Amax history"), QStringLiteral("precision.fp8.amax_history_len"),
                                    [](RunConfig& c) -> int64_t& { return c.precision.fp8.amax_history_len; });
    fp8Rows_ << fields_->addChoice(precision, tr("Amax from history"), QStringLiteral("precision.fp8.amax_compute"),
                                   allowedAmaxComputes(),
                                   [](RunConfig& c) -> std::string& { return c.precision.fp8.amax_compute; });
    fp8Rows_ << fields_->addInteger(precision, tr("Scale margin"), QStringLiteral("precision.fp8.margin"),
                                    [](RunConfig& c) -> int64_t& { return c.precision.fp8.margin; });
    mxRows_ << fields_->addChoice(precision, tr("MX scale rule"), QStringLiteral("precision.mx.scale_rule"),
                                  allowedMxScaleRules(),
                                  [](RunConfig& c) -> std::string& { return c.precision.mx.scale_rule; });
    nvfp4Rows_ << fields_->addCheck(precision, tr("Stochastic rounding of gradients"),
                                    QStringLiteral("precision.nvfp4.stochastic_gradients"),
                                    [](RunConfig& c) -> bool& { return c.precision.nvfp4.stochastic_gradients; });
}

void ConfigPanel::updateFormatModeRows() {
    if (!precisionForm_) return;
    const QString mode = modeCombo_->currentText();
    for (QWidget* row : fp8Rows_) precisionForm_->setRowVisible(row, mode == QLatin1String("fp8"));
    const bool mx = mode == QLatin1String("mxfp8") || mode == QLatin1String("mxfp4");
    for (QWidget* row : mxRows_) precisionForm_->setRowVisible(row, mx);
    for (QWidget* row : nvfp4Rows_) precisionForm_->setRowVisible(row, mode == QLatin1String("nvfp4"));
}

void ConfigPanel::buildTrainingSections() {
    QFormLayout* optim = addSection(tr("Optimizer"));
    fields_->addChoice(optim, tr("Optimizer"), QStringLiteral("optim.name"), allowedOptimizers(),
                       [](RunConfig& c) -> std::string& { return c.optim.name; });
    fields_->addDouble(optim, tr("Learning rate"), QStringLiteral("optim.lr"),
                       [](RunConfig& c) -> double& { return c.optim.lr; });
    fields_->addDouble(optim, tr("Weight decay"), QStringLiteral("optim.weight_decay"),
                       [](RunConfig& c) -> double& { return c.optim.weight_decay; });
    fields_->addDouble(optim, tr("Clip norm"), QStringLiteral("optim.clip_norm"),
                       [](RunConfig& c) -> double& { return c.optim.clip_norm; });
    fields_->addCheck(optim, tr("Unscale before clipping"), QStringLiteral("optim.clip_after_unscale"),
                      [](RunConfig& c) -> bool& { return c.optim.clip_after_unscale; });

    QFormLayout* train = addSection(tr("Training"));
    fields_->addInteger(train, tr("Epochs"), QStringLiteral("train.epochs"),
                        [](RunConfig& c) -> int64_t& { return c.train.epochs; });
    fields_->addInteger(train, tr("Max steps"), QStringLiteral("train.max_steps"),
                        [](RunConfig& c) -> int64_t& { return c.train.max_steps; });
    fields_->addInteger(train, tr("Batch size"), QStringLiteral("train.batch_size"),
                        [](RunConfig& c) -> int64_t& { return c.train.batch_size; });

    QFormLayout* probes = addSection(tr("Probes"));
    fields_->addInteger(probes, tr("Every N steps"), QStringLiteral("probes.every"),
                        [](RunConfig& c) -> int64_t& { return c.probes.every; });
    fields_->addChoice(probes, tr("Locate first NaN"), QStringLiteral("probes.locate_nonfinite"),
                       allowedLocateModes(),
                       [](RunConfig& c) -> std::string& { return c.probes.locate_nonfinite; });
}

}  // namespace ampscope::ui
