#pragma once
// Plain (no torch; StepTrace.cpp records with torch's profiler). A Chrome trace (chrome://tracing, Perfetto) of chosen
// training steps: every operator the step called on the host, with the lab's own
// phases (ampscope::step, the probes' hooks) as named spans, and on a GPU, where
// LibTorch has Kineto, every kernel and copy on the device. For "why is this step
// slow": a probe step against a clean one, a mode against another.
//
// The file is the Chrome trace event format: {"traceEvents": [{"name", "cat", "ph": "X",
// "ts", "dur" (microseconds from the trace's start), "pid" ("host" or "cuda:N"),
// "tid"}], "otherData": {"step", "libtorch"}}.
#include <cstdint>
#include <string>

namespace ampscope {

// The file a traced step is written to, in the run directory.
std::string stepTraceFileName(int64_t step);

class StepTrace {
public:
    // Starts collecting on the calling thread (and the autograd threads it starts).
    StepTrace();
    // Stops collecting if writeTo() was not called; nothing is written.
    ~StepTrace();
    StepTrace(const StepTrace&) = delete;
    StepTrace& operator=(const StepTrace&) = delete;

    // Stops collecting and writes the trace of `step`; returns the number of events.
    size_t writeTo(const std::string& path, int64_t step);

private:
    bool collecting_ = false;
};

}  // namespace ampscope
