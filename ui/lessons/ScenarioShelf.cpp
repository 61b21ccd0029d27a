#include "lessons/ScenarioShelf.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>

#include "scenarios/LessonArchive.h"
#include "scenarios/LessonFolder.h"

namespace ampscope::ui {

struct ScenarioShelf::Lesson {
    ShelfEntry entry;
    std::unique_ptr<UnpackedLesson> unpacked;  // a lesson file's folder, alive with the lesson
    Scenario scenario;
};

ScenarioShelf::ScenarioShelf(QObject* parent) : QObject(parent) {}

ScenarioShelf::~ScenarioShelf() = default;

QString ScenarioShelf::userLessonFolder() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/ampscope/lessons");
}

QString ScenarioShelf::openLesson(const QString& path, QString* error) {
    auto lesson = std::make_unique<Lesson>();
    const QString key = QFileInfo(path).absoluteFilePath();
    try {
        const std::string given = path.toStdString();
        std::string folder = given;
        std::string shownAs;
        if (isLessonFile(given)) {
            lesson->unpacked = std::make_unique<UnpackedLesson>(given);
            folder = lesson->unpacked->folder();
            shownAs = given;
        }
        lesson->scenario = loadLessonFolder(folder, shownAs);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return {};
    }
    lesson->entry = {key, path, &lesson->scenario};
    const auto same = std::find_if(lessons_.begin(), lessons_.end(),
                                   [&](const std::unique_ptr<Lesson>& open) { return open->entry.key == key; });
    if (same != lessons_.end()) *same = std::move(lesson);
    else lessons_.push_back(std::move(lesson));
    Q_EMIT lessonOpened(key);
    return key;
}

QStringList ScenarioShelf::openLessonsIn(const QString& folder) {
    QStringList refused;
    const QDir dir(folder);
    if (!dir.exists()) return refused;
    const QFileInfoList found = dir.entryInfoList(QDir::Dirs | QDir::Files | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& info : found) {
        if (info.isFile() && !info.fileName().endsWith(QString::fromLatin1(kLessonFileSuffix.data(),
                                                                           qsizetype(kLessonFileSuffix.size()))))
            continue;  // a README beside the lessons is not a lesson
        QString error;
        if (openLesson(info.filePath(), &error).isEmpty()) refused << error;
    }
    return refused;
}

const ShelfEntry* ScenarioShelf::entry(const QString& key) const {
    for (const auto& lesson : lessons_)
        if (lesson->entry.key == key) return &lesson->entry;
    return nullptr;
}

const Scenario* ScenarioShelf::find(const QString& key) const {
    if (const ShelfEntry* lesson = entry(key)) return lesson->scenario;
    return findScenario(key.toStdString());
}

std::vector<ShelfEntry> ScenarioShelf::entries() const {
    std::vector<ShelfEntry> all;
    for (const Scenario& scenario : builtInScenarios())
        all.push_back({QString::fromStdString(scenario.name), tr("built in"), &scenario});
    for (const auto& lesson : lessons_) all.push_back(lesson->entry);
    return all;
}

}  // namespace ampscope::ui
