#include "engine/StepTrace.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <torch/torch.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include "engine/Versions.h"

namespace ampscope {

namespace {

namespace profiler = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

// LibTorch 1.x gives event times in microseconds, 2.x in nanoseconds.
template <typename Event>
double startMicroseconds(const Event& e) {
    if constexpr (requires { e.startNs(); })
        return static_cast<double>(e.startNs()) / 1000.0;
    else
        return static_cast<double>(e.startUs());
}

template <typename Event>
double durationMicroseconds(const Event& e) {
    if constexpr (requires { e.durationNs(); })
        return static_cast<double>(e.durationNs()) / 1000.0;
    else
        return static_cast<double>(e.durationUs());
}

std::set<ActivityType> activities() {
    std::set<ActivityType> kinds{ActivityType::CPU};
    if (torch::cuda::is_available()) kinds.insert(ActivityType::CUDA);
    return kinds;
}

}  // namespace

std::string stepTraceFileName(int64_t step) { return "trace-step-" + std::to_string(step) + ".json"; }

StepTrace::StepTrace() {
    const ProfilerConfig config(ProfilerState::KINETO);
    profiler::prepareProfiler(config, activities());
    profiler::enableProfiler(config, activities());
    collecting_ = true;
}

StepTrace::~StepTrace() {
    if (!collecting_) return;
    try {
        profiler::disableProfiler();
    } catch (...) {
        // A destructor during unwinding: the trace is dropped, the run's error stands.
    }
}

size_t StepTrace::writeTo(const std::string& path, int64_t step) {
    collecting_ = false;
    const auto result = profiler::disableProfiler();
    const auto& events = result->events();
    double origin = 0.0;
    bool first = true;
    for (const auto& e : events) {
        origin = first ? startMicroseconds(e) : std::min(origin, startMicroseconds(e));
        first = false;
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : events) {
        const bool onDevice = e.deviceType() != c10::DeviceType::CPU;
        nlohmann::json item{{"name", e.name()},
                            {"cat", onDevice ? "device" : "host"},
                            {"ph", "X"},
                            {"ts", startMicroseconds(e) - origin},
                            {"dur", durationMicroseconds(e)},
                            {"pid", onDevice ? "cuda:" + std::to_string(e.deviceIndex()) : std::string("host")},
                            {"tid", onDevice ? static_cast<uint64_t>(e.deviceResourceId()) : e.startThreadId()}};
        list.push_back(std::move(item));
    }
    const nlohmann::json trace{{"traceEvents", list},
                               {"displayTimeUnit", "ms"},
                               {"otherData", {{"step", step}, {"libtorch", torchVersion()}}}};
    std::ofstream out(path);
    out << trace.dump() << '\n';
    out.close();
    if (!out) throw std::runtime_error(path + ": cannot write the step trace");
    return events.size();
}

}  // namespace ampscope
