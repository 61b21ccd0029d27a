#include "CliArguments.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <algorithm>
#include <cstdlib>

#include "OptionReader.h"
#include "common/InputError.h"
#include "precision/formats/FormatTable.h"
#include "probes/Prescription.h"
#include "probes/SensitivityRecord.h"
#include "run/RemoteRunAddress.h"
#include "stats/SeedBand.h"

namespace ampscope::app {

const char* cliUsage() {
    return "usage:\n"
           "  ampscope-cli run CONFIG.json --out DIR [--set key.path=value ...] [--trace-steps N,M] [--quiet]\n"
           "      --trace-steps: a Chrome trace of each of those steps (every operator, the\n"
           "      probes' work, and on a GPU every kernel) in DIR/trace-step-N.json, for\n"
           "      chrome://tracing or Perfetto\n"
           "  ampscope-cli run CONFIG.json --seeds N --out DIR [--set key.path=value ...] [--quiet]\n"
           "      N runs of the config (N >= 2), seed K = the config's seed + K - 1, in\n"
           "      DIR/seed-K/, then DIR/seed-band.txt: each run's final values, their mean and\n"
           "      the seed band (the 95% prediction interval of one more seed)\n"
           "  ampscope-cli run --scenario NAME --out DIR [--set key.path=value ...] [--quiet]\n"
           "      (a scenario with several runs records each in DIR/<run-name>/ and ends\n"
           "      with a side-by-side table; --set applies to every run)\n"
           "  ampscope-cli precision-map CONFIG.json --step N --out DIR [--reference fp32|fp64]\n"
           "                               [--set key.path=value ...] [--quiet]\n"
           "      trains to step N and maps it: the step run again from the same state in the\n"
           "      run's mode and in the reference, every op's output compared. DIR is the run\n"
           "      directory, with precision_map.csv and precision_map_modules.csv; prints the\n"
           "      first op past the tolerance and the ten ops that add the most error\n"
           "  ampscope-cli sensitivity CONFIG.json --out DIR [--formats fp8,mxfp8,mxfp4,nvfp4]\n"
           "                               [--steps N] [--every K] [--set key.path=value ...] [--quiet]\n"
           "      trains N steps (default: the config's length) and measures, every K steps\n"
           "      (default: N/4) and at the last, what quantizing each matmul/conv layer alone\n"
           "      in each format costs the loss: sum (dL/dY)^2 (Y_q - Y)^2 against an fp32 twin.\n"
           "      Prints each format's layers ranked; DIR/sensitivity.txt the same,\n"
           "      DIR/sensitivity.json the mean over the passes, DIR/sensitivity.jsonl each pass\n"
           "  ampscope-cli prescribe CONFIG.json --format FORMAT --out DIR [--budget 0.9] [--seeds 3]\n"
           "                               [--steps N] [--set key.path=value ...] [--quiet] [--progress]\n"
           "      which layers must stay in fp32 for the model to train in FORMAT (fp8, mxfp8,\n"
           "      mxfp4, nvfp4): ranks the layers by sensitivity, keeps the most sensitive while\n"
           "      at least --budget of the matmul/conv FLOPs stay in FORMAT, and verifies by\n"
           "      training the fp32 reference, all in FORMAT and the prescription with the\n"
           "      seeds (DIR/<arm>-seed-K/, one set). DIR/prescription.txt and .json: the kept\n"
           "      layers, each arm inside or outside the reference's band with p-values, and\n"
           "      the names as torchao / torchtitan / Transformer Engine settings; --progress adds\n"
           "      one JSON line per phase ({\"prescribe_progress\": ...}) for a program that runs it\n"
           "  ampscope-cli scenarios          list the built-in scenarios\n"
           "  ampscope-cli check-lesson PATH  check a lesson (a folder: scenario.json, a config per run,\n"
           "      narrative.md; or a .ampscope-lesson file): every problem as FILE:LINE: what,\n"
           "      exit 2; never loads a model\n"
           "  ampscope-cli pack-lesson FOLDER --out FILE.ampscope-lesson\n"
           "      a checked lesson folder as one file to send (a zip); PATH above may be one\n"
           "  ampscope-cli run --lesson PATH --out DIR [--set key.path=value ...] [--trust-model] [--quiet]\n"
           "      a lesson's runs, as --scenario runs a built-in's; a TorchScript model in it runs\n"
           "      only with --trust-model (without: its file and SHA-256, exit 2)\n"
           "  ampscope-cli report RUN_DIR [RUN_DIR ...] --out FILE.pdf|FILE.html\n"
           "      (a scenario's --out folder or a job's folder of rank-N runs stands for\n"
           "      its runs; several runs are first shown together, then one by one)\n"
           "  ampscope-cli export-csv RUN_DIR --out DIR\n"
           "  ampscope-cli export-tfevents RUN_DIR --out DIR\n"
           "      RUN_DIR: a run directory, a job folder of ranks (rank-0, rank-1, ...), or a run\n"
           "      on another machine: ssh://[user@]host[:port]/path, read through your own ssh\n"
           "      (its config, keys and agent; BatchMode: never a password prompt)\n"
           "  ampscope-cli formats            the number formats: bits, largest finite value,\n"
           "                                  smallest normal and subnormal\n"
           "  ampscope-cli cast FORMAT VALUE... [--no-saturate]\n"
           "      round each VALUE to FORMAT (fp16, bf16, e4m3, e5m2, e2m1, e8m0), to nearest\n"
           "      with ties to even, and print it, the value it rounds to and the bits in hex.\n"
           "      Past the largest finite value it saturates to it (as Transformer Engine's\n"
           "      casts do); with --no-saturate it gives inf (fp16, bf16, e5m2) or nan (e4m3,\n"
           "      e8m0), and e2m1, which has neither, refuses. e8m0 (the MX block scale)\n"
           "      rounds down to a power of two: the `floor` rule of the OCP MX specification\n"
           "  ampscope-cli --version\n"
           "  ampscope-cli --help\n"
           "\n"
           "Exit codes: 0 run finished (a run whose loss went NaN is still finished),\n"
           "2 bad input (usage, config, data, output directory), 1 internal error,\n"
           "130 interrupted (the run directory keeps what was recorded).\n";
}

namespace {

// "50,100": positive step numbers, each named in the one line a bad one gets.
std::vector<int64_t> parseStepList(const std::string& option, const std::string& text, const std::string& example) {
    std::vector<int64_t> steps;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || errno == ERANGE || value < 1)
            throw InputError(option + ": \"" + item + "\" is not a step number (steps count from 1; e.g. " + option + " " +
                             example + ")");
        steps.push_back(value);
        start = comma + 1;
    }
    return steps;
}

