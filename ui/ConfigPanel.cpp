#include "ConfigPanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <limits>

#include "RunFacts.h"
#include "models/ScriptModuleInfo.h"
#include "precision/PrecisionMode.h"
#include "run/RunNaming.h"
#include "views/ModuleTreeView.h"

namespace ampscope::ui {

namespace {

const char* const kInvalidStyle = "border: 2px solid #d32f2f; border-radius: 3px;";

// Shortest text that reads back as exactly the same double.
QString exactText(double value) {
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString notANumber(const QString& text, const char* what) {
    return QStringLiteral("must be %1 (got \"%2\")").arg(QLatin1String(what), text);
}

QString joined(const std::vector<std::string>& names) {
    QStringList parts;
    for (const auto& name : names) parts << QString::fromStdString(name);
    return parts.join(QStringLiteral(", "));
}

std::vector<std::string> splitNames(const QString& text) {
    std::vector<std::string> names;
    if (text.trimmed().isEmpty()) return names;
    for (const QString& part : text.split(QLatin1Char(',')))
        names.push_back(part.trimmed().toStdString());
    return names;
}

// A core error names its field first ("model.path: /x.pt: no such file"): that field, and
// the rest as the message; anything else is the file's.
FieldProblem modelFileProblem(const std::string& what) {
    std::string line = what.substr(0, what.find('\n'));
    for (const char* field : {"model.path", "model.probe_modules", "model.probe_depth"}) {
        const std::string prefix = std::string(field) + ": ";
        if (line.compare(0, prefix.size(), prefix) == 0) return {field, line.substr(prefix.size())};
    }
    return {"model.path", line};
}

bool hasIdxFiles(const QString& directory) {
    const QDir dir(directory);
    return !dir.entryList({QStringLiteral("*-idx?-ubyte*")}, QDir::Files).isEmpty();
}

}  // namespace

ConfigPanel::ConfigPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("configPanel"));
    buildForm();
    setConfig(RunConfig{});
}

QFormLayout* ConfigPanel::addSection(const QString& title) {
    auto* box = new QGroupBox(title, formHost_);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    form->setContentsMargins(6, 6, 6, 6);
    formHost_->layout()->addWidget(box);
    return form;
}

void ConfigPanel::addField(Field field) {
    field.widget->setToolTip(field.help);
    field.widget->setObjectName(field.path);
    fields_.push_back(std::move(field));
}

QLineEdit* ConfigPanel::addLineEdit(QFormLayout* form, const QString& label) {
    auto* edit = new QLineEdit(form->parentWidget());
    form->addRow(label, edit);
    connect(edit, &QLineEdit::textChanged, this, &ConfigPanel::revalidate);
    return edit;
}

QLineEdit* ConfigPanel::addText(QFormLayout* form, const QString& label, const QString& path,
                                const QString& help,
                                std::function<std::string&(RunConfig&)> access) {
    QLineEdit* edit = addLineEdit(form, label);
    addField({path, edit, help,
              [edit, access](const RunConfig& c) {
                  edit->setText(QString::fromStdString(access(const_cast<RunConfig&>(c))));
              },
              [edit, access](RunConfig& c) {
                  access(c) = edit->text().toStdString();
                  return QString();
              }});
    return edit;
}

QComboBox* ConfigPanel::addChoice(QFormLayout* form, const QString& label, const QString& path,
                                  const QString& help, const std::vector<std::string>& allowed,
                                  std::function<std::string&(RunConfig&)> access) {
    auto* combo = new QComboBox(form->parentWidget());
    for (const auto& value : allowed) combo->addItem(QString::fromStdString(value));
    form->addRow(label, combo);
    connect(combo, &QComboBox::currentIndexChanged, this, &ConfigPanel::revalidate);
    addField({path, combo, help,
              [combo, access](const RunConfig& c) {
                  const QString value = QString::fromStdString(access(const_cast<RunConfig&>(c)));
                  // A value outside the list (a hand-written config) is shown as it is and
                  // left to validation, rather than silently replaced.
                  if (combo->findText(value) < 0) combo->addItem(value);
                  combo->setCurrentIndex(combo->findText(value));
              },
              [combo, access](RunConfig& c) {
                  access(c) = combo->currentText().toStdString();
                  return QString();
              }});
    return combo;
}

