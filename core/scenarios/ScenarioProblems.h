#pragma once
// What is wrong with a scenario's files, where: the one reporting path of the scenario
// parser (ScenarioParser.h), which reads the built-ins and a teacher's lesson folder alike.
// A built-in that does not read is a bug of this build, so its sink throws at the first
// problem (std::logic_error naming the file); a lesson folder is someone's work in
// progress, so its sink collects every problem for `ampscope-cli check-lesson` to list.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ampscope {

struct ScenarioProblem {
    std::string file;  // relative to the scenario's folder: "scenario.json", "fp16.json"
    std::size_t line = 0;  // 1-based; 0: the file as a whole (it is missing, too large, ...)
    std::string message;
    // "scenario.json:7: views[1].run ..." (or "narrative.md: ..." for line 0): the form
    // compilers use, so an editor jumps to the line.
    std::string text() const;
};

// Thrown where a lesson cannot be read any further (a file too large, too many runs): the
// problem is the only one reported, so a hostile lesson costs one line and no work.
struct LessonRefused {
    ScenarioProblem problem;
};

class ProblemSink {
public:
    enum class Mode { ThrowAtFirst, Collect };
    // prefix: what the built-ins' messages put before the file ("built-in scenario file ").
    explicit ProblemSink(Mode mode, std::string prefix = "") : mode_(mode), prefix_(std::move(prefix)) {}

    void add(const std::string& file, std::size_t line, const std::string& message);
    // A problem after which nothing more is read: throws LessonRefused (or, for the
    // built-ins, the logic_error every problem is).
    [[noreturn]] void refuse(const std::string& file, std::size_t line, const std::string& message);

    const std::vector<ScenarioProblem>& problems() const { return problems_; }
    bool empty() const { return problems_.empty(); }

private:
    Mode mode_;
    std::string prefix_;
    std::vector<ScenarioProblem> problems_;
};

}  // namespace ampscope