// "5": a whole number of seeds, at least the band's minimum (one seed has no spread).
int parseSeedCount(const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE || value > INT_MAX)
        throw InputError("--seeds: \"" + text + "\" is not a number of seeds (a whole number, 2 or more; e.g. --seeds 5)");
    if (value < stats::kMinimumSeeds)
        throw InputError("--seeds: a seed band needs at least " + std::to_string(stats::kMinimumSeeds) +
                         " seeds (got " + text + ")");
    return static_cast<int>(value);
}

// report / export-csv / export-tfevents: run directories and --out.
CliRequest parseRunDirectoryCommand(const std::vector<std::string>& args) {
    CliRequest request;
    const std::string& command = args[0];
    request.command = command == "report"       ? CliRequest::Command::Report
                      : command == "export-csv" ? CliRequest::Command::ExportCsv
                                                : CliRequest::Command::ExportTfEvents;
    for (OptionReader options(args, 1, command + ": "); !options.atEnd(); options.advance()) {
        const std::string& a = options.argument();
        if (options.takeValue({"--out", "-o"}, request.outDirectory)) {
        } else if (options.isFlag({"--quiet", "-q"})) {
            request.quiet = true;
        } else if (a.rfind("-", 0) == 0) {
            throw InputError(command + ": unknown option '" + a + "' (options: --out, --quiet)");
        } else {
            if (isRemoteRunAddress(a)) (void)parseRemoteRunAddress(a);  // one line if malformed
            request.runDirectories.push_back(a);
        }
    }
    if (request.runDirectories.empty()) throw InputError(command + ": missing RUN_DIR");
    if (request.command != CliRequest::Command::Report && request.runDirectories.size() > 1)
        throw InputError(command + ": one RUN_DIR only (got " +
                         std::to_string(request.runDirectories.size()) + ")");
    if (request.outDirectory.empty())
        throw InputError(command + (request.command == CliRequest::Command::Report
                                        ? ": missing --out FILE.pdf|FILE.html"
                                        : ": missing --out DIR (the folder to write)"));
    return request;
}