QLineEdit* ConfigPanel::addDouble(QFormLayout* form, const QString& label, const QString& path,
                                  const QString& help, std::function<double&(RunConfig&)> access) {
    QLineEdit* edit = addLineEdit(form, label);
    addField({path, edit, help,
              [edit, access](const RunConfig& c) {
                  edit->setText(exactText(access(const_cast<RunConfig&>(c))));
              },
              [edit, access](RunConfig& c) {
                  bool ok = false;
                  const double value = QLocale::c().toDouble(edit->text().trimmed(), &ok);
                  if (!ok) return notANumber(edit->text(), "a number");
                  access(c) = value;
                  return QString();
              }});
    return edit;
}

QLineEdit* ConfigPanel::addInteger(QFormLayout* form, const QString& label, const QString& path,
                                   const QString& help,
                                   std::function<int64_t&(RunConfig&)> access) {
    QLineEdit* edit = addLineEdit(form, label);
    addField({path, edit, help,
              [edit, access](const RunConfig& c) {
                  edit->setText(QString::number(access(const_cast<RunConfig&>(c))));
              },
              [edit, access](RunConfig& c) {
                  bool ok = false;
                  const qlonglong value = edit->text().trimmed().toLongLong(&ok);
                  if (!ok) return notANumber(edit->text(), "an integer");
                  access(c) = value;
                  return QString();
              }});
    return edit;
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

    QFormLayout* run = addSection(tr("Run"));
    nameEdit_ = addText(run, tr("Name"), QStringLiteral("name"),
                        tr("name: free text; empty means <model>-<mode>"),
                        [](RunConfig& c) -> std::string& { return c.name; });
    {
        QLineEdit* seed = addLineEdit(run, tr("Seed"));
        addField({QStringLiteral("seed"), seed,
                  tr("seed: initial weights, shuffling and synthetic data (0 .. 2^64-1)"),
                  [seed](const RunConfig& c) { seed->setText(QString::number(c.seed)); },
                  [seed](RunConfig& c) {
                      bool ok = false;
                      const qulonglong value = seed->text().trimmed().toULongLong(&ok);
                      if (!ok) return notANumber(seed->text(), "an integer in [0, 2^64-1]");
                      c.seed = value;
                      return QString();
                  }});
    }
    addChoice(run, tr("Device"), QStringLiteral("device"),
              tr("device: auto takes CUDA when this LibTorch sees a GPU, else the CPU"),
              allowedDevices(), [](RunConfig& c) -> std::string& { return c.device; });
    {
        QLineEdit* threads = addLineEdit(run, tr("Threads"));
        addField({QStringLiteral("threads"), threads,
                  tr("threads: CPU threads for LibTorch; 0 = all cores"),
                  [threads](const RunConfig& c) { threads->setText(QString::number(c.threads)); },
                  [threads](RunConfig& c) {
                      bool ok = false;
                      const int value = threads->text().trimmed().toInt(&ok);
                      if (!ok) return notANumber(threads->text(), "an integer");
                      c.threads = value;
                      return QString();
                  }});
    }

    QFormLayout* data = addSection(tr("Data"));
    datasetCombo_ =
        addChoice(data, tr("Dataset"), QStringLiteral("data.dataset"),
                  tr("data.dataset: fashion_mnist and mnist_idx read IDX files; tensors reads "
                     "your own samples from a .safetensors file (the tensors named by "
                     "data.inputs and data.targets in the config); spirals and tiny_gradients "
                     "are generated"),
                  allowedDatasets(), [](RunConfig& c) -> std::string& { return c.data.dataset; });
    {
        auto* row = new QWidget(data->parentWidget());
        auto* rowLayout = new QHBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        dataPathEdit_ = new QLineEdit(row);
        dataPathEdit_->setPlaceholderText(tr("default: %1").arg(fashionMnistDirectory_));
        auto* browse = new QPushButton(tr("Browse…"), row);
        browse->setObjectName(QStringLiteral("browseDataPath"));
        rowLayout->addWidget(dataPathEdit_, 1);
        rowLayout->addWidget(browse);
        data->addRow(tr("Data path"), row);
        connect(dataPathEdit_, &QLineEdit::textChanged, this, &ConfigPanel::revalidate);
        connect(browse, &QPushButton::clicked, this, &ConfigPanel::chooseDataDirectory);
        QLineEdit* edit = dataPathEdit_;
        addField(
            {QStringLiteral("data.path"), edit,
             tr("data.path: the directory holding the four MNIST-format IDX files "
                "(.gz or raw), empty meaning the Debian location for fashion_mnist; for "
                "tensors, the .safetensors file"),
             [edit](const RunConfig& c) { edit->setText(QString::fromStdString(c.data.path)); },
             [edit](RunConfig& c) {
                 c.data.path = edit->text().toStdString();
                 return QString();
             }});
    }
    addInteger(data, tr("Synthetic samples"), QStringLiteral("data.synthetic_samples"),
               tr("data.synthetic_samples: size of the spirals / tiny_gradients sets"),
               [](RunConfig& c) -> int64_t& { return c.data.synthetic_samples; });
    datasetNote_ = new QLabel(data->parentWidget());
    datasetNote_->setObjectName(QStringLiteral("datasetNote"));
    datasetNote_->setWordWrap(true);
    datasetNote_->setStyleSheet(QStringLiteral("color: #a04000;"));
    data->addRow(datasetNote_);

    QFormLayout* model = addSection(tr("Model"));
    modelForm_ = model;
    addChoice(model, tr("Model"), QStringLiteral("model.name"),
              tr("model.name: the layer list probes look between; torchscript trains your own "
                 "model from a TorchScript file"),
              allowedModels(), [](RunConfig& c) -> std::string& { return c.model.name; });
    {
        auto* row = new QWidget(model->parentWidget());
        auto* rowLayout = new QHBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        modelPathEdit_ = new QLineEdit(row);
        modelPathEdit_->setPlaceholderText(tr("mynet.pt, saved by torch.jit.trace or script"));
        browseModel_ = new QPushButton(tr("TorchScript file…"), row);
        browseModel_->setObjectName(QStringLiteral("browseModelPath"));
        rowLayout->addWidget(modelPathEdit_, 1);
        rowLayout->addWidget(browseModel_);
        model->addRow(tr("Model file"), row);
        scriptRows_ << row;
        connect(modelPathEdit_, &QLineEdit::textChanged, this, &ConfigPanel::revalidate);
        // Typed by hand: loaded once confirmed, never on every keystroke (a half-typed
        // path could name another file, and loading one runs its code).
        connect(modelPathEdit_, &QLineEdit::textEdited, this, &ConfigPanel::modelPathEdited);
        connect(modelPathEdit_, &QLineEdit::returnPressed, this, &ConfigPanel::inspectModelFile);
        connect(modelPathEdit_, &QLineEdit::editingFinished, this, &ConfigPanel::settleModelFile);
        connect(browseModel_, &QPushButton::clicked, this, &ConfigPanel::chooseModelFile);
        QLineEdit* edit = modelPathEdit_;
        addField({QStringLiteral("model.path"), edit,
                  tr("model.path: your TorchScript file (torch.jit.trace or torch.jit.script, "
                     "then .save()); loading it runs the code inside it, so pick only models "
                     "you trust"),
                  [edit](const RunConfig& c) { edit->setText(QString::fromStdString(c.model.path)); },
                  [this, edit](RunConfig& c) {
                      c.model.path = edit->text().toStdString();
                      // The recorded identity was the previous file's.
                      if (c.model.path != base_.model.path) {
                          c.model.sha256.clear();
                          c.model.file_bytes = 0;
                      }
                      return QString();
                  }});
    }
    {
        QLineEdit* probe = addLineEdit(model, tr("Probe modules"));
        probe->setPlaceholderText(tr("default: modules holding parameters"));
        scriptRows_ << probe;
        addField({QStringLiteral("model.probe_modules"), probe,
                  tr("model.probe_modules: qualified module names to probe as layers, comma "
                     "separated (e.g. blocks.0, blocks.1); empty: the modules that hold "
                     "parameters of their own"),
                  [probe](const RunConfig& c) { probe->setText(joined(c.model.probe_modules)); },
                  [probe](RunConfig& c) {
                      c.model.probe_modules = splitNames(probe->text());
                      return QString();
                  }});
        QLineEdit* depth = addInteger(model, tr("Probe depth"), QStringLiteral("model.probe_depth"),
                                      tr("model.probe_depth: probe every module at this depth "
                                         "(1 = the model's children); 0 = off"),
                                      [](RunConfig& c) -> int64_t& { return c.model.probe_depth; });
        scriptRows_ << depth;
        // Which modules are probed is the loaded model's to say: ask it again.
        for (QLineEdit* field : {probe, depth})
            connect(field, &QLineEdit::editingFinished, this, [this] {
                const RunConfig c = config();
                if (modelFileLoaded() && (c.model.probe_modules != loadedProbeModules_ ||
                                          c.model.probe_depth != loadedProbeDepth_))
                    inspectModelFile();
            });
    }
    modelNote_ = new QLabel(model->parentWidget());
    modelNote_->setObjectName(QStringLiteral("modelNote"));
    modelNote_->setWordWrap(true);
    modelNote_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    model->addRow(modelNote_);
    scriptRows_ << modelNote_;
    moduleTree_ = new ModuleTreeView(model->parentWidget());
    moduleTree_->setObjectName(QStringLiteral("configModuleTree"));
    moduleTree_->setHeightForRows(16);
    model->addRow(moduleTree_);
    scriptRows_ << moduleTree_;
    // Filled by a run's record too (the window feeds the tree): the note says which.
    connect(moduleTree_, &ModuleTreeView::modulesChanged, this, &ConfigPanel::updateModelRows);

    QFormLayout* precision = addSection(tr("Precision"));
    modeCombo_ =
        addChoice(precision, tr("Mode"), QStringLiteral("precision.mode"),
                  tr("precision.mode: fp32, tf32, fp16 / bf16 autocast with fp32 "
                     "master weights, pure fp16 / bf16, or the EMULATED low-precision formats "
                     "fp8, mxfp8, mxfp4, nvfp4"),
                  allowedModes(), [](RunConfig& c) -> std::string& { return c.precision.mode; });
    // Each mode's own tooltip says how it runs; the format modes run nowhere for real.
    for (int i = 0; i < modeCombo_->count(); ++i) {
        const std::string mode = modeCombo_->itemText(i).toStdString();
        const PrecisionMode parsed = parsePrecisionMode(mode);
        if (isFormatMode(parsed))
            modeCombo_->setItemData(
                i,
                tr("EMULATED (on CPU and CUDA alike): %1")
                    .arg(QString::fromStdString(describeExecution(parsed, false).how)),
                Qt::ToolTipRole);
    }
    executionNote_ = new QLabel(precision->parentWidget());
    executionNote_->setObjectName(QStringLiteral("executionNote"));
    executionNote_->setWordWrap(true);
    executionNote_->setStyleSheet(QStringLiteral("color: #555555;"));
    precision->addRow(executionNote_);
    {
        QLineEdit* keep = addLineEdit(precision, tr("Keep in fp32"));
        keep->setPlaceholderText(tr("layer names, comma separated"));
        addField({QStringLiteral("precision.keep_fp32"), keep,
                  tr("precision.keep_fp32: layers that run in fp32 even under autocast or "
                     "emulation, e.g. loss, fc2"),
                  [keep](const RunConfig& c) { keep->setText(joined(c.precision.keep_fp32)); },
                  [keep](RunConfig& c) {
                      c.precision.keep_fp32 = splitNames(keep->text());
                      return QString();
                  }});
    }
    addChoice(precision, tr("Loss scaler"), QStringLiteral("precision.scaler.kind"),
              tr("precision.scaler.kind: auto = dynamic for fp16, off otherwise; static keeps "
                 "the initial scale; off runs without one"),
              allowedScalerKinds(),
              [](RunConfig& c) -> std::string& { return c.precision.scaler.kind; });
    addDouble(precision, tr("Initial scale"), QStringLiteral("precision.scaler.init_scale"),
              tr("precision.scaler.init_scale: 65536 = 2^16, as torch.amp.GradScaler"),
              [](RunConfig& c) -> double& { return c.precision.scaler.init_scale; });
    addDouble(precision, tr("Growth factor"), QStringLiteral("precision.scaler.growth_factor"),
              tr("precision.scaler.growth_factor: multiplies the scale after growth_interval "
                 "clean steps (> 1)"),
              [](RunConfig& c) -> double& { return c.precision.scaler.growth_factor; });
    addDouble(precision, tr("Backoff factor"), QStringLiteral("precision.scaler.backoff_factor"),
              tr("precision.scaler.backoff_factor: multiplies the scale when a gradient is "
                 "inf/NaN (in (0, 1))"),
              [](RunConfig& c) -> double& { return c.precision.scaler.backoff_factor; });
    addInteger(precision, tr("Growth interval"), QStringLiteral("precision.scaler.growth_interval"),
               tr("precision.scaler.growth_interval: clean steps before the scale grows"),
               [](RunConfig& c) -> int64_t& { return c.precision.scaler.growth_interval; });

    buildFormatModeRows(precision);

    QFormLayout* optim = addSection(tr("Optimizer"));
    addChoice(optim, tr("Optimizer"), QStringLiteral("optim.name"),
              tr("optim.name: sgd (with momentum), adam or adamw"), allowedOptimizers(),
              [](RunConfig& c) -> std::string& { return c.optim.name; });
    addDouble(optim, tr("Learning rate"), QStringLiteral("optim.lr"), tr("optim.lr: in (0, 10]"),
              [](RunConfig& c) -> double& { return c.optim.lr; });
    addDouble(optim, tr("Weight decay"), QStringLiteral("optim.weight_decay"),
              tr("optim.weight_decay: in [0, 1]"),
              [](RunConfig& c) -> double& { return c.optim.weight_decay; });
    addDouble(optim, tr("Clip norm"), QStringLiteral("optim.clip_norm"),
              tr("optim.clip_norm: global gradient-norm clipping; 0 = off"),
              [](RunConfig& c) -> double& { return c.optim.clip_norm; });
    {
        auto* unscale = new QCheckBox(tr("Unscale before clipping"), optim->parentWidget());
        optim->addRow(QString(), unscale);
        connect(unscale, &QCheckBox::toggled, this, &ConfigPanel::revalidate);
        addField(
            {QStringLiteral("optim.clip_after_unscale"), unscale,
             tr("optim.clip_after_unscale: off clips the *scaled* gradients, the pitfall "
                "that makes clipping far too strong under a loss scaler"),
             [unscale](const RunConfig& c) { unscale->setChecked(c.optim.clip_after_unscale); },
             [unscale](RunConfig& c) {
                 c.optim.clip_after_unscale = unscale->isChecked();
                 return QString();
             }});
    }

    QFormLayout* train = addSection(tr("Training"));
    addInteger(train, tr("Epochs"), QStringLiteral("train.epochs"), tr("train.epochs: 1 .. 100000"),
               [](RunConfig& c) -> int64_t& { return c.train.epochs; });
    addInteger(train, tr("Max steps"), QStringLiteral("train.max_steps"),
               tr("train.max_steps: stop after this many steps; 0 = no limit beyond epochs"),
               [](RunConfig& c) -> int64_t& { return c.train.max_steps; });
    addInteger(train, tr("Batch size"), QStringLiteral("train.batch_size"),
               tr("train.batch_size: samples per step"),
               [](RunConfig& c) -> int64_t& { return c.train.batch_size; });

    QFormLayout* probes = addSection(tr("Probes"));
    addInteger(probes, tr("Every N steps"), QStringLiteral("probes.every"),
               tr("probes.every: histogram/underflow probe cadence in steps; 0 = off"),
               [](RunConfig& c) -> int64_t& { return c.probes.every; });
    addChoice(probes, tr("Locate first NaN"), QStringLiteral("probes.locate_nonfinite"),
              tr("probes.locate_nonfinite: replay = a step that goes non-finite is run again "
                 "with every layer checked (clean steps pay nothing); always = every layer "
                 "checked on every step; off = not located"),
              allowedLocateModes(),
              [](RunConfig& c) -> std::string& { return c.probes.locate_nonfinite; });

    auto* defaults = new QPushButton(tr("Reset to defaults"), formHost_);
    defaults->setObjectName(QStringLiteral("resetConfig"));
    connect(defaults, &QPushButton::clicked, this, [this] { setConfig(RunConfig{}); });
    column->addWidget(defaults, 0, Qt::AlignLeft);

    problemsLabel_ = new QLabel(formHost_);
    problemsLabel_->setObjectName(QStringLiteral("problemsLabel"));
    problemsLabel_->setWordWrap(true);
    problemsLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    problemsLabel_->setStyleSheet(QStringLiteral("color: #b71c1c;"));
    problemsLabel_->hide();
    column->addWidget(problemsLabel_);
    column->addStretch(1);
}

