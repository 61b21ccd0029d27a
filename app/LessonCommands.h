#pragma once
// ampscope-cli's two lesson commands (core/scenarios/LessonFolder.h is the lesson itself):
// - check-lesson PATH: every problem of the lesson folder on stderr, one per line as
//   "FILE:LINE: what" (FILE relative to the folder), exit 2; or, on stdout, the one line
//   "PATH: lesson NAME is valid (N runs, M views)", exit 0. It never loads a model.
// - run --lesson PATH --out DIR: the lesson's runs as `run --scenario NAME` runs a
//   built-in's (ScenarioRunner.h). A lesson is someone else's: a run that would load a
//   TorchScript model (code, which runs as the user) needs --trust-model; without it, one
//   line naming the file and its SHA-256, exit 2, before anything runs.
// - pack-lesson FOLDER --out FILE: the folder as one lesson file (LessonArchive.h), after
//   reading it as check-lesson does. Both commands above take such a file as PATH.
#include <cstdio>
#include <string>
#include <vector>

namespace ampscope::app {

int checkLessonCommand(const std::string& path, std::FILE* out, std::FILE* err);

int runLessonCommand(const std::string& path, const std::string& outDirectory, const std::vector<std::string>& overrides,
                     bool trustModel, bool quiet, std::FILE* out, std::FILE* err);

int packLessonCommand(const std::string& folder, const std::string& lessonFile, std::FILE* out);

}  // namespace ampscope::app