// precision-map CONFIG.json --step N --out DIR [--reference fp32|fp64] [--set ...] [--quiet]
CliRequest parsePrecisionMapCommand(const std::vector<std::string>& args) {
    CliRequest request;
    request.command = CliRequest::Command::PrecisionMap;
    for (OptionReader options(args, 1, "precision-map: "); !options.atEnd(); options.advance()) {
        const std::string& a = options.argument();
        std::string value;
        if (options.takeValue({"--out", "-o"}, request.outDirectory)) {
        } else if (options.takeValue({"--set"}, value)) {
            request.overrides.push_back(value);
        } else if (options.takeValue({"--step"}, value)) {
            const auto steps = parseStepList("--step", value, "50");
            if (steps.size() != 1) throw InputError("--step: one step number (got \"" + value + "\")");
            request.mapStep = steps.front();
        } else if (options.takeValue({"--reference"}, request.mapReference)) {
            if (request.mapReference != "fp32" && request.mapReference != "fp64")
                throw InputError("--reference: \"" + request.mapReference + "\" is not a reference (fp32 or fp64)");
        } else if (options.isFlag({"--quiet", "-q"})) {
            request.quiet = true;
        } else if (a.rfind("-", 0) == 0) {
            throw InputError("precision-map: unknown option '" + a +
                             "' (options: --step N, --out DIR, --reference fp32|fp64, --set key.path=value, --quiet)");
        } else if (request.configPath.empty()) {
            request.configPath = a;
        } else {
            throw InputError("precision-map: unexpected argument '" + a + "' (one CONFIG.json only)");
        }
    }
    if (request.configPath.empty()) throw InputError("precision-map: missing CONFIG.json");
    if (request.mapStep == 0) throw InputError("precision-map: missing --step N (the step to map)");
    if (request.outDirectory.empty())
        throw InputError("precision-map: missing --out DIR (where the run directory goes)");
    return request;
}

// sensitivity CONFIG.json --out DIR [--formats LIST] [--steps N] [--every K] [--set ...] [--quiet]
CliRequest parseSensitivityCommand(const std::vector<std::string>& args) {
    CliRequest request;
    request.command = CliRequest::Command::Sensitivity;
    request.sensitivityFormats = sensitivityFormats();
    for (OptionReader options(args, 1, "sensitivity: "); !options.atEnd(); options.advance()) {
        const std::string& a = options.argument();
        std::string value;
        if (options.takeValue({"--out", "-o"}, request.outDirectory)) {
        } else if (options.takeValue({"--set"}, value)) {
            request.overrides.push_back(value);
        } else if (options.takeValue({"--formats"}, value)) {
            request.sensitivityFormats = parseSensitivityFormats(value, "--formats");
        } else if (options.takeValue({"--steps"}, value)) {
            const auto steps = parseStepList("--steps", value, "40");
            if (steps.size() != 1) throw InputError("--steps: one number of steps (got \"" + value + "\")");
            request.sensitivitySteps = steps.front();
        } else if (options.takeValue({"--every"}, value)) {
            const auto steps = parseStepList("--every", value, "10");
            if (steps.size() != 1) throw InputError("--every: one number of steps (got \"" + value + "\")");
            request.sensitivityEvery = steps.front();
        } else if (options.isFlag({"--quiet", "-q"})) {
            request.quiet = true;
        } else if (a.rfind("-", 0) == 0) {
            throw InputError("sensitivity: unknown option '" + a +
                             "' (options: --out DIR, --formats LIST, --steps N, --every K, --set key.path=value, "
                             "--quiet)");
        } else if (request.configPath.empty()) {
            request.configPath = a;
        } else {
            throw InputError("sensitivity: unexpected argument '" + a + "' (one CONFIG.json only)");
        }
    }
    if (request.configPath.empty()) throw InputError("sensitivity: missing CONFIG.json");
    if (request.outDirectory.empty())
        throw InputError("sensitivity: missing --out DIR (where the scores go)");
    return request;
}

// "0.9": a share of FLOPs in (0, 1].
double parseBudget(const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno == ERANGE || !isPrescriptionBudget(value))
        throw InputError("--budget: \"" + text +
                         "\" is not a share of FLOPs in (0, 1] (e.g. --budget 0.9: at least 90% stay in the format)");
    return value;
}

