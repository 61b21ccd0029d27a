// A lesson's "seeds" key: a run trained with N seeds becomes N runs with consecutive seeds,
// named as `ampscope-cli run --seeds` names them, in place of the run; bad values are one
// line each at their line of scenario.json.
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "scenarios/LessonFolder.h"

using namespace ampscope;

namespace {

void write(const QString& path, const std::string& text) { std::ofstream(path.toStdString()) << text; }

const char* kRunConfig =
    "{\"seed\": 40, \"name\": \"spirals-fp32\",\n"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 256},\n"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [16]},\n"
    " \"train\": {\"epochs\": 1, \"batch_size\": 32}}\n";

// A lesson with runs fp32 and bf16 and the given "seeds" value (raw JSON, on line 4).
QString lesson(QTemporaryDir& dir, const std::string& seeds) {
    const QString folder = dir.filePath("band-lesson");
    QDir().mkpath(folder);
    write(folder + "/scenario.json",
          "{\"name\": \"band-lesson\",\n \"summary\": \"is the gap real\",\n \"runs\": [\"fp32\", \"bf16\"],\n" +
              (seeds.empty() ? std::string() : " \"seeds\": " + seeds + ",\n") +
              " \"views\": [{\"id\": \"loss\", \"run\": \"fp32\", \"dock\": \"loss\"}]}\n");
    write(folder + "/fp32.json", kRunConfig);
    std::string bf16 = kRunConfig;
    bf16.replace(bf16.find("\"spirals-fp32\""), 14, "\"spirals-bf16\", \"precision\": {\"mode\": \"bf16\"}");
    write(folder + "/bf16.json", bf16);
    write(folder + "/narrative.md", "Look at the [loss](view:loss).\n");
    return folder;
}

}  // namespace

class ScenarioSeedsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aRunWithSeedsBecomesItsSeeds() {
        QTemporaryDir dir;
        const Scenario s = loadLessonFolder(lesson(dir, "{\"fp32\": 3}").toStdString());
        QCOMPARE(s.runs.size(), std::size_t{4});
        const char* names[] = {"fp32-seed-1", "fp32-seed-2", "fp32-seed-3", "bf16"};
        for (std::size_t i = 0; i < 4; ++i) QCOMPARE(s.runs[i].name, std::string(names[i]));
        for (std::uint64_t k = 0; k < 3; ++k) {
            const ScenarioRun& run = s.runs[k];
            QCOMPARE(run.config.seed, 40 + k);
            QCOMPARE(run.config.name, "spirals-fp32 seed " + std::to_string(40 + k));
            // The text the CLI and the window parse again says the same.
            const nlohmann::json text = nlohmann::json::parse(run.configText);
            QCOMPARE(text.at("seed").get<std::uint64_t>(), 40 + k);
            QCOMPARE(text.at("name").get<std::string>(), run.config.name);
            QCOMPARE(text.at("model").at("hidden"), nlohmann::json::array({16}));
        }
        QCOMPARE(s.runs[3].config.seed, std::uint64_t{40});
        QCOMPARE(s.views.front().run, std::string("fp32-seed-1"));  // the view follows its run
    }

    void noSeedsNoChange() {
        QTemporaryDir dir;
        const Scenario s = loadLessonFolder(lesson(dir, "").toStdString());
        QCOMPARE(s.runs.size(), std::size_t{2});
        QCOMPARE(s.runs[0].name, std::string("fp32"));
    }

    void badSeedsAreOneLineEachAtTheirLine() {
        const std::pair<std::string, std::string> cases[] = {
            {"{\"fp32\": 1}", "scenario.json:4: seeds.fp32 must be a whole number of seeds from 2 to 16 (got 1)"},
            {"{\"fp32\": 17}", "scenario.json:4: seeds.fp32 must be a whole number of seeds from 2 to 16 (got 17)"},
            {"{\"fp32\": 2.5}", "scenario.json:4: seeds.fp32 must be a whole number of seeds from 2 to 16 (got 2.5)"},
            {"{\"fp32\": \"3\"}",
             "scenario.json:4: seeds.fp32 must be a whole number of seeds from 2 to 16 (got \"3\")"},
            {"{\"fp64\": 3}", "scenario.json:4: seeds.fp64: \"fp64\" is not a run of \"runs\""},
            {"3", "scenario.json:4: seeds must be an object {\"RUN\": N, ...} (got 3)"},
        };
        for (const auto& [seeds, expected] : cases) {
            QTemporaryDir dir;
            const LessonCheck check = checkLessonFolder(lesson(dir, seeds).toStdString());
            QCOMPARE(check.problems.size(), std::size_t{1});
            QCOMPARE(check.problems.front().text(), expected);
        }
    }

    void tooManyRunsInAllIsRefused() {
        QTemporaryDir dir;
        const LessonCheck check = checkLessonFolder(lesson(dir, "{\"fp32\": 16, \"bf16\": 16}").toStdString());
        QCOMPARE(check.problems.size(), std::size_t{0});  // 32 runs: within the 64 a lesson may hold
        QTemporaryDir dir2;
        const QString folder = lesson(dir2, "{\"fp32\": 16, \"bf16\": 16}");
        // Two more runs of 16 seeds each: 64 + 2 - 2 = 64, then one more run is 65.
        write(folder + "/scenario.json",
              "{\"name\": \"band-lesson\",\n \"summary\": \"x\",\n \"runs\": [\"fp32\", \"bf16\", \"a\", \"b\", "
              "\"c\"],\n \"seeds\": {\"fp32\": 16, \"bf16\": 16, \"a\": 16, \"b\": 16}}\n");
        for (const char* name : {"a", "b", "c"}) write(folder + "/" + name + ".json", kRunConfig);
        write(folder + "/narrative.md", "No views.\n");
        const LessonCheck many = checkLessonFolder(folder.toStdString());
        QCOMPARE(many.problems.size(), std::size_t{1});
        QCOMPARE(many.problems.front().text(),
                 std::string("scenario.json:4: seeds: 65 runs in all, more than 64 (a lesson compares a few runs, "
                             "not a sweep)"));
    }
};

QTEST_APPLESS_MAIN(ScenarioSeedsTest)
#include "test_scenario_seeds.moc"
