// The panel: the config round trip, validation and the marking of invalid fields, and
// the notes under the form. Its sections are built in configure/ConfigFormSections.cpp,
// its fields bound by configure/ConfigFieldBinder, the TorchScript rows kept by
// configure/ModelFileRow.
#include "configure/ConfigPanel.h"

#include <QSpinBox>

#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "runset/RunFacts.h"
#include "configure/ConfigFieldBinder.h"
#include "configure/DatasetNote.h"
#include "configure/ModelFileRow.h"
#include "run/RunNaming.h"

namespace ampscope::ui {

ConfigPanel::ConfigPanel(QWidget* parent)
    : QWidget(parent), fields_(std::make_unique<ConfigFieldBinder>(this, [this] { revalidate(); })) {
    setObjectName(QStringLiteral("configPanel"));
    buildForm();
    setConfig(RunConfig{});
}

ConfigPanel::~ConfigPanel() = default;

void ConfigPanel::setConfig(const RunConfig& config) {
    base_ = config;
    loading_ = true;
    fields_->load(config);
    loading_ = false;
    modelFile_->configShown(config);
    revalidate();
}

RunConfig ConfigPanel::config() const {
    return fields_->collect(base_, nullptr);
}

void ConfigPanel::revalidate() {
    if (loading_) return;
    std::vector<FieldProblem> parseProblems;
    const RunConfig c = fields_->collect(base_, &parseProblems);
    problems_ = parseProblems;
    for (const FieldProblem& p : validateConfig(c)) {
        // A field whose text does not parse keeps its old value; validating that value
        // would show a message about a number the user no longer sees.
        bool unparsed = false;
        for (const FieldProblem& q : parseProblems) unparsed |= q.field == p.field;
        if (!unparsed) problems_.push_back(p);
    }
    // The model file as loading it found it: a file that cannot be used blocks Start.
    if (const auto problem = modelFile_->problem()) problems_.push_back(*problem);
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
    fields_->mark([this](const QString& path) { return fieldMessage(path); });
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
    const QString note = ui::datasetNote(c, fashionMnistDirectory_);
    datasetNote_->setText(note);
    datasetNote_->setVisible(!note.isEmpty());

    // What an empty name will become (run/RunNaming.h).
    nameEdit_->setPlaceholderText(tr("default: %1").arg(QString::fromStdString(defaultRunName(c))));

    const ModeExecution execution = executionFor(c);
    executionNote_->setText((execution.emulated ? tr("Emulated: ") : tr("Real: ")) +
                            QString::fromStdString(execution.how));
    modelFile_->updateRows();
    updateFormatModeRows();
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

void ConfigPanel::setModelFile(const QString& path) {
    modelFile_->setModelFile(path);
}

void ConfigPanel::inspectModelFile() {
    modelFile_->inspect();
}

void ConfigPanel::settleModelFile() {
    modelFile_->settle();
}

ModuleTreeView* ConfigPanel::moduleTree() const {
    return modelFile_->moduleTree();
}

QString ConfigPanel::modelFileError() const {
    return modelFile_->error();
}

QString ConfigPanel::modelNote() const {
    return modelFile_->note();
}

bool ConfigPanel::modelFileLoaded() const {
    return modelFile_->loaded();
}

QWidget* ConfigPanel::fieldWidget(const QString& path) const {
    return fields_->widget(path);
}

QStringList ConfigPanel::fieldPaths() const {
    return fields_->paths();
}

QString ConfigPanel::datasetNote() const {
    return datasetNote_->text();
}

void ConfigPanel::setEditable(bool editable) {
    fields_->setEnabled(editable);
    browseData_->setEnabled(editable);
    modelFile_->setEditable(editable);
    reset_->setEnabled(editable);
    seedsBox_->setEnabled(editable);
}

int ConfigPanel::seeds() const { return seedsBox_->value(); }
void ConfigPanel::setSeeds(int seeds) { seedsBox_->setValue(seeds); }

void ConfigPanel::setFashionMnistDirectory(const QString& directory) {
    fashionMnistDirectory_ = directory;
    dataPathEdit_->setPlaceholderText(tr("default: %1").arg(directory));
    updateNotes();
}

}  // namespace ampscope::ui
