#pragma once
// ConfigPanel: the Configure dock's form: edits a RunConfig.
//
// Contract:
// - setConfig() shows a config; config() returns it with the edits applied. Fields
//   without a widget (model.hidden, optim.beta1, faults, ...) are carried through
//   untouched, and every shown number is written in its shortest exact form, so
//   config() == setConfig()'s argument until the user edits (exact round trip).
// - After every edit the config is checked with the engine's validateConfig() (plus
//   "is this a number" for text that does not parse). Each problem marks its field: a
//   red border, the message as the field's tooltip; every problem is also listed under
//   the form as "field: message". Problems of fields without a widget are listed only.
// - Each field's tooltip, while it is fine, is its help and limits as core defines them
//   (config/ConfigFieldRules.h, which validation checks against too); a ranged field
//   also carries them as the properties "limits", "minimum" and "maximum".
// - validityChanged(bool) fires when the verdict changes, configChanged() on every edit;
//   the window disables Start while isValid() is false.
// - The dataset row says when FashionMNIST is not installed where the engine looks for
//   it by default, and what to do about it.
// - model.name "torchscript" (a user's model): a "Model file" row (model.path, with a
//   "TorchScript file…" picker), the probe fields and the module tree (ModuleTreeView)
//   show; for the built-in models they are hidden. Loading a TorchScript file runs the
//   code inside it, so the panel loads one only when the user names it: picked in the
//   dialog (or setModelFile), typed and confirmed (Enter, leaving the field, or Start:
//   settleModelFile), or in a config the user opened (the window calls
//   inspectModelFile). setConfig() alone never loads one (an opened run's config, the
//   last session's): the tree then comes from the run's model_modules record, or the
//   note under the path says how to load it.
// - A file that cannot be used is a problem of model.path (its one-line message, also
//   shown under the path), so the window keeps Start disabled until it is fixed.
// - A new model.path drops model.sha256 and model.file_bytes: they described the file a
//   run's config.json named, and the engine refuses a file whose SHA-256 differs.
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "config/ConfigValidation.h"
#include "config/RunConfig.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace ampscope::ui {

class ConfigFieldBinder;
class ModelFileRow;
class ModuleTreeView;

class ConfigPanel : public QWidget {
    Q_OBJECT
public:
    // Where the Debian package dataset-fashion-mnist installs the files, which is where
    // the engine looks when data.path is empty.
    static constexpr const char* kDefaultFashionMnistDirectory =
        "/usr/share/datasets/fashion-mnist";

    explicit ConfigPanel(QWidget* parent = nullptr);
    ~ConfigPanel() override;

    void setConfig(const RunConfig& config);
    RunConfig config() const;

    bool isValid() const { return problems_.empty(); }
    const std::vector<FieldProblem>& problems() const { return problems_; }
    // The widget editing a JSON path ("optim.lr"), or nullptr.
    QWidget* fieldWidget(const QString& path) const;
    // The message(s) shown at a field (empty when it is fine).
    QString fieldMessage(const QString& path) const;
    QString problemsText() const;
    QString datasetNote() const;
    QStringList fieldPaths() const;

    // A user's TorchScript model. setModelFile: as if picked in the dialog (shown and
    // loaded). inspectModelFile: loads model.path as it stands, for a config the user
    // opened. settleModelFile: loads a path typed but not confirmed yet (before Start).
    void setModelFile(const QString& path);
    void inspectModelFile();
    void settleModelFile();
    ModuleTreeView* moduleTree() const;
    // The one line saying why the model file cannot be used (empty: it can, or not loaded).
    QString modelFileError() const;
    QString modelNote() const;
    // The tree shows the file model.path names now, loaded by this panel.
    bool modelFileLoaded() const;

    // While a run trains, its config is fixed: the form is read-only.
    void setEditable(bool editable);
    // How many seeds Start trains the config with (the Seeds field; not part of the config:
    // 1 is one run, N >= 2 the seeds one after another, SeedRunSequence.h).
    int seeds() const;
    void setSeeds(int seeds);
    // For tests: where to look for FashionMNIST (default kDefaultFashionMnistDirectory).
    void setFashionMnistDirectory(const QString& directory);

Q_SIGNALS:
    void configChanged();
    void validityChanged(bool valid);

private:
    // The form's sections (configure/ConfigFormSections.cpp).
    void buildForm();
    QFormLayout* addSection(const QString& title);
    void buildRunAndDataSections();
    void buildPrecisionSection();
    // The settings of the format modes: fp8's for fp8, the MX scale rule for mxfp8 and
    // mxfp4, stochastic gradients for nvfp4; hidden for every other mode.
    void buildFormatModeRows(QFormLayout* precision);
    void updateFormatModeRows();
    void buildTrainingSections();

    void revalidate();
    void markFields();
    void updateNotes();
    void chooseDataDirectory();

    RunConfig base_;
    std::unique_ptr<ConfigFieldBinder> fields_;
    std::vector<FieldProblem> problems_;
    bool loading_ = false;
    bool lastValid_ = true;
    QString fashionMnistDirectory_ = QString::fromLatin1(kDefaultFashionMnistDirectory);

    QWidget* formHost_ = nullptr;
    QLineEdit* nameEdit_ = nullptr;
    QSpinBox* seedsBox_ = nullptr;
    QLineEdit* dataPathEdit_ = nullptr;
    QPushButton* browseData_ = nullptr;
    QPushButton* reset_ = nullptr;
    QComboBox* modeCombo_ = nullptr;
    QLabel* datasetNote_ = nullptr;
    QLabel* executionNote_ = nullptr;
    QLabel* problemsLabel_ = nullptr;

    QFormLayout* precisionForm_ = nullptr;
    QList<QWidget*> fp8Rows_;
    QList<QWidget*> mxRows_;
    QList<QWidget*> nvfp4Rows_;

    ModelFileRow* modelFile_ = nullptr;  // the user's model: shown only for torchscript
};

}  // namespace ampscope::ui