void ConfigPanel::buildFormatModeRows(QFormLayout* precision) {
    precisionForm_ = precision;
    fp8Rows_ << addChoice(precision, tr("fp8 formats"), QStringLiteral("precision.fp8.format"),
                          tr("precision.fp8.format: hybrid = e4m3 forward operands, e5m2 for "
                             "the gradients (more range); e4m3 = e4m3 for both"),
                          allowedFp8Formats(),
                          [](RunConfig& c) -> std::string& { return c.precision.fp8.format; });
    fp8Rows_ << addChoice(precision, tr("fp8 scaling"), QStringLiteral("precision.fp8.recipe"),
                          tr("precision.fp8.recipe: delayed = each tensor's scale from the amax "
                             "history of earlier steps; current = from the tensor's own amax"),
                          allowedFp8Recipes(),
                          [](RunConfig& c) -> std::string& { return c.precision.fp8.recipe; });
    fp8Rows_ << addInteger(precision, tr("Amax history"), QStringLiteral("precision.fp8.amax_history_len"),
                           tr("precision.fp8.amax_history_len: amaxes kept per rounding point for "
                              "delayed scaling (1 .. 1048576)"),
                           [](RunConfig& c) -> int64_t& { return c.precision.fp8.amax_history_len; });
    fp8Rows_ << addChoice(precision, tr("Amax from history"), QStringLiteral("precision.fp8.amax_compute"),
                          tr("precision.fp8.amax_compute: max = the largest amax of the history; "
                             "most_recent = the last one"),
                          allowedAmaxComputes(),
                          [](RunConfig& c) -> std::string& { return c.precision.fp8.amax_compute; });
    fp8Rows_ << addInteger(precision, tr("Scale margin"), QStringLiteral("precision.fp8.margin"),
                           tr("precision.fp8.margin: scale = max finite / amax / 2^margin (0 .. 64)"),
                           [](RunConfig& c) -> int64_t& { return c.precision.fp8.margin; });
    mxRows_ << addChoice(precision, tr("MX scale rule"), QStringLiteral("precision.mx.scale_rule"),
                         tr("precision.mx.scale_rule: floor = the MX specification's 2^(floor(log2 "
                            "amax) - emax); rceil = the smallest power of two that saturates nothing"),
                         allowedMxScaleRules(),
                         [](RunConfig& c) -> std::string& { return c.precision.mx.scale_rule; });
    auto* stochastic = new QCheckBox(tr("Stochastic rounding of gradients"), precision->parentWidget());
    precision->addRow(QString(), stochastic);
    connect(stochastic, &QCheckBox::toggled, this, &ConfigPanel::revalidate);
    addField({QStringLiteral("precision.nvfp4.stochastic_gradients"), stochastic,
              tr("precision.nvfp4.stochastic_gradients: round the output gradients' e2m1 elements "
                 "stochastically, as the NVFP4 training recipe does (seeded from the run's seed)"),
              [stochastic](const RunConfig& c) { stochastic->setChecked(c.precision.nvfp4.stochastic_gradients); },
              [stochastic](RunConfig& c) {
                  c.precision.nvfp4.stochastic_gradients = stochastic->isChecked();
                  return QString();
              }});
    nvfp4Rows_ << stochastic;
}

