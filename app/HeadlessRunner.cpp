#include "HeadlessRunner.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <thread>

#include "common/Text.h"
#include "engine/Engine.h"
#include "engine/StepTrace.h"
#include "probes/NonFiniteText.h"
#include "run/EventSchema.h"
#include "run/StepRecordCodec.h"

namespace ampscope::app {
namespace {

std::atomic<bool> interruptRequested{false};

extern "C" void onInterrupt(int) { interruptRequested.store(true); }

using Clock = std::chrono::steady_clock;

class ProgressPrinter {
public:
    ProgressPrinter(std::FILE* out, bool quiet) : out_(out), quiet_(quiet), tty_(isatty(fileno(out))) {}

    void started(const std::string& message, int64_t total) {
        total_ = total;
        start_ = Clock::now();
        lastLine_ = start_;
        if (!quiet_) std::fprintf(out_, "%s\n", message.c_str());
        std::fflush(out_);
    }

    void step(const StepMetrics& m) {
        last_ = m;
        if (quiet_) return;
        const auto now = Clock::now();
        const double sinceLine = std::chrono::duration<double>(now - lastLine_).count();
        if (tty_) {
            if (sinceLine < 0.2 && m.step != total_) return;
            std::fprintf(out_, "\r%s", line(now, true).c_str());
        } else {
            // Plain lines: every 10% of the run, at most one every 2 s, at least one every 30 s.
            const int64_t tenth = std::max<int64_t>(1, total_ / 10);
            if (!((m.step % tenth == 0 && sinceLine >= 2.0) || sinceLine >= 30.0 || m.step == total_)) return;
            std::fprintf(out_, "%s\n", line(now, false).c_str());
        }
        lastLine_ = now;
        std::fflush(out_);
    }

    // Every change of the loss scale gets its own line (the first kMaxScaleLines;
    // the rest are in events.jsonl), so a scale history can be read off the terminal.
    void scaleChange(const StepMetrics& m) {
        if (quiet_ || m.scaleChange == ScaleChange::None) return;
        if (++scaleLines_ > kMaxScaleLines) {
            if (scaleLines_ == kMaxScaleLines + 1)
                message("further loss-scale changes are recorded in events.jsonl only");
            return;
        }
        std::string text = "step " + std::to_string(m.step) + ": loss scale " + formatNumber(m.scale, 9) +
                           " -> " + formatNumber(m.scaleAfter, 9) + " (" +
                           std::string(scaleChangeName(m.scaleChange));
        if (m.scaleChange == ScaleChange::Backoff) {
            text += ", step skipped";
            if (!m.firstNonFiniteLayer.empty())
                text += ", first non-finite gradient in " + m.firstNonFiniteLayer;
        }
        message(text + ")");
    }

    void message(const std::string& text) {
        if (quiet_) return;
        if (tty_) std::fprintf(out_, "\r\033[K");
        std::fprintf(out_, "%s\n", text.c_str());
        std::fflush(out_);
    }

    void finish() {
        if (tty_ && !quiet_ && last_.step > 0) std::fprintf(out_, "\n");
    }

private:
    std::string line(Clock::time_point now, bool bar) const {
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        const double fraction = total_ > 0 ? static_cast<double>(last_.step) / static_cast<double>(total_) : 0.0;
        const double eta = fraction > 0 ? elapsed * (1.0 - fraction) / fraction : NAN;
        std::string text;
        if (bar) {
            const int width = 24, filled = static_cast<int>(fraction * width);
            text = "[" + std::string(filled, '#') + std::string(width - filled, '-') + "] ";
        }
        char buffer[256];
        std::snprintf(buffer, sizeof buffer, "%3.0f%% step %lld/%lld epoch %lld loss %s scale %s %.0f samples/s ETA %s",
                      fraction * 100.0, static_cast<long long>(last_.step), static_cast<long long>(total_),
                      static_cast<long long>(last_.epoch), formatNumber(last_.loss, 4).c_str(),
                      formatNumber(last_.scale, 6).c_str(), last_.samplesPerSecond,
                      formatDuration(eta).c_str());
        return text + buffer;
    }

