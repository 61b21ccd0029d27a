// Writing a lesson folder from what a window shows (core/scenarios/LessonWriter.h): the
// folder reads back as a valid lesson (the same reader check-lesson uses) with every run's
// config field for field, its own copies of the files the runs read, the docks in view as
// its docks and views (on the focused run), and a narrative linking each view. A draft
// that cannot make a lesson is one line, and leaves nothing written.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "LessonSupport.h"
#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "scenarios/LessonFolder.h"
#include "scenarios/LessonWriter.h"

namespace {

using namespace ampscope;

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A run config on the safetensors file `data` (absolute), in `mode`.
RunConfig tensorsRun(const QString& data, const std::string& mode) {
    RunConfig config;
    config.data.dataset = "tensors";
    config.data.path = data.toStdString();
    config.data.inputs = "x";
    config.data.targets = "y";
    config.data.validation = "split";
    config.data.val_fraction = 0.25;
    config.model.name = "mlp";
    config.model.hidden = {8};
    config.precision.mode = mode;
    config.optim.lr = 0.02;
    config.train.batch_size = 8;
    config.train.max_steps = 5;
    config.seed = 7;
    return config;
}

// Every field but the file paths, which the lesson rewrites to its copies.
nlohmann::json withoutPaths(const RunConfig& config) {
    nlohmann::json json = configToJson(config);
    json["data"].erase("path");
    json["model"].erase("path");
    return json;
}

}  // namespace

class LessonWriterTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aDraftReadsBackAsTheSameLesson() {
        QTemporaryDir tmp;
        const QString data = tmp.filePath("outside/tiny.safetensors");
        ampscope::test::writeBytes(data, ampscope::test::tinySafetensors());
        const QString model = tmp.filePath("outside/net.pt");
        ampscope::test::writeBytes(model, "a model file: copied, never loaded");
        RunConfig scripted = tensorsRun(data, "fp16");
        scripted.model.name = "torchscript";
        scripted.model.path = model.toStdString();

        LessonDraft draft;
        draft.name = "saved lesson";
        draft.summary = "three runs side by side";
        draft.runs = {{"fp32 run", tensorsRun(data, "fp32")}, {"bf16/run", tensorsRun(data, "bf16")},
                      {"fp32 run", scripted}};
        draft.docks = {"loss", "no-such-dock", "histograms"};
        draft.focusedRun = "bf16/run";
        const QString folder = tmp.filePath("lesson");
        const Scenario lesson = writeLessonFolder(folder.toStdString(), draft);

        // Read again from the disk, as check-lesson reads it.
        const LessonCheck check = checkLessonFolder(folder.toStdString());
        QVERIFY(check.problems.empty());
        QCOMPARE(check.lesson->name, std::string("saved lesson"));
        QCOMPARE(check.lesson->summary, std::string("three runs side by side"));
        std::vector<std::string> names;
        for (const ScenarioRun& run : check.lesson->runs) names.push_back(run.name);
        QCOMPARE(names, (std::vector<std::string>{"fp32-run", "bf16-run", "fp32-run-2"}));
        for (std::size_t i = 0; i < names.size(); ++i)
            QCOMPARE(withoutPaths(check.lesson->runs[i].config).dump(), withoutPaths(draft.runs[i].config).dump());

        // One copy of the shared data file, one of the model, inside the folder.
        const QString copy = QFileInfo(folder + "/data/tiny.safetensors").canonicalFilePath();
        QCOMPARE(readAll(copy), readAll(data));
        for (const ScenarioRun& run : check.lesson->runs)
            QCOMPARE(QString::fromStdString(run.config.data.path), copy);
        QCOMPARE(QString::fromStdString(check.lesson->runs[2].config.model.path),
                 QFileInfo(folder + "/models/net.pt").canonicalFilePath());
        QCOMPARE(readAll(folder + "/models/net.pt"), readAll(model));
        QCOMPARE(QDir(folder + "/data").entryList(QDir::Files), QStringList{"tiny.safetensors"});
        // The run configs name the copies relative to the folder (the lesson can move).
        const auto fp32 = nlohmann::json::parse(readAll(folder + "/fp32-run.json").toStdString());
        QCOMPARE(fp32["data"]["path"].get<std::string>(), std::string("data/tiny.safetensors"));

        // The docks in view (an unknown one dropped), each a view on the focused run.
        QCOMPARE(check.lesson->docks, (std::vector<std::string>{"loss", "histograms"}));
        QCOMPARE(check.lesson->views.size(), std::size_t(2));
        for (const ScenarioView& view : check.lesson->views) {
            QCOMPARE(view.id, view.dock);
            QCOMPARE(view.run, std::string("bf16-run"));
        }
        QCOMPARE(narrativeViewLinks(check.lesson->narrative), (std::vector<std::string>{"loss", "histograms"}));
        QCOMPARE(lesson.runs.size(), std::size_t(3));
    }

    void whatCannotBeALessonLeavesNothing() {
        QTemporaryDir tmp;
        const QString data = tmp.filePath("tiny.safetensors");
        ampscope::test::writeBytes(data, ampscope::test::tinySafetensors());
        LessonDraft draft;
        draft.name = "x";
        draft.runs = {{"a", tensorsRun(data, "fp32")}};

        // A folder in use is not written into.
        const QString used = tmp.filePath("used");
        ampscope::test::writeBytes(used + "/notes.txt", "mine");
        try {
            writeLessonFolder(used.toStdString(), draft);
            QFAIL("wrote into a folder that held a file");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromUtf8(error.what()), used + ": not an empty folder (a lesson is written into a new one)");
        }
        QCOMPARE(QDir(used).entryList(QDir::Files), QStringList{"notes.txt"});

        // A run whose data file is gone: one line naming it, the new folder removed.
        LessonDraft missing = draft;
        missing.runs = {{"a", tensorsRun(data, "fp32")}, {"b", tensorsRun(tmp.filePath("gone.safetensors"), "bf16")}};
        const QString folder = tmp.filePath("new");
        try {
            writeLessonFolder(folder.toStdString(), missing);
            QFAIL("wrote a lesson whose data file is missing");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromUtf8(error.what()),
                     tmp.filePath("gone.safetensors") + ": not a file, so the lesson cannot hold a copy of it");
        }
        QVERIFY(!QFileInfo::exists(folder));

        LessonDraft empty = draft;
        empty.runs.clear();
        try {
            writeLessonFolder(folder.toStdString(), empty);
            QFAIL("wrote a lesson without runs");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromUtf8(error.what()), folder + ": a lesson needs a run (the Runs list is empty)");
        }
        QVERIFY(!QFileInfo::exists(folder));
    }
};

QTEST_GUILESS_MAIN(LessonWriterTest)
#include "test_lesson_writer.moc"