void ConfigPanel::updateFormatModeRows() {
    if (!precisionForm_) return;
    const QString mode = modeCombo_->currentText();
    for (QWidget* row : fp8Rows_) precisionForm_->setRowVisible(row, mode == QLatin1String("fp8"));
    const bool mx = mode == QLatin1String("mxfp8") || mode == QLatin1String("mxfp4");
    for (QWidget* row : mxRows_) precisionForm_->setRowVisible(row, mx);
    for (QWidget* row : nvfp4Rows_) precisionForm_->setRowVisible(row, mode == QLatin1String("nvfp4"));
}

void ConfigPanel::setConfig(const RunConfig& config) {
    base_ = config;
    loading_ = true;
    for (const Field& field : fields_) field.load(config);
    loading_ = false;
    modelPathTyped_ = false;
    // Never loads the model file (this may be an opened run's config); what was loaded
    // for this very path stays shown.
    if (QString::fromStdString(config.model.path) != loadedPath_) {
        loadedPath_.clear();
        modelError_.clear();
    }
    revalidate();
}

RunConfig ConfigPanel::collect(std::vector<FieldProblem>* parseProblems) const {
    RunConfig c = base_;
    for (const Field& field : fields_) {
        const QString message = field.store(c);
        if (!message.isEmpty() && parseProblems)
            parseProblems->push_back({field.path.toStdString(), message.toStdString()});
    }
    return c;
}

