// The bad-input table (docs/bad-input.md), row by row, through the real ampscope-cli (and,
// for run directories, which no CLI command reads yet, through
// readRunDirectory): bad input exits 2 with one line naming the field or the
// file and the problem; a disk that fails mid-run exits 1 naming events.jsonl
// and keeps what was written; kill -9 mid-run leaves a directory that loads.
//
// docs/bad-input.md is this suite's output: with AMPSCOPE_BAD_INPUT_TABLE=FILE
// in the environment every row appends "section<TAB>input<TAB>exit<TAB>line" to
// FILE (temporary paths written as $TMP); tests/bad-input-table.py renders it.
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtTest/QtTest>
#include <atomic>
#include <csignal>
#include <thread>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include <torch/version.h>

#include "ExactCompare.h"
#include "SshServer.h"
#include "TestSupport.h"
#include "config/ActivationEstimate.h"
#include "common/InputError.h"
#include "run/RunReader.h"

using ampscope::InputError;
using ampscope::readRunDirectory;
using ampscope::RunData;

namespace {

// ---- running the CLI ---------------------------------------------------------------

using ampscope::test::CliResult;

// The child modifier goes first here: most calls of this suite limit the child.
CliResult runCli(const QStringList& args, const std::function<void()>& inChild = {}) {
    return ampscope::test::runCli(args, 180000, inChild);
}

bool isOneLine(const QString& text) {
    return !text.trimmed().isEmpty() && text.trimmed().count('\n') == 0;
}

// Why a file saved by a newer PyTorch is no bad input on this build, from the manifest
// beside it (what each LibTorch did with it); "" where this LibTorch refuses it.
QString loadsOnThisLibTorch(const QString& path) {
    const QString version = QString("%1.%2").arg(TORCH_VERSION_MAJOR).arg(TORCH_VERSION_MINOR);
    QFile file(QFileInfo(path).dir().filePath("manifest.json"));
    if (!file.open(QIODevice::ReadOnly)) return "no manifest beside " + path;
    const auto manifest = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
    const auto name = QFileInfo(path).fileName().toStdString();
    nlohmann::json record;
    if (manifest.is_object() && manifest.contains("files") && manifest["files"].contains(name))
        record = manifest["files"][name].value("libtorch", nlohmann::json::object()).value(version.toStdString(),
                                                                                          nlohmann::json());
    if (!record.is_object()) return "the manifest records nothing of LibTorch " + version + " for " + path;
    return record.value("loads", false) ? "LibTorch " + version + " loads " + path : QString();
}

// ---- the table -----------------------------------------------------------------------

// Appends one row to $AMPSCOPE_BAD_INPUT_TABLE (when set), temporary paths as $TMP.
void note(const QString& section, const QString& input, const QString& exit, QString line,
          const QString& tmp) {
    const char* file = std::getenv("AMPSCOPE_BAD_INPUT_TABLE");
    if (!file || !*file) return;
    if (!tmp.isEmpty()) line.replace(tmp, "$TMP");
    line = line.trimmed();
    line.replace('\t', ' ');
    line.replace('\n', " | ");
    QFile out(QString::fromLocal8Bit(file));
    if (!out.open(QIODevice::Append | QIODevice::Text)) return;
    out.write((section + '\t' + input + '\t' + exit + '\t' + line + '\n').toUtf8());
}

// ---- files -------------------------------------------------------------------------

// A run that failed on its data after the engine opened the run directory: the
// directory loads, says status error, and holds the error the CLI printed.
void verifyErrorRecorded(const QString& out, const QString& printed) {
    const RunData run = readRunDirectory(out.toStdString());
    QVERIFY(run.complete);
    QCOMPARE(QString::fromStdString(run.summary->value("status", "")), QString("error"));
    bool recorded = false;
    for (const auto& record : run.events)
        if (record.value("type", "") == "error")
            recorded = printed.contains(QString::fromStdString(record.value("message", "")));
    QVERIFY2(recorded, "the error is not in events.jsonl");
}


void writeBytes(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    file.write(bytes);
}

QByteArray idx(const std::vector<uint32_t>& dims, const QByteArray& payload, uint8_t type = 0x08) {
    QByteArray bytes;
    bytes.append('\0')
        .append('\0')
        .append(static_cast<char>(type))
        .append(static_cast<char>(dims.size()));
    for (const uint32_t dim : dims)
        for (int shift = 24; shift >= 0; shift -= 8)
            bytes.append(static_cast<char>((dim >> shift) & 0xff));
    return bytes + payload;
}

// Deterministic bytes that deflate cannot shrink much, so that a byte flipped
// in the middle of the .gz lands in compressed data.
QByteArray noise(int size, uint32_t seed) {
    QByteArray bytes(size, '\0');
    for (int i = 0; i < size; ++i) {
        seed = seed * 1664525u + 1013904223u;
        bytes[i] = static_cast<char>(seed >> 24);
    }
    return bytes;
}

QByteArray gzip(const QByteArray& content) {
    z_stream stream{};
    deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(static_cast<int>(deflateBound(&stream, content.size())) + 32, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(content.data()));
    stream.avail_in = static_cast<uInt>(content.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(static_cast<int>(stream.total_out));
    deflateEnd(&stream);
    return out;
}

constexpr uint32_t kSamples = 40, kSide = 4;
QByteArray goodImages() {
    return idx({kSamples, kSide, kSide}, noise(kSamples * kSide * kSide, 7));
}
QByteArray goodLabels() {
    QByteArray labels;
    for (uint32_t i = 0; i < kSamples; ++i) labels.append(static_cast<char>(i % 10));
    return idx({kSamples}, labels);
}

// A safetensors file from its header text and data: the 8-byte little-endian length first.
QByteArray safetensorsFile(const QByteArray& header, const QByteArray& data) {
    QByteArray bytes;
    for (int i = 0; i < 8; ++i)
        bytes.append(static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * i)) & 0xff));
    return bytes + header + data;
}

// The header of the tensors rows: x (F32 [40, 4], 640 bytes) then y (I64 [40], 320 bytes),
// with the parts a row breaks as arguments.
QByteArray tensorsHeader(const QByteArray& xDtype = "F32", const QByteArray& xShape = "[40,4]",
                         const QByteArray& yShape = "[40]", uint64_t yBegin = 640,
                         uint64_t yEnd = 960) {
    return "{\"__metadata__\":{\"format\":\"pt\"},\"x\":{\"dtype\":\"" + xDtype +
           "\",\"shape\":" + xShape + ",\"data_offsets\":[0,640]},\"y\":{\"dtype\":\"I64\","
           "\"shape\":" + yShape + ",\"data_offsets\":[" + QByteArray::number(qulonglong(yBegin)) +
           "," + QByteArray::number(qulonglong(yEnd)) + "]}}";
}

const char* kImages = "train-images-idx3-ubyte";
const char* kLabels = "train-labels-idx1-ubyte";

// A small run that trains for a moment: the base of config rows given by --set.
const char* kTinyRun =
    "{\"threads\": 1,"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 256, \"validation\": \"split\","
    " \"val_fraction\": 0.25},"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [16]},"
    " \"optim\": {\"lr\": 0.01},"
    " \"train\": {\"epochs\": 1, \"batch_size\": 32}}";

// A run long enough to be killed or to fill a small disk while it trains.
const char* kLongRun =
    "{\"threads\": 1,"
    " \"data\": {\"dataset\": \"spirals\", \"synthetic_samples\": 2048, \"validation\": \"split\","
    " \"val_fraction\": 0.25},"
    " \"model\": {\"name\": \"mlp\", \"hidden\": [32, 32]},"
    " \"optim\": {\"lr\": 0.01},"
    " \"train\": {\"epochs\": 100000, \"batch_size\": 32}}";

std::string nested(int depth) {
    return std::string(static_cast<size_t>(depth), '[') +
           std::string(static_cast<size_t>(depth), ']');
}

// Placeholders in data rows: $TMP (the row's temporary directory), $CONFIG (a
// valid config in it), $OUT (a fresh output directory in it).
QStringList expand(QStringList args, const QString& tmp) {
    for (QString& arg : args) {
        arg.replace("$CONFIG", tmp + "/config.json");
        arg.replace("$OUT", tmp + "/run");
        arg.replace("$TMP", tmp);
    }
    return args;
}

// The steps of a loaded run must be 1, 2, 3, ... without a hole.
QString checkStepsAreWhole(const RunData& run) {
    int64_t expected = 1;
    for (const auto& record : run.events) {
        if (record.value("type", "") != "step") continue;
        const int64_t step = record.value("step", int64_t{-1});
        if (step != expected)
            return QString("step %1 where %2 was expected").arg(step).arg(expected);
        ++expected;
    }
    return {};
}

int64_t countSteps(const RunData& run) {
    int64_t steps = 0;
    for (const auto& record : run.events) steps += record.value("type", "") == "step";
    return steps;
}

}  // namespace

class CliBadInputTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ---- config files ------------------------------------------------------------
    // The file holds the bad value; the CLI names the file, the field and the problem.
    void configFiles_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not JSON") << "{ this is not json"
                                  << "not valid JSON (line 1, column 4";
        QTest::newRow("empty file") << ""
                                    << "not valid JSON";
        QTest::newRow("JSON, not an object") << "[1, 2, 3]"
                                             << "expected a JSON object";
        QTest::newRow("text where an integer is expected") << "{\"train\": {\"epochs\": \"two\"}}"
                                                           << "train.epochs: expected an integer";
        QTest::newRow("a fraction where an integer is expected")
            << "{\"train\": {\"batch_size\": 2.5}}"
            << "train.batch_size: expected an integer";
        QTest::newRow("text where a number is expected") << "{\"optim\": {\"lr\": \"fast\"}}"
                                                         << "optim.lr: expected a number";
        QTest::newRow("a number where a list is expected") << "{\"model\": {\"hidden\": 64}}"
                                                           << "model.hidden: expected an array";
        QTest::newRow("a string where true/false is expected")
            << "{\"data\": {\"normalize\": \"yes\"}}"
            << "data.normalize: expected true or false";
        QTest::newRow("a list where a section is expected") << "{\"optim\": [0.1]}"
                                                            << "optim: expected an object";
        QTest::newRow("unknown top-level key") << "{\"learning_rate\": 0.1}"
                                               << "learning_rate: unknown key";
        QTest::newRow("unknown nested key (typo)") << "{\"optim\": {\"lrr\": 0.1}}"
                                                   << "did you mean 'lr'";
        QTest::newRow("unknown key holding a newline") << "{\"optim\": {\"l\\nr\": 0.1}}"
                                                       << "optim.\"l\\nr\": unknown key";
        QTest::newRow("negative lr") << "{\"optim\": {\"lr\": -1}}"
                                     << "optim.lr: must be in (0, 10]";
        QTest::newRow("zero lr") << "{\"optim\": {\"lr\": 0}}"
                                 << "optim.lr: must be in (0, 10]";
        QTest::newRow("huge lr") << "{\"optim\": {\"lr\": 1e6}}"
                                 << "optim.lr: must be in (0, 10]";
        QTest::newRow("lr beyond double (1e400)") << "{\"optim\": {\"lr\": 1e400}}"
                                                  << "not valid JSON";
        QTest::newRow("zero batch size") << "{\"train\": {\"batch_size\": 0}}"
                                         << "train.batch_size: must be in";
        QTest::newRow("negative batch size") << "{\"train\": {\"batch_size\": -32}}"
                                             << "train.batch_size: must be in";
        QTest::newRow("huge batch size") << "{\"train\": {\"batch_size\": 1000000000}}"
                                         << "train.batch_size: must be in";
        QTest::newRow("batch size beyond int64") << "{\"train\": {\"batch_size\": 1e19}}"
                                                 << "train.batch_size: expected an integer in";
        QTest::newRow("zero epochs") << "{\"train\": {\"epochs\": 0}}"
                                     << "train.epochs: must be in [1, 100000]";
        QTest::newRow("negative epochs") << "{\"train\": {\"epochs\": -1}}"
                                         << "train.epochs: must be in [1, 100000]";
        QTest::newRow("huge epochs") << "{\"train\": {\"epochs\": 1000000000}}"
                                     << "train.epochs: must be in [1, 100000]";
        QTest::newRow("absurd layer width")
            << "{\"model\": {\"name\": \"mlp\", \"hidden\": [1000000]}}"
            << "model.hidden[0]: must be in [1, 65536]";
        QTest::newRow("absurd layer count (3 x 65536 wide)")
            << "{\"model\": {\"name\": \"mlp\", \"hidden\": [65536, 65536, 65536]}}"
            << "model.hidden: about 8.64e+09 parameters";
        QTest::newRow("absurd transformer width")
            << "{\"model\": {\"name\": \"transformer\", \"dim\": 100000, \"heads\": 1}}"
            << "model.dim: about";
        QTest::newRow("absurd conv block")
            << "{\"model\": {\"name\": \"deep_cnn\", \"blocks\": [[1, 65536, 65536, 1, 0]]}}"
            << "model.blocks: about";
        QTest::newRow("zero-width layer") << "{\"model\": {\"hidden\": [0]}}"
                                          << "model.hidden[0]: must be in";
        QTest::newRow("growth_factor 1") << "{\"precision\": {\"scaler\": {\"growth_factor\": 1}}}"
                                         << "precision.scaler.growth_factor: must be > 1 (got 1)";
        QTest::newRow("growth_factor 0.5")
            << "{\"precision\": {\"scaler\": {\"growth_factor\": 0.5}}}"
            << "precision.scaler.growth_factor: must be > 1";
        QTest::newRow("backoff_factor 1")
            << "{\"precision\": {\"scaler\": {\"backoff_factor\": 1}}}"
            << "precision.scaler.backoff_factor: must be in (0, 1)";
        QTest::newRow("backoff_factor 2")
            << "{\"precision\": {\"scaler\": {\"backoff_factor\": 2}}}"
            << "precision.scaler.backoff_factor: must be in (0, 1)";
        QTest::newRow("backoff_factor 0")
            << "{\"precision\": {\"scaler\": {\"backoff_factor\": 0}}}"
            << "precision.scaler.backoff_factor: must be in (0, 1)";
        QTest::newRow("growth_interval 0")
            << "{\"precision\": {\"scaler\": {\"growth_interval\": 0}}}"
            << "precision.scaler.growth_interval: must be >= 1";
        QTest::newRow("init_scale 0") << "{\"precision\": {\"scaler\": {\"init_scale\": 0}}}"
                                      << "precision.scaler.init_scale: must be in";
        QTest::newRow("unknown scaler kind")
            << "{\"precision\": {\"scaler\": {\"kind\": \"magic\"}}}"
            << "precision.scaler.kind: must be one of";
        QTest::newRow("unknown emulation") << "{\"precision\": {\"emulate\": \"never\"}}"
                                           << "precision.emulate: must be one of auto, always";
        QTest::newRow("unknown locator mode") << "{\"probes\": {\"locate_nonfinite\": \"sometimes\"}}"
                                              << "probes.locate_nonfinite: must be one of replay, always, off";
        QTest::newRow("locator mode a number") << "{\"probes\": {\"locate_nonfinite\": 1}}"
                                               << "probes.locate_nonfinite: expected a string";
        QTest::newRow("precision map at step 0") << "{\"probes\": {\"precision_map_steps\": [10, 0]}}"
                                                 << "probes.precision_map_steps[1]: must be >= 1";
        QTest::newRow("precision map steps a number") << "{\"probes\": {\"precision_map_steps\": 10}}"
                                                      << "probes.precision_map_steps: expected an array";
        QTest::newRow("unknown precision map reference")
            << "{\"probes\": {\"precision_map_reference\": \"fp16\"}}"
            << "probes.precision_map_reference: must be one of fp32, fp64";
        QTest::newRow("unknown mode") << "{\"precision\": {\"mode\": \"fp6\"}}"
                                      << "precision.mode: must be one of";
        QTest::newRow("unknown fp8 recipe") << "{\"precision\": {\"fp8\": {\"recipe\": \"mx\"}}}"
                                            << "precision.fp8.recipe: must be one of delayed, current";
        QTest::newRow("amax history 0")
            << "{\"precision\": {\"fp8\": {\"amax_history_len\": 0}}}"
            << "precision.fp8.amax_history_len: must be in [1, 1048576]";
        QTest::newRow("unknown MX scale rule") << "{\"precision\": {\"mx\": {\"scale_rule\": \"ceil\"}}}"
                                               << "precision.mx.scale_rule: must be one of floor, rceil";
        QTest::newRow("unknown model") << "{\"model\": {\"name\": \"resnet\"}}"
                                       << "model.name: must be one of";
        QTest::newRow("unknown dataset") << "{\"data\": {\"dataset\": \"cifar\"}}"
                                         << "data.dataset: must be one of";
        QTest::newRow("unknown optimizer") << "{\"optim\": {\"name\": \"lion\"}}"
                                           << "optim.name: must be one of";
        QTest::newRow("unknown fault kind")
            << "{\"faults\": [{\"step\": 1, \"kind\": \"boom\", \"layer\": \"fc1\"}]}"
            << "faults[0].kind: must be one of";
        QTest::newRow("newer schema_version")
            << "{\"schema_version\": 2}"
            << "schema_version: 2 is newer than this AmpScope understands (1)";
        QTest::newRow("tensors without a validation pair, validation test")
            << "{\"data\": {\"dataset\": \"tensors\", \"path\": \"d.safetensors\", \"inputs\": "
               "\"x\", \"targets\": \"y\"}}"
            << "data.val_inputs: validation \"test\" needs the validation pair";
        QTest::newRow("mnist_idx without data.path") << "{\"data\": {\"dataset\": \"mnist_idx\"}}"
                                                     << "data.path: must name the directory";
        QTest::newRow("nested 100000 levels deep (was a crash)")
            << QString::fromStdString("{\"optim\": {\"lr\": " + nested(100000) + "}}")
            << "nested deeper than 64 levels (line 1, column ";
    }
    void configFiles() {
        QFETCH(QString, text);
        QFETCH(QString, mentions);
        QTemporaryDir tmp;
        writeBytes(tmp.filePath("config.json"), text.toUtf8());
        const CliResult r =
            runCli({"run", tmp.filePath("config.json"), "--out", tmp.filePath("run")});
        note("config file", QTest::currentDataTag(), QString::number(r.exitCode), r.err,
             tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.startsWith("ampscope-cli: " + tmp.filePath("config.json") + ": "),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QVERIFY2(!QFileInfo::exists(tmp.filePath("run")), "a refused config must not create --out");
    }

    // ---- command-line arguments ----------------------------------------------------
    void cliArguments_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no arguments") << QStringList{} << "missing command";
        QTest::newRow("unknown command") << QStringList{"train"} << "unknown command 'train'";
        QTest::newRow("unknown flag") << QStringList{"run", "$CONFIG", "--out", "$OUT", "--fast"}
                                      << "unknown option '--fast'";
        QTest::newRow("--out without its value")
            << QStringList{"run", "$CONFIG", "--out"} << "--out: missing value";
        QTest::newRow("no --out") << QStringList{"run", "$CONFIG"} << "missing --out DIR";
        QTest::newRow("no CONFIG") << QStringList{"run", "--out", "$OUT"} << "missing CONFIG.json";
        QTest::newRow("two CONFIG files")
            << QStringList{"run", "$CONFIG", "$CONFIG", "--out", "$OUT"} << "unexpected argument";
        QTest::newRow("CONFIG does not exist")
            << QStringList{"run", "$TMP/none.json", "--out", "$OUT"}
            << "none.json: cannot open (No such file or directory)";
        QTest::newRow("CONFIG is a directory")
            << QStringList{"run", "$TMP", "--out", "$OUT"} << "cannot open (Is a directory)";
        QTest::newRow("--set on a missing key")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "optim.lrr=1"}
            << "--set optim.lrr=1: no such key 'optim.lrr'";
        QTest::newRow("--set on a missing section")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "optimizer.lr=1"}
            << "no such key 'optimizer.lr'";
        QTest::newRow("--set past the end of a list")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "model.hidden.5=8"}
            << "no such key 'model.hidden.5'";
        QTest::newRow("--set into a number")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "optim.lr.x=1"}
            << "no such key 'optim.lr.x'";
        QTest::newRow("--set without =")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "optim.lr"} << "missing '='";
        QTest::newRow("--set without a key")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "=3"} << "missing the key";
        QTest::newRow("--set without its value")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set"} << "--set: missing value";
        QTest::newRow("--set text for an integer")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "train.epochs=two"}
            << "train.epochs: expected an integer";
        QTest::newRow("--set text for a number")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "optim.lr=fast"}
            << "optim.lr: expected a number";
        QTest::newRow("--set text for true/false")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "data.normalize=yes"}
            << "data.normalize: expected true or false";
        QTest::newRow("--set a number for a list")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "model.hidden=64"}
            << "model.hidden: expected an array";
        QTest::newRow("--set a number beyond double")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--set", "optim.lr=1e400"}
            << "must be a finite number";
        QTest::newRow("--set a value out of range")
            << QStringList{"run",  "$CONFIG", "--out",
                           "$OUT", "--set",   "precision.scaler.backoff_factor=1"}
            << "precision.scaler.backoff_factor: must be in (0, 1)";
        QTest::newRow("formats with an argument") << QStringList{"formats", "e4m3"}
                                                  << "formats: unexpected argument 'e4m3'";
        QTest::newRow("cast without FORMAT") << QStringList{"cast"} << "cast: missing FORMAT";
        QTest::newRow("cast to an unknown format")
            << QStringList{"cast", "fp8", "1"}
            << "cast: unknown format 'fp8' (formats: fp16, bf16, e4m3, e5m2, e2m1, e8m0)";
        QTest::newRow("cast without VALUE") << QStringList{"cast", "e4m3"} << "cast: missing VALUE";
        QTest::newRow("cast a word") << QStringList{"cast", "e4m3", "one"} << "cast: 'one' is not a number";
        QTest::newRow("cast a value beyond double")
            << QStringList{"cast", "e4m3", "-1e400"} << "cast: '-1e400' is beyond the range of a double";
        QTest::newRow("cast an unknown option")
            << QStringList{"cast", "e4m3", "1", "--round=up"} << "cast: unknown option '--round=up'";
        QTest::newRow("cast NaN to e2m1 (no NaN code)")
            << QStringList{"cast", "e2m1", "nan"} << "cast: nan: e2m1 has no NaN";
        QTest::newRow("cast an overflow to e2m1 without saturation")
            << QStringList{"cast", "e2m1", "7", "--no-saturate"} << "cast: 7: e2m1 has neither Inf nor NaN";
        QTest::newRow("cast 0 to e8m0 (no zero)") << QStringList{"cast", "e8m0", "0"} << "cast: 0: e8m0 has no zero";
        QTest::newRow("cast a negative value to e8m0")
            << QStringList{"cast", "e8m0", "-4"} << "cast: -4: e8m0 has no sign";
        QTest::newRow("--trace-steps 0")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--trace-steps", "0"}
            << "--trace-steps: \"0\" is not a step number (steps count from 1; e.g. --trace-steps 50,100)";
        QTest::newRow("--trace-steps with a word")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--trace-steps", "50,last"}
            << "--trace-steps: \"last\" is not a step number";
        QTest::newRow("--seeds 1")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--seeds", "1"}
            << "--seeds: a seed band needs at least 2 seeds (got 1)";
        QTest::newRow("--seeds with a word")
            << QStringList{"run", "$CONFIG", "--out", "$OUT", "--seeds", "x"}
            << "--seeds: \"x\" is not a number of seeds (a whole number, 2 or more; e.g. --seeds 5)";
        QTest::newRow("--seeds with --scenario")
            << QStringList{"run", "--scenario", "amp-sanity", "--out", "$OUT", "--seeds", "3"}
            << "run: --seeds trains one CONFIG.json with several seeds, not a --scenario";
        QTest::newRow("precision-map without --step")
            << QStringList{"precision-map", "$CONFIG", "--out", "$OUT"} << "precision-map: missing --step N";
        QTest::newRow("precision-map --step 0")
            << QStringList{"precision-map", "$CONFIG", "--out", "$OUT", "--step", "0"}
            << "--step: \"0\" is not a step number (steps count from 1; e.g. --step 50)";
        QTest::newRow("precision-map --step of two steps")
            << QStringList{"precision-map", "$CONFIG", "--out", "$OUT", "--step", "3,4"}
            << "--step: one step number (got \"3,4\")";
        QTest::newRow("precision-map --reference fp16")
            << QStringList{"precision-map", "$CONFIG", "--out", "$OUT", "--step", "3", "--reference", "fp16"}
            << "--reference: \"fp16\" is not a reference (fp32 or fp64)";
        QTest::newRow("precision-map --step past train.max_steps")
            << QStringList{"precision-map", "$CONFIG", "--out", "$OUT", "--step", "20", "--set", "train.max_steps=5"}
            << "--step: 20 is past the run's last step (train.max_steps 5)";
        QTest::newRow("precision-map without --out")
            << QStringList{"precision-map", "$CONFIG", "--step", "3"} << "precision-map: missing --out DIR";
