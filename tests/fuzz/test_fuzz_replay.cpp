// Replays the fuzz targets' seed corpus and every input a fuzzer ever flagged
// (tests/fuzz/corpus/TARGET, tests/fuzz/regressions/TARGET) through the same
// harness code, built with the project's compiler: the regressions stay fixed
// in every build, sanitized or not, without clang or libFuzzer. A harness
// aborts (FUZZ_CHECK) when a parser breaks its contract.
// Also the inputs too large for the fuzzers' length limit that crashed a parser:
// JSON nested 100000 levels deep (copying or dumping it overflowed the stack).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>  // before the fuzz targets are included into namespaces
#include <unistd.h>
#include <zlib.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ExactCompare.h"
#include "TestSupport.h"
#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "data/IdxReader.h"
#include "data/SafetensorsFile.h"
#include "fuzz/FuzzSupport.h"
#include "run/RunFollower.h"
#include "run/RunReader.h"

// Each harness defines LLVMFuzzerTestOneInput; here each gets a name of its own.
namespace replay_config {
#define LLVMFuzzerTestOneInput replayConfig
#include "fuzz/fuzz_config.cpp"
#undef LLVMFuzzerTestOneInput
}  // namespace replay_config
namespace replay_config_override {
#define LLVMFuzzerTestOneInput replayConfigOverride
#include "fuzz/fuzz_config_override.cpp"
#undef LLVMFuzzerTestOneInput
}  // namespace replay_config_override
namespace replay_idx {
#define LLVMFuzzerTestOneInput replayIdx
#include "fuzz/fuzz_idx.cpp"
#undef LLVMFuzzerTestOneInput
}  // namespace replay_idx
namespace replay_safetensors {
#define LLVMFuzzerTestOneInput replaySafetensors
#include "fuzz/fuzz_safetensors.cpp"
#undef LLVMFuzzerTestOneInput
}  // namespace replay_safetensors
namespace replay_run_reader {
#define LLVMFuzzerTestOneInput replayRunReader
#include "fuzz/fuzz_run_reader.cpp"
#undef LLVMFuzzerTestOneInput
}  // namespace replay_run_reader