RunConfig ConfigPanel::config() const {
    return collect(nullptr);
}

void ConfigPanel::revalidate() {
    if (loading_) return;
    std::vector<FieldProblem> parseProblems;
    const RunConfig c = collect(&parseProblems);
    problems_ = parseProblems;
    for (const FieldProblem& p : validateConfig(c)) {
        // A field whose text does not parse keeps its old value; validating that value
        // would show a message about a number the user no longer sees.
        bool unparsed = false;
        for (const FieldProblem& q : parseProblems) unparsed |= q.field == p.field;
        if (!unparsed) problems_.push_back(p);
    }
    // The model file as loading it found it: a file that cannot be used blocks Start.
    if (modelFileLoaded() && !modelError_.isEmpty())
        problems_.push_back(modelFileProblem(modelError_.toStdString()));
    markFields();
    updateNotes();
    Q_EMIT configChanged();
    if (isValid() != lastValid_) {
        lastValid_ = isValid();
        Q_EMIT validityChanged(lastValid_);
    }
}

QString ConfigPanel::fieldMessage(const QString& path) const {
    QStringList messages;
    const std::string key = path.toStdString();
    for (const FieldProblem& p : problems_) {
        // List elements ("precision.keep_fp32[1]") belong to the list's field.
        const bool same = p.field == key ||
                          (p.field.size() > key.size() &&
                           p.field.compare(0, key.size(), key) == 0 && p.field[key.size()] == '[');
        if (same) messages << QString::fromStdString(p.text());
    }
    return messages.join(QLatin1Char('\n'));
}

