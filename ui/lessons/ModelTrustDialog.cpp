#include "lessons/ModelTrustDialog.h"

#include <QAbstractButton>
#include <QMessageBox>

namespace ampscope::ui {

bool askModelTrust(QWidget* parent, const QString& lesson, const std::vector<LessonModel>& models) {
    QString files;
    for (const LessonModel& model : models)
        files += QObject::tr("<li>run %1: <code>%2</code><br>SHA-256 <code>%3</code></li>")
                     .arg(QString::fromStdString(model.run).toHtmlEscaped(),
                          QString::fromStdString(model.path).toHtmlEscaped(), QString::fromStdString(model.sha256));
    QMessageBox box(QMessageBox::Warning, QObject::tr("Trust this lesson's model?"),
                    QObject::tr("<p>Lesson <b>%1</b> trains a TorchScript model. A TorchScript file is code: "
                                "loading it runs whatever its author wrote, as you.</p><ul>%2</ul>"
                                "<p>Load it only if the SHA-256 is the one the lesson's author gave you.</p>")
                        .arg(lesson.toHtmlEscaped(), files),
                    QMessageBox::Yes | QMessageBox::No, parent);
    box.setTextFormat(Qt::RichText);
    box.setDefaultButton(QMessageBox::No);
    box.button(QMessageBox::Yes)->setText(QObject::tr("Load the model"));
    box.button(QMessageBox::No)->setText(QObject::tr("Don't load"));
    return box.exec() == QMessageBox::Yes;
}

}  // namespace ampscope::ui
