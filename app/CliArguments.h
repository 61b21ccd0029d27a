#pragma once
// Parsing of ampscope-cli's command line into a plain request. Bad usage is an
// InputError whose message is the one line the CLI prints (exit code 2).
#include <cstdint>
#include <string>
#include <vector>

namespace ampscope::app {

struct CliRequest {
    enum class Command { Help, Version, Run, PrecisionMap, Sensitivity, Prescribe, Scenarios, CheckLesson, PackLesson, Report, ExportCsv, ExportTfEvents, Formats, Cast };
    Command command = Command::Help;
    std::string configPath;
    std::string scenario;      // run --scenario NAME (instead of CONFIG.json)
    std::string lesson;        // run --lesson PATH, check-lesson PATH, pack-lesson FOLDER: a lesson folder or file
    bool trustModel = false;   // run --lesson: load the lesson's TorchScript model (it runs code)
    std::string outDirectory;  // run: the run directory; report, pack-lesson: the file; export-*: the folder
    std::vector<std::string> runDirectories;  // report, export-csv, export-tfevents
    std::vector<std::string> overrides;       // "key.path=value"
    bool quiet = false;
    std::vector<int64_t> traceSteps;  // run --trace-steps 50,100: Chrome traces of those steps
    int seeds = 0;                    // run --seeds N: N runs of CONFIG.json in DIR/seed-K/ (0: one run)
    int64_t mapStep = 0;              // precision-map --step N
    std::string mapReference = "fp32";  // precision-map --reference fp32|fp64
    // sensitivity --formats fp8,mxfp4 --steps N --every K (0: the command's defaults)
    std::vector<std::string> sensitivityFormats;
    int64_t sensitivitySteps = 0;
    int64_t sensitivityEvery = 0;
    // prescribe --format F --budget B --seeds N --steps S
    std::string prescribeFormat;
    double prescribeBudget = 0.9;
    int prescribeSeeds = 3;
    int64_t prescribeSteps = 0;  // 0: the config's own length
    bool prescribeProgress = false;  // --progress: one JSON line per phase (the window reads them)
    // cast FORMAT VALUE... [--no-saturate]: the format's name, each value as typed
    // and as parsed (a double: what the cast rounds, once).
    std::string castFormat;
    std::vector<std::string> castValues;
    std::vector<double> castNumbers;
    bool noSaturate = false;
};

CliRequest parseCliArguments(const std::vector<std::string>& args);
const char* cliUsage();

}  // namespace ampscope::app