#ifdef AMPSCOPE_CLI_HAS_REPORT_RENDERER
        QTest::newRow("report a folder with no run in it")
            << QStringList{"report", "$TMP/folder", "--out", "$TMP/report.pdf"}
            << "$TMP/folder: missing config.json — not an AmpScope run directory, nor a job's rank-N "
               "folders or a scenario's run folders";
#endif
        QTest::newRow("--set a value nested 50000 levels deep (was a crash)")
            << QStringList{"run",  "$CONFIG", "--out",
                           "$OUT", "--set",   QString::fromStdString("optim.lr=" + nested(50000))}
            << "the value is nested deeper than 64 levels";
    }
    void cliArguments() {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        QTemporaryDir tmp;
        writeBytes(tmp.filePath("config.json"), kTinyRun);
        QVERIFY(QDir(tmp.path()).mkpath("folder/not-a-run"));  // a folder holding no run
        const CliResult r = runCli(expand(args, tmp.path()));
        QString shown = r.err;
        if (shown.size() > 300)
            shown = shown.left(120) + "..." + shown.right(60);  // the 100 KB --set
        note("command line", QTest::currentDataTag(), QString::number(r.exitCode), shown,
             tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err.left(300)));
        QVERIFY2(r.err.startsWith("ampscope-cli: "), qPrintable(r.err.left(300)));
        QVERIFY2(r.err.contains(expand({mentions}, tmp.path()).front()), qPrintable(r.err.left(300)));
        QVERIFY(!QFileInfo::exists(tmp.filePath("run")));
    }

    // ---- IDX files -------------------------------------------------------------------
    // data.dataset mnist_idx on a directory of crafted files. The engine has opened
    // the run directory when the data fails, so the error is also recorded there.
    void idxFiles_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("images: wrong magic (a PGM file)") << "magic"
                                                          << "not an IDX file (magic 0x50350A34";
        QTest::newRow("images: truncated header") << "header"
                                                  << "truncated header (10 bytes, need 16)";
        QTest::newRow("images: truncated payload")
            << "payload"
            << "truncated data (header says 640 bytes, file has 300)";
        QTest::newRow("images: lying dimensions (60000x28x28 in 656 bytes)")
            << "lying"
            << "truncated data (header says 47040000 bytes, file has 640)";
        QTest::newRow("images: dimensions beyond 4 GiB") << "huge"
                                                         << "exceed the 4 GiB limit";
        QTest::newRow("images: trailing bytes")
            << "trailing"
            << "trailing data (header says 640 bytes, file has 650)";
        QTest::newRow("images: a zero dimension") << "zero"
                                                  << "dimension 1 is zero";
        QTest::newRow("images: float32 elements") << "float"
                                                  << "unsupported IDX element type 0x0D (float32)";
        QTest::newRow("images: 2-D instead of 3-D")
            << "rank"
            << "expected 3 dimensions (N, rows, cols), got 2";
        QTest::newRow("images: empty file") << "empty"
                                            << "empty file";
        QTest::newRow("images.gz: corrupted mid-stream") << "gzcorrupt"
                                                         << "gzip stream corrupted (zlib:";
        QTest::newRow("images.gz: cut mid-stream") << "gzcut"
                                                   << "gzip stream truncated";
        QTest::newRow("images.gz: gzip magic, then garbage") << "gzgarbage"
                                                             << "gzip stream corrupted";
        QTest::newRow("images.gz: an empty gzip stream")
            << "gzempty"
            << "empty file (the gzip stream holds no data)";
        QTest::newRow("labels: count differs from images") << "count"
                                                           << "labels count 39 != images count 40";
        QTest::newRow("labels: label 10 of 10 classes") << "range"
                                                        << "label 10 at index 5 out of range 0..9";
        QTest::newRow("labels: 3-D") << "labelrank"
                                     << "expected 1 dimension (N), got 3";
        QTest::newRow("labels: file missing")
            << "nolabels"
            << "train-labels-idx1-ubyte[.gz]: not found; check data.path";
        QTest::newRow("t10k files missing (validation test)")
            << "notest"
            << "t10k-images-idx3-ubyte[.gz]: not found";
        QTest::newRow("t10k images of another size") << "testsize"
                                                     << "images are 5x5 but";
        QTest::newRow("images too small for the model")
            << "small"
            << "model.name: simple_cnn needs images of at least 4x4 (got 1x3x3)";
        QTest::newRow("data.path is a file") << "pathfile"
                                             << "not a directory; check data.path";
        QTest::newRow("data.path does not exist") << "nopath"
                                                  << "directory not found; check data.path";
    }
    void idxFiles() {
        QFETCH(QString, kind);
        QFETCH(QString, mentions);
        QTemporaryDir tmp;
        const QString data = tmp.filePath("data");
        QDir().mkpath(data);
        const QString images = data + "/" + kImages, labels = data + "/" + kLabels;
        writeBytes(images, goodImages());
        writeBytes(labels, goodLabels());
        QString dataPath = data, validation = "split", model = "mlp";
        QString named = images;  // the file the message must name

        const QByteArray good = goodImages();
        const QByteArray goodPayload = good.mid(16);
        auto replaceWithGz = [&](const QByteArray& bytes) {
            QFile::remove(images);
            named = images + ".gz";
            writeBytes(named, bytes);
        };
        if (kind == "magic")
            writeBytes(images, "P5\n4 4\n255\n" + goodPayload);
        else if (kind == "header")
            writeBytes(images, good.left(10));
        else if (kind == "payload")
            writeBytes(images, good.left(16 + 300));
        else if (kind == "lying")
            writeBytes(images, idx({60000, 28, 28}, goodPayload));
        else if (kind == "huge")
            writeBytes(images, idx({65535, 65535, 65535}, goodPayload));
        else if (kind == "trailing")
            writeBytes(images, good + QByteArray(10, 'x'));
        else if (kind == "zero")
            writeBytes(images, idx({kSamples, 0, kSide}, {}));
        else if (kind == "float")
            writeBytes(images, idx({kSamples, kSide, kSide}, goodPayload, 0x0D));
        else if (kind == "rank")
            writeBytes(images, idx({kSamples, kSide * kSide}, goodPayload));
        else if (kind == "empty")
            writeBytes(images, {});
        else if (kind == "gzcorrupt") {
            QByteArray gz = gzip(good);
            gz[gz.size() / 2] = static_cast<char>(gz[gz.size() / 2] ^ 0x55);
            replaceWithGz(gz);
        } else if (kind == "gzcut")
            replaceWithGz(gzip(good).left(gzip(good).size() / 2));
        else if (kind == "gzgarbage")
            replaceWithGz(QByteArray("\x1f\x8b", 2) + noise(200, 3));
        else if (kind == "gzempty")
            replaceWithGz(gzip({}));
        else if (kind == "count") {
            named = labels;
            writeBytes(labels, idx({kSamples - 1}, goodLabels().mid(8, kSamples - 1)));
        } else if (kind == "range") {
            named = labels;
            QByteArray bad = goodLabels();
            bad[8 + 5] = 10;
            writeBytes(labels, bad);
        } else if (kind == "labelrank") {
            named = labels;
            writeBytes(labels, idx({kSamples, 1, 1}, goodLabels().mid(8)));
        } else if (kind == "nolabels") {
            named = labels;
            QFile::remove(labels);
        } else if (kind == "notest") {
            validation = "test";
            named = data + "/t10k-images-idx3-ubyte";
        } else if (kind == "testsize") {
            validation = "test";
            named = data + "/t10k-images-idx3-ubyte";
            writeBytes(named, idx({10, 5, 5}, noise(250, 9)));
            writeBytes(data + "/t10k-labels-idx1-ubyte", idx({10}, QByteArray(10, '\1')));
        } else if (kind == "small") {
            writeBytes(images, idx({kSamples, 3, 3}, noise(kSamples * 9, 5)));
            model = "simple_cnn";
            named = "";  // a model problem: the message names the field
        } else if (kind == "pathfile") {
            dataPath = images;
            named = images;
        } else if (kind == "nopath") {
            dataPath = tmp.filePath("nowhere");
            named = dataPath;
        } else {
            QFAIL("unknown kind");
        }

        const QString config =
            QString(
                "{\"threads\": 1, \"data\": {\"dataset\": \"mnist_idx\", \"path\": \"%1\", "
                "\"validation\": \"%2\","
                " \"val_fraction\": 0.25}, \"model\": {\"name\": \"%3\", \"hidden\": [8]},"
                " \"train\": {\"epochs\": 1, \"batch_size\": 8}}")
                .arg(dataPath, validation, model);
        writeBytes(tmp.filePath("config.json"), config.toUtf8());
        const QString out = tmp.filePath("run");
        const CliResult r = runCli({"run", tmp.filePath("config.json"), "--out", out, "--quiet"});
        note("IDX file", QTest::currentDataTag(), QString::number(r.exitCode), r.err, tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        if (!named.isEmpty()) QVERIFY2(r.err.contains(named), qPrintable(r.err));

        // Recorded too: the run directory loads, ends with the same error, and says so.
        verifyErrorRecorded(out, r.err);
    }

    // ---- safetensors files ------------------------------------------------------------
    // data.dataset tensors on a crafted file. As with IDX files the engine has opened the
    // run directory when the data fails, so the error is recorded there too.
    void safetensorsFiles_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("header length beyond the file")
            << "length" << "header length 999999 is beyond the file (1116 bytes)";
        QTest::newRow("header not JSON")
            << "json" << "header is not JSON (byte 45 of the header: syntax error while parsing value";
        QTest::newRow("unknown dtype") << "dtype" << "tensor \"x\": unknown dtype \"F24\"";
        QTest::newRow("offsets overlapping")
            << "overlap" << "tensors \"x\" (bytes [0, 640)) and \"y\" (bytes [600, 920)) overlap";
        QTest::newRow("offsets beyond the data")
            << "beyond"
            << "tensor \"y\": data_offsets [640, 960] reach beyond the data (900 bytes after the header)";
        QTest::newRow("shape and byte count disagree")
            << "shape" << "tensor \"x\": shape [40, 5] of F32 is 800 bytes but data_offsets [0, 640] hold 640";
        QTest::newRow("inputs and targets with different sample counts")
            << "count" << "data.targets: tensor \"y\" holds 39 samples but \"x\" (data.inputs) holds 40";
        QTest::newRow("a name that is not in the file")
            << "name" << "data.inputs: no tensor \"images\" (the file holds \"x\", \"y\")";
        QTest::newRow("a tensor of a dtype AmpScope does not read (F64 inputs)")
            << "f64" << "data.inputs: tensor \"x\" is F64; inputs must be F32, F16, BF16 or U8";
    }
    void safetensorsFiles() {
        QFETCH(QString, kind);
        QFETCH(QString, mentions);
        QTemporaryDir tmp;
        const QString file = tmp.filePath("data.safetensors");
        const QByteArray data = noise(960, 11);
        QString inputs = "x";
        if (kind == "length") {
            QByteArray bytes = safetensorsFile(tensorsHeader(), data);
            bytes.replace(0, 8, QByteArray("\x3f\x42\x0f\0\0\0\0\0", 8));  // 999999
            writeBytes(file, bytes);
        } else if (kind == "json") {
            QByteArray header = tensorsHeader();
            header.replace("\"F32\"", "F32");  // a bare word where a string belongs
            writeBytes(file, safetensorsFile(header, data));
        } else if (kind == "dtype") {
            writeBytes(file, safetensorsFile(tensorsHeader("F24"), data));
        } else if (kind == "overlap") {
            writeBytes(file, safetensorsFile(tensorsHeader("F32", "[40,4]", "[40]", 600, 920), data));
        } else if (kind == "beyond") {
            writeBytes(file, safetensorsFile(tensorsHeader(), data.left(900)));
        } else if (kind == "shape") {
            writeBytes(file, safetensorsFile(tensorsHeader("F32", "[40,5]"), data));
        } else if (kind == "count") {
            writeBytes(file, safetensorsFile(tensorsHeader("F32", "[40,4]", "[39]", 640, 952),
                                             data.left(952)));
        } else if (kind == "name") {
            writeBytes(file, safetensorsFile(tensorsHeader(), data));
            inputs = "images";
        } else if (kind == "f64") {
            writeBytes(file, safetensorsFile(tensorsHeader("F64", "[40,2]"), data));
        } else {
            QFAIL("unknown kind");
        }

        const QString config =
            QString("{\"threads\": 1, \"data\": {\"dataset\": \"tensors\", \"path\": \"%1\", "
                    "\"inputs\": \"%2\", \"targets\": \"y\", \"validation\": \"split\", "
                    "\"val_fraction\": 0.25}, \"model\": {\"name\": \"mlp\", \"hidden\": [8]},"
                    " \"train\": {\"epochs\": 1, \"batch_size\": 8}}")
                .arg(file, inputs);
        writeBytes(tmp.filePath("config.json"), config.toUtf8());
        const QString out = tmp.filePath("run");
        const CliResult r = runCli({"run", tmp.filePath("config.json"), "--out", out, "--quiet"});
        note("safetensors file", QTest::currentDataTag(), QString::number(r.exitCode), r.err,
             tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.startsWith("ampscope-cli: " + file + ": "), qPrintable(r.err));
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));

        // Recorded too: the run directory loads, ends with the same error, and says so.
        verifyErrorRecorded(out, r.err);
    }

    // ---- TorchScript model files -----------------------------------------------------
    // model.name torchscript on the files a user might pass (tests/tools/
    // export_script_models.py writes them), and configs that do not fit the model.
    void modelFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("extra");  // more config, merged into the model run's
        QTest::addColumn<QString>("mentions");
        QTest::newRow("file missing") << "missing.pt" << "" << "model.path: $FIX/missing.pt: no such file";
        QTest::newRow("a text file") << "not_a_model.pt" << ""
                                     << "not a TorchScript archive (not a zip file)";
        QTest::newRow("torch.save() of a whole module")
            << "pickled_module.pt" << ""
            << "a torch.save() archive of a module or its weights, not TorchScript; export it with "
               "torch.jit.trace(model, example_input) or torch.jit.script(model), then .save(path)";
        QTest::newRow("a legacy torch.save() pickle") << "legacy_pickle.pt" << ""
                                                     << "a Python pickle (torch.save), not TorchScript";
        QTest::newRow("an archive without forward") << "no_forward.pt" << ""
                                                    << "the TorchScript module has no forward method";
        QTest::newRow("code that needs CUDA on a CPU run")
            << "wants_cuda.pt" << "" << "its code puts tensors on cuda and this run is on the CPU";
        QTest::newRow("output shape does not fit the targets")
            << "five_classes.pt" << ""
            << "forward gives [3, 5] for inputs [3, 1, 28, 28]; cross_entropy needs [3, classes] with 10 "
               "classes or more";
        QTest::newRow("targets of the wrong dtype for the loss (mse on class targets)")
            << "residual_mlp.pt" << R"("train": {"loss": "mse"})" << "train.loss: mse needs float targets";
        QTest::newRow("train.loss model on a forward of one input")
            << "simple_cnn.pt" << R"("train": {"loss": "model"})" << "forward takes 1 input";
        QTest::newRow("a probed module the model does not have")
            << "residual_mlp.pt" << R"("model": {"probe_modules": ["blocks.2"]})"
            << "model.probe_modules: no module named \"blocks.2\"";
        QTest::newRow("keep_fp32 names no module of the model")
            << "residual_mlp.pt" << R"("precision": {"keep_fp32": ["encoder"]})"
            << "precision.keep_fp32: no layer named \"encoder\"";
        QTest::newRow("a fault aimed at no layer of the model")
            << "residual_mlp.pt" << R"("faults": [{"step": 2, "kind": "nan_grad", "layer": "blocks.1"}])"
            << "faults[0].layer: no layer named \"blocks.1\"";
        QTest::newRow("the file changed since the run that recorded its SHA-256")
            << "residual_mlp.pt" << R"("model": {"sha256": "0000000000000000000000000000000000000000000000000000000000000000"})"
            << "model.sha256: $FIX/residual_mlp.pt has SHA-256 ";
        // Spirals' samples are [2] values; simple_cnn's conv1 weight is [64, 1, 3, 3].
        QTest::newRow("a model given inputs of another shape (spirals for an image CNN)")
            << "simple_cnn.pt" << R"("data": {"dataset": "spirals"})"
            << "model.path: $FIX/simple_cnn.pt: forward failed: Expected 4-dimensional input for 4-dimensional "
               "weight [64, 1, 3, 3], but got 2-dimensional input";
        // Files saved by torch 2.6 (tests/data/torch2-models): refused only where this
        // build's LibTorch lacks what they need, as their manifest records.
        QTest::newRow("saved by torch 2.6 with nn.RMSNorm, on a LibTorch without aten::rms_norm")
            << "$DATA/torch2-models/rmsnorm_mlp_traced.pt" << ""
            << "model.path: $DATA/torch2-models/rmsnorm_mlp_traced.pt: uses aten::rms_norm: the file was saved "
               "by a newer PyTorch than this build's LibTorch";
        QTest::newRow("saved by torch 2.6 with F.scaled_dot_product_attention, on a LibTorch without it")
            << "$DATA/torch2-models/vit_sdpa_traced.pt" << ""
            << "uses aten::scaled_dot_product_attention: the file was saved by a newer PyTorch than this "
               "build's LibTorch";
        QTest::newRow("a torch.export program (torch.export.save, .pt2)")
            << "$DATA/torch2-models/cnn_exported.pt2" << ""
            << "model.path: $DATA/torch2-models/cnn_exported.pt2: a torch.export program (torch.export.save, "
               ".pt2), not TorchScript";
    }
    void modelFiles() {
        QFETCH(QString, file);
        QFETCH(QString, extra);
        QFETCH(QString, mentions);
        const QString fixtures = qEnvironmentVariable("AMPSCOPE_SCRIPT_FIXTURES");
        const QString data = qEnvironmentVariable("AMPSCOPE_TEST_DATA");
        QString path = fixtures + "/" + file;
        if (file.startsWith("$DATA/")) {
            path = data + file.mid(5);
            const QString loads = loadsOnThisLibTorch(path);
            if (!loads.isEmpty()) QSKIP(qPrintable(loads));
        } else if (!QFile::exists(fixtures + "/simple_cnn.pt")) {
            QSKIP("no TorchScript fixtures (python3-torch writes them)");
        }
        QTemporaryDir tmp;
        nlohmann::json config = nlohmann::json::parse(
            R"({"threads": 1, "data": {"subset": 64}, "train": {"max_steps": 3, "batch_size": 16},
                "probes": {"every": 0}})");
        config["model"] = {{"name", "torchscript"}, {"path", path.toStdString()}};
        if (!extra.isEmpty()) config.merge_patch(nlohmann::json::parse("{" + extra.toStdString() + "}"));
        writeBytes(tmp.filePath("config.json"), QByteArray::fromStdString(config.dump()));
        const QString out = tmp.filePath("run");
        const CliResult r = runCli({"run", tmp.filePath("config.json"), "--out", out, "--quiet"});
        QString line = r.err;
        line.replace(fixtures, "$FIX");
        line.replace(data, "$DATA");
        note("TorchScript model file", QTest::currentDataTag(), QString::number(r.exitCode), line,
             tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(line.contains(mentions), qPrintable(line));
    }

    // ---- output directories -----------------------------------------------------------
    void outputDirectories_data() {
        QTest::addColumn<QString>("out");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("--out under /proc") << "/proc/ampscope-run"
                                           << "/proc/ampscope-run: cannot create";
        QTest::newRow("--out under a regular file")
            << "$TMP/afile/run"
            << "$TMP/afile/run: cannot create (Not a directory)";
        QTest::newRow("--out is a regular file") << "$TMP/afile"
                                                 << "$TMP/afile: exists and is not a directory";
        QTest::newRow("--out already holds a run")
            << "$TMP/old"
            << "$TMP/old: already holds a run (events.jsonl)";
    }
    void outputDirectories() {
        QFETCH(QString, out);
        QFETCH(QString, mentions);
        QTemporaryDir tmp;
        writeBytes(tmp.filePath("config.json"), kTinyRun);
        writeBytes(tmp.filePath("afile"), "x");
        QDir().mkpath(tmp.filePath("old"));
        writeBytes(tmp.filePath("old/events.jsonl"),
                   "{\"type\":\"run_start\",\"schema_version\":1}\n");
        const qint64 oldSize = QFileInfo(tmp.filePath("old/events.jsonl")).size();
        const CliResult r =
            runCli({"run", tmp.filePath("config.json"), "--out", expand({out}, tmp.path())[0]});
        note("output directory", QTest::currentDataTag(), QString::number(r.exitCode), r.err,
             tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains(expand({mentions}, tmp.path())[0]), qPrintable(r.err));
        // Nothing already recorded is touched.
        QCOMPARE(QFileInfo(tmp.filePath("old/events.jsonl")).size(), oldSize);
    }

    // The disk fills while training: the run ends with an error naming events.jsonl,
    // exit 1, and every line written before the failure stays readable.
    void diskFullMidRun() {
        QTemporaryDir tmp;
        writeBytes(tmp.filePath("config.json"), kLongRun);
        const QString disk = tmp.filePath("disk");
        QDir().mkpath(disk);
        // A 64 KiB tmpfs gives a real ENOSPC; without the right to mount, a 64 KiB
        // file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) gives EFBIG instead.
        const bool mounted =
            ::mount("tmpfs", disk.toLocal8Bit().constData(), "tmpfs", 0, "size=64k") == 0;
        std::function<void()> limit;
        if (!mounted) {
            limit = [] {
                ::signal(SIGXFSZ, SIG_IGN);
                const rlimit size{64 * 1024, 64 * 1024};
                ::setrlimit(RLIMIT_FSIZE, &size);
            };
        }
        const QString out = disk + "/run";
        const CliResult r =
            runCli({"run", tmp.filePath("config.json"), "--out", out, "--quiet"}, limit);
        const QString input = mounted ? "disk full mid-run (64 KiB tmpfs)"
                                      : "file size limit mid-run (RLIMIT_FSIZE 64 KiB)";
        note("output directory", input, QString::number(r.exitCode), r.err, tmp.path());

        RunData run;
        QString loadError;
        try {
            run = readRunDirectory(out.toStdString());
        } catch (const std::exception& e) {
            loadError = e.what();
        }
        if (mounted) ::umount2(disk.toLocal8Bit().constData(), MNT_DETACH);

        QCOMPARE(r.exitCode, 1);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains(out + "/events.jsonl: write failed ("), qPrintable(r.err));
        QVERIFY2(r.err.contains(mounted ? "No space left on device" : "File too large"),
                 qPrintable(r.err));
        QVERIFY2(loadError.isEmpty(), qPrintable(loadError));
        // The 64 KiB hold step records and the probe records of steps 1, 50, 100...
        QVERIFY2(countSteps(run) > 50, qPrintable(QString("the steps before the failure are kept (%1)")
                                                       .arg(countSteps(run))));
        QVERIFY2(checkStepsAreWhole(run).isEmpty(), qPrintable(checkStepsAreWhole(run)));
        QCOMPARE(run.skipped_lines, 0);
        QVERIFY2(!run.torn_last_line, "the writer cuts a partial line away");
        // summary.json is tried after the failed write: absent when the disk has no room
        // left for it either, else whole and saying the run ended in an error.
        if (run.complete) {
            QCOMPARE(QString::fromStdString(run.summary->value("status", std::string())),
                     QString("error"));
            QVERIFY(QString::fromStdString(run.summary->value("error", std::string()))
                        .contains("events.jsonl: write failed ("));
        }
    }

    // kill -9 at random moments of a run: the directory loads with every complete
    // line, summary.json absent, nothing garbled.
    void killNineMidRun() {
        std::mt19937 random(20240501u);
        std::uniform_int_distribution<int> delayMs(0, 1200);
        for (int attempt = 0; attempt < 5; ++attempt) {
            QTemporaryDir tmp;
            writeBytes(tmp.filePath("config.json"), kLongRun);
            const QString out = tmp.filePath("run");
            QProcess process;
            process.start(QString::fromStdString(ampscope::test::cliPath()),
                          {"run", tmp.filePath("config.json"), "--out", out, "--quiet"});
            QVERIFY(process.waitForStarted());
            // From the moment run_start is on disk (config.json is then complete).
            QElapsedTimer timer;
            timer.start();
            while (QFileInfo(out + "/events.jsonl").size() == 0 && timer.elapsed() < 60000)
                QThread::msleep(5);
            const int delay = delayMs(random);
            QThread::msleep(static_cast<unsigned long>(delay));
            QCOMPARE(process.state(), QProcess::Running);
            ::kill(static_cast<pid_t>(process.processId()), SIGKILL);
            QVERIFY(process.waitForFinished(30000));
            QCOMPARE(process.exitStatus(), QProcess::CrashExit);

            const RunData run = readRunDirectory(out.toStdString());
            const QString what =
                QString("kill -9 %1 ms after run_start: %2 steps loaded, %3 warnings%4")
                    .arg(delay)
                    .arg(countSteps(run))
                    .arg(run.warnings.size())
                    .arg(run.complete ? ", summary present" : ", no summary.json");
            note("kill -9", QString("kill -9 mid-run (attempt %1)").arg(attempt + 1), "killed",
                 what, tmp.path());
            QVERIFY(!run.events.empty());
            QCOMPARE(QString::fromStdString(run.events.front().value("type", "")),
                     QString("run_start"));
            QVERIFY2(checkStepsAreWhole(run).isEmpty(), qPrintable(checkStepsAreWhole(run)));
            QCOMPARE(run.skipped_lines, 0);
            QVERIFY2(!run.complete, "the run cannot have finished");
            QVERIFY2(!QFileInfo::exists(out + "/summary.json"),
                     "no summary (not even a partial one)");
            // Every complete line of the file is a record.
            std::ifstream file((out + "/events.jsonl").toStdString());
            int64_t lines = 0;
            for (std::string line; std::getline(file, line);) ++lines;
            QCOMPARE(static_cast<int64_t>(run.events.size()) + (run.torn_last_line ? 1 : 0), lines);
        }
    }

    // A batch whose layer outputs alone exceed the memory is refused before training,
    // naming train.batch_size (the 2e9-parameter guard counts weights only). The memory
    // is injected (AMPSCOPE_MEMORY_BYTES, 16 GiB), so every machine refuses the same batch.
    void batchBeyondMemoryIsRefused() {
        QTemporaryDir tmp;
        writeBytes(tmp.filePath("config.json"), kTinyRun);
        // spirals mlp, hidden [65536]: (2 + 2 x 65536 + 2) x 65536 x 4 bytes = 32 GiB
        ampscope::test::ScopedEnvironment memory(ampscope::kMemoryLimitVariable, "17179869184");
        const CliResult r =
            runCli({"run", tmp.filePath("config.json"), "--out", tmp.filePath("run"), "--quiet",
                    "--set", "model.hidden=[65536]", "--set", "train.batch_size=65536", "--set",
                    "data.synthetic_samples=100000"});
        note("config file",
             "a batch whose layer outputs exceed the memory (hidden [65536], batch 65536; "
             "AMPSCOPE_MEMORY_BYTES=17179869184)",
             QString::number(r.exitCode), r.err, tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.endsWith("train.batch_size: 65536 samples of this mlp would hold at least "
                                "32 GiB of layer outputs in one step; AMPSCOPE_MEMORY_BYTES allows "
                                "16 GiB of memory\n"),
                 qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(tmp.filePath("run")));
    }

    // A memory setting that is not a number of bytes is bad input too: one line naming it.
    void memoryVariableMustBeBytes() {
        QTemporaryDir tmp;
        writeBytes(tmp.filePath("config.json"), kTinyRun);
        ampscope::test::ScopedEnvironment memory(ampscope::kMemoryLimitVariable, "16G");
        const CliResult r =
            runCli({"run", tmp.filePath("config.json"), "--out", tmp.filePath("run"), "--quiet"});
        note("config file", "AMPSCOPE_MEMORY_BYTES=16G", QString::number(r.exitCode), r.err, tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.endsWith("AMPSCOPE_MEMORY_BYTES: must be a positive number of bytes (got \"16G\")\n"),
                 qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(tmp.filePath("run")));
    }

    // Memory the estimate does not foresee (it is a lower bound): a batch that passes
    // validation yet exceeds the memory the process may use. Run under a 6 GiB
    // address-space limit (so the test machine is never at risk): the run ends with
    // the allocator's one line and exit 1.
    void allocationFailureIsOneLine() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        QSKIP("an address-space limit and a sanitizer's shadow memory do not mix");
