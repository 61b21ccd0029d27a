#include "configure/ModelFileRow.h"

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>

#include "configure/ConfigFieldBinder.h"
#include "models/ScriptModuleInfo.h"
#include "views/ModuleTreeView.h"

namespace ampscope::ui {

namespace {

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

}  // namespace

ModelFileRow::ModelFileRow(QWidget* panel, QFormLayout* form, ConfigFieldBinder& fields,
                           std::function<RunConfig()> config, std::function<void()> changed)
    : QObject(panel), panel_(panel), form_(form), config_(std::move(config)), changed_(std::move(changed)) {
    const PathRow path = addPathRow(form, tr("Model file"), tr("TorchScript file…"));
    pathEdit_ = path.edit;
    browse_ = path.browse;
    pathEdit_->setPlaceholderText(tr("mynet.pt, saved by torch.jit.trace or script"));
    browse_->setObjectName(QStringLiteral("browseModelPath"));
    rows_ << path.row;
    fields.watch(pathEdit_);
    // Typed by hand: loaded once confirmed, never on every keystroke (a half-typed
    // path could name another file, and loading one runs its code).
    connect(pathEdit_, &QLineEdit::textEdited, this, &ModelFileRow::pathEdited);
    connect(pathEdit_, &QLineEdit::returnPressed, this, &ModelFileRow::inspect);
    connect(pathEdit_, &QLineEdit::editingFinished, this, &ModelFileRow::settle);
    connect(browse_, &QPushButton::clicked, this, &ModelFileRow::choose);
    QLineEdit* edit = pathEdit_;
    fields.add({QStringLiteral("model.path"), edit,
                [edit](const RunConfig& c) { edit->setText(QString::fromStdString(c.model.path)); },
                [edit](RunConfig& c) {
                    const std::string typed = edit->text().toStdString();
                    // The recorded identity was the previous file's.
                    if (typed != c.model.path) {
                        c.model.sha256.clear();
                        c.model.file_bytes = 0;
                    }
                    c.model.path = typed;
                    return QString();
                }});

    QLineEdit* probe = fields.addNames(form, tr("Probe modules"), QStringLiteral("model.probe_modules"),
                                       [](RunConfig& c) -> std::vector<std::string>& {
                                           return c.model.probe_modules;
                                       });
    probe->setPlaceholderText(tr("default: modules holding parameters"));
    QLineEdit* depth = fields.addInteger(form, tr("Probe depth"), QStringLiteral("model.probe_depth"),
                                         [](RunConfig& c) -> int64_t& { return c.model.probe_depth; });
    rows_ << probe << depth;
    // Which modules are probed is the loaded model's to say: ask it again.
    for (QLineEdit* field : {probe, depth})
        connect(field, &QLineEdit::editingFinished, this, [this] {
            const RunConfig c = config_();
            if (loaded() &&
                (c.model.probe_modules != loadedProbeModules_ || c.model.probe_depth != loadedProbeDepth_))
                inspect();
        });

    note_ = new QLabel(form->parentWidget());
    note_->setObjectName(QStringLiteral("modelNote"));
    note_->setWordWrap(true);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(note_);
    moduleTree_ = new ModuleTreeView(form->parentWidget());
    moduleTree_->setObjectName(QStringLiteral("configModuleTree"));
    moduleTree_->setHeightForRows(16);
    form->addRow(moduleTree_);
    rows_ << note_ << moduleTree_;
    // Filled by a run's record too (the window feeds the tree): the note says which.
    connect(moduleTree_, &ModuleTreeView::modulesChanged, this, &ModelFileRow::updateRows);
}

void ModelFileRow::configShown(const RunConfig& config) {
    typed_ = false;
    // Never loads the model file (this may be an opened run's config); what was loaded
    // for this very path stays shown.
    if (QString::fromStdString(config.model.path) != loadedPath_) {
        loadedPath_.clear();
        error_.clear();
    }
}

bool ModelFileRow::loaded() const {
    const RunConfig c = config_();
    return c.model.name == "torchscript" && !loadedPath_.isEmpty() && !typed_ &&
           QString::fromStdString(c.model.path) == loadedPath_;
}

std::optional<FieldProblem> ModelFileRow::problem() const {
    if (!loaded() || error_.isEmpty()) return std::nullopt;
    return modelFileProblem(error_.toStdString());
}

void ModelFileRow::updateRows() {
    const RunConfig c = config_();
    const bool script = c.model.name == "torchscript";
    for (QWidget* row : rows_) form_->setRowVisible(row, script);
    if (!script) return;
    QString note;
    bool bad = false;
    if (c.model.path.empty()) {
        note = tr("Pick your TorchScript file: its modules show here. Loading a TorchScript file "
                  "runs the code inside it: pick only models you trust.");
    } else if (typed_) {
        note = tr("Press Enter to load this file and show its modules.");
    } else if (loaded() && !error_.isEmpty()) {
        note = error_;
        bad = true;
    } else if (loaded()) {
        note.clear();  // the tree's caption says what it shows
    } else if (!moduleTree_->isEmpty()) {
        note = tr("Not loaded here: the tree is the run's record. Press Enter in the path or "
                  "pick the file to load it.");
    } else {
        note = tr("Not loaded yet (a TorchScript file runs code when loaded): press Enter in "
                  "the path or pick the file to show its modules.");
    }
    note_->setText(note);
    note_->setStyleSheet(bad ? QStringLiteral("color: #b71c1c; font-weight: bold;")
                             : QStringLiteral("color: #555555;"));
    form_->setRowVisible(note_, !note.isEmpty());
    form_->setRowVisible(moduleTree_, !moduleTree_->isEmpty());
}

QString ModelFileRow::note() const {
    return config_().model.name == "torchscript" ? note_->text() : QString();
}

void ModelFileRow::pathEdited() {
    typed_ = true;
    updateRows();
}

void ModelFileRow::setModelFile(const QString& path) {
    // Validated once, with the file loaded: the new path is not "valid" in between.
    {
        const QSignalBlocker quiet(pathEdit_);
        pathEdit_->setText(path);
    }
    inspect();
}

void ModelFileRow::settle() {
    if (typed_) inspect();
}

void ModelFileRow::inspect() {
    typed_ = false;
    const RunConfig c = config_();
    if (c.model.name != "torchscript" || c.model.path.empty()) {
        loadedPath_.clear();
        error_.clear();
        changed_();
        return;
    }
    loadedPath_ = QString::fromStdString(c.model.path);
    loadedProbeModules_ = c.model.probe_modules;
    loadedProbeDepth_ = c.model.probe_depth;
    error_.clear();
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
        const qsizetype newline = what.indexOf(QLatin1Char('\n'));
        error_ = newline < 0 ? what : what.left(newline);
        moduleTree_->clear();
    }
    QApplication::restoreOverrideCursor();
    changed_();
}

void ModelFileRow::choose() {
    const QString current = pathEdit_->text();
    const QString chosen = QFileDialog::getOpenFileName(
        panel_, tr("Your model, saved as TorchScript"),
        current.isEmpty() ? QDir::currentPath() : QFileInfo(current).absolutePath(),
        tr("TorchScript (*.pt *.pth *.ts);;All files (*)"));
    if (!chosen.isEmpty()) setModelFile(chosen);
}

void ModelFileRow::setEditable(bool editable) {
    browse_->setEnabled(editable);
}

}  // namespace ampscope::ui
