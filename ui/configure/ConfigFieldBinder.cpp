#include "configure/ConfigFieldBinder.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QVariant>
#include <cmath>

#include "config/ConfigFieldRules.h"

namespace ampscope::ui {

namespace {

const char* const kInvalidStyle = "border: 2px solid #d32f2f; border-radius: 3px;";

// Shortest text that reads back as exactly the same double.
QString exactText(double value) {
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

// A config field reached through a reference into the RunConfig; load only reads it.
template <class T>
T& in(const std::function<T&(RunConfig&)>& access, const RunConfig& config) {
    return access(const_cast<RunConfig&>(config));
}

}  // namespace

QString notParsedAs(const char* what, const QString& text) {
    return QStringLiteral("must be %1 (got \"%2\")").arg(QLatin1String(what), text);
}

std::vector<std::string> splitNames(const QString& text) {
    std::vector<std::string> names;
    if (text.trimmed().isEmpty()) return names;
    for (const QString& part : text.split(QLatin1Char(',')))
        names.push_back(part.trimmed().toStdString());
    return names;
}

QString joinedNames(const std::vector<std::string>& names) {
    QStringList parts;
    for (const auto& name : names) parts << QString::fromStdString(name);
    return parts.join(QStringLiteral(", "));
}

PathRow addPathRow(QFormLayout* form, const QString& label, const QString& browseText) {
    PathRow path;
    path.row = new QWidget(form->parentWidget());
    auto* layout = new QHBoxLayout(path.row);
    layout->setContentsMargins(0, 0, 0, 0);
    path.edit = new QLineEdit(path.row);
    path.browse = new QPushButton(browseText, path.row);
    layout->addWidget(path.edit, 1);
    layout->addWidget(path.browse);
    form->addRow(label, path.row);
    return path;
}

ConfigFieldBinder::ConfigFieldBinder(QObject* context, std::function<void()> onEdit)
    : context_(context), onEdit_(std::move(onEdit)) {}

void ConfigFieldBinder::add(ConfigField field) {
    const ConfigFieldRule& rule = configFieldRule(field.path.toStdString());
    field.help = QString::fromStdString(configFieldHelp(rule.path));
    field.widget->setToolTip(field.help);
    field.widget->setObjectName(field.path);
    if (rule.limits) {
        field.widget->setProperty("limits", QString::fromStdString(rule.limits->text()));
        if (std::isfinite(rule.limits->low)) field.widget->setProperty("minimum", rule.limits->low);
        if (std::isfinite(rule.limits->high)) field.widget->setProperty("maximum", rule.limits->high);
    }
    fields_.push_back(std::move(field));
}

void ConfigFieldBinder::watch(QLineEdit* edit) {
    QObject::connect(edit, &QLineEdit::textChanged, context_, [this] { onEdit_(); });
}

QLineEdit* ConfigFieldBinder::addLineEdit(QFormLayout* form, const QString& label) {
    auto* edit = new QLineEdit(form->parentWidget());
    form->addRow(label, edit);
    watch(edit);
    return edit;
}

QLineEdit* ConfigFieldBinder::addText(QFormLayout* form, const QString& label, const QString& path,
                                      std::function<std::string&(RunConfig&)> access) {
    QLineEdit* edit = addLineEdit(form, label);
    add({path, edit,
         [edit, access](const RunConfig& c) { edit->setText(QString::fromStdString(in(access, c))); },
         [edit, access](RunConfig& c) {
             access(c) = edit->text().toStdString();
             return QString();
         }});
    return edit;
}

QLineEdit* ConfigFieldBinder::addNames(QFormLayout* form, const QString& label, const QString& path,
                                       std::function<std::vector<std::string>&(RunConfig&)> access) {
    QLineEdit* edit = addLineEdit(form, label);
    add({path, edit, [edit, access](const RunConfig& c) { edit->setText(joinedNames(in(access, c))); },
         [edit, access](RunConfig& c) {
             access(c) = splitNames(edit->text());
             return QString();
         }});
    return edit;
}

QComboBox* ConfigFieldBinder::addChoice(QFormLayout* form, const QString& label, const QString& path,
                                        const std::vector<std::string>& allowed,
                                        std::function<std::string&(RunConfig&)> access) {
    auto* combo = new QComboBox(form->parentWidget());
    for (const auto& value : allowed) combo->addItem(QString::fromStdString(value));
    form->addRow(label, combo);
    QObject::connect(combo, &QComboBox::currentIndexChanged, context_, [this] { onEdit_(); });
    add({path, combo,
         [combo, access](const RunConfig& c) {
             const QString value = QString::fromStdString(in(access, c));
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

QLineEdit* ConfigFieldBinder::addDouble(QFormLayout* form, const QString& label, const QString& path,
                                        std::function<double&(RunConfig&)> access) {
    QLineEdit* edit = addLineEdit(form, label);
    add({path, edit, [edit, access](const RunConfig& c) { edit->setText(exactText(in(access, c))); },
         [edit, access](RunConfig& c) {
             bool ok = false;
             const double value = QLocale::c().toDouble(edit->text().trimmed(), &ok);
             if (!ok) return notParsedAs("a number", edit->text());
             access(c) = value;
             return QString();
         }});
    return edit;
}

QLineEdit* ConfigFieldBinder::addInteger(QFormLayout* form, const QString& label, const QString& path,
                                         std::function<int64_t&(RunConfig&)> access) {
    QLineEdit* edit = addLineEdit(form, label);
    add({path, edit, [edit, access](const RunConfig& c) { edit->setText(QString::number(in(access, c))); },
         [edit, access](RunConfig& c) {
             bool ok = false;
             const qlonglong value = edit->text().trimmed().toLongLong(&ok);
             if (!ok) return notParsedAs("an integer", edit->text());
             access(c) = value;
             return QString();
         }});
    return edit;
}

QCheckBox* ConfigFieldBinder::addCheck(QFormLayout* form, const QString& text, const QString& path,
                                       std::function<bool&(RunConfig&)> access) {
    auto* check = new QCheckBox(text, form->parentWidget());
    form->addRow(QString(), check);
    QObject::connect(check, &QCheckBox::toggled, context_, [this] { onEdit_(); });
    add({path, check, [check, access](const RunConfig& c) { check->setChecked(in(access, c)); },
         [check, access](RunConfig& c) {
             access(c) = check->isChecked();
             return QString();
         }});
    return check;
}

void ConfigFieldBinder::load(const RunConfig& config) const {
    for (const ConfigField& field : fields_) field.load(config);
}

RunConfig ConfigFieldBinder::collect(const RunConfig& base, std::vector<FieldProblem>* parseProblems) const {
    RunConfig c = base;
    for (const ConfigField& field : fields_) {
        const QString message = field.store(c);
        if (!message.isEmpty() && parseProblems)
            parseProblems->push_back({field.path.toStdString(), message.toStdString()});
    }
    return c;
}

void ConfigFieldBinder::mark(const std::function<QString(const QString&)>& messageOf) const {
    for (const ConfigField& field : fields_) {
        const QString message = messageOf(field.path);
        const bool invalid = !message.isEmpty();
        field.widget->setProperty("invalid", invalid);
        field.widget->setStyleSheet(invalid ? QString::fromLatin1(kInvalidStyle) : QString());
        field.widget->setToolTip(invalid ? message : field.help);
    }
}

QWidget* ConfigFieldBinder::widget(const QString& path) const {
    for (const ConfigField& field : fields_)
        if (field.path == path) return field.widget;
    return nullptr;
}

QStringList ConfigFieldBinder::paths() const {
    QStringList paths;
    for (const ConfigField& field : fields_) paths << field.path;
    return paths;
}

void ConfigFieldBinder::setEnabled(bool enabled) const {
    for (const ConfigField& field : fields_) field.widget->setEnabled(enabled);
}

}  // namespace ampscope::ui
