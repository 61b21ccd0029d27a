#pragma once
// Parsing of ampscope's command line (the window, or its headless runs) into a plain
// request, read the same way as ampscope-cli's (CliArguments.h, OptionReader.h). Bad
// usage is an InputError whose message is the one line ampscope prints (exit code 2).
// Whether a scenario name exists is the catalogue's to say (ScenarioCatalogue.h), and
// whether a dock exists the window's: main() checks both before anything starts.
#include <string>
#include <vector>

namespace ampscope::app {

struct WindowRequest {
    enum class Command { Start, Help, Version };
    Command command = Command::Start;
    bool headless = false;
    std::string runsParent = "runs";  // --out: headless runs go under it
    std::string configPath;           // --config
    std::string scenario;             // --scenario
    std::string lesson;               // --lesson: a lesson folder or file, as --scenario
    bool trustModel = false;          // --trust-model: load --lesson's TorchScript model unasked
    std::string openRun;              // --open-run: a run directory to show instead of training
    std::string screenshotPath;       // --screenshot
    long long afterSteps = 50;        // --after-steps: steps before the screenshot
    std::string showDock;             // --show-dock: the dock in front for the screenshot
    bool atEnd = false;               // --at-end: --scenario's screenshot once every run ended
    bool present = false;             // --present: the window in Present mode (a projector)
};

WindowRequest parseWindowArguments(const std::vector<std::string>& args);
const char* windowUsage();

}  // namespace ampscope::app
