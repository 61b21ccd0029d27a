// Run naming (core/run/RunNaming.h): the one rule the window, ampscope-cli and
// ampscope's headless path use for a run's name and for a new run's directory.
#include <QtCore/QDir>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cstdlib>
#include <ctime>
#include <string>

#include "ExactCompare.h"
#include "config/RunConfig.h"
#include "run/RunNaming.h"

using namespace ampscope;

class RunNamingTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        // Timestamps are local time: pin the zone so the expected text is exact.
        setenv("TZ", "UTC", 1);
        tzset();
    }

    void aConfigWithoutANameGoesByModelAndMode() {
        RunConfig c;
        c.model.name = "mlp";
        c.precision.mode = "bf16";
        QCOMPARE(defaultRunName(c), std::string("mlp-bf16"));
        QCOMPARE(runName(c), std::string("mlp-bf16"));
        c.name = "my run";
        QCOMPARE(runName(c), std::string("my run"));
        QCOMPARE(defaultRunName(c), std::string("mlp-bf16"));  // the placeholder stays
        QCOMPARE(runName(RunConfig{}), std::string("simple_cnn-fp32"));  // RunConfig's defaults
    }

    void fileSafeNamesKeepOnlyPortableCharacters_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("safe");
        QTest::newRow("portable kept") << "fp16-scaler_v2.1" << "fp16-scaler_v2.1";
        QTest::newRow("slash, blank, question mark") << "fp16 / no scaler?" << "fp16---no-scaler-";
        QTest::newRow("one dash per non-ASCII letter") << QString::fromUtf8("\xC3\xA9t\xC3\xA9") << "-t-";
        QTest::newRow("four-byte code point") << QString::fromUtf8("a\xF0\x9F\x98\x80z") << "a-z";
        QTest::newRow("empty") << "" << "run";
    }

    void fileSafeNamesKeepOnlyPortableCharacters() {
        QFETCH(QString, name);
        QFETCH(QString, safe);
        QCOMPARE(QString::fromStdString(fileSafeRunName(name.toStdString())), safe);
    }

    void timestampsSortAndHoldNoColons() {
        // 2026-01-02 03:04:05 UTC is 1767323045 s after the epoch.
        QCOMPARE(runTimestamp(1767323045), std::string("2026-01-02T03-04-05"));
        QCOMPARE(runTimestamp(0), std::string("1970-01-01T00-00-00"));
    }

    void aNewRunNeverLandsInAnOldDirectory() {
        QTemporaryDir root;
        const std::string parent = root.path().toStdString();
        const std::string first = newRunDirectory(parent, "fp16 / no scaler?", 1767323045);
        QCOMPARE(first, parent + "/2026-01-02T03-04-05-fp16---no-scaler-");
        QCOMPARE(newRunDirectory(parent, "fp16 / no scaler?", 1767323045), first);  // nothing there yet
        QVERIFY(QDir().mkpath(QString::fromStdString(first)));
        QCOMPARE(newRunDirectory(parent, "fp16 / no scaler?", 1767323045), first + "-2");
        QVERIFY(QDir().mkpath(QString::fromStdString(first + "-2")));
        QCOMPARE(newRunDirectory(parent, "fp16 / no scaler?", 1767323045), first + "-3");
        // A second later is a different directory again.
        QCOMPARE(newRunDirectory(parent, "amp-sanity", 1767323046), parent + "/2026-01-02T03-04-06-amp-sanity");
    }
};

QTEST_MAIN(RunNamingTest)
#include "test_run_naming.moc"
