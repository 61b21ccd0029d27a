#pragma once
// ConfigFieldBinder: the Configure form's fields, each a widget bound to one config.json
// path. A field loads its value from a RunConfig, stores the widget's text back (or says
// why it cannot: "must be a number (got "abc")"), and shows its help, or its problems
// when it has any.
//
// Help and limits are core's (config/ConfigFieldRules.h): a field's tooltip is its
// rule's help with the limits, and a field with numeric limits carries them as the
// widget properties "limits" (the text, "in [1, 100000]") and "minimum" / "maximum"
// (where finite), so a limit changed in core shows in the form.
#include <QString>
#include <QStringList>
#include <functional>
#include <string>
#include <vector>

#include "config/ConfigValidation.h"
#include "config/RunConfig.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLineEdit;
class QObject;
class QPushButton;
class QWidget;

namespace ampscope::ui {

struct ConfigField {
    QString path;
    QWidget* widget = nullptr;
    std::function<void(const RunConfig&)> load;
    // Writes the widget's value into the config; returns a message when it cannot.
    std::function<QString(RunConfig&)> store;
    QString help = {};  // the tooltip when the field is fine: set by the binder, from core
};

class ConfigFieldBinder {
public:
    // onEdit runs after every edit of a field's widget (the panel validates again);
    // context is the QObject the connections live with.
    ConfigFieldBinder(QObject* context, std::function<void()> onEdit);

    QLineEdit* addText(QFormLayout* form, const QString& label, const QString& path,
                       std::function<std::string&(RunConfig&)> access);
    QComboBox* addChoice(QFormLayout* form, const QString& label, const QString& path,
                         const std::vector<std::string>& allowed,
                         std::function<std::string&(RunConfig&)> access);
    QLineEdit* addDouble(QFormLayout* form, const QString& label, const QString& path,
                         std::function<double&(RunConfig&)> access);
    QLineEdit* addInteger(QFormLayout* form, const QString& label, const QString& path,
                          std::function<int64_t&(RunConfig&)> access);
    // A comma-separated list of names ("fc2, loss").
    QLineEdit* addNames(QFormLayout* form, const QString& label, const QString& path,
                        std::function<std::vector<std::string>&(RunConfig&)> access);
    QCheckBox* addCheck(QFormLayout* form, const QString& text, const QString& path,
                        std::function<bool&(RunConfig&)> access);
    // A line edit in its own row whose edits count as the form's (bound with add()).
    QLineEdit* addLineEdit(QFormLayout* form, const QString& label);
    void watch(QLineEdit* edit);
    // A field with its own load and store; its help and limits come from its path's rule.
    void add(ConfigField field);

    void load(const RunConfig& config) const;
    // base with every field's value; the fields whose text does not parse keep base's
    // value and add a problem to parseProblems (when given).
    RunConfig collect(const RunConfig& base, std::vector<FieldProblem>* parseProblems) const;
    // Marks each field: messageOf(path) empty means fine (its help shows), otherwise
    // a red border and the message as its tooltip.
    void mark(const std::function<QString(const QString&)>& messageOf) const;

    QWidget* widget(const QString& path) const;
    QStringList paths() const;
    void setEnabled(bool enabled) const;

private:
    QObject* context_;
    std::function<void()> onEdit_;
    std::vector<ConfigField> fields_;
};

// A row of a path's line edit and the button that picks it in a dialog.
struct PathRow {
    QWidget* row = nullptr;
    QLineEdit* edit = nullptr;
    QPushButton* browse = nullptr;
};
PathRow addPathRow(QFormLayout* form, const QString& label, const QString& browseText);

// A field's text that does not parse: "must be an integer (got "2.5")".
QString notParsedAs(const char* what, const QString& text);

// The names of a comma-separated list, trimmed; empty text is no names.
std::vector<std::string> splitNames(const QString& text);
QString joinedNames(const std::vector<std::string>& names);

}  // namespace ampscope::ui
