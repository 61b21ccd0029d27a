#pragma once
// A lesson in one file: the zip (ZipArchive.h) of a lesson folder (LessonFolder.h), named
// NAME.ampscope-lesson, for a teacher to send as one attachment. Any unzip tool opens it
// (its files sit in one folder named after the lesson); AmpScope opens it wherever a
// lesson folder is accepted.
//
// Opening one unpacks it into a temporary folder of its own (removed when the
// UnpackedLesson goes), and the lesson is then read from there with every rule of a lesson
// folder. What the zip may hold is checked first, on its directory, before anything is
// written: its size, how many files and how large they inflate (LessonLimits.h), and each
// file's name: a relative path of plain names, so no absolute path, no "..", no "\", no
// symbolic link, no name twice. Each refusal is one line naming the lesson file.
// No torch, no Qt.
#include <string>
#include <string_view>

namespace ampscope {

inline constexpr std::string_view kLessonFileSuffix = ".ampscope-lesson";

// A regular file (a folder is a lesson folder; anything else is neither).
bool isLessonFile(const std::string& path);

class UnpackedLesson {
public:
    // InputError (one line, naming `lessonFile`) when it cannot be read or holds what a
    // lesson file may not; the lesson's own problems are found when its folder is read.
    explicit UnpackedLesson(const std::string& lessonFile);
    ~UnpackedLesson();
    UnpackedLesson(const UnpackedLesson&) = delete;
    UnpackedLesson& operator=(const UnpackedLesson&) = delete;

    // The lesson folder: the zip's top when scenario.json is there, or its one top folder.
    const std::string& folder() const { return folder_; }

private:
    std::string temporary_;
    std::string folder_;
};

// Writes the lesson folder `folder` as the lesson file `lessonFile`, its files under one
// top folder named after the lesson. The lesson is read first, as check-lesson reads it:
// a lesson with a problem is refused with its first problem (InputError), as is a symbolic
// link inside the folder or a folder too large for a lesson file.
void packLesson(const std::string& folder, const std::string& lessonFile);

}  // namespace ampscope
