#pragma once
// LessonDropTarget: a lesson dropped on the window opens, as Scenarios > Open lesson… does:
// a .ampscope-lesson file, or a folder holding scenario.json, from the local disk. Other
// drops are not taken. The window accepts drops while this filter is installed on it.
#include <QObject>
#include <QString>
#include <functional>

class QMimeData;
class QWidget;

namespace ampscope::ui {

class LessonDropTarget : public QObject {
    Q_OBJECT
public:
    // `open` opens the lesson (false with `error`); `refused` shows that error.
    using Open = std::function<bool(const QString& path, QString* error)>;
    LessonDropTarget(QWidget* window, Open open, std::function<void(const QString& error)> refused);

    // The lesson a drop carries (its first local path, when that is a lesson), or empty.
    static QString lessonIn(const QMimeData* data);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    Open open_;
    std::function<void(const QString& error)> refused_;
};

}  // namespace ampscope::ui