void ConfigPanel::markFields() {
    for (const Field& field : fields_) {
        const QString message = fieldMessage(field.path);
        const bool invalid = !message.isEmpty();
        field.widget->setProperty("invalid", invalid);
        field.widget->setStyleSheet(invalid ? QString::fromLatin1(kInvalidStyle) : QString());
        field.widget->setToolTip(invalid ? message : field.help);
    }
    problemsLabel_->setText(problemsText());
    problemsLabel_->setVisible(!problems_.empty());
}

QString ConfigPanel::problemsText() const {
    QStringList lines;
    for (const FieldProblem& p : problems_) lines << QString::fromStdString(p.text());
    return lines.join(QLatin1Char('\n'));
}

void ConfigPanel::updateNotes() {
    const RunConfig c = config();
    const QString path = QString::fromStdString(c.data.path);
    QString note;
    if (c.data.dataset == "tensors" && !path.isEmpty()) {
        if (!QFileInfo(path).isFile()) note = tr("%1 does not exist.").arg(path);
    } else if ((c.data.dataset == "fashion_mnist" || c.data.dataset == "mnist_idx") &&
               !path.isEmpty()) {
        if (!QDir(path).exists())
            note = tr("%1 does not exist.").arg(path);
        else if (!hasIdxFiles(path))
            note = tr("%1 holds no *-idx?-ubyte[.gz] files.").arg(path);
    } else if (c.data.dataset == "fashion_mnist" && !QDir(fashionMnistDirectory_).exists()) {
        note = tr("FashionMNIST is not installed at %1: install dataset-fashion-mnist or pick "
                  "IDX files; synthetic sets work without it.")
                   .arg(fashionMnistDirectory_);
    }
    datasetNote_->setText(note);
    datasetNote_->setVisible(!note.isEmpty());

    // What an empty name will become (run/RunNaming.h).
    nameEdit_->setPlaceholderText(tr("default: %1").arg(QString::fromStdString(defaultRunName(c))));

    const ModeExecution execution = executionFor(c);
    executionNote_->setText((execution.emulated ? tr("Emulated: ") : tr("Real: ")) +
                            QString::fromStdString(execution.how));
    updateModelRows();
    updateFormatModeRows();
}

