#pragma once
// Engine: trains one RunConfig on its own thread.
//
// Contract:
// - start() returns at once; everything (data loading, model building, steps,
//   evaluation, recording) happens on the engine thread. Commands (pause,
//   resume, stepOnce, stop) are messages, honoured between steps: stop takes
//   effect within one step; stepOnce while paused runs exactly one step.
// - Metrics go out through stream() (never blocking training) and, when a run
//   directory is given, into it (config.json, events.jsonl, summary.json).
// - Any exception inside (bad data, a write failure, anything) ends the run
//   with an Error event (inputError set for bad input) and a summary with
//   status "error"; nothing escapes the thread. A NaN loss is a result, not an
//   error: the run goes on and records it.
// - The destructor stops and joins.
// No torch in this header (pimpl), so the UI and CLI see plain types only.
#include <memory>
#include <string>
#include <vector>

#include "config/RunConfig.h"
#include "engine/MetricStream.h"
#include "engine/RunSummary.h"

namespace ampscope {

enum class EngineState { Idle, Running, Paused, Finished, Stopped, Failed };
const char* engineStateName(EngineState state);

class Engine {
public:
    // runDirectory empty: nothing is recorded (tests, throwaway runs).
    Engine(RunConfig config, std::string runDirectory);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Steps to trace (before start()): each one's Chrome trace goes to the run
    // directory as stepTraceFileName(step) (StepTrace.h). Tracing slows those steps.
    void traceSteps(std::vector<int64_t> steps);

    void start();
    void pause();
    void resume();
    void stepOnce();
    // Takes the precision map of the next step that runs (with stepOnce() while paused:
    // the step about to run). A run with its probes off gets a probe session from that
    // step on, one that only maps.
    void mapNextStep();
    void stop();
    void wait();
    bool waitFor(double seconds);  // true when the thread has ended

    EngineState state() const;
    MetricStream& stream();
    RunSummary summary() const;  // final once the thread has ended
    const RunConfig& config() const;
    const std::string& runDirectory() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace ampscope
