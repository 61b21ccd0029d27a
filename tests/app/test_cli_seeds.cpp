// `ampscope-cli run CONFIG.json --seeds N --out DIR` as a user runs it: N runs of the
// config, seed K = the config's seed + K - 1, each in DIR/seed-K/ and recorded with its
// seed; DIR opens as one set (the folder rule the window and `report` share); and
// DIR/seed-band.txt holds each run's final values and their mean, standard deviation and
// band, which this suite recomputes from the runs' own summary.json files. Bad input is
// one line, exit 2, and nothing created.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "FileSupport.h"
#include "TestSupport.h"
#include "run/RunSetFolder.h"

namespace {

using ampscope::test::runCli;

// Plain string literals: Qt 6.4's moc skips a class after a raw string literal.
// Two epochs of six steps: a few seconds for three runs.
const char* kTinyRun =
    "{\"threads\": 1, \"seed\": 7,"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 256, \"validation\": \"split\","
    " \"val_fraction\": 0.25},"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [16]},"
    " \"optim\": {\"lr\": 0.01},"
    " \"train\": {\"epochs\": 2, \"batch_size\": 32}}";

QString writeConfig(const QTemporaryDir& dir) {
    const QString path = dir.filePath("tiny.json");
    ampscope::test::writeTextFile(path, kTinyRun);
    return path;
}


// The numbers of seed-band.txt's row `name` (after the row's name; words that are not
// numbers, as a run's status, left out).
QList<double> rowNumbers(const QString& text, const QString& name) {
    QList<double> numbers;
    for (const QString& line : text.split('\n')) {
        if (!line.startsWith(name + " ")) continue;
        for (const QString& word : line.mid(name.size()).split(' ', Qt::SkipEmptyParts)) {
            bool number = false;
            const double value = word.toDouble(&number);
            if (number) numbers << value;
        }
        break;
    }
    return numbers;
}

}  // namespace

class CliSeedsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void badSeedsExitTwoAndCreateNothing_data() {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("one seed") << QStringList{"--seeds", "1"} << "--seeds: a seed band needs at least 2 seeds (got 1)";
        QTest::newRow("no seeds") << QStringList{"--seeds", "0"} << "at least 2 seeds (got 0)";
        QTest::newRow("negative") << QStringList{"--seeds", "-3"} << "at least 2 seeds (got -3)";
        QTest::newRow("a word") << QStringList{"--seeds", "x"} << "--seeds: \"x\" is not a number of seeds";
        QTest::newRow("a fraction") << QStringList{"--seeds", "2.5"} << "\"2.5\" is not a number of seeds";
        QTest::newRow("too many for an int") << QStringList{"--seeds", "99999999999"} << "is not a number of seeds";
        QTest::newRow("no value") << QStringList{"--seeds"} << "--seeds: missing value";
        QTest::newRow("with a scenario") << QStringList{"--scenario", "amp-sanity", "--seeds", "3"}
                                         << "--seeds trains one CONFIG.json with several seeds, not a --scenario";
    }
    void badSeedsExitTwoAndCreateNothing() {
        QFETCH(QStringList, options);
        QFETCH(QString, mentions);
        QTemporaryDir dir;
        const QString out = dir.filePath("set");
        QStringList args{"run"};
        if (!options.contains("--scenario")) args << writeConfig(dir);
        args << "--out" << out << options;
        const auto r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY(!QFileInfo::exists(out));
    }

    // A folder that already holds something is refused before any run: nothing in it is
    // touched and no seed folder appears.
    void aFolderInUseIsRefused() {
        QTemporaryDir dir;
        const QString out = dir.filePath("set");
        QVERIFY(QDir().mkpath(out));
        std::ofstream((out + "/notes.txt").toStdString()) << "mine";
        const auto r = runCli({"run", writeConfig(dir), "--seeds", "2", "--out", out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not empty"), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count('\n'), 0);
        QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{"notes.txt"});
    }

    void threeSeedsMakeOneSetAndItsBand() {
        QTemporaryDir dir;
        const QString out = dir.filePath("set");
        const auto r = runCli({"run", writeConfig(dir), "--seeds", "3", "--out", out, "--set", "precision.mode=bf16"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        // Each run: its own folder, its seed and the --set in its config, finished.
        QList<double> trainLoss, valLoss, valAccuracy;
        for (int k = 1; k <= 3; ++k) {
            const QString run = out + "/seed-" + QString::number(k);
            const auto config = ampscope::test::readJsonFile(run + "/config.json");
            QCOMPARE(config["seed"].get<uint64_t>(), uint64_t(7 + k - 1));
            QCOMPARE(config["precision"]["mode"].get<std::string>(), std::string("bf16"));
            QCOMPARE(QString::fromStdString(config["name"].get<std::string>()),
                     QString("mlp-bf16 seed %1").arg(7 + k - 1));
            const auto summary = ampscope::test::readJsonFile(run + "/summary.json");
            QCOMPARE(summary["status"].get<std::string>(), std::string("finished"));
            trainLoss << summary["final_train_loss"].get<double>();
            valLoss << summary["val_loss"].get<double>();
            valAccuracy << summary["val_accuracy"].get<double>();
        }
        // Different seeds train differently (else the band would measure nothing).
        QVERIFY(valLoss[0] != valLoss[1] && valLoss[1] != valLoss[2]);

        // The folder is a set of the three runs, in the order they ran.
        const std::vector<std::string> runs = ampscope::runSetDirectories(out.toStdString());
        QCOMPARE(runs.size(), std::size_t(3));
        for (int k = 1; k <= 3; ++k)
            QVERIFY2(QString::fromStdString(runs[std::size_t(k - 1)]).endsWith("seed-" + QString::number(k)),
                     runs[std::size_t(k - 1)].c_str());

        // seed-band.txt: the rule, each run's values, and per value the mean, the sample
        // standard deviation and mean +- t(0.975, 2) s sqrt(1 + 1/3), t(0.975, 2) = 4.302653
        // from the t table; printed with 6 significant digits, so compared to 1e-5 relative.
        const QString band = ampscope::test::readTextFile(out + "/seed-band.txt");
        QVERIFY2(band.contains("band: mean +- t(0.975, N-1) * s * sqrt(1 + 1/N)"), qPrintable(band));
        QVERIFY2(r.out.contains(band.section('\n', 0, 0)), qPrintable(r.out));
        for (int k = 1; k <= 3; ++k) {
            const QList<double> row = rowNumbers(band, "seed-" + QString::number(k));
            QVERIFY2(row.size() == 4, qPrintable(band));  // seed, train loss, val loss, val accuracy (status is text)
            QCOMPARE_BITS(row[0], double(7 + k - 1));
            QVERIFY(band.contains(QRegularExpression(QString("seed-%1 +%2 +finished ").arg(k).arg(7 + k - 1))));
            QVERIFY(std::fabs(row[2] - valLoss[k - 1]) <= 1e-5 * std::fabs(valLoss[k - 1]));
        }
        const std::pair<QString, QList<double>> quantities[] = {
            {"train loss", trainLoss}, {"val loss", valLoss}, {"val accuracy", valAccuracy}};
        for (const auto& [name, values] : quantities) {
            const double mean = (values[0] + values[1] + values[2]) / 3.0;
            double squares = 0.0;
            for (const double v : values) squares += (v - mean) * (v - mean);
            const double sd = std::sqrt(squares / 2.0);
            const double half = 4.302652729749 * sd * std::sqrt(1.0 + 1.0 / 3.0);
            const QList<double> row = rowNumbers(band, name);
            QVERIFY2(row.size() == 5, qPrintable(name + ": " + band));
            QCOMPARE_BITS(row[0], 3.0);
            const double expected[] = {mean, sd, mean - half, mean + half};
            for (int i = 0; i < 4; ++i)
                QVERIFY2(std::fabs(row[i + 1] - expected[i]) <= 1e-5 * std::fabs(expected[i]) + 1e-12,
                         qPrintable(QString("%1 column %2: %3, expected %4").arg(name).arg(i + 2).arg(row[i + 1]).arg(expected[i])));
        }

        // `report DIR` reports the three runs, one section each, in order (in a build with
        // the window's views; a GUI-off build says it has no renderer).
        const QString html = dir.filePath("set.html");
        const auto report = runCli({"report", out, "--out", html, "--quiet"});
        if (report.err.contains("no report renderer")) {
            QCOMPARE(report.exitCode, 2);
        } else {
            QVERIFY2(report.exitCode == 0, qPrintable(report.err));
            QStringList titles;
            const QRegularExpression heading("<h2>(seed-[0-9]+)</h2>");
            for (auto it = heading.globalMatch(ampscope::test::readTextFile(html)); it.hasNext();) titles << it.next().captured(1);
            QCOMPARE(titles, (QStringList{"seed-1", "seed-2", "seed-3"}));
        }
    }

    // A lesson's "seeds": the run trained with three seeds beside another config, and
    // comparison.txt judging the other config against their band, as the band's formula
    // (mean +- t(0.975, 2) s sqrt(1 + 1/3), t from a table) says from the runs' summaries.
    void aLessonsSeedsAreJudgedInComparisonTxt() {
        QTemporaryDir dir;
        const QString lesson = dir.filePath("band");
        QDir().mkpath(lesson);
        ampscope::test::writeTextFile(lesson + "/scenario.json",
                                      "{\"name\": \"band\", \"summary\": \"is the gap real\",\n"
                                      " \"runs\": [\"base\", \"lr01\"], \"seeds\": {\"base\": 3}}\n");
        ampscope::test::writeTextFile(lesson + "/base.json", kTinyRun);
        nlohmann::json other = nlohmann::json::parse(kTinyRun);
        other["optim"]["lr"] = 0.1;
        ampscope::test::writeTextFile(lesson + "/lr01.json", other.dump().c_str());
        ampscope::test::writeTextFile(lesson + "/narrative.md", "Seeds and a gap.\n");
        const QString out = dir.filePath("out");
        const auto r = runCli({"run", "--lesson", lesson, "--out", out, "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        std::vector<double> losses;
        for (int k = 1; k <= 3; ++k) {
            const QString run = out + QStringLiteral("/base-seed-%1").arg(k);
            QCOMPARE(ampscope::test::readJsonFile(run + "/config.json").at("seed").get<int>(), 7 + k - 1);
            losses.push_back(ampscope::test::readJsonFile(run + "/summary.json").at("val_loss").get<double>());
        }
        const double x = ampscope::test::readJsonFile(out + "/lr01/summary.json").at("val_loss").get<double>();
        const double mean = (losses[0] + losses[1] + losses[2]) / 3.0;
        double ss = 0.0;
        for (double v : losses) ss += (v - mean) * (v - mean);
        const double half = 4.302652729911275 * std::sqrt(ss / 2.0) * std::sqrt(1.0 + 1.0 / 3.0);
        const QString expected = std::abs(x - mean) <= half ? "inside" : "outside";

        const QString table = ampscope::test::readTextFile(out + "/comparison.txt");
        QVERIFY2(table.contains("\nagainst the seed band:\nreference: the seed band of "), qPrintable(table));
        QVERIFY2(table.contains("(3 seeds), mean +- t(0.975, N-1)"), qPrintable(table));
        QVERIFY2(table.contains("\nlr01: val loss " + expected + " (p = "), qPrintable(table));
    }
};

QTEST_GUILESS_MAIN(CliSeedsTest)
#include "test_cli_seeds.moc"
