#include "lessons/LessonDropTarget.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QUrl>
#include <QWidget>

#include "scenarios/LessonArchive.h"

namespace ampscope::ui {

LessonDropTarget::LessonDropTarget(QWidget* window, Open open, std::function<void(const QString& error)> refused)
    : QObject(window), open_(std::move(open)), refused_(std::move(refused)) {
    window->setAcceptDrops(true);
    window->installEventFilter(this);
}

QString LessonDropTarget::lessonIn(const QMimeData* data) {
    if (!data || !data->hasUrls() || data->urls().isEmpty() || !data->urls().front().isLocalFile()) return {};
    const QFileInfo dropped(data->urls().front().toLocalFile());
    const QString suffix = QString::fromLatin1(kLessonFileSuffix.data(), qsizetype(kLessonFileSuffix.size()));
    if (dropped.isFile() && dropped.fileName().endsWith(suffix)) return dropped.absoluteFilePath();
    if (dropped.isDir() && QFileInfo(QDir(dropped.absoluteFilePath()).filePath(QStringLiteral("scenario.json"))).isFile())
        return dropped.absoluteFilePath();
    return {};
}

bool LessonDropTarget::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::DragEnter) {
        auto* drag = static_cast<QDragEnterEvent*>(event);
        if (lessonIn(drag->mimeData()).isEmpty()) return false;
        drag->acceptProposedAction();
        return true;
    }
    if (event->type() == QEvent::Drop) {
        auto* drop = static_cast<QDropEvent*>(event);
        const QString lesson = lessonIn(drop->mimeData());
        if (lesson.isEmpty()) return false;
        drop->acceptProposedAction();
        QString error;
        if (!open_(lesson, &error)) refused_(error);
        return true;
    }
    return QObject::eventFilter(watched, event);
}

}  // namespace ampscope::ui