namespace {

using Harness = int (*)(const uint8_t*, size_t);

int replayDirectory(const QString& dir, Harness harness) {
    int count = 0;
    const QDir folder(dir);
    for (const QString& name : folder.entryList(QDir::Files, QDir::Name)) {
        QFile file(folder.filePath(name));
        if (!file.open(QIODevice::ReadOnly)) continue;
        const QByteArray bytes = file.readAll();
        harness(reinterpret_cast<const uint8_t*>(bytes.constData()),
                static_cast<size_t>(bytes.size()));
        ++count;
    }
    return count;
}

std::string nested(int depth) {
    return std::string(static_cast<size_t>(depth), '[') +
           std::string(static_cast<size_t>(depth), ']');
}

std::string errorOf(const std::function<void()>& action) {
    try {
        action();
    } catch (const ampscope::InputError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

class FuzzReplayTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void corpusAndRegressions_data() {
        QTest::addColumn<QString>("target");
        QTest::newRow("config") << "config";
        QTest::newRow("config_override") << "config_override";
        QTest::newRow("idx") << "idx";
        QTest::newRow("run_reader") << "run_reader";
        QTest::newRow("safetensors") << "safetensors";
    }
    void corpusAndRegressions() {
        QFETCH(QString, target);
        const QString root = QString::fromStdString(ampscope::test::sourceDir()) + "/tests/fuzz/";
        Harness harness = target == "config" ? replay_config::replayConfig
                          : target == "config_override"
                              ? replay_config_override::replayConfigOverride
                          : target == "idx"         ? replay_idx::replayIdx
                          : target == "safetensors" ? replay_safetensors::replaySafetensors
                                                    : replay_run_reader::replayRunReader;
        const int seeds = replayDirectory(root + "corpus/" + target, harness);
        const int regressions = replayDirectory(root + "regressions/" + target, harness);
        qInfo("%s: %d seeds, %d regressions replayed", qPrintable(target), seeds, regressions);
        QVERIFY2(seeds > 0, "no seed corpus found (AMPSCOPE_SOURCE_DIR?)");
    }

    // The safetensors seeds start near the format: "valid" must open, or the fuzzer would
    // mutate a file that fails its first check.
    void safetensorsSeedIsValid() {
        const std::string seed =
            ampscope::test::sourceDir() + "/tests/fuzz/corpus/safetensors/valid";
        const ampscope::SafetensorsFile file(seed);
        QCOMPARE(file.entries().size(), std::size_t{8});
        QCOMPARE(file.metadata().at("format"), std::string("pt"));
    }

    // ---- deep nesting: crashed (stack overflow) before the limit ----------------------
    void deepConfigFileIsRefused() {
        const std::string text = "{\"optim\": {\"lr\": " + nested(100000) + "}}";
        const ampscope::fuzz::MemoryFile file(text);
        const std::string error = errorOf([&] { ampscope::loadConfigFile(file.path()); });
        QVERIFY2(
            error.find(": nested deeper than 64 levels (line 1, column 80)") != std::string::npos,
            error.c_str());
        // 64 levels still load (and fail as the wrong type they are).
        const ampscope::fuzz::MemoryFile fine("{\"optim\": {\"lr\": " + nested(62) + "}}");
        const std::string typeError = errorOf([&] { ampscope::loadConfigFile(fine.path()); });
        QVERIFY2(typeError.find("optim.lr: expected a number") != std::string::npos,
                 typeError.c_str());
    }
    void deepOverrideValueIsRefused() {
        nlohmann::json document = nlohmann::json::object();
        const std::string error =
            errorOf([&] { ampscope::applyOverride(document, "optim.lr=" + nested(100000)); });
        QVERIFY2(error.find("the value is nested deeper than 64 levels") != std::string::npos,
                 error.substr(0, 200).c_str());
        // A string field takes the text as it is: nothing nested is built.
        QVERIFY(
            errorOf([&] { ampscope::applyOverride(document, "name=" + nested(100000)); }).empty());
    }
    void deepRunDirectoryFilesAreRefusedOrSkipped() {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        std::ofstream(dir + "/config.json") << "{\"schema_version\": 1}";
        std::ofstream(dir + "/events.jsonl")
            << "{\"type\":\"run_start\",\"schema_version\":1}\n{\"type\":\"x\",\"v\":"
            << nested(100000) << "}\n{\"type\":\"step\",\"step\":1}\n";
        std::ofstream(dir + "/summary.json") << "{\"v\":" << nested(100000) << "}";
        const ampscope::RunData run = ampscope::readRunDirectory(dir);
        QCOMPARE(run.events.size(), size_t{2});
        QCOMPARE(run.skipped_lines, 1);
        QVERIFY(!run.complete);
        const ampscope::RunData copy = run;  // what crashed: consumers copy records
        QCOMPARE(copy.events.size(), size_t{2});

        std::ofstream(dir + "/config.json")
            << "{\"schema_version\": 1, \"v\": " << nested(100000) << "}";
        const std::string error = errorOf([&] { ampscope::readRunDirectory(dir); });
        QVERIFY2(
            error == dir + "/config.json: nested deeper than 64 levels — not an AmpScope config",
            error.c_str());
    }

    // ---- fuzz_run_reader, 265845 executions in: a number beyond double in config.json
    // threw nlohmann's out_of_range (not an InputError) out of readRunDirectory.
    void configNumberOverflowIsAnInputError() {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        std::ofstream(dir + "/config.json")
            << "{\"schema_version\": 1, \"seed\": 666666666666e6666666666}";
        const std::string error = errorOf([&] { ampscope::readRunDirectory(dir); });
        QVERIFY2(error == dir +
                              "/config.json: not valid JSON (number overflow parsing "
                              "'666666666666e6666666666')",
                 error.c_str());
    }

    // ---- messages stay one line --------------------------------------------------------
    void aKeyWithANewlineIsQuoted() {
        const std::string error = errorOf(
            [] { ampscope::configFromJson(nlohmann::json::parse("{\"optim\": {\"l\\nr\": 1}}")); });
        QVERIFY2(error.rfind("optim.\"l\\nr\": unknown key (allowed: ", 0) == 0, error.c_str());
        QVERIFY(error.find('\n') == std::string::npos);
        nlohmann::json document = nlohmann::json::parse("{\"a\\u0000b\": 1}");
        const std::string overrideError =
            errorOf([&] { ampscope::applyOverride(document, "nope=1"); });
        QVERIFY2(overrideError.find("\"a\\u0000b\"") != std::string::npos, overrideError.c_str());
    }

    // ---- schema versions beyond int ---------------------------------------------------
    void hugeSchemaVersionsReadAsNewer() {
        QTemporaryDir tmp;
        const std::string dir = tmp.path().toStdString();
        std::ofstream(dir + "/config.json") << "{\"schema_version\": 1}";
        // 4294967298 wrapped to 2 through get<int>(); 4294967297 to 1, read as current.
        std::ofstream(dir + "/events.jsonl")
            << "{\"type\":\"run_start\",\"schema_version\":4294967297}\n";
        const ampscope::RunData run = ampscope::readRunDirectory(dir);
        QCOMPARE(run.warnings.size(), size_t{1});
        QVERIFY2(run.warnings[0].find("schema_version 4294967297 is newer") != std::string::npos,
                 run.warnings[0].c_str());
        // 2^64-1 came out as -1 through get<long long>(): "-1 is not valid".
        std::ofstream(dir + "/config.json") << "{\"schema_version\": 18446744073709551615}";
        const std::string error = errorOf([&] { ampscope::readRunDirectory(dir); });
        QVERIFY2(error.find("schema_version 18446744073709551615 is newer") != std::string::npos,
                 error.c_str());
    }
};

QTEST_GUILESS_MAIN(FuzzReplayTest)
#include "test_fuzz_replay.moc"
