#include "scenarios/ScenarioProblems.h"

#include <stdexcept>

namespace ampscope {

std::string ScenarioProblem::text() const {
    return file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + message;
}

void ProblemSink::add(const std::string& file, std::size_t line, const std::string& message) {
    ScenarioProblem problem{file, line, message};
    if (mode_ == Mode::ThrowAtFirst) throw std::logic_error(prefix_ + problem.text());
    problems_.push_back(std::move(problem));
}

void ProblemSink::refuse(const std::string& file, std::size_t line, const std::string& message) {
    ScenarioProblem problem{file, line, message};
    if (mode_ == Mode::ThrowAtFirst) throw std::logic_error(prefix_ + problem.text());
    throw LessonRefused{std::move(problem)};
}

}  // namespace ampscope