// prescribe CONFIG.json --format F --out DIR [--budget B] [--seeds N] [--steps S] [--set ...] [--quiet]
CliRequest parsePrescribeCommand(const std::vector<std::string>& args) {
    CliRequest request;
    request.command = CliRequest::Command::Prescribe;
    for (OptionReader options(args, 1, "prescribe: "); !options.atEnd(); options.advance()) {
        const std::string& a = options.argument();
        std::string value;
        if (options.takeValue({"--out", "-o"}, request.outDirectory)) {
        } else if (options.takeValue({"--set"}, value)) {
            request.overrides.push_back(value);
        } else if (options.takeValue({"--format"}, value)) {
            const auto formats = parseSensitivityFormats(value, "--format");
            if (formats.size() != 1 || formats.front() == "fp32")
                throw InputError("--format: one low-precision format (fp8, mxfp8, mxfp4 or nvfp4; got \"" + value + "\")");
            request.prescribeFormat = formats.front();
        } else if (options.takeValue({"--budget"}, value)) {
            request.prescribeBudget = parseBudget(value);
        } else if (options.takeValue({"--seeds"}, value)) {
            request.prescribeSeeds = parseSeedCount(value);
        } else if (options.takeValue({"--steps"}, value)) {
            const auto steps = parseStepList("--steps", value, "200");
            if (steps.size() != 1) throw InputError("--steps: one number of steps (got \"" + value + "\")");
            request.prescribeSteps = steps.front();
        } else if (options.isFlag({"--quiet", "-q"})) {
            request.quiet = true;
        } else if (options.isFlag({"--progress"})) {
            request.prescribeProgress = true;
        } else if (a.rfind("-", 0) == 0) {
            throw InputError("prescribe: unknown option '" + a +
                             "' (options: --format FORMAT, --out DIR, --budget B, --seeds N, --steps N, "
                             "--set key.path=value, --quiet, --progress)");
        } else if (request.configPath.empty()) {
            request.configPath = a;
        } else {
            throw InputError("prescribe: unexpected argument '" + a + "' (one CONFIG.json only)");
        }
    }
    if (request.configPath.empty()) throw InputError("prescribe: missing CONFIG.json");
    if (request.prescribeFormat.empty())
        throw InputError("prescribe: missing --format FORMAT (fp8, mxfp8, mxfp4 or nvfp4)");
    if (request.outDirectory.empty())
        throw InputError("prescribe: missing --out DIR (a new folder for the runs and the prescription)");
    return request;
}

// cast FORMAT VALUE... [--no-saturate]
CliRequest parseCastCommand(const std::vector<std::string>& args) {
    CliRequest request;
    request.command = CliRequest::Command::Cast;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--no-saturate") {
            request.noSaturate = true;
        } else if (a.rfind("--", 0) == 0) {
            throw InputError("cast: unknown option '" + a + "' (options: --no-saturate)");
        } else if (request.castFormat.empty()) {
            if (!formatFromName(a))
                throw InputError("cast: unknown format '" + a + "' (formats: " + formatNames() + ")");
            request.castFormat = a;
        } else {
            // strtod reads decimal and hex floats, nan and inf; the whole word must be a number.
            errno = 0;
            char* end = nullptr;
            const double value = std::strtod(a.c_str(), &end);
            if (a.empty() || end != a.c_str() + a.size())
                throw InputError("cast: '" + a + "' is not a number");
            if (errno == ERANGE && std::isinf(value))
                throw InputError("cast: '" + a + "' is beyond the range of a double");
            request.castValues.push_back(a);
            request.castNumbers.push_back(value);
        }
    }
    if (request.castFormat.empty())
        throw InputError("cast: missing FORMAT (one of " + formatNames() + ")");
    if (request.castValues.empty()) throw InputError("cast: missing VALUE (a number to round)");
    return request;
}

}  // namespace

