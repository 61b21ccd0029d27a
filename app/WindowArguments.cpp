#include "WindowArguments.h"

#include <cerrno>
#include <cstdlib>

#include "OptionReader.h"
#include "common/InputError.h"
#include "run/RemoteRunAddress.h"

namespace ampscope::app {

const char* windowUsage() {
    return "usage: ampscope [--config FILE | --scenario NAME | --lesson PATH [--trust-model] |\n"
           "                 --open-run PATH] [--headless]\n"
           "                [--out PARENT_DIR] [--screenshot PNG [--after-steps N | --at-end]\n"
           "                [--show-dock ID]] [--present] [--version] [--help]\n"
           "  --config FILE       start with this config (headless: run it)\n"
           "  --scenario NAME     open with this built-in scenario loaded and running (headless:\n"
           "                      run it); names: ampscope-cli scenarios\n"
           "  --lesson PATH       as --scenario, a lesson someone wrote: a lesson folder or a\n"
           "                      .ampscope-lesson file (headless: ampscope-cli run --lesson)\n"
           "  --trust-model       load --lesson's TorchScript model without asking (it is code:\n"
           "                      the window otherwise asks, naming the file and its SHA-256)\n"
           "  --open-run PATH     open recorded runs in the window: a run directory, a recorded\n"
           "                      job's folder of ranks or a scenario's output folder, or one\n"
           "                      on another machine: ssh://[user@]host[:port]/path, followed\n"
           "                      through your ssh (with --screenshot: grab the window once they\n"
           "                      are shown, print how long opening took, exit; exit 2 after\n"
           "                      the grab when no run could be read)\n"
           "  --headless          no window: run in the terminal --config's run, --scenario's runs,\n"
           "                      or else the default comparison, the amp-sanity scenario\n"
           "                      (FashionMNIST, simple CNN: fp32, fp16 + dynamic scaler, bf16)\n"
           "  --out PARENT_DIR    headless runs go under PARENT_DIR/<timestamp>-<name> (default: runs)\n"
           "  --screenshot PNG    start the run, save the window to PNG after N steps, exit\n"
           "  --after-steps N     steps before --screenshot grabs the window (default 50)\n"
           "  --at-end            with --scenario: train every run of the scenario and grab the\n"
           "                      window when it has ended, its narrative's first view shown\n"
           "  --show-dock ID      bring that dock to the front for the screenshot: configure, loss,\n"
            "                      scale, throughput, memory, updates, histograms, underflow,\n"
            "                      nanInspector, lockstep, formatSweep, scaling, blockScales,\n"
            "                      formatExplorer, precisionMap, sensitivity, scenarios, runs\n"
           "  --present           full screen for a projector (View > Present, F11): larger text,\n"
           "                      the narrative beside its view; Space pauses, Right and Left walk\n"
           "                      the narrative's views, Esc leaves\n"
           "Without a display (no DISPLAY or WAYLAND_DISPLAY) ampscope runs headless.\n"
           "Exit codes: 0 done, 2 bad input, 1 internal error, 130 interrupted.\n";
}

namespace {

long long positiveCount(const std::string& option, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end || errno == ERANGE || value < 1)
        throw InputError(option + ": expected a positive integer (got '" + text + "')");
    return value;
}

void checkCombinations(const WindowRequest& request) {
    const bool screenshot = !request.screenshotPath.empty();
    if (int(!request.scenario.empty()) + int(!request.configPath.empty()) + int(!request.lesson.empty()) > 1)
        throw InputError("give one of --config FILE, --scenario NAME and --lesson PATH");
    if (!request.lesson.empty() && request.headless)
        throw InputError("--lesson opens a lesson in the window; headless: ampscope-cli run --lesson PATH --out DIR");
    if (request.trustModel && request.lesson.empty())
        throw InputError("--trust-model trusts a --lesson's TorchScript model; give --lesson PATH");
    if (!request.openRun.empty() && (!request.scenario.empty() || !request.configPath.empty() || !request.lesson.empty()))
        throw InputError("--open-run shows a recorded run; drop --config/--scenario/--lesson");
    if (!request.openRun.empty() && request.headless)
        throw InputError("--open-run needs the window; drop --headless");
    if (screenshot && request.headless) throw InputError("--screenshot needs the window; drop --headless");
    if (request.present && request.headless) throw InputError("--present needs the window; drop --headless");
    if (!screenshot && !request.showDock.empty())
        throw InputError("--show-dock picks the dock for --screenshot; give --screenshot PNG too");
}

}  // namespace

WindowRequest parseWindowArguments(const std::vector<std::string>& args) {
    WindowRequest request;
    std::string afterSteps;
    for (OptionReader options(args, 0); !options.atEnd(); options.advance()) {
        const std::string& a = options.argument();
        if (options.isFlag({"--help", "-h"})) {
            request.command = WindowRequest::Command::Help;
            return request;
        }
        if (options.isFlag({"--version"})) {
            request.command = WindowRequest::Command::Version;
            return request;
        }
        if (options.isFlag({"--headless"})) {
            request.headless = true;
        } else if (options.takeValue({"--out", "-o"}, request.runsParent)) {
        } else if (options.takeValue({"--config"}, request.configPath)) {
        } else if (options.takeValue({"--scenario"}, request.scenario)) {
        } else if (options.takeValue({"--lesson"}, request.lesson)) {
        } else if (options.isFlag({"--trust-model"})) {
            request.trustModel = true;
        } else if (options.takeValue({"--open-run"}, request.openRun)) {
            if (isRemoteRunAddress(request.openRun)) (void)parseRemoteRunAddress(request.openRun);
        } else if (options.takeValue({"--screenshot"}, request.screenshotPath)) {
        } else if (options.takeValue({"--after-steps"}, afterSteps)) {
            request.afterSteps = positiveCount("--after-steps", afterSteps);
        } else if (options.takeValue({"--show-dock"}, request.showDock)) {
        } else if (options.isFlag({"--at-end"})) {
            request.atEnd = true;
        } else if (options.isFlag({"--present"})) {
            request.present = true;
        } else if (a.rfind("-", 0) == 0) {
            throw InputError("unknown option '" + a + "' (see ampscope --help)");
        } else {
            throw InputError("unexpected argument '" + a + "' (options take their values after them; see "
                             "ampscope --help)");
        }
    }
    checkCombinations(request);
    if (request.atEnd && ((request.scenario.empty() && request.lesson.empty()) || request.screenshotPath.empty() ||
                          !afterSteps.empty()))
        throw InputError("--at-end grabs --scenario's window when it has ended: give --scenario NAME (or --lesson "
                         "PATH) and --screenshot PNG, without --after-steps");
    if (!afterSteps.empty() && request.screenshotPath.empty())
        throw InputError("--after-steps counts the steps before --screenshot; give --screenshot PNG too");
    return request;
}

}  // namespace ampscope::app
