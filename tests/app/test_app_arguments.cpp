// The two programs' option parsers (app/): ampscope's (WindowArguments.h) and
// ampscope-cli's (CliArguments.h), both built on OptionReader.h. Every bad command
// line is one InputError line (the programs print it and exit 2); these rows pin the
// line itself; ampscopeExitsTwoWithOneLine runs the real ampscope for the exit code
// (ampscope-cli's are test_cli_bad_input's).
#include <QtCore/QDir>
#include <QtCore/QProcess>
#include <QtTest/QtTest>

#include <cstdlib>

#include <string>
#include <vector>

#include "ExactCompare.h"
#include "CliArguments.h"
#include "WindowArguments.h"
#include "common/InputError.h"

using namespace ampscope;
using app::WindowRequest;

namespace {

std::vector<std::string> argumentsOf(const QStringList& list) {
    std::vector<std::string> args;
    for (const QString& a : list) args.push_back(a.toStdString());
    return args;
}

// The InputError's message that `parse` throws for `args`, or "(accepted)".
template <typename Parse>
QString errorOf(Parse parse, const QStringList& args) {
    try {
        parse(argumentsOf(args));
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("(accepted)");
}

}  // namespace

class AppArgumentsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void windowDefaultsOpenTheWindow() {
        const WindowRequest r = app::parseWindowArguments({});
        QVERIFY(r.command == WindowRequest::Command::Start);
        QVERIFY(!r.headless);
        QCOMPARE(r.runsParent, std::string("runs"));
        QCOMPARE(r.afterSteps, 50LL);
        QVERIFY(r.configPath.empty() && r.scenario.empty() && r.openRun.empty());
        QVERIFY(r.screenshotPath.empty() && r.showDock.empty());
    }

    void windowOptionsTakeTheirValues() {
        WindowRequest r = app::parseWindowArguments(
            {"--screenshot", "w.png", "--after-steps", "120", "--show-dock", "underflow", "--scenario",
             "fp16-no-scaler"});
        QCOMPARE(r.screenshotPath, std::string("w.png"));
        QCOMPARE(r.afterSteps, 120LL);
        QCOMPARE(r.showDock, std::string("underflow"));
        QCOMPARE(r.scenario, std::string("fp16-no-scaler"));

        r = app::parseWindowArguments({"--headless", "--config=a b.json", "--out", "/tmp/runs"});
        QVERIFY(r.headless);
        QCOMPARE(r.configPath, std::string("a b.json"));  // the "=" form, as ampscope-cli reads it
        QCOMPARE(r.runsParent, std::string("/tmp/runs"));

        r = app::parseWindowArguments({"--open-run", "runs/x", "--screenshot", "x.png"});
        QCOMPARE(r.openRun, std::string("runs/x"));
        QCOMPARE(r.screenshotPath, std::string("x.png"));
        r = app::parseWindowArguments({"--open-run", "ssh://gpu-box/data/run"});  // another machine
        QCOMPARE(r.openRun, std::string("ssh://gpu-box/data/run"));
        QVERIFY(!r.present);
        r = app::parseWindowArguments({"--scenario", "fp16-no-scaler", "--present"});  // a projector
        QVERIFY(r.present);
    }

    void helpAndVersionEndTheParse() {
        QVERIFY(app::parseWindowArguments({"--help"}).command == WindowRequest::Command::Help);
        QVERIFY(app::parseWindowArguments({"--headless", "-h"}).command == WindowRequest::Command::Help);
        QVERIFY(app::parseWindowArguments({"--version", "--bogus"}).command == WindowRequest::Command::Version);
        const std::string usage = app::windowUsage();
        for (const char* option : {"--config", "--scenario", "--open-run", "--headless", "--out", "--screenshot",
                                   "--after-steps", "--show-dock", "--present", "--version", "--help", "amp-sanity"})
            QVERIFY2(usage.find(option) != std::string::npos, option);
    }