CliRequest parseCliArguments(const std::vector<std::string>& args) {
    CliRequest request;
    if (args.empty()) throw InputError("missing command (try: ampscope-cli --help)");
    const std::string& command = args[0];
    if (command == "--help" || command == "-h" || command == "help") return request;
    if (command == "--version") {
        request.command = CliRequest::Command::Version;
        return request;
    }
    if (command == "check-lesson") {
        if (args.size() != 2) throw InputError("check-lesson: give one lesson folder or file (check-lesson PATH)");
        request.command = CliRequest::Command::CheckLesson;
        request.lesson = args[1];
        return request;
    }
    if (command == "pack-lesson") {
        if (args.size() != 4 || args[2] != "--out")
            throw InputError("pack-lesson: give a lesson folder and the file to write (pack-lesson FOLDER --out "
                             "FILE.ampscope-lesson)");
        if (!args[3].ends_with(".ampscope-lesson"))
            throw InputError("pack-lesson: --out " + args[3] + ": a lesson file's name ends in .ampscope-lesson");
        request.command = CliRequest::Command::PackLesson;
        request.lesson = args[1];
        request.outDirectory = args[3];
        return request;
    }
    if (command == "scenarios") {
        if (args.size() > 1) throw InputError("scenarios: unexpected argument '" + args[1] + "'");
        request.command = CliRequest::Command::Scenarios;
        return request;
    }
    if (command == "formats") {
        if (args.size() > 1) throw InputError("formats: unexpected argument '" + args[1] + "'");
        request.command = CliRequest::Command::Formats;
        return request;
    }
    if (command == "cast") return parseCastCommand(args);
    if (command == "precision-map") return parsePrecisionMapCommand(args);
    if (command == "sensitivity") return parseSensitivityCommand(args);
    if (command == "prescribe") return parsePrescribeCommand(args);
    if (command == "report" || command == "export-csv" || command == "export-tfevents")
        return parseRunDirectoryCommand(args);
    if (command != "run")
        throw InputError("unknown command '" + command +
                         "' (commands: run, precision-map, sensitivity, prescribe, scenarios, check-lesson, pack-lesson, report, export-csv, export-tfevents, formats, cast; see "
                         "ampscope-cli --help)");
    request.command = CliRequest::Command::Run;
    for (OptionReader options(args, 1); !options.atEnd(); options.advance()) {
        const std::string& a = options.argument();
        std::string assignment;
        if (options.takeValue({"--out", "-o"}, request.outDirectory)) {
        } else if (options.takeValue({"--set"}, assignment)) {
            request.overrides.push_back(assignment);
        } else if (options.takeValue({"--scenario"}, request.scenario)) {
        } else if (options.takeValue({"--lesson"}, request.lesson)) {
        } else if (options.isFlag({"--trust-model"})) {
            request.trustModel = true;
        } else if (options.takeValue({"--trace-steps"}, assignment)) {
            request.traceSteps = parseStepList("--trace-steps", assignment, "50,100");
        } else if (options.takeValue({"--seeds"}, assignment)) {
            request.seeds = parseSeedCount(assignment);
        } else if (options.isFlag({"--quiet", "-q"})) {
            request.quiet = true;
        } else if (a.rfind("-", 0) == 0) {
            throw InputError("run: unknown option '" + a +
                             "' (options: --out DIR, --scenario NAME, --lesson PATH, --trust-model, --seeds N, --set key.path=value, "
                             "--trace-steps N,M, --quiet)");
        } else if (request.configPath.empty()) {
            request.configPath = a;
        } else {
            throw InputError("run: unexpected argument '" + a + "' (one CONFIG.json only)");
        }
    }
    if (int(!request.scenario.empty()) + int(!request.configPath.empty()) + int(!request.lesson.empty()) > 1)
        throw InputError("run: give one of CONFIG.json, --scenario NAME and --lesson PATH");
    if (request.trustModel && request.lesson.empty())
        throw InputError("run: --trust-model trusts a --lesson's TorchScript model (your own config's is trusted)");
    if (!request.lesson.empty() && (!request.traceSteps.empty() || request.seeds > 0))
        throw InputError("run: --trace-steps and --seeds run one CONFIG.json, not a --lesson");
    if (request.configPath.empty() && request.scenario.empty() && request.lesson.empty())
        throw InputError("run: missing CONFIG.json (or --scenario NAME, or --lesson PATH)");
    if (request.outDirectory.empty()) throw InputError("run: missing --out DIR (where the run directory goes)");
    if (!request.traceSteps.empty() && !request.scenario.empty())
        throw InputError("run: --trace-steps traces a CONFIG.json run, not a --scenario (which may run several)");
    // A scenario's runs are different configs, each its own folder: seeds of each would be
    // a set per run, which the scenario's folder layout has no place for.
    if (request.seeds > 0 && !request.scenario.empty())
        throw InputError("run: --seeds trains one CONFIG.json with several seeds, not a --scenario");
    return request;
}

}  // namespace ampscope::app