bool ConfigPanel::modelFileLoaded() const {
    const RunConfig c = config();
    return c.model.name == "torchscript" && !loadedPath_.isEmpty() && !modelPathTyped_ &&
           QString::fromStdString(c.model.path) == loadedPath_;
}

void ConfigPanel::updateModelRows() {
    if (!modelForm_) return;
    const RunConfig c = config();
    const bool script = c.model.name == "torchscript";
    for (QWidget* row : scriptRows_) modelForm_->setRowVisible(row, script);
    if (!script) return;
    QString note;
    bool bad = false;
    if (c.model.path.empty()) {
        note = tr("Pick your TorchScript file: its modules show here. Loading a TorchScript file "
                  "runs the code inside it: pick only models you trust.");
    } else if (modelPathTyped_) {
        note = tr("Press Enter to load this file and show its modules.");
    } else if (modelFileLoaded() && !modelError_.isEmpty()) {
        note = modelError_;
        bad = true;
    } else if (modelFileLoaded()) {
        note.clear();  // the tree's caption says what it shows
    } else if (!moduleTree_->isEmpty()) {
        note = tr("Not loaded here: the tree is the run's record. Press Enter in the path or "
                  "pick the file to load it.");
    } else {
        note = tr("Not loaded yet (a TorchScript file runs code when loaded): press Enter in "
                  "the path or pick the file to show its modules.");
    }
    modelNote_->setText(note);
    modelNote_->setStyleSheet(bad ? QStringLiteral("color: #b71c1c; font-weight: bold;")
                                  : QStringLiteral("color: #555555;"));
    modelForm_->setRowVisible(modelNote_, !note.isEmpty());
    modelForm_->setRowVisible(moduleTree_, !moduleTree_->isEmpty());
}

