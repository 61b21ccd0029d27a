#include "CliArguments.h"

#include "common/InputError.h"

namespace ampscope::app {

const char* cliUsage() {
    return "usage:\n"
           "  ampscope-cli run CONFIG.json --out DIR [--set key.path=value ...] [--quiet]\n"
           "  ampscope-cli run --scenario NAME --out DIR [--set key.path=value ...] [--quiet]\n"
           "      (a scenario with several runs records each in DIR/<run-name>/ and ends\n"
           "      with a side-by-side table; --set applies to every run)\n"
           "  ampscope-cli scenarios          list the built-in scenarios\n"
           "  ampscope-cli report RUN_DIR [RUN_DIR ...] --out FILE.pdf|FILE.html\n"
           "  ampscope-cli export-csv RUN_DIR --out DIR\n"
           "  ampscope-cli export-tfevents RUN_DIR --out DIR\n"
           "  ampscope-cli --version\n"
           "  ampscope-cli --help\n"
           "\n"
           "Exit codes: 0 run finished (a run whose loss went NaN is still finished),\n"
           "2 bad input (usage, config, data, output directory), 1 internal error,\n"
           "130 interrupted (the run directory keeps what was recorded).\n";
}

namespace {

// report / export-csv / export-tfevents: run directories and --out.
CliRequest parseRunDirectoryCommand(const std::vector<std::string>& args) {
    CliRequest request;
    const std::string& command = args[0];
    request.command = command == "report"       ? CliRequest::Command::Report
                      : command == "export-csv" ? CliRequest::Command::ExportCsv
                                                : CliRequest::Command::ExportTfEvents;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--out" || a == "-o") {
            if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
                throw InputError(command + ": --out: missing value");
            request.outDirectory = args[++i];
        } else if (a.rfind("--out=", 0) == 0) {
            request.outDirectory = a.substr(6);
        } else if (a == "--quiet" || a == "-q") {
            request.quiet = true;
        } else if (a.rfind("-", 0) == 0) {
            throw InputError(command + ": unknown option '" + a + "' (options: --out, --quiet)");
        } else {
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
    if (command == "scenarios") {
        if (args.size() > 1) throw InputError("scenarios: unexpected argument '" + args[1] + "'");
        request.command = CliRequest::Command::Scenarios;
        return request;
    }
    if (command == "report" || command == "export-csv" || command == "export-tfevents")
        return parseRunDirectoryCommand(args);
    if (command != "run")
        throw InputError("unknown command '" + command +
                         "' (commands: run, scenarios, report, export-csv, export-tfevents; see "
                         "ampscope-cli --help)");
    request.command = CliRequest::Command::Run;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const char* flag) -> std::string {
            if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
                throw InputError(std::string(flag) + ": missing value");
            return args[++i];
        };
        if (a == "--out" || a == "-o") {
            request.outDirectory = value("--out");
        } else if (a.rfind("--out=", 0) == 0) {
            request.outDirectory = a.substr(6);
        } else if (a == "--set") {
            request.overrides.push_back(value("--set"));
        } else if (a.rfind("--set=", 0) == 0) {
            request.overrides.push_back(a.substr(6));
        } else if (a == "--scenario") {
            request.scenario = value("--scenario");
        } else if (a.rfind("--scenario=", 0) == 0) {
            request.scenario = a.substr(11);
        } else if (a == "--quiet" || a == "-q") {
            request.quiet = true;
        } else if (a.rfind("-", 0) == 0) {
            throw InputError("run: unknown option '" + a + "' (options: --out DIR, --scenario NAME, --set key.path=value, --quiet)");
        } else if (request.configPath.empty()) {
            request.configPath = a;
        } else {
            throw InputError("run: unexpected argument '" + a + "' (one CONFIG.json only)");
        }
    }
    if (!request.scenario.empty() && !request.configPath.empty())
        throw InputError("run: give CONFIG.json or --scenario NAME, not both");
    if (request.configPath.empty() && request.scenario.empty())
        throw InputError("run: missing CONFIG.json (or --scenario NAME)");
    if (request.outDirectory.empty()) throw InputError("run: missing --out DIR (where the run directory goes)");
    return request;
}

}  // namespace ampscope::app