    std::FILE* out_;
    bool quiet_;
    bool tty_;
    static constexpr int kMaxScaleLines = 200;
    int64_t total_ = 0;
    int scaleLines_ = 0;
    StepMetrics last_;
    Clock::time_point start_, lastLine_;
};

}  // namespace

HeadlessResult runHeadless(const RunConfig& config, const std::string& runDirectory, std::FILE* out,
                           bool quiet, const std::vector<int64_t>& traceSteps) {
    interruptRequested.store(false);
    auto previousInt = std::signal(SIGINT, onInterrupt);
    auto previousTerm = std::signal(SIGTERM, onInterrupt);

    HeadlessResult result;
    ProgressPrinter progress(out, quiet);
    Engine engine(config, runDirectory);
    engine.traceSteps(traceSteps);
    engine.start();
    auto showStep = [&progress](const StepMetrics& m) {
        progress.step(m);
        progress.scaleChange(m);
    };
    bool ended = false;
    while (!ended) {
        ended = engine.waitFor(0.1);
        if (interruptRequested.load() && !result.interrupted) {
            result.interrupted = true;
            progress.message("interrupted: stopping after the current step");
            engine.stop();
        }
        auto drained = engine.stream().drain();
        size_t nextStep = 0;
        for (const auto& event : drained.events) {
            // Interleave: steps up to the event's step print before the event.
            while (nextStep < drained.steps.size() && drained.steps[nextStep].step <= event.step)
                showStep(drained.steps[nextStep++]);
            switch (event.kind) {
                case EngineEvent::Kind::Started: progress.started(event.message, event.totalSteps); break;
                case EngineEvent::Kind::EpochEnded: {
                    char buffer[200];
                    std::snprintf(buffer, sizeof buffer,
                                  "epoch %lld: train loss %s, val loss %s, val accuracy %s (%s)",
                                  static_cast<long long>(event.epoch.epoch),
                                  formatNumber(event.epoch.trainLoss).c_str(),
                                  formatNumber(event.epoch.valLoss).c_str(),
                                  formatNumber(event.epoch.valAccuracy).c_str(),
                                  formatDuration(event.epoch.seconds).c_str());
                    progress.message(buffer);
                    break;
                }
                case EngineEvent::Kind::Error:
                    result.inputError = event.inputError;
                    result.errorMessage = event.message;
                    break;
                default: break;
            }
        }
        while (nextStep < drained.steps.size()) showStep(drained.steps[nextStep++]);
    }
    engine.wait();
    progress.finish();
    result.summary = engine.summary();
    for (const int64_t step : traceSteps) {
        const std::string path = runDirectory + "/" + stepTraceFileName(step);
        if (std::filesystem::exists(path))
            progress.message("step " + std::to_string(step) + " traced: " + path);
        else
            progress.message("step " + std::to_string(step) + " not traced: the run ended after step " +
                             std::to_string(result.summary.steps));
    }
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    return result;
}

int exitCodeFor(const HeadlessResult& result) {
    if (result.summary.status == run_status::kError) return result.inputError ? 2 : 1;
    if (result.interrupted) return 130;
    return 0;
}

void printSummary(const RunSummary& s, const std::string& runDirectory, std::FILE* out) {
    std::fprintf(out, "status          %s\n", s.status.c_str());
    std::fprintf(out, "mode            %s (%s)\n", s.mode.c_str(), s.emulated ? "emulated" : "real");
    std::fprintf(out, "steps / epochs  %lld / %lld\n", static_cast<long long>(s.steps),
                 static_cast<long long>(s.epochs));
    std::fprintf(out, "wall time       %s\n", formatDuration(s.wallSeconds).c_str());
    std::fprintf(out, "samples/s       %.1f\n", s.samplesPerSecond);
    std::fprintf(out, "peak memory     %s\n", formatBytes(s.peakMemoryBytes).c_str());
    std::fprintf(out, "train loss      %s\n", formatNumber(s.finalTrainLoss).c_str());
    std::fprintf(out, "val loss        %s\n", formatNumber(s.valLoss).c_str());
    std::fprintf(out, "val accuracy    %s\n", formatNumber(s.valAccuracy).c_str());
    if (s.skippedSteps || s.scaleBackoffs || s.scaleGrowths || s.finalScale != 1.0)
        std::fprintf(out, "loss scale      final %s, %lld skipped steps, %lld backoffs, %lld growths\n",
                     formatNumber(s.finalScale, 8).c_str(), static_cast<long long>(s.skippedSteps),
                     static_cast<long long>(s.scaleBackoffs), static_cast<long long>(s.scaleGrowths));
    // "fc1 0.9987, fc2 0.9991": per-layer mean gradient cosine against a reference.
    auto cosines = [](const std::vector<LayerGradientSummary>& layers) {
        std::string text;
        for (const auto& l : layers)
            text += (text.empty() ? "" : ", ") + l.layer + " " + formatNumber(l.meanCosine, 8);
        return text;
    };
    if (!s.shadow.empty())
        std::fprintf(out, "fp32 shadow     mean gradient cosine: %s\n", cosines(s.shadow).c_str());
    if (s.lockstep) {
        std::fprintf(out, "lockstep        B in %s: train loss %s\n", s.lockstep->mode.c_str(),
                     formatNumber(s.lockstep->finalLoss).c_str());
        if (!s.lockstep->layers.empty())
            std::fprintf(out, "                mean gradient cosine A vs B: %s\n",
                         cosines(s.lockstep->layers).c_str());
    }
    if (s.firstNonFinite) std::fprintf(out, "first NaN/Inf   %s\n", describeFirstNonFinite(*s.firstNonFinite).c_str());
    if (!runDirectory.empty()) std::fprintf(out, "run directory   %s\n", runDirectory.c_str());
}

}  // namespace ampscope::app
