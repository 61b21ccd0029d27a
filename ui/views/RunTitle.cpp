#include "views/RunTitle.h"

#include <QLabel>

#include "runset/RunModel.h"

namespace ampscope::ui {

QLabel* makeRunTitle(QWidget* parent, const QString& objectName) {
    auto* title = new QLabel(parent);
    title->setObjectName(objectName);
    title->setTextFormat(Qt::RichText);
    title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    return title;
}

QString runTitleHtml(const RunModel& run) {
    return QStringLiteral("<span style='color:%1'>\u25A0</span> <b>%2</b>")
        .arg(run.colour().name(), run.name().toHtmlEscaped());
}

void showRunTitle(QLabel* title, const RunModel* run, const QString& role) {
    if (!run) {
        title->clear();
        return;
    }
    QString text = runTitleHtml(*run);
    if (!role.isEmpty()) text = QStringLiteral("%1: ").arg(role.toHtmlEscaped()) + text;
    title->setText(text);
    title->setToolTip(run->directory());
}

}  // namespace ampscope::ui