#endif
        QTemporaryDir tmp;
        writeBytes(tmp.filePath("config.json"), kTinyRun);
        // (2 + 2 x 16384 + 2) x 65536 x 4 bytes = 8 GiB of layer outputs: under the memory
        // validation is told of (16 GiB, whatever this machine has), over the limit.
        ampscope::test::ScopedEnvironment memory(ampscope::kMemoryLimitVariable, "17179869184");
        const CliResult r =
            runCli({"run", tmp.filePath("config.json"), "--out", tmp.filePath("run"), "--quiet",
                    "--set", "model.hidden=[16384]", "--set", "train.batch_size=65536", "--set",
                    "data.synthetic_samples=100000"},
                   [] {
                       const rlimit space{6ull << 30, 6ull << 30};
                       ::setrlimit(RLIMIT_AS, &space);
                   });
        note("config file",
             "a batch within the memory that exceeds what the process may use (hidden [16384], "
             "batch 65536; AMPSCOPE_MEMORY_BYTES=17179869184, under a 6 GiB address-space limit)",
             QString::number(r.exitCode), r.err, tmp.path());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains("can't allocate memory"), qPrintable(r.err));
    }

    // ---- run directories (readRunDirectory: no CLI command reads them yet) ----------
    // A run directory from elsewhere, reported with `ampscope-cli report`: nothing in it
    // runs (links other than http, https, mailto and in-page anchors lose their target,
    // raw HTML is text, images are not fetched) and nothing outside it is read.
    void untrustedRunReports_data() {
        QTest::addColumn<QString>("narrative");
        QTest::addColumn<QString>("linkTo");  // non-empty: narrative.md is a link to this file
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QStringList>("absent");   // in the HTML (exit 0) / the line (exit 2)
        QTest::addColumn<QStringList>("present");
        QTest::newRow("narrative.md with a javascript: link")
            << "[click](javascript:alert(3))" << "" << 0
            << QStringList{"javascript:", "href=\"javascript"} << QStringList{"click"};
        QTest::newRow("narrative.md with a JavaScript: link in mixed case and spaces")
            << "[click]( JaVaScRiPt:alert(3) )" << "" << 0
            << QStringList{"avaScRiPt", "alert(3)"} << QStringList{"click"};
        QTest::newRow("narrative.md with data:, file: and relative links")
            << "[a](data:text/html,<b>x</b>) [b](file:///etc/passwd) [c](../../secret.html)" << ""
            << 0 << QStringList{"data:text", "file:///etc", "secret.html"}
            << QStringList{">a<", ">b<", ">c<"};
        QTest::newRow("narrative.md with raw HTML (script, img onerror, a href)")
            << "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
               "<a href=\"javascript:alert(4)\">x</a>"
            << "" << 0 << QStringList{"<script", "<img src=x", "href=\"javascript"}
            << QStringList{"&lt;script&gt;"};
        QTest::newRow("narrative.md with an image (file: URL, remote pixel)")
            << "![secret](file:///etc/passwd) ![pixel](https://tracker.example/p.gif)" << "" << 0
            << QStringList{"<img src=\"file:", "tracker.example/p.gif\""}
            << QStringList{"[image: file:///etc/passwd]"};
        QTest::newRow("narrative.md with http, https, mailto and #anchor links (kept)")
            << "[h](http://example.org/a) [s](https://example.org/b) [m](mailto:x@example.org) "
               "[t](#results)"
            << "" << 0 << QStringList{}
            << QStringList{"href=\"http://example.org/a\"", "href=\"https://example.org/b\"",
                           "href=\"mailto:x@example.org\"", "href=\"#results\""};
        QTest::newRow("narrative.md a symbolic link out of the run")
            << "" << "outside.md" << 2 << QStringList{}
            << QStringList{"$RUN/narrative.md: is a symbolic link; a run directory's files must "
                           "be plain files inside it"};
    }
    void untrustedRunReports() {
        QFETCH(QString, narrative);
        QFETCH(QString, linkTo);
        QFETCH(int, exitCode);
        QFETCH(QStringList, absent);
        QFETCH(QStringList, present);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("run");
        QDir().mkpath(dir);
        writeBytes(dir + "/config.json", "{\"schema_version\": 1}\n");
        writeBytes(dir + "/events.jsonl",
                   "{\"type\":\"run_start\",\"schema_version\":1,\"time\":\"2024-05-01T12:00:00Z\"}\n"
                   "{\"type\":\"step\",\"step\":1,\"epoch\":1,\"loss\":2.5}\n");
        if (linkTo.isEmpty()) {
            writeBytes(dir + "/narrative.md", narrative.toUtf8());
        } else {
            writeBytes(tmp.filePath(linkTo), "# Not the run's own\n");
            QVERIFY(QFile::link(tmp.filePath(linkTo), dir + "/narrative.md"));
        }
        const QString out = tmp.filePath("report.html");
        const CliResult r = runCli({"report", dir, "--out", out});
#ifndef AMPSCOPE_CLI_HAS_REPORT_RENDERER
        // Without the GUI there is nothing to render with: every report is refused in
        // one line that says so, and nothing is written.
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(r.err.contains("no report renderer"), qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
        Q_UNUSED(exitCode);
        Q_UNUSED(absent);
        Q_UNUSED(present);
        return;
#endif
        if (exitCode == 2) {
            note("untrusted run directory (report)", QTest::currentDataTag(),
                 QString::number(r.exitCode), r.err, tmp.path());
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(isOneLine(r.err), qPrintable(r.err));
            for (const QString& text : present)
                QVERIFY2(r.err.contains(QString(text).replace("$RUN", dir)), qPrintable(r.err));
            QVERIFY(!QFile::exists(out));
            return;
        }
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(file.readAll());
        const int start = html.indexOf("Scenario narrative");
        QVERIFY2(start >= 0, "the narrative is in the report");
        const QString part = html.mid(start);
        note("untrusted run directory (report)", QTest::currentDataTag(), "0",
             absent.isEmpty() ? "report written; the links are kept"
                              : "report written; the link or markup is dropped, its text kept",
             tmp.path());
        for (const QString& text : absent) QVERIFY2(!part.contains(text), qPrintable(text));
        for (const QString& text : present) QVERIFY2(part.contains(text), qPrintable(text));
    }

    void runDirectories_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("refused");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("no such directory") << "none" << true << "$RUN: no such run directory";
        QTest::newRow("a file, not a directory")
            << "file" << true << "$RUN: is a file, not a run directory";
        QTest::newRow("config.json missing") << "noconfig" << true << "$RUN: missing config.json";
        QTest::newRow("config.json not JSON")
            << "configjunk" << true << "$RUN/config.json: not valid JSON";
        QTest::newRow(
            "config.json with a number beyond double (fuzz finding: escaped as json::out_of_range)")
            << "configoverflow" << true
            << "$RUN/config.json: not valid JSON (number overflow parsing '1e400')";
        QTest::newRow("config.json not an object")
            << "configarray" << true << "$RUN/config.json: not a JSON object";
        QTest::newRow("config.json without schema_version")
            << "noversion" << true << "$RUN/config.json: missing schema_version";
        QTest::newRow("config.json schema_version as text")
            << "textversion" << true
            << "$RUN/config.json: schema_version must be an integer (got \"1\")";
        QTest::newRow("config.json newer schema_version")
            << "newer" << true
            << "$RUN/config.json: schema_version 7 is newer than this AmpScope reads (1)";
        QTest::newRow("config.json schema_version 2^64-1 (was 'is not valid')")
            << "hugeversion" << true << "schema_version 18446744073709551615 is newer";
        QTest::newRow("config.json nested 100000 deep (was a crash when copied)")
            << "deepconfig" << true << "$RUN/config.json: nested deeper than 64 levels";
        QTest::newRow("events.jsonl is a directory")
            << "eventsdir" << true << "$RUN/events.jsonl: is not a plain file";
        // Run directories travel (clusters, colleagues, bug reports): their files never
        // lead outside the folder.
        QTest::newRow("events.jsonl a symbolic link out of the run")
            << "eventslink" << true
            << "$RUN/events.jsonl: is a symbolic link; a run directory's files must be plain "
               "files inside it";
        QTest::newRow("config.json a symbolic link out of the run")
            << "configlink" << true << "$RUN/config.json: is a symbolic link";
        QTest::newRow("summary.json a symbolic link out of the run")
            << "summarylink" << true << "$RUN/summary.json: is a symbolic link";
        QTest::newRow("events.jsonl a FIFO (would block a reader)")
            << "eventsfifo" << true << "$RUN/events.jsonl: is not a plain file";
        QTest::newRow("events.jsonl missing")
            << "noevents" << false << "events.jsonl: missing (no events recorded)";
        QTest::newRow("events.jsonl empty") << "emptyevents" << false << "";
        QTest::newRow("torn last line")
            << "torn" << false << "events.jsonl: ignored a torn last line (17 bytes)";
        QTest::newRow("garbage lines")
            << "garbage" << false << "events.jsonl line 3: skipped an unreadable line (not JSON)";
        QTest::newRow("a line that is JSON but no record")
            << "notrecord" << false
            << "skipped an unreadable line (not an object with a string \"type\")";
        QTest::newRow("a line nested 100000 deep (was a crash when copied)")
            << "deepline" << false << "skipped an unreadable line (nested deeper than 64 levels)";
        QTest::newRow("events schema_version newer")
            << "newerevents" << false
            << "events.jsonl: schema_version 2 is newer than this AmpScope reads (1)";
        QTest::newRow("events schema_version 4294967298 (was read as 2)")
            << "wrapevents" << false << "schema_version 4294967298 is newer";
        QTest::newRow("summary.json not JSON")
            << "badsummary" << false
            << "summary.json: not a valid JSON object; the run counts as incomplete";
    }
    void runDirectories() {
        QFETCH(QString, kind);
        QFETCH(bool, refused);
        QFETCH(QString, mentions);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("run");
        QDir().mkpath(dir);
        const QByteArray config = "{\"schema_version\": 1, \"model\": {\"name\": \"mlp\"}}\n";
        const QByteArray start =
            "{\"type\":\"run_start\",\"schema_version\":1,\"time\":\"2024-05-01T12:00:00Z\"}\n";
        const QByteArray step1 = "{\"type\":\"step\",\"step\":1,\"epoch\":1,\"loss\":2.5}\n";
        const QByteArray step2 = "{\"type\":\"step\",\"step\":2,\"epoch\":1,\"loss\":2.4}\n";
        writeBytes(dir + "/config.json", config);
        writeBytes(dir + "/events.jsonl", start + step1 + step2);

        if (kind == "none")
            QDir(dir).removeRecursively();
        else if (kind == "file") {
            QDir(dir).removeRecursively();
            writeBytes(dir, "not a directory");
        } else if (kind == "noconfig")
            QFile::remove(dir + "/config.json");
        else if (kind == "configjunk")
            writeBytes(dir + "/config.json", "{\"schema_version\": 1,");
        else if (kind == "configoverflow")
            writeBytes(dir + "/config.json", "{\"schema_version\": 1e400}");
        else if (kind == "configarray")
            writeBytes(dir + "/config.json", "[1]");
        else if (kind == "noversion")
            writeBytes(dir + "/config.json", "{\"model\": {}}");
        else if (kind == "textversion")
            writeBytes(dir + "/config.json", "{\"schema_version\": \"1\"}");
        else if (kind == "newer")
            writeBytes(dir + "/config.json", "{\"schema_version\": 7}");
        else if (kind == "hugeversion")
            writeBytes(dir + "/config.json", "{\"schema_version\": 18446744073709551615}");
        else if (kind == "deepconfig")
            writeBytes(dir + "/config.json",
                       QByteArray::fromStdString(
                           "{\"schema_version\": 1, \"x\": " + nested(100000) + "}"));
        else if (kind == "eventsdir") {
            QFile::remove(dir + "/events.jsonl");
            QDir().mkpath(dir + "/events.jsonl");
        } else if (kind == "noevents")
            QFile::remove(dir + "/events.jsonl");
        else if (kind == "emptyevents")
            writeBytes(dir + "/events.jsonl", {});
        else if (kind == "torn")
            writeBytes(dir + "/events.jsonl", start + step1 + step2.left(17));
        else if (kind == "garbage")
            writeBytes(dir + "/events.jsonl", start + step1 + "garbage \x01\x02\n" + step2);
        else if (kind == "notrecord")
            writeBytes(dir + "/events.jsonl", start + "[1, 2]\n" + step1);
        else if (kind == "deepline")
            writeBytes(dir + "/events.jsonl",
                       start +
                           QByteArray::fromStdString("{\"type\":\"step\",\"x\":" + nested(100000) +
                                                     "}\n") +
                           step1);
        else if (kind == "newerevents")
            writeBytes(dir + "/events.jsonl",
                       "{\"type\":\"run_start\",\"schema_version\":2}\n" + step1);
        else if (kind == "wrapevents")
            writeBytes(dir + "/events.jsonl",
                       "{\"type\":\"run_start\",\"schema_version\":4294967298}\n" + step1);
        else if (kind == "badsummary")
            writeBytes(dir + "/summary.json", "{\"status\": \"fini");
        else if (kind == "eventslink" || kind == "configlink" || kind == "summarylink") {
            // The target outside the run holds what the file would: only the link is wrong.
            const QString name = kind == "eventslink"   ? "events.jsonl"
                                 : kind == "configlink" ? "config.json"
                                                        : "summary.json";
            const QString outside = tmp.filePath("outside-" + name);
            writeBytes(outside, kind == "eventslink"   ? start + step1
                                : kind == "configlink" ? config
                                                       : QByteArray("{\"status\": \"finished\"}"));
            QFile::remove(dir + "/" + name);
            QVERIFY(QFile::link(outside, dir + "/" + name));
        } else if (kind == "eventsfifo") {
            QFile::remove(dir + "/events.jsonl");
            QCOMPARE(::mkfifo(QFile::encodeName(dir + "/events.jsonl").constData(), 0644), 0);
        } else
            QFAIL("unknown kind");

        const QString expected = QString(mentions).replace("$RUN", dir);
        QString error;
        RunData run;
        try {
            run = readRunDirectory(dir.toStdString());
        } catch (const InputError& e) {
            error = QString::fromStdString(e.what());
        }
        if (refused) {
            note("run directory", QTest::currentDataTag(), "refused (InputError)", error,
                 tmp.path());
            QVERIFY2(!error.isEmpty(), "the directory loaded");
            QVERIFY2(isOneLine(error), qPrintable(error));
            QVERIFY2(error.startsWith(dir), qPrintable(error));  // names the path
            QVERIFY2(error.contains(expected), qPrintable(error));
            return;
        }
        QStringList warnings;
        for (const auto& warning : run.warnings) warnings << QString::fromStdString(warning);
        note("run directory", QTest::currentDataTag(),
             QString("loads: %1 records%2")
                 .arg(run.events.size())
                 .arg(run.complete ? ", complete" : ""),
             warnings.isEmpty() ? "(no warning)" : warnings.join(" | "), tmp.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const QString& warning : warnings) QVERIFY2(isOneLine(warning), qPrintable(warning));
        if (mentions.isEmpty())
            QVERIFY(warnings.isEmpty());
        else
            QVERIFY2(warnings.join('\n').contains(expected), qPrintable(warnings.join('\n')));
        // Whatever else is wrong, the good records load.
        if (kind != "noevents" && kind != "emptyevents")
            QVERIFY2(countSteps(run) >= 1, "the readable steps are kept");
    }

    // ---- runs on another machine (ssh://), through a real sshd on 127.0.0.1 --------------
    void remoteRuns_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");  // $RUN: the run's path, $PORT: a port
        QTest::newRow("a malformed address (no path)") << "nopath" << "ampscope-cli: ssh://ampscope-test: no path after the host (ssh://[user@]host[:port]/path)";
        QTest::newRow("a host ssh cannot resolve") << "unknownhost"
            << "ampscope-cli: unknown host nohost.invalid (ssh could not resolve it; is it in ~/.ssh/config?)";
        QTest::newRow("a port nothing listens on") << "refused"
            << "ampscope-cli: 127.0.0.1 port $PORT refused the connection (no SSH server listening there)";
        QTest::newRow("a key the server does not accept") << "wrongkey"
            << "ampscope-cli: ssh://ampscope-test-wrong-key: authentication failed (";
        QTest::newRow("a host key that is not in known_hosts") << "unknownkey"
            << "ampscope-cli: ssh://ampscope-test-unknown-key: the host key is not known; connect once with ssh in a terminal to check and accept it";
        QTest::newRow("no such path") << "none" << "ampscope-cli: ampscope-test:$RUN: no such run directory";
        QTest::newRow("a file, not a directory") << "file" << "ampscope-cli: ampscope-test:$RUN: is a file, not a run directory";
        QTest::newRow("a folder that holds no run") << "empty"
            << "ampscope-cli: ampscope-test:$RUN: missing config.json — not an AmpScope run directory (nor a folder of runs)";
        QTest::newRow("events.jsonl a symbolic link") << "link"
            << "ampscope-cli: ampscope-test:$RUN/events.jsonl: is a symbolic link; a run directory's files must be plain files inside it";
        QTest::newRow("a folder this user may not read") << "denied" << "ampscope-cli: ampscope-test:$RUN: cannot open (Permission denied)";
        QTest::newRow("config.json not JSON (read from the copy, named as the remote run)") << "configjunk"
            << "ampscope-cli: report: ssh://ampscope-test$RUN/config.json: not valid JSON";
        QTest::newRow("the connection dropped for good (sshd killed mid-copy, not back within AMPSCOPE_SSH_RECONNECT_SECONDS=1)")
            << "dropped"
            << "ampscope-cli: ampscope-test:$RUN: connection lost and not regained in 1 s (last try: 127.0.0.1 port $PORT refused the connection (no SSH server listening there))";
    }
    void remoteRuns() {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        if (!ssh_) ssh_ = std::make_unique<ampscope::test::SshServer>();
        if (!ssh_->whyNot().isEmpty()) ssh_->start();  // a row before may have left it down
        AMPSCOPE_SKIP_WITHOUT_SSHD(*ssh_);
        if (kind == "denied" && ::geteuid() == 0) QSKIP("running as root, which reads every file");
        QTemporaryDir tmp;
        const QString run = tmp.filePath("run");
        QString address = ampscope::test::SshServer::address(run);
        int port = ssh_->port();
        if (kind != "none" && kind != "file") QDir().mkpath(run);
        if (kind == "file") writeBytes(run, "not a folder\n");
        if (kind != "none" && kind != "file" && kind != "empty") {
            writeBytes(run + "/config.json", kind == "configjunk" ? "{not json" : "{\"schema_version\": 1}\n");
            if (kind == "link") QVERIFY(QFile::link("/etc/hostname", run + "/events.jsonl"));
        }
        if (kind == "denied") QFile::setPermissions(run, QFileDevice::WriteOwner);
        if (kind == "nopath") address = "ssh://ampscope-test";
        if (kind == "unknownhost") address = "ssh://nohost.invalid" + run;
        if (kind == "refused") {
            port = ampscope::test::SshServer::freePort();
            address = QString("ssh://127.0.0.1:%1%2").arg(port).arg(run);
        }
        if (kind == "wrongkey") address = ampscope::test::SshServer::address(run, ampscope::test::SshServer::kWrongKeyHost);
        if (kind == "unknownkey") address = ampscope::test::SshServer::address(run, ampscope::test::SshServer::kUnknownKeyHost);
        if (kind == "dropped") {
            // Enough records that copying them takes a while: the server is killed as soon
            // as the copy has begun.
            QByteArray events = "{\"type\":\"run_start\",\"schema_version\":1}\n";
            const QByteArray line = "{\"type\":\"step\",\"step\":1,\"epoch\":1,\"loss\":2.5,\"lr\":0.01}\n";
            while (events.size() < (96 << 20)) events += line;
            writeBytes(run + "/events.jsonl", events);
        }
        const QString copies = tmp.filePath("copies");  // the CLI's TMPDIR: where its copy goes
        QDir().mkpath(copies);
        qputenv("AMPSCOPE_SSH_CONFIG", ssh_->sshConfig().toLocal8Bit());
        qputenv("AMPSCOPE_SSH_RECONNECT_SECONDS", "1");
        qputenv("TMPDIR", copies.toLocal8Bit());
        std::atomic<bool> killed{false};
        std::thread killer;
        if (kind == "dropped")
            killer = std::thread([&] {
                QElapsedTimer waited;
                waited.start();
                while (waited.elapsed() < 60000) {
                    const auto copied = QDir(copies).entryList({"ampscope-ssh-*"}, QDir::Dirs);
                    if (!copied.isEmpty() && QFileInfo(copies + "/" + copied[0] + "/run/events.jsonl").size() > 0) {
                        ssh_->killFromAnyThread();
                        killed = true;
                        return;
                    }
                    QThread::msleep(2);
                }
            });
        const CliResult r = runCli({"report", address, "--out", tmp.filePath("report.html")});
        if (killer.joinable()) killer.join();
        qunsetenv("TMPDIR");
        qunsetenv("AMPSCOPE_SSH_CONFIG");
        qunsetenv("AMPSCOPE_SSH_RECONNECT_SECONDS");
        if (kind == "denied") QFile::setPermissions(run, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        if (kind == "dropped") {
            QVERIFY(killed);
            ssh_->kill();
            QVERIFY(ssh_->start());
        }
        QString line = r.err.trimmed();
        line.replace(QString::number(port), "$PORT");
        line.replace(run, "$RUN");
        note("remote run", QTest::currentDataTag(), QString::number(r.exitCode), line, tmp.path());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(isOneLine(r.err), qPrintable(r.err));
        QVERIFY2(line.startsWith(expected), qPrintable(line));
        if (kind == "wrongkey")
            QVERIFY2(line.contains("Permission denied (publickey)") &&
                         line.endsWith("load a key into ssh-agent or name one in ~/.ssh/config"),
                     qPrintable(line));
        else if (kind != "configjunk")
            QCOMPARE(line, expected);
        // The copy is gone with the command.
        QVERIFY(QDir(copies).entryList({"ampscope-ssh-*"}, QDir::Dirs).isEmpty());
    }

private:
    std::unique_ptr<ampscope::test::SshServer> ssh_;
};

QTEST_GUILESS_MAIN(CliBadInputTest)
#include "test_cli_bad_input.moc"
