// The step record's cost per line, written and read back, by the fast text paths the
// engine and the run readers use and, for contrast, through nlohmann::json objects
// (run/StepRecordCodec.h). CPU time of this thread, so other work on the machine
// does not count.   ./build/tests/bench/step_record_bench [--smoke]
#include <cstdio>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "BenchRows.h"
#include "run/StepRecordCodec.h"

using namespace ampscope;

namespace {

double threadNanoseconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// A typical step of a long fp16 run: every field a number, nothing non-finite.
StepMetrics stepAt(int i) {
    StepMetrics m;
    m.step = i + 1;
    m.epoch = i / 1000 + 1;
    m.loss = 0.6931471805599453 + i * 1e-7;
    m.lr = 0.001;
    m.gradNorm = 1.25 + i * 1e-6;
    m.gradNormClipped = m.gradNorm;
    m.stepSeconds = 0.000734;
    m.samplesPerSecond = 43596.7302452316;
    m.scale = 65536.0;
    m.scaleAfter = 65536.0;
    m.growthTracker = i % 2000;
    return m;
}

template <class F>
double nanosecondsPerLine(int lines, F&& body) {
    const double start = threadNanoseconds();
    for (int i = 0; i < lines; ++i) body(i);
    return (threadNanoseconds() - start) / lines;
}

}  // namespace

int main(int argc, char** argv) {
    const bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
    const int lines = smoke ? 1000 : 1000000;
    std::string line;
    double sink = 0.0;  // keeps the work from being optimized away
    const double write = nanosecondsPerLine(lines, [&](int i) {
        line.clear();
        appendStepRecordText(stepAt(i), line);
        sink += static_cast<double>(line.size());
    });
    const double writeJson = nanosecondsPerLine(lines, [&](int i) {
        line = stepRecord(stepAt(i)).dump();
        sink += static_cast<double>(line.size());
    });
    StepMetrics back;
    const double parse = nanosecondsPerLine(lines, [&](int) {
        parseStepRecordText(line, back);
        sink += static_cast<double>(back.step);
    });
    const double parseJson = nanosecondsPerLine(lines, [&](int) {
        sink += static_cast<double>(stepFromJson(nlohmann::json::parse(line))->step);
    });
    std::printf("| step record | lines | ns per line |\n|---|---|---|\n");
    BenchRows rows("step_record_bench");
    for (const auto& [name, nanoseconds] : {std::pair<const char*, double>{"write, text", write},
                                            {"write, json", writeJson},
                                            {"parse, text", parse},
                                            {"parse, json", parseJson}}) {
        std::printf("| %s | %d | %.0f |\n", name, lines, nanoseconds);
        rows.measured(name, nanoseconds);
    }
    // The parsed step is the last one written: the text path read back what it wrote.
    rows.measured("parse, text: step read back", back.step == stepAt(lines - 1).step ? 1.0 : 0.0);
    return sink > 0 ? rows.exitCode(5) : 1;
}
