#pragma once
// Save as lesson and Export lesson: what the window shows, written as a lesson
// (core/scenarios/LessonWriter.h) that opens again to the same state: every run of the
// Runs list with its config, the docks in view (DockLayout::docksInView), the focused run,
// a narrative to fill in.
// The lesson is named after the folder or file chosen; Export writes the folder into a
// temporary one and packs it (LessonArchive.h).
#include <QString>
#include <QStringList>

namespace ampscope::ui {

class RunSet;

// false with `error` (one line) when nothing could be written; nothing is left half-written.
bool saveLessonFolder(const RunSet& set, const QStringList& docksInView, const QString& folder, QString* error);
bool exportLessonFile(const RunSet& set, const QStringList& docksInView, const QString& file, QString* error);

}  // namespace ampscope::ui
