#include "lessons/LessonSaving.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>

#include "runset/RunSet.h"
#include "scenarios/LessonArchive.h"
#include "scenarios/LessonWriter.h"

namespace ampscope::ui {
namespace {

LessonDraft draftOf(const RunSet& set, const QStringList& docksInView, const QString& name) {
    LessonDraft draft;
    draft.name = name.toStdString();
    QStringList runNames;
    for (const RunModel* run : set.runs()) {
        draft.runs.push_back({run->name().toStdString(), run->config()});
        runNames << run->name();
    }
    draft.summary = QObject::tr("%n run(s) side by side: %1", nullptr, int(draft.runs.size()))
                        .arg(runNames.join(QStringLiteral(", ")))
                        .toStdString();
    for (const QString& dock : docksInView) draft.docks.push_back(dock.toStdString());
    if (const RunModel* focused = set.focused()) draft.focusedRun = focused->name().toStdString();
    return draft;
}

bool write(const LessonDraft& draft, const QString& folder, QString* error) {
    try {
        writeLessonFolder(folder.toStdString(), draft);
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}

}  // namespace

bool saveLessonFolder(const RunSet& set, const QStringList& docksInView, const QString& folder, QString* error) {
    return write(draftOf(set, docksInView, QFileInfo(folder).fileName()), folder, error);
}

bool exportLessonFile(const RunSet& set, const QStringList& docksInView, const QString& file, QString* error) {
    const QString suffix = QString::fromLatin1(kLessonFileSuffix.data(), qsizetype(kLessonFileSuffix.size()));
    QString name = QFileInfo(file).fileName();
    if (name.endsWith(suffix)) name.chop(suffix.size());
    QTemporaryDir scratch;
    const QString folder = scratch.filePath(name.isEmpty() ? QStringLiteral("lesson") : name);
    if (!write(draftOf(set, docksInView, name), folder, error)) return false;
    try {
        packLesson(folder.toStdString(), file.toStdString());
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
}

}  // namespace ampscope::ui