    void badWindowArguments_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown option") << QStringList{"--fullscreen"}
                                        << "unknown option '--fullscreen' (see ampscope --help)";
        QTest::newRow("stray argument") << QStringList{"config.json"}
                                        << "unexpected argument 'config.json' (options take their values "
                                           "after them; see ampscope --help)";
        QTest::newRow("--config without value") << QStringList{"--config"} << "--config: missing value";
        QTest::newRow("--open-run followed by an option")
            << QStringList{"--open-run", "--headless"} << "--open-run: missing value";
        QTest::newRow("--screenshot without value") << QStringList{"--screenshot"} << "--screenshot: missing value";
        QTest::newRow("--show-dock without value")
            << QStringList{"--screenshot", "a.png", "--show-dock"} << "--show-dock: missing value";
        QTest::newRow("--out without value") << QStringList{"--headless", "--out"} << "--out: missing value";
        QTest::newRow("--after-steps zero") << QStringList{"--screenshot", "a.png", "--after-steps", "0"}
                                            << "--after-steps: expected a positive integer (got '0')";
        QTest::newRow("--after-steps not a number")
            << QStringList{"--screenshot", "a.png", "--after-steps", "12x"}
            << "--after-steps: expected a positive integer (got '12x')";
        QTest::newRow("--after-steps too large")
            << QStringList{"--screenshot", "a.png", "--after-steps", "99999999999999999999"}
            << "--after-steps: expected a positive integer (got '99999999999999999999')";
        QTest::newRow("--after-steps without --screenshot")
            << QStringList{"--after-steps", "5"}
            << "--after-steps counts the steps before --screenshot; give --screenshot PNG too";
        QTest::newRow("--show-dock without --screenshot")
            << QStringList{"--show-dock", "loss"}
            << "--show-dock picks the dock for --screenshot; give --screenshot PNG too";
        QTest::newRow("config and scenario") << QStringList{"--config", "a.json", "--scenario", "amp-sanity"}
                                             << "give one of --config FILE, --scenario NAME and --lesson PATH";
        QTest::newRow("lesson and scenario") << QStringList{"--lesson", "l", "--scenario", "amp-sanity"}
                                             << "give one of --config FILE, --scenario NAME and --lesson PATH";
        QTest::newRow("present headless")
            << QStringList{"--present", "--headless"} << "--present needs the window; drop --headless";
        QTest::newRow("lesson headless")
            << QStringList{"--lesson", "l", "--headless"}
            << "--lesson opens a lesson in the window; headless: ampscope-cli run --lesson PATH --out DIR";
        QTest::newRow("trust-model without a lesson")
            << QStringList{"--scenario", "amp-sanity", "--trust-model"}
            << "--trust-model trusts a --lesson's TorchScript model; give --lesson PATH";
        QTest::newRow("open-run and config") << QStringList{"--open-run", "runs/x", "--config", "a.json"}
                                             << "--open-run shows a recorded run; drop --config/--scenario/--lesson";
        QTest::newRow("open-run and lesson") << QStringList{"--open-run", "runs/x", "--lesson", "l"}
                                             << "--open-run shows a recorded run; drop --config/--scenario/--lesson";
        QTest::newRow("open-run headless") << QStringList{"--open-run", "runs/x", "--headless"}
                                           << "--open-run needs the window; drop --headless";
        QTest::newRow("open-run a malformed ssh:// address")
            << QStringList{"--open-run", "ssh://gpu-box"}
            << "ssh://gpu-box: no path after the host (ssh://[user@]host[:port]/path)";
        QTest::newRow("screenshot headless") << QStringList{"--headless", "--screenshot", "a.png"}
                                             << "--screenshot needs the window; drop --headless";
    }

    void badWindowArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QCOMPARE(errorOf(app::parseWindowArguments, args), message);
    }

    // ampscope-cli's parser reads options the same way (OptionReader): both forms, the
    // same missing-value line, prefixed with the command where the command has its own.
    void cliOptionsTakeTheirValues() {
        app::CliRequest r = app::parseCliArguments(
            {"run", "c.json", "--out=runs/a", "--set", "train.epochs=1", "--set=seed=3", "-q"});
        QVERIFY(r.command == app::CliRequest::Command::Run);
        QCOMPARE(r.configPath, std::string("c.json"));
        QCOMPARE(r.outDirectory, std::string("runs/a"));
        QCOMPARE(r.overrides, (std::vector<std::string>{"train.epochs=1", "seed=3"}));
        QVERIFY(r.quiet);
        QVERIFY(r.traceSteps.empty());

        r = app::parseCliArguments({"run", "c.json", "--out", "d", "--trace-steps", "50,100", "--trace-steps=7"});
        QCOMPARE(r.traceSteps, (std::vector<int64_t>{7}));  // the last one given counts, as for --out
        r = app::parseCliArguments({"run", "c.json", "--out", "d", "--trace-steps", "50,100"});
        QCOMPARE(r.traceSteps, (std::vector<int64_t>{50, 100}));

        QCOMPARE(r.seeds, 0);  // one run unless --seeds asks for a set
        r = app::parseCliArguments({"run", "c.json", "--out", "d", "--seeds", "5", "--set", "seed=40"});
        QCOMPARE(r.seeds, 5);
        QCOMPARE(r.overrides, (std::vector<std::string>{"seed=40"}));

        r = app::parseCliArguments({"run", "--scenario=amp-sanity", "-o", "d"});
        QCOMPARE(r.scenario, std::string("amp-sanity"));
        QCOMPARE(r.outDirectory, std::string("d"));

        r = app::parseCliArguments({"report", "runs/a", "runs/b", "--out", "r.pdf"});
        QVERIFY(r.command == app::CliRequest::Command::Report);
        QCOMPARE(r.runDirectories, (std::vector<std::string>{"runs/a", "runs/b"}));
        QCOMPARE(r.outDirectory, std::string("r.pdf"));

        r = app::parseCliArguments({"export-csv", "ssh://alice@gpu-box:2222/~/runs/x", "--out", "d"});
        QCOMPARE(r.runDirectories, (std::vector<std::string>{"ssh://alice@gpu-box:2222/~/runs/x"}));
    }

    void badCliArguments_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("run --out without value") << QStringList{"run", "c.json", "--out"} << "--out: missing value";
        QTest::newRow("run --set followed by an option")
            << QStringList{"run", "c.json", "--set", "--quiet"} << "--set: missing value";
        QTest::newRow("report --out without value")
            << QStringList{"report", "runs/a", "-o"} << "report: --out: missing value";
        QTest::newRow("export-csv two runs") << QStringList{"export-csv", "a", "b", "--out", "d"}
                                             << "export-csv: one RUN_DIR only (got 2)";
        QTest::newRow("report a malformed ssh:// address")
            << QStringList{"report", "ssh://gpu-box:99999/run", "--out", "r.html"}
            << "ssh://gpu-box:99999/run: port '99999' is not a number in 1..65535";
        QTest::newRow("run unknown option")
            << QStringList{"run", "c.json", "--fast"}
            << "run: unknown option '--fast' (options: --out DIR, --scenario NAME, --lesson PATH, --trust-model, --seeds N, "
               "--set key.path=value, "
               "--trace-steps N,M, --quiet)";
        QTest::newRow("run --seeds 1")
            << QStringList{"run", "c.json", "--out", "d", "--seeds", "1"}
            << "--seeds: a seed band needs at least 2 seeds (got 1)";
        QTest::newRow("run --seeds a word")
            << QStringList{"run", "c.json", "--out", "d", "--seeds=five"}
            << "--seeds: \"five\" is not a number of seeds (a whole number, 2 or more; e.g. --seeds 5)";
        QTest::newRow("run --seeds with a scenario")
            << QStringList{"run", "--scenario", "amp-sanity", "--out", "d", "--seeds", "3"}
            << "run: --seeds trains one CONFIG.json with several seeds, not a --scenario";
        QTest::newRow("run --out= empty") << QStringList{"run", "c.json", "--out="}
                                          << "run: missing --out DIR (where the run directory goes)";
    }

    // The real binary, no display: a bad command line is exit 2 and exactly one line on
    // stderr, "ampscope: " and the parser's message, before anything runs or opens.
    void ampscopeExitsTwoWithOneLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("line");
        QTest::newRow("unknown option") << QStringList{"--fullscreen"}
                                        << "ampscope: unknown option '--fullscreen' (see ampscope --help)";
        QTest::newRow("missing value") << QStringList{"--headless", "--config"} << "ampscope: --config: missing value";
        QTest::newRow("unknown scenario")
            << QStringList{"--headless", "--scenario", "fp8-magic"}
            << "ampscope: unknown scenario \"fp8-magic\" (valid: amp-sanity, fp16-no-scaler, "
               "bf16-no-scaler-needed, scale-dynamics, clip-without-unscale, log-of-small-sum, "
               "pure-fp16-lost-updates, batchnorm-variance, softmax-overflow, tiny-loss-scale-growth, "
               "fp8-delayed-scaling-lag, mx-outlier-block, nvfp4-gradient-rounding, format-sweep)";
        QTest::newRow("screenshot headless") << QStringList{"--headless", "--screenshot", "a.png"}
                                             << "ampscope: --screenshot needs the window; drop --headless";
    }

    void ampscopeExitsTwoWithOneLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, line);
        const char* binary = std::getenv("AMPSCOPE_WINDOW");
        if (!binary || !*binary) QSKIP("AMPSCOPE_WINDOW (the ampscope binary) is not set: run through ctest");
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove(QStringLiteral("DISPLAY"));
        environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
        environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
        process.setProcessEnvironment(environment);
        process.setWorkingDirectory(QDir::tempPath());  // were anything to run, not in the source tree
        process.start(QString::fromLocal8Bit(binary), args);
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 2);
        QCOMPARE(QString::fromUtf8(process.readAllStandardError()), line + "\n");
        QCOMPARE(QString::fromUtf8(process.readAllStandardOutput()), QString());
    }

    void badCliArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QCOMPARE(errorOf(app::parseCliArguments, args), message);
    }
};

QTEST_MAIN(AppArgumentsTest)
#include "test_app_arguments.moc"