QString ConfigPanel::modelNote() const {
    return config().model.name == "torchscript" ? modelNote_->text() : QString();
}

void ConfigPanel::modelPathEdited() {
    modelPathTyped_ = true;
    updateModelRows();
}

void ConfigPanel::setModelFile(const QString& path) {
    // Validated once, with the file loaded: the new path is not "valid" in between.
    loading_ = true;
    modelPathEdit_->setText(path);
    loading_ = false;
    inspectModelFile();
}

void ConfigPanel::settleModelFile() {
    if (modelPathTyped_) inspectModelFile();
}

void ConfigPanel::inspectModelFile() {
    modelPathTyped_ = false;
    const RunConfig c = config();
    if (c.model.name != "torchscript" || c.model.path.empty()) {
        loadedPath_.clear();
        modelError_.clear();
        revalidate();
        return;
    }
    loadedPath_ = QString::fromStdString(c.model.path);
    loadedProbeModules_ = c.model.probe_modules;
    loadedProbeDepth_ = c.model.probe_depth;
    modelError_.clear();
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        const std::vector<ScriptModuleInfo> modules =
            inspectTorchScriptFile(c.model.path, c.model.probe_modules, c.model.probe_depth);
        int probed = 0;
        for (const ScriptModuleInfo& m : modules) probed += m.probed ? 1 : 0;
        moduleTree_->setModules(modules, tr("%1: %2 modules, %3 probed as layers")
                                             .arg(QFileInfo(loadedPath_).fileName())
                                             .arg(modules.size())
                                             .arg(probed));
    } catch (const std::exception& e) {
        // One line (core's message names the file); the tree of an earlier file would
        // pass for this one's.
        const QString what = QString::fromUtf8(e.what());
        modelError_ = what.left(what.indexOf(QLatin1Char('\n')) < 0 ? what.size()
                                                                    : what.indexOf(QLatin1Char('\n')));
        moduleTree_->clear();
    }
    QApplication::restoreOverrideCursor();
    revalidate();
}

void ConfigPanel::chooseModelFile() {
    const QString current = modelPathEdit_->text();
    const QString chosen = QFileDialog::getOpenFileName(
        this, tr("Your model, saved as TorchScript"),
        current.isEmpty() ? QDir::currentPath() : QFileInfo(current).absolutePath(),
        tr("TorchScript (*.pt *.pth *.ts);;All files (*)"));
    if (!chosen.isEmpty()) setModelFile(chosen);
}

void ConfigPanel::chooseDataDirectory() {
    const QString start =
        dataPathEdit_->text().isEmpty() ? fashionMnistDirectory_ : dataPathEdit_->text();
    // The tensors set reads one file; the IDX sets read a directory of four.
    const QString chosen =
        config().data.dataset == "tensors"
            ? QFileDialog::getOpenFileName(this, tr("Safetensors file with your samples"), start,
                                           tr("Safetensors (*.safetensors);;All files (*)"))
            : QFileDialog::getExistingDirectory(this, tr("Directory with MNIST-format IDX files"),
                                                start);
    if (!chosen.isEmpty()) dataPathEdit_->setText(chosen);
}

QWidget* ConfigPanel::fieldWidget(const QString& path) const {
    for (const Field& field : fields_)
        if (field.path == path) return field.widget;
    return nullptr;
}

QStringList ConfigPanel::fieldPaths() const {
    QStringList paths;
    for (const Field& field : fields_) paths << field.path;
    return paths;
}

QString ConfigPanel::datasetNote() const {
    return datasetNote_->text();
}

void ConfigPanel::setEditable(bool editable) {
    for (const Field& field : fields_) field.widget->setEnabled(editable);
    if (auto* browse = findChild<QPushButton*>(QStringLiteral("browseDataPath")))
        browse->setEnabled(editable);
    browseModel_->setEnabled(editable);
    if (auto* reset = findChild<QPushButton*>(QStringLiteral("resetConfig")))
        reset->setEnabled(editable);
}

void ConfigPanel::setFashionMnistDirectory(const QString& directory) {
    fashionMnistDirectory_ = directory;
    dataPathEdit_->setPlaceholderText(tr("default: %1").arg(directory));
    updateNotes();
}

}  // namespace ampscope::ui
