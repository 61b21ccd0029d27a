// Lessons in the window (ScenarioShelf, ScenarioBrowser, LessonDropTarget): a lesson
// folder or lesson file a teacher wrote (docs/guide/lessons.md's example) joins the
// Scenarios dock with where it came from, loads its narrative and first config, and runs
// as a built-in does; saved as a lesson and exported from what is on screen, it opens
// with a fresh home to the same runs and docks; the lessons in the user's data folder are
// listed; one dropped on the window opens. A broken lesson is refused with the line ampscope-cli prints and the
// window stays as it was; a lesson's TorchScript model is loaded only when the trust
// question says yes, asked (with the file and its SHA-256) every time it is loaded.
#include <QCryptographicHash>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QListWidget>
#include <QMimeData>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QUrl>
#include <QtTest/QtTest>

#include "configure/ConfigPanel.h"
#include "window/DockLayout.h"
#include "ExactCompare.h"
#include "LessonSupport.h"
#include "window/MainWindow.h"
#include "lessons/ScenarioBrowser.h"
#include "lessons/ScenarioRunner.h"
#include "lessons/LessonDropTarget.h"
#include "lessons/LessonSaving.h"
#include "lessons/ScenarioShelf.h"
#include "runset/RunSet.h"
#include "scenarios/LessonArchive.h"
#include "scenarios/ScenarioCatalogue.h"

using namespace ampscope;
using ampscope::test::runConfig;
using ampscope::test::writeBytes;
using ampscope::test::writeLesson;
using ampscope::ui::LessonDropTarget;
using ampscope::ui::MainWindow;
using ampscope::ui::MainWindowOptions;
using ampscope::ui::ScenarioShelf;

namespace {

const int kBuiltIns = static_cast<int>(builtInScenarios().size());

QSet<QString> asSet(const QStringList& list) {
    return QSet<QString>(list.begin(), list.end());
}

QStringList listTexts(const MainWindow& window) {
    QStringList texts;
    const QListWidget* list = window.scenarioBrowser()->scenarioList();
    for (int row = 0; row < list->count(); ++row) texts << list->item(row)->text();
    return texts;
}

}  // namespace

class GuiLessonsTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir home_;
    QString unpackRoot_;

    MainWindowOptions options(const QString& runs) {
        MainWindowOptions o;
        o.persistSettings = false;
        o.runsRoot = runs;
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(home_.isValid());
        qputenv("XDG_CONFIG_HOME", home_.filePath("config").toUtf8());
        qputenv("XDG_DATA_HOME", home_.filePath("data").toUtf8());
    }

    void aLessonFolderJoinsTheListAndLoads() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        MainWindow window(options(tmp.filePath("runs")));
        QString error;
        const QString key = window.openLesson(lesson, &error);
        QVERIFY2(!key.isEmpty(), qPrintable(error));
        QCOMPARE(key, QFileInfo(lesson).absoluteFilePath());
        const QStringList texts = listTexts(window);
        QCOMPARE(texts.size(), kBuiltIns + 1);
        QCOMPARE(texts.last(), QString("tiny-lesson (lesson: lesson)"));
        const QListWidget* list = window.scenarioBrowser()->scenarioList();
        QVERIFY(list->item(kBuiltIns)->toolTip().contains("Lesson from " + lesson));
        QVERIFY(list->item(0)->toolTip().endsWith("Built in"));
        QCOMPARE(list->currentRow(), kBuiltIns);
        QCOMPARE(window.scenarioBrowser()->loadedScenario(), key);
        QVERIFY(window.scenarioBrowser()->narrativeView()->toPlainText().contains("A tiny lesson"));
        // The first run's config, its data file found inside the lesson folder.
        QCOMPARE(QString::fromStdString(window.configPanel()->config().data.path),
                 QFileInfo(lesson + "/data/tiny.safetensors").canonicalFilePath());
        QCOMPARE(window.configPanel()->config().precision.mode, std::string("fp32"));

        // Opened again (the teacher edited it): read again, in the same place.
        writeBytes(lesson + "/fp32.json", runConfig("bf16"));
        QCOMPARE(window.openLesson(lesson, &error), key);
        QCOMPARE(listTexts(window).size(), kBuiltIns + 1);
        QCOMPARE(window.configPanel()->config().precision.mode, std::string("bf16"));
    }

    // The lesson as one file, moved away from its folder, trains in the window as a
    // built-in does; its unpacked folder goes with the window.
    void aLessonFileRunsInTheWindow() {
        QTemporaryDir tmp;
        const QString unpack = tmp.filePath("unpack");
        QVERIFY(QDir().mkpath(unpack));
        qputenv("TMPDIR", unpack.toUtf8());
        // Whatever fails below, the next test finds the environment it started with.
        const auto restore = qScopeGuard([this] {
            qunsetenv("TMPDIR");
            qputenv("XDG_CONFIG_HOME", home_.filePath("config").toUtf8());
            qputenv("XDG_DATA_HOME", home_.filePath("data").toUtf8());
        });
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const QString file = tmp.filePath("packed.ampscope-lesson");
        packLesson(lesson.toStdString(), file.toStdString());
        QVERIFY(QDir(lesson).removeRecursively());
        const QString exported = tmp.filePath("tiny.ampscope-lesson");
        QStringList inView;
        QStringList modes;
        {
            MainWindow window(options(tmp.filePath("runs")));
            window.scenarioBrowser()->setOverrides({"train.max_steps=2"});
            QString error;
            const QString key = window.openLesson(file, &error);
            QVERIFY2(!key.isEmpty(), qPrintable(error));
            QCOMPARE(listTexts(window).last(), QString("tiny-lesson (lesson: packed.ampscope-lesson)"));
            QSignalSpy finished(window.scenarioBrowser(), &ui::ScenarioBrowser::scenarioFinished);
            QVERIFY2(window.runScenario(key, &error), qPrintable(error));
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
            QCOMPARE(finished.first().first().toString(), key);
            QCOMPARE(window.scenarioRunner()->runIds().size(), std::size_t(3));
            QCOMPARE(window.scenarioBrowser()->recordedRunDirectories().size(), 3);
            QVERIFY(window.scenarioBrowser()->comparisonTable().contains("bf16"));
            QCOMPARE(QDir(unpack).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 1);

            // Saved as a lesson and exported, from what is on screen.
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            inView = window.dockLayout()->docksInView();
            QVERIFY(inView.contains("loss") && inView.contains("scenarios"));
            QVERIFY2(ui::saveLessonFolder(*window.runSet(), window.dockLayout()->docksInView(), tmp.filePath("saved"), &error),
                     qPrintable(error));
            QVERIFY2(ui::exportLessonFile(*window.runSet(), window.dockLayout()->docksInView(), exported, &error), qPrintable(error));
            for (const ui::RunModel* run : window.runSet()->runs()) modes << QString::fromStdString(run->config().precision.mode);
        }
        QCOMPARE(QDir(unpack).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
        qunsetenv("TMPDIR");

        // Opened with a fresh home, the exported lesson has the same runs in the same modes
        // and brings the same docks to the front; the saved folder is the same lesson.
        qputenv("XDG_CONFIG_HOME", tmp.filePath("fresh/config").toUtf8());
        qputenv("XDG_DATA_HOME", tmp.filePath("fresh/data").toUtf8());
        {
            MainWindow fresh(options(tmp.filePath("runs2")));
            fresh.show();
            QVERIFY(QTest::qWaitForWindowExposed(&fresh));
            QString error;
            const QString key = fresh.openLesson(exported, &error);
            QVERIFY2(!key.isEmpty(), qPrintable(error));
            const Scenario* lesson = fresh.scenarioBrowser()->shelf()->find(key);
            QCOMPARE(lesson->name, std::string("tiny"));
            QStringList lessonModes;
            for (const ScenarioRun& run : lesson->runs) lessonModes << QString::fromStdString(run.config.precision.mode);
            QCOMPARE(lessonModes, modes);
            QTRY_COMPARE(asSet(fresh.dockLayout()->docksInView()), asSet(inView));
            const QString saved = fresh.openLesson(tmp.filePath("saved"), &error);
            QVERIFY2(!saved.isEmpty(), qPrintable(error));
            QCOMPARE(fresh.scenarioBrowser()->shelf()->find(saved)->runs.size(), lesson->runs.size());
        }
    }

    void aBrokenLessonLeavesTheWindowAsItWas() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        writeBytes(lesson + "/fp32.json",
                   runConfig("fp32", "data/tiny.safetensors", "{\"name\": \"mlp\", \"hidden\": [8]}", "-1"));
        MainWindow window(options(tmp.filePath("runs")));
        QVERIFY(window.loadScenario("fp16-no-scaler"));
        QString error;
        QVERIFY(window.openLesson(lesson, &error).isEmpty());
        // The line ampscope-cli run --lesson prints (after its "ampscope-cli: ").
        QCOMPARE(error, lesson + "/fp32.json:7: optim.lr: must be in (0, 10] (got -1)");
        QCOMPARE(listTexts(window).size(), kBuiltIns);
        QCOMPARE(window.scenarioBrowser()->loadedScenario(), QString("fp16-no-scaler"));
        QCOMPARE(window.configPanel()->config().precision.mode, std::string("fp16"));

        const QString notZip = tmp.filePath("noise.ampscope-lesson");
        writeBytes(notZip, QByteArray(64, 'x'));
        QVERIFY(window.openLesson(notZip, &error).isEmpty());
        QCOMPARE(error, notZip + ": not a zip file (no end of central directory record)");
        QCOMPARE(listTexts(window).size(), kBuiltIns);
    }

    void aModelIsLoadedOnlyWhenTrusted() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        const QByteArray model = "not a TorchScript archive: nothing may open it unless trusted";
        writeBytes(lesson + "/models/net.pt", model);
        writeBytes(lesson + "/fp16.json", runConfig("fp16", "data/tiny.safetensors",
                                                    "{\"name\": \"torchscript\", \"path\": \"models/net.pt\"}"));
        MainWindow window(options(tmp.filePath("runs")));
        int asked = 0;
        bool answer = false;
        std::vector<LessonModel> shown;
        window.scenarioBrowser()->setModelTrust([&](const QString& name, const std::vector<LessonModel>& models) {
            ++asked;
            shown = models;
            return name == "tiny-lesson" && answer;
        });
        QString error;
        QVERIFY(window.openLesson(lesson, &error).isEmpty());
        QCOMPARE(asked, 1);
        QCOMPARE(shown.size(), std::size_t(1));
        const QString path = QFileInfo(lesson + "/models/net.pt").canonicalFilePath();
        const QString sha = QCryptographicHash::hash(model, QCryptographicHash::Sha256).toHex();
        QCOMPARE(QString::fromStdString(shown.front().run), QString("fp16"));
        QCOMPARE(QString::fromStdString(shown.front().path), path);
        QCOMPARE(QString::fromStdString(shown.front().sha256), sha);
        QCOMPARE(error, "Lesson tiny-lesson not loaded: its TorchScript model " + path + " (SHA-256 " + sha +
                            ") runs code as you, and was not trusted.");
        QVERIFY(window.scenarioBrowser()->loadedScenario().isEmpty());

        // Asked again on the next load: the answer is not remembered either way.
        const QString key = QFileInfo(lesson).absoluteFilePath();
        answer = true;
        QVERIFY2(window.loadScenario(key, &error), qPrintable(error));
        QCOMPARE(asked, 2);
        QCOMPARE(window.scenarioBrowser()->loadedScenario(), key);
        QVERIFY(window.loadScenario("fp16-no-scaler"));
        QCOMPARE(asked, 2);  // a built-in has no model to ask about
        answer = false;
        QVERIFY(!window.loadScenario(key, &error));
        QCOMPARE(asked, 3);
        QCOMPARE(window.scenarioBrowser()->loadedScenario(), QString("fp16-no-scaler"));
    }

    // ~/.local/share/ampscope/lessons: each lesson folder and lesson file is listed, a
    // broken one is one line, other files are not lessons.
    void theUsersLessonsAreListed() {
        QTemporaryDir tmp;
        const QString lessons = ScenarioShelf::userLessonFolder();
        QCOMPARE(lessons, home_.filePath("data") + "/ampscope/lessons");
        writeLesson(lessons + "/a-folder");
        writeLesson(tmp.filePath("packed"));
        packLesson(tmp.filePath("packed").toStdString(), (lessons + "/b.ampscope-lesson").toStdString());
        writeLesson(lessons + "/c-broken");
        QVERIFY(QFile::remove(lessons + "/c-broken/narrative.md"));
        writeBytes(lessons + "/README.txt", "my lessons");
        MainWindow window(options(tmp.filePath("runs")));
        QCOMPARE(listTexts(window).size(), kBuiltIns);  // without persistSettings, not read
        const QStringList refused = window.scenarioBrowser()->shelf()->openLessonsIn(lessons);
        QCOMPARE(refused.size(), 1);
        QVERIFY2(refused.first().startsWith(lessons + "/c-broken/narrative.md"), qPrintable(refused.first()));
        const QStringList texts = listTexts(window);
        QCOMPARE(texts.mid(kBuiltIns),
                 (QStringList{"tiny-lesson (lesson: a-folder)", "tiny-lesson (lesson: b.ampscope-lesson)"}));
        QVERIFY(QDir(lessons).removeRecursively());
    }

    void aDroppedLessonOpens() {
        QTemporaryDir tmp;
        const QString lesson = tmp.filePath("lesson");
        writeLesson(lesson);
        QVERIFY(QDir().mkpath(tmp.filePath("plain")));
        const auto carrying = [](const QString& path) {
            auto* data = new QMimeData;
            data->setUrls({path.startsWith("https:") ? QUrl(path) : QUrl::fromLocalFile(path)});
            return data;
        };
        std::unique_ptr<QMimeData> folder(carrying(lesson));
        QCOMPARE(LessonDropTarget::lessonIn(folder.get()), QFileInfo(lesson).absoluteFilePath());
        std::unique_ptr<QMimeData> plain(carrying(tmp.filePath("plain")));
        QCOMPARE(LessonDropTarget::lessonIn(plain.get()), QString());
        std::unique_ptr<QMimeData> remote(carrying("https://example.org/x.ampscope-lesson"));
        QCOMPARE(LessonDropTarget::lessonIn(remote.get()), QString());
        std::unique_ptr<QMimeData> config(carrying(lesson + "/fp32.json"));
        QCOMPARE(LessonDropTarget::lessonIn(config.get()), QString());

        MainWindow window(options(tmp.filePath("runs")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.acceptDrops());
        // As a drag delivers it: the enter makes the window the drop's target, then the drop.
        QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, folder.get(), Qt::LeftButton, Qt::NoModifier);
        enter.ignore();  // taken only if the window takes it
        QCoreApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(100, 100), Qt::CopyAction, folder.get(), Qt::LeftButton, Qt::NoModifier);
        drop.ignore();
        QCoreApplication::sendEvent(&window, &drop);
        QVERIFY(drop.isAccepted());
        QCOMPARE(listTexts(window).size(), kBuiltIns + 1);
        QCOMPARE(window.scenarioBrowser()->loadedScenario(), QFileInfo(lesson).absoluteFilePath());
        // Another drop is not taken: it is not a lesson.
        QDragEnterEvent otherEnter(QPoint(100, 100), Qt::CopyAction, plain.get(), Qt::LeftButton, Qt::NoModifier);
        otherEnter.ignore();
        QCoreApplication::sendEvent(&window, &otherEnter);
        QVERIFY(!otherEnter.isAccepted());
        QCOMPARE(listTexts(window).size(), kBuiltIns + 1);
    }
};

QTEST_MAIN(GuiLessonsTest)
#include "test_gui_lessons.moc"
