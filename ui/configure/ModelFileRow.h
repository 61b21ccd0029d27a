#pragma once
// ModelFileRow: the Configure form's rows for a user's TorchScript model (model.name
// "torchscript"): the "Model file" row (model.path with a "TorchScript file…" picker),
// the probe fields, a note and the module tree. Hidden for the built-in models.
//
// Loading a TorchScript file runs the code inside it, so the row loads one only when the
// user names it: picked in the dialog (setModelFile), typed and confirmed (Enter, leaving
// the field, or Start: settle), or in a config the user opened (inspect). Showing a
// config (configShown) never loads one; the note then says how to. A file that cannot be
// used is a problem of model.path (problem()), so the window keeps Start disabled.
#include <QObject>
#include <QString>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/ConfigValidation.h"
#include "config/RunConfig.h"

class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QWidget;

namespace ampscope::ui {

class ConfigFieldBinder;
class ModuleTreeView;

class ModelFileRow : public QObject {
    Q_OBJECT
public:
    // Adds its rows to form and its fields to fields. config gives the form's config as
    // it stands; changed runs when what the row found changes the form's verdict.
    ModelFileRow(QWidget* panel, QFormLayout* form, ConfigFieldBinder& fields,
                 std::function<RunConfig()> config, std::function<void()> changed);

    void setModelFile(const QString& path);
    void inspect();
    void settle();
    // A config was shown: what was loaded for another path no longer applies.
    void configShown(const RunConfig& config);

    bool loaded() const;
    QString error() const { return error_; }
    QString note() const;
    std::optional<FieldProblem> problem() const;
    ModuleTreeView* moduleTree() const { return moduleTree_; }

    void updateRows();
    void setEditable(bool editable);

private:
    void choose();
    void pathEdited();

    QWidget* panel_;
    QFormLayout* form_;
    std::function<RunConfig()> config_;
    std::function<void()> changed_;

    QList<QWidget*> rows_;  // shown only for torchscript
    QLineEdit* pathEdit_ = nullptr;
    QPushButton* browse_ = nullptr;
    QLabel* note_ = nullptr;
    ModuleTreeView* moduleTree_ = nullptr;

    QString loadedPath_;  // model.path when it was loaded ("" = none)
    std::vector<std::string> loadedProbeModules_;
    int64_t loadedProbeDepth_ = 0;
    QString error_;       // what loading loadedPath_ said ("" = fine)
    bool typed_ = false;  // edited by hand since the last load
};

}  // namespace ampscope::ui
