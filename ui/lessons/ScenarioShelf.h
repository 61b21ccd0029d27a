#pragma once
// ScenarioShelf: the scenarios the window can load and run: the built-ins, then the lessons
// opened (core/scenarios/LessonFolder.h, LessonArchive.h), each with where it came from.
//
// Contract:
// - A scenario is known by its key: a built-in's name, or a lesson's path made absolute
//   (so a lesson named like a built-in, or two lessons of one name, stay apart).
// - openLesson(path): a lesson folder or a lesson file, read with every rule of a lesson
//   (a lesson file stays unpacked while the shelf lives: its runs read their files from
//   there). A lesson that has a problem is refused with the one line ampscope-cli prints
//   and the shelf is as it was; opening a path again reads it again (a teacher edits and
//   reopens) and keeps its place.
// - openLessonsIn(folder): every lesson folder and lesson file directly in `folder` (the
//   user's data folder: userLessonFolder()), each as openLesson; the lines of those refused.
// - Opening runs nothing and loads no model: the TorchScript models of a lesson are asked
//   for when it is loaded (ScenarioBrowser), every time.
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "scenarios/ScenarioCatalogue.h"

namespace ampscope {
class UnpackedLesson;
}

namespace ampscope::ui {

struct ShelfEntry {
    QString key;
    QString origin;  // "built in", or the lesson's folder or file as given
    const Scenario* scenario = nullptr;
    bool isLesson() const { return !scenario->folder.empty(); }
};

class ScenarioShelf : public QObject {
    Q_OBJECT
public:
    explicit ScenarioShelf(QObject* parent = nullptr);
    ~ScenarioShelf() override;

    // The key of the lesson opened, or an empty key and `error` (one line).
    QString openLesson(const QString& path, QString* error = nullptr);
    QStringList openLessonsIn(const QString& folder);
    // ~/.local/share/ampscope/lessons (XDG_DATA_HOME's ampscope/lessons).
    static QString userLessonFolder();

    const Scenario* find(const QString& key) const;
    const ShelfEntry* entry(const QString& key) const;
    // Built-ins first, in catalogue order, then lessons in the order opened.
    std::vector<ShelfEntry> entries() const;

Q_SIGNALS:
    void lessonOpened(const QString& key);

private:
    struct Lesson;
    std::vector<std::unique_ptr<Lesson>> lessons_;
};

}  // namespace ampscope::ui
