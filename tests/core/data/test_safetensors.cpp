// The safetensors reader (SafetensorsFile, SafetensorsReader) and the "tensors" data set.
// Reader files are written byte by byte here: hand-computed headers and little-endian
// payloads whose values are known bit for bit (0x3C00 is fp16 1.0, 0x3F80 bf16 1.0). One
// row per kind of bad file checks the exact one-line message. A file written by Python's
// torch (tests/tools/write_safetensors.py) is read back and compared value by value.
#include <sys/stat.h>
#include <unistd.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ExactCompare.h"
#include "DataLoadSupport.h"
#include "TestSupport.h"
#include "common/InputError.h"
#include "data/Dataset.h"
#include "data/SafetensorsFile.h"
#include "data/SafetensorsReader.h"
#include "data/SampleSplits.h"
#include "data/TensorsDataset.h"

using namespace ampscope;

namespace {

// ---- bytes ---------------------------------------------------------------------------

QByteArray littleEndian(uint64_t value, int bytes) {
    QByteArray out;
    for (int i = 0; i < bytes; ++i) out.append(static_cast<char>((value >> (8 * i)) & 0xff));
    return out;
}

QByteArray words16(std::initializer_list<uint16_t> values) {
    QByteArray out;
    for (const uint16_t v : values) out += littleEndian(v, 2);
    return out;
}
QByteArray words32(std::initializer_list<uint32_t> values) {
    QByteArray out;
    for (const uint32_t v : values) out += littleEndian(v, 4);
    return out;
}

// A safetensors file: the 8-byte header length, the header, the data.
QByteArray safetensors(const QByteArray& header, const QByteArray& data = {}) {
    return littleEndian(static_cast<uint64_t>(header.size()), 8) + header + data;
}

// One tensor entry, as a header holds it.
QByteArray entry(const char* name, const char* dtype, const char* shape, uint64_t begin,
                 uint64_t end) {
    return QByteArray("\"") + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
           ",\"data_offsets\":[" + QByteArray::number(qulonglong(begin)) + "," +
           QByteArray::number(qulonglong(end)) + "]}";
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    QCOMPARE(file.write(bytes), qint64(bytes.size()));
}

// What reading every tensor of `path` says: "" when it reads fine.
QString readError(const std::string& path, const std::vector<std::string>& names = {}) {
    try {
        readSafetensors(path, names);
    } catch (const InputError& error) {
        return QString::fromStdString(error.what());
    } catch (const std::exception& error) {
        return QStringLiteral("NOT AN InputError: ") + QString::fromStdString(error.what());
    }
    return {};
}

std::vector<int64_t> int64s(const torch::Tensor& t) {
    const torch::Tensor c = t.to(torch::kInt64).contiguous();
    return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}
std::vector<float> floats(const torch::Tensor& t) {
    const torch::Tensor c = t.to(torch::kFloat32).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}
std::vector<int64_t> bits16(const torch::Tensor& t) {
    const torch::Tensor c = t.contiguous().view(torch::kInt16).to(torch::kInt64) & 0xFFFF;
    return int64s(c);
}

// ---- data-set files ---------------------------------------------------------------------

struct Tensor {
    std::string name;
    std::string dtype;
    torch::Tensor values;  // already of the dtype's torch type
};

// Tensors back to back in the order given; the header written by hand (the reader's own
// JSON is not trusted to write what it reads).
QByteArray fileOf(const std::vector<Tensor>& tensors) {
    QByteArray header = "{", data;
    for (const Tensor& t : tensors) {
        const torch::Tensor c = t.values.contiguous();
        QByteArray shape = "[";
        for (int64_t d = 0; d < c.dim(); ++d) shape += (d ? "," : "") + QByteArray::number(qlonglong(c.size(d)));
        shape += "]";
        if (header.size() > 1) header += ",";
        const auto begin = static_cast<uint64_t>(data.size());
        data.append(static_cast<const char*>(c.data_ptr()), static_cast<int>(c.nbytes()));
        header += entry(t.name.c_str(), t.dtype.c_str(), shape.constData(), begin,
                        static_cast<uint64_t>(data.size()));
    }
    return safetensors(header + "}", data);
}

// Row i of x is (i, i + 0.5, -i) and its label i % 4, so a row's label can be recomputed
// from its inputs wherever a shuffle puts it.
torch::Tensor rowsOf(int64_t n) {
    const torch::Tensor i = torch::arange(n, torch::kFloat32).unsqueeze(1);
    return torch::cat({i, i + 0.5, -i}, 1);
}

DataConfig tensorsConfig(const std::string& path) {
    DataConfig config;
    config.dataset = "tensors";
    config.path = path;
    config.inputs = "x";
    config.targets = "y";
    config.validation = "split";
    config.val_fraction = 0.25;
    return config;
}

using ampscope::test::loadError;

std::string pythonWithTorch() {
    for (const std::string& candidate :
         {ampscope::test::envOr("AMPSCOPE_PYTHON", ""), std::string("/usr/bin/python3"),
          std::string("python3")}) {
        if (candidate.empty()) continue;
        QProcess probe;
        probe.start(QString::fromStdString(candidate), {"-c", "import torch, numpy"});
        if (probe.waitForFinished(60000) && probe.exitStatus() == QProcess::NormalExit &&
            probe.exitCode() == 0)
            return candidate;
    }
    return {};
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }
    std::string setPath() const { return path("set.safetensors"); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // The data-set fixture: a training pair, a validation pair and the tensors the
        // refusals need, each 40 (or 10) samples.
        const int64_t n = 40;
        const torch::Tensor labels = torch::arange(n, torch::kInt64) % 4;
        torch::Tensor negative = labels.clone();
        negative[5] = -1;
        torch::Tensor huge = labels.clone();
        huge[3] = 70000;
        const std::vector<Tensor> tensors = {
            {"x", "F32", rowsOf(n)},
            {"y", "I64", labels},
            {"xv", "F32", rowsOf(10) + 100},
            {"yv", "I64", torch::arange(10, torch::kInt64) % 5},  // class 4 only in val
            {"xb", "U8", (torch::arange(n * 4, torch::kInt64) * 37 % 256).to(torch::kUInt8).reshape({n, 2, 2})},
            {"xbv", "U8", torch::full({10, 2, 2}, 200, torch::kUInt8)},
            {"xh", "F16", (rowsOf(n) / 3).to(torch::kFloat16)},
            {"yr", "F32", torch::arange(n, torch::kFloat32) * 0.25},
            {"yr3", "BF16", rowsOf(n).to(torch::kBFloat16)},
            {"yr22", "F32", torch::ones({n, 2, 2})},
            {"yrv", "F32", torch::ones({10})},
            {"y32", "I32", (torch::arange(n, torch::kInt64) % 3).to(torch::kInt32)},
            {"y39", "I64", torch::zeros({39}, torch::kInt64)},
            {"yneg", "I64", negative},
            {"yhuge", "I64", huge},
            {"y2d", "I64", torch::zeros({n, 2}, torch::kInt64)},
            {"yu8", "U8", torch::zeros({n}, torch::kUInt8)},
            {"yf64", "F64", torch::zeros({n}, torch::kFloat64)},
            {"xi", "I64", torch::zeros({n, 3}, torch::kInt64)},
            {"x4", "F32", torch::zeros({10, 4})},
            {"scalar", "F32", torch::tensor(1.0f)},
            {"none", "F32", torch::zeros({0, 3})},
        };
        writeFile(dir_.filePath("set.safetensors"), fileOf(tensors));
    }

    // ---- the reader ----------------------------------------------------------------

    void readsEveryDtypeBitForBit() {
        // Offsets and payloads computed by hand; the header padded with spaces to a
        // multiple of 8 bytes, as the reference writer pads it.
        QByteArray header = "{\"__metadata__\":{\"format\":\"pt\"}," +
                            entry("f32", "F32", "[2]", 0, 8) + "," +
                            entry("f16", "F16", "[3]", 8, 14) + "," +
                            entry("bf16", "BF16", "[2]", 14, 18) + "," +
                            entry("u8", "U8", "[2,2]", 18, 22) + "," +
                            entry("i32", "I32", "[2]", 22, 30) + "," +
                            entry("i64", "I64", "[1]", 30, 38) + "}";
        header += QByteArray((8 - header.size() % 8) % 8, ' ');
        QCOMPARE(header.size() % 8, 0);
        const QByteArray data =
            words32({0x3FC00000u, 0xBE800000u})      // f32 1.5, -0.25
            + words16({0x3C00, 0xC000, 0x0001})      // f16 1.0, -2.0, 2^-24 (smallest subnormal)
            + words16({0x3F80, 0xC0A0})              // bf16 1.0, -5.0
            + QByteArray("\x00\x07\x80\xff", 4)      // u8 0, 7, 128, 255
            + words32({0xFFFFFFFFu, 0x7FFFFFFFu})    // i32 -1, 2^31 - 1
            + littleEndian(0xFFFFFF0000000000ull, 8);  // i64 -2^40
        QCOMPARE(data.size(), 38);
        writeFile(dir_.filePath("dtypes.safetensors"), safetensors(header, data));

        const SafetensorsFile file(path("dtypes.safetensors"));
        QCOMPARE(file.entries().size(), size_t{6});
        QCOMPARE(file.entries().front().name, std::string("f32"));  // in the order of their bytes
        QCOMPARE(file.entries().back().name, std::string("i64"));
        QCOMPARE(file.metadata().at("format"), std::string("pt"));
        QCOMPARE(file.dataStart(), uint64_t(8 + header.size()));

        const auto t = readSafetensors(path("dtypes.safetensors"));
        QCOMPARE(t.at("f32").scalar_type(), torch::kFloat32);
        QCOMPARE(floats(t.at("f32")), (std::vector<float>{1.5f, -0.25f}));
        QCOMPARE(t.at("f16").scalar_type(), torch::kFloat16);
        QCOMPARE(bits16(t.at("f16")), (std::vector<int64_t>{0x3C00, 0xC000, 0x0001}));
        QCOMPARE(floats(t.at("f16")), (std::vector<float>{1.0f, -2.0f, std::ldexp(1.0f, -24)}));
        QCOMPARE(t.at("bf16").scalar_type(), torch::kBFloat16);
        QCOMPARE(bits16(t.at("bf16")), (std::vector<int64_t>{0x3F80, 0xC0A0}));
        QCOMPARE(floats(t.at("bf16")), (std::vector<float>{1.0f, -5.0f}));
        QCOMPARE(t.at("u8").scalar_type(), torch::kUInt8);
        QCOMPARE(t.at("u8").sizes().vec(), (std::vector<int64_t>{2, 2}));
        QCOMPARE(int64s(t.at("u8")), (std::vector<int64_t>{0, 7, 128, 255}));
        QCOMPARE(t.at("i32").scalar_type(), torch::kInt32);
        QCOMPARE(int64s(t.at("i32")), (std::vector<int64_t>{-1, 2147483647}));
        QCOMPARE(t.at("i64").scalar_type(), torch::kInt64);
        QCOMPARE(int64s(t.at("i64")), (std::vector<int64_t>{-(int64_t{1} << 40)}));
        for (const auto& [name, tensor] : t) QVERIFY2(tensor.is_contiguous(), name.c_str());
    }

    void acceptsScalarsEmptyTensorsAndWhitespace() {
        // A scalar (shape [], one element), a zero-size tensor (an empty range), leading
        // and trailing whitespace around the JSON, an empty __metadata__.
        const QByteArray header = "  {\"__metadata__\":{}," + entry("s", "F32", "[]", 0, 4) +
                                  "," + entry("z", "F16", "[0,3]", 4, 4) + "," +
                                  entry("b", "U8", "[1]", 4, 5) + "}    ";
        writeFile(dir_.filePath("edge.safetensors"),
                  safetensors(header, words32({0x40490FDBu}) + QByteArray("\x2a", 1)));
        const auto t = readSafetensors(path("edge.safetensors"));
        QCOMPARE(t.at("s").dim(), int64_t(0));
        QCOMPARE_BITS(t.at("s").item<float>(), 3.14159274101257324f);  // 0x40490FDB
        QCOMPARE(t.at("z").sizes().vec(), (std::vector<int64_t>{0, 3}));
        QCOMPARE(int64s(t.at("b")), (std::vector<int64_t>{42}));

        // A file without tensors is a file (the data set then says what is missing).
        writeFile(dir_.filePath("nothing.safetensors"), safetensors("{}      "));
        const SafetensorsFile nothing(path("nothing.safetensors"));
        QVERIFY(nothing.entries().empty());
        QCOMPARE(nothing.describeNames(), std::string("no tensors"));
    }

    void readsOnlyTheTensorsAskedFor() {
        // The file holds an F64 tensor, which AmpScope does not read: asking for the others
        // works, asking for it names it.
        const QByteArray header =
            "{" + entry("keep", "I32", "[1]", 0, 4) + "," + entry("wide", "F64", "[1]", 4, 12) + "}";
        writeFile(dir_.filePath("mixed.safetensors"),
                  safetensors(header, words32({5u}) + littleEndian(0x3FF0000000000000ull, 8)));
        const auto t = readSafetensors(path("mixed.safetensors"), {"keep"});
        QCOMPARE(t.size(), size_t{1});
        QCOMPARE(int64s(t.at("keep")), (std::vector<int64_t>{5}));
        QCOMPARE(readError(path("mixed.safetensors"), {"wide"}),
                 QString::fromStdString(path("mixed.safetensors")) +
                     ": tensor \"wide\" is F64; AmpScope reads F32, F16, BF16, U8, I64 and I32");
        QCOMPARE(readError(path("mixed.safetensors"), {"keep", "q"}),
                 QString::fromStdString(path("mixed.safetensors")) +
                     ": no tensor \"q\" (the file holds \"keep\", \"wide\")");
    }

    void refusesDtypesItDoesNotRead_data() {
        QTest::addColumn<QByteArray>("dtype");
        QTest::addColumn<int>("size");
        QTest::newRow("F64") << QByteArray("F64") << 8;
        QTest::newRow("I8") << QByteArray("I8") << 1;
        QTest::newRow("I16") << QByteArray("I16") << 2;
        QTest::newRow("U16") << QByteArray("U16") << 2;
        QTest::newRow("U64") << QByteArray("U64") << 8;
        QTest::newRow("BOOL") << QByteArray("BOOL") << 1;
        QTest::newRow("F8_E4M3") << QByteArray("F8_E4M3") << 1;
        QTest::newRow("F8_E5M2") << QByteArray("F8_E5M2") << 1;
    }
    void refusesDtypesItDoesNotRead() {
        QFETCH(QByteArray, dtype);
        QFETCH(int, size);
        // Known to the format, so the file's layout checks out; refused when read.
        const QByteArray header =
            "{" + entry("t", dtype.constData(), "[2]", 0, uint64_t(2 * size)) + "}";
        writeFile(dir_.filePath("dtype.safetensors"), safetensors(header, QByteArray(2 * size, '\0')));
        const SafetensorsFile file(path("dtype.safetensors"));
        QCOMPARE(file.entries().front().elementSize, size_t(size));
        QCOMPARE(readError(path("dtype.safetensors")),
                 QString::fromStdString(path("dtype.safetensors")) + ": tensor \"t\" is " +
                     QString(dtype) + "; AmpScope reads F32, F16, BF16, U8, I64 and I32");
    }

    // ---- bad files: one row each, the exact message after "PATH: " ---------------------
    void badFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        const QByteArray x4 = entry("x", "F32", "[1]", 0, 4);  // a good 4-byte tensor

        QTest::newRow("empty file") << QByteArray()
                                    << "0 bytes, too short for a safetensors file (it begins "
                                       "with an 8-byte header length)";
        QTest::newRow("shorter than 8 bytes")
            << QByteArray("\x05\x00\x00", 3)
            << "3 bytes, too short for a safetensors file (it begins with an 8-byte header length)";
        QTest::newRow("header length beyond the file")
            << littleEndian(999999, 8) + QByteArray(304, ' ')
            << "header length 999999 is beyond the file (312 bytes)";
        QTest::newRow("header length 2^64 - 1")
            << littleEndian(~uint64_t{0}, 8) + QByteArray("{}      ")
            << "header length 18446744073709551615 is beyond the file (16 bytes)";
        QTest::newRow("header not JSON")
            << safetensors("{nope")
            << "header is not JSON (byte 2 of the header: syntax error while parsing object key "
               "- invalid literal; last read: '{no'; expected string literal)";
        QTest::newRow("header cut short (length too small)")
            << safetensors("{\"x\":") + QByteArray(4, '\0')
            << "header is not JSON (byte 5 of the header: syntax error while parsing value - "
               "unexpected end of input; expected '[', '{', or a literal)";
        QTest::newRow("header not UTF-8")
            << safetensors("{\"\xff\":1}")
            << "header is not JSON (byte 2 of the header: syntax error while parsing object key "
               "- invalid string: ill-formed UTF-8 byte; last read: '\"?'; expected string literal)";
        QTest::newRow("header a number beyond double")
            << safetensors("{\"x\":1e400}")
            << "header is not JSON (number overflow parsing '1e400')";
        QTest::newRow("header not an object") << safetensors("[1,2]")
                                              << "header is not a JSON object (got [1,2])";
        QTest::newRow("header nested 70 levels deep")
            << safetensors("{\"x\":" + QByteArray(70, '[') + QByteArray(70, ']') + "}")
            << "header is nested deeper than 64 levels (byte 68 of the header)";
        QTest::newRow("entry not an object")
            << safetensors("{\"x\":3}")
            << "tensor \"x\": expected an object with dtype, shape and data_offsets (got 3)";
        QTest::newRow("entry without dtype")
            << safetensors("{\"x\":{\"shape\":[1],\"data_offsets\":[0,4]}}", QByteArray(4, 0))
            << "tensor \"x\": no dtype";
        QTest::newRow("entry without shape")
            << safetensors("{\"x\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", QByteArray(4, 0))
            << "tensor \"x\": no shape";
        QTest::newRow("entry without data_offsets")
            << safetensors("{\"x\":{\"dtype\":\"F32\",\"shape\":[1]}}", QByteArray(4, 0))
            << "tensor \"x\": no data_offsets";
        QTest::newRow("dtype not a string")
            << safetensors("{\"x\":{\"dtype\":5,\"shape\":[1],\"data_offsets\":[0,4]}}")
            << "tensor \"x\": dtype must be a string (got 5)";
        QTest::newRow("shape not an array")
            << safetensors("{\"x\":{\"dtype\":\"F32\",\"shape\":\"2x2\",\"data_offsets\":[0,4]}}")
            << "tensor \"x\": shape must be an array of integers (got \"2x2\")";
        QTest::newRow("negative shape") << safetensors("{" + entry("x", "F32", "[2,-3]", 0, 4) + "}")
                                        << "tensor \"x\": shape[1] must be an integer >= 0 (got -3)";
        QTest::newRow("non-integer shape") << safetensors("{" + entry("x", "F32", "[2.5]", 0, 4) + "}")
                                           << "tensor \"x\": shape[0] must be an integer >= 0 (got 2.5)";
        QTest::newRow("integral float in shape")
            << safetensors("{" + entry("x", "F32", "[1.0]", 0, 4) + "}")
            << "tensor \"x\": shape[0] must be an integer >= 0 (got 1.0)";
        QTest::newRow("shape beyond int64")
            << safetensors("{" + entry("x", "F32", "[9223372036854775808]", 0, 4) + "}")
            << "tensor \"x\": shape[0] must be an integer >= 0 (got 9223372036854775808)";
        QTest::newRow("33 dimensions")
            << safetensors("{" + entry("x", "F32", "[1" + QByteArray(32 * 2, ',').replace(",,", ",1") + "]", 0, 4) + "}", QByteArray(4, 0))
            << "tensor \"x\": shape has 33 dimensions (at most 32)";
        QTest::newRow("data_offsets of one number")
            << safetensors("{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}")
            << "tensor \"x\": data_offsets must be [begin, end], two integers >= 0 (got [0])";
        QTest::newRow("data_offsets of strings")
            << safetensors("{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[\"0\",\"4\"]}}")
            << "tensor \"x\": data_offsets must be [begin, end], two integers >= 0 (got [\"0\",\"4\"])";
        QTest::newRow("negative data_offsets")
            << safetensors("{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}")
            << "tensor \"x\": data_offsets must be [begin, end], two integers >= 0 (got [-4,0])";
        QTest::newRow("unknown dtype") << safetensors("{" + entry("x", "Q7", "[1]", 0, 4) + "}", QByteArray(4, 0))
                                       << "tensor \"x\": unknown dtype \"Q7\"";
        QTest::newRow("sub-byte dtype F4") << safetensors("{" + entry("x", "F4", "[2]", 0, 1) + "}", QByteArray(1, 0))
                                           << "tensor \"x\": unknown dtype \"F4\"";
        QTest::newRow("lower-case dtype") << safetensors("{" + entry("x", "f32", "[1]", 0, 4) + "}", QByteArray(4, 0))
                                          << "tensor \"x\": unknown dtype \"f32\"";
        QTest::newRow("offsets reversed") << safetensors("{" + entry("x", "F32", "[1]", 8, 4) + "}", QByteArray(8, 0))
                                          << "tensor \"x\": data_offsets [8, 4] end before they begin";
        QTest::newRow("offsets beyond the data")
            << safetensors("{" + entry("x", "F32", "[2]", 0, 8) + "}", QByteArray(4, 0))
            << "tensor \"x\": data_offsets [0, 8] reach beyond the data (4 bytes after the header)";
        QTest::newRow("offsets overlapping")
            << safetensors("{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "F32", "[2]", 4, 12) + "}",
                           QByteArray(12, 0))
            << "tensors \"a\" (bytes [0, 8)) and \"b\" (bytes [4, 12)) overlap";
        QTest::newRow("the same range twice")
            << safetensors("{" + entry("a", "F32", "[1]", 0, 4) + "," + entry("b", "F32", "[1]", 0, 4) + "}",
                           QByteArray(4, 0))
            << "tensors \"a\" (bytes [0, 4)) and \"b\" (bytes [0, 4)) overlap";
        QTest::newRow("a gap between tensors")
            << safetensors("{" + entry("a", "F32", "[1]", 0, 4) + "," + entry("b", "F32", "[1]", 8, 12) + "}",
                           QByteArray(12, 0))
            << "data bytes [4, 8) belong to no tensor (safetensors stores tensors back to back)";
        QTest::newRow("a gap before the first tensor")
            << safetensors("{" + entry("a", "F32", "[1]", 4, 8) + "}", QByteArray(8, 0))
            << "data bytes [0, 4) belong to no tensor (safetensors stores tensors back to back)";
        QTest::newRow("a name twice (the last one counts)")
            << safetensors("{" + entry("a", "F32", "[1]", 0, 4) + "," + entry("a", "F32", "[1]", 4, 8) + "}",
                           QByteArray(8, 0))
            << "data bytes [0, 4) belong to no tensor (safetensors stores tensors back to back)";
        QTest::newRow("trailing bytes")
            << safetensors("{" + x4 + "}", QByteArray(6, 0))
            << "data bytes [4, 6) belong to no tensor (safetensors stores tensors back to back)";
        QTest::newRow("shape and byte count disagree")
            << safetensors("{" + entry("x", "F32", "[3]", 0, 8) + "}", QByteArray(8, 0))
            << "tensor \"x\": shape [3] of F32 is 12 bytes but data_offsets [0, 8] hold 8";
        QTest::newRow("numel overflow")
            << safetensors("{" + entry("x", "F32", "[4294967296,4294967296,4294967296]", 0, 4) + "}",
                           QByteArray(4, 0))
            << "tensor \"x\": shape [4294967296, 4294967296, 4294967296] of F32: its dimensions multiply past 2^63 bytes";
        QTest::newRow("numel 2^64 (wraps to 0 unchecked)")
            << safetensors("{" + entry("x", "U8", "[4294967296,4294967296]", 0, 0) + "}")
            << "tensor \"x\": shape [4294967296, 4294967296] of U8: its dimensions multiply past 2^63 bytes";
        QTest::newRow("huge dimensions around a zero")
            << safetensors("{" + entry("x", "F32", "[4294967296,0,4294967296]", 0, 0) + "}")
            << "tensor \"x\": shape [4294967296, 0, 4294967296] of F32: its dimensions multiply past 2^63 bytes";
        QTest::newRow("__metadata__ not an object")
            << safetensors("{\"__metadata__\":[1]}")
            << "__metadata__ must be an object of strings (got [1])";
        QTest::newRow("__metadata__ holding a number")
            << safetensors("{\"__metadata__\":{\"epoch\":3}}")
            << "__metadata__ \"epoch\" must be a string (got 3)";
        QTest::newRow("a name holding a newline")
            << safetensors("{\"a\\nb\":7}")
            << "tensor \"a\\nb\": expected an object with dtype, shape and data_offsets (got 7)";
        QTest::newRow("a very long name")
            << safetensors("{\"" + QByteArray(500, 'n') + "\":7}")
            << "tensor \"" + QString(44, 'n') + "...: expected an object with dtype, shape and "
                                                 "data_offsets (got 7)";
    }
    void badFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        writeFile(dir_.filePath("bad.safetensors"), bytes);
        const QString error = readError(path("bad.safetensors"));
        QVERIFY2(!error.contains('\n'), qPrintable(error));
        QCOMPARE(error, QString::fromStdString(path("bad.safetensors")) + ": " + message);
    }

    void refusesWhatIsNotAFile() {
        const std::string missing = path("missing.safetensors");
        QCOMPARE(readError(missing), QString::fromStdString(missing) +
                                         ": cannot open (No such file or directory)");
        QCOMPARE(readError(dir_.path().toStdString()),
                 dir_.path() + ": cannot open (Is a directory)");
        // A FIFO would block a plain open() until a writer came.
        const std::string fifo = path("fifo.safetensors");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QCOMPARE(readError(fifo), QString::fromStdString(fifo) + ": not a regular file");
    }

    void refusesAnUnreadableFile() {
        if (::geteuid() == 0) QSKIP("root reads files whatever their mode");
        writeFile(dir_.filePath("locked.safetensors"), safetensors("{}      "));
        QVERIFY(QFile::setPermissions(dir_.filePath("locked.safetensors"), QFileDevice::WriteOwner));
        QCOMPARE(readError(path("locked.safetensors")),
                 QString::fromStdString(path("locked.safetensors")) + ": cannot open (Permission denied)");
    }

    void refusesAHeaderAboveTheFormatsLimit() {
        // A sparse file: 100 MB of header length fit in the file but exceed the limit, and
        // nothing is allocated for it.
        const std::string big = path("big.safetensors");
        writeFile(QString::fromStdString(big), littleEndian(100'000'001, 8));
        QVERIFY(QFile::resize(QString::fromStdString(big), 8 + 100'000'001));
        QCOMPARE(readError(big), QString::fromStdString(big) +
                                     ": header length 100000001 is above the format's limit of "
                                     "100000000 bytes");
        QFile::remove(QString::fromStdString(big));
    }

    void listsTheNamesShortened() {
        const SafetensorsFile file(setPath());
        QCOMPARE(file.entries().size(), size_t{22});
        QCOMPARE(file.describeNames(3), std::string("\"x\", \"y\", \"xv\", ... (22 tensors)"));
        QCOMPARE(file.describeNames(22).find("..."), std::string::npos);
    }

    // ---- a file written by Python's torch ------------------------------------------------

    void matchesAFileWrittenByPythonTorch() {
        const std::string python = pythonWithTorch();
        if (python.empty()) QSKIP("no python3 with torch and numpy (set AMPSCOPE_PYTHON)");
        const QString script =
            QString::fromStdString(ampscope::test::sourceDir()) + "/tests/tools/write_safetensors.py";
        QProcess writer;
        writer.start(QString::fromStdString(python),
                     {script, dir_.filePath("py.safetensors"), dir_.filePath("py.json")});
        QVERIFY(writer.waitForFinished(120000));
        QVERIFY2(writer.exitCode() == 0, writer.readAllStandardError().constData());

        std::ifstream expectedFile(path("py.json"));
        const nlohmann::json expected = nlohmann::json::parse(expectedFile);
        const SafetensorsFile file(path("py.safetensors"));
        QCOMPARE(file.metadata().at("writer"), std::string("write_safetensors.py"));
        QCOMPARE(file.entries().size(), expected.size());
        for (const auto& [name, want] : expected.items()) {
            const SafetensorsEntry* entry = file.find(name);
            QVERIFY2(entry, name.c_str());
            QCOMPARE(entry->dtype, want["dtype"].get<std::string>());
            const torch::Tensor tensor = readTensor(file, *entry);
            QCOMPARE(tensor.sizes().vec(), want["shape"].get<std::vector<int64_t>>());
            if (want.contains("bits")) QCOMPARE(bits16(tensor), want["bits"].get<std::vector<int64_t>>());
            const auto& values = want["values"];
            QCOMPARE(static_cast<size_t>(tensor.numel()), values.size());
            if (tensor.is_floating_point()) {
                const std::vector<float> got = floats(tensor);
                for (size_t i = 0; i < got.size(); ++i) {
                    const double value = values[i].is_string()
                                             ? std::strtod(values[i].get<std::string>().c_str(), nullptr)
                                             : values[i].get<double>();
                    // Exact, sign of zero included.
                    QVERIFY2(double(got[i]) == value && std::signbit(got[i]) == std::signbit(value),
                             qPrintable(QString("%1[%2]: %3 != %4").arg(name.c_str()).arg(i).arg(got[i]).arg(value)));
                }
            } else {
                QCOMPARE(int64s(tensor), values.get<std::vector<int64_t>>());
            }
        }
        // The reference writer's padding: the header is a multiple of 8 bytes.
        QCOMPARE(file.dataStart() % 8, uint64_t{0});
    }

    // ---- the "tensors" data set ----------------------------------------------------------

    void splitsHoldOutLikeTheImageSets() {
        const DataBundle data = loadData(tensorsConfig(setPath()), 3);
        QCOMPARE(data.train.size(), int64_t(30));
        QCOMPARE(data.val.size(), int64_t(10));
        QCOMPARE(data.task, std::string("classification"));
        QCOMPARE(data.num_classes, int64_t(4));
        QCOMPARE(modelOutputs(data), int64_t(4));
        QCOMPARE(data.input_shape, (std::vector<int64_t>{3}));
        QCOMPARE(data.train.inputs.scalar_type(), torch::kFloat32);
        QCOMPARE(data.train.targets.scalar_type(), torch::kInt64);
        QCOMPARE(data.train.targets.sizes().vec(), (std::vector<int64_t>{30}));
        QVERIFY(!data.synthetic);
        // Rows stay paired: each label is its row's first input mod 4.
        for (const TensorDataset* set : {&data.train, &data.val})
            QCOMPARE(int64s(set->targets), int64s(set->inputs.select(1, 0).to(torch::kInt64) % 4));
        // The very hold-out the image sets use (SampleSplits), on the same rows and seed.
        const Split same = holdOut({rowsOf(40), torch::arange(40, torch::kInt64) % 4}, 0.25, 3);
        QVERIFY(torch::equal(data.val.inputs, same.val.inputs));
        QVERIFY(torch::equal(data.train.inputs, same.train.inputs));
        QVERIFY(!torch::equal(loadData(tensorsConfig(setPath()), 4).val.inputs, data.val.inputs));
        QCOMPARE(data.description,
                 "tensors " + setPath() + ": 40 x [3] F32, 4 classes; train 30 / val 10 (split 0.25 of train)");
    }

    void subsetKeepsSeededTrainRows() {
        DataConfig config = tensorsConfig(setPath());
        config.subset = 5;
        const DataBundle data = loadData(config, 3);
        QCOMPARE(data.train.size(), int64_t(5));
        QCOMPARE(data.val.size(), int64_t(10));
        QVERIFY2(QString::fromStdString(data.description).contains("train 5 (subset of 30) / val 10"),
                 data.description.c_str());
    }

    void takesValFromTheValidationPair() {
        DataConfig config = tensorsConfig(setPath());
        config.validation = "test";
        config.val_inputs = "xv";
        config.val_targets = "yv";
        const DataBundle data = loadData(config, 0);
        QCOMPARE(data.train.size(), int64_t(40));
        QCOMPARE(data.val.size(), int64_t(10));
        // The file's order is kept without a split, and val holds class 4, which train lacks.
        QCOMPARE(floats(data.train.inputs), floats(rowsOf(40)));
        QCOMPARE(floats(data.val.inputs), floats(rowsOf(10) + 100));
        QCOMPARE(data.num_classes, int64_t(5));
        QCOMPARE(data.description,
                 "tensors " + setPath() + ": 40 x [3] F32, 5 classes; train 40 / val 10 from \"xv\"");
    }

    void normalizesU8LikeImages() {
        DataConfig config = tensorsConfig(setPath());
        config.inputs = "xb";
        const DataBundle data = loadData(config, 3);
        QCOMPARE(data.input_shape, (std::vector<int64_t>{2, 2}));
        QCOMPARE(data.train.inputs.scalar_type(), torch::kFloat32);
        // The statistics of the final training bytes, the image rule: standardised train.
        const torch::Tensor bytes = (torch::arange(160, torch::kInt64) * 37 % 256).reshape({40, 2, 2});
        const Split rows = holdOut({bytes, torch::arange(40, torch::kInt64) % 4}, 0.25, 3);
        const torch::Tensor trainUnit = rows.train.inputs.to(torch::kFloat64) / 255.0;
        const double mean = trainUnit.mean().item<double>();
        const double std = trainUnit.var(/*unbiased=*/false).sqrt().item<double>();
        const torch::Tensor expectedVal =
            ((rows.val.inputs.to(torch::kFloat64) / 255.0 - mean) / std).to(torch::kFloat32);
        QVERIFY(torch::allclose(data.val.inputs, expectedVal, 1e-6, 1e-6));
        const torch::Tensor train = data.train.inputs.to(torch::kFloat64);
        QVERIFY(std::abs(train.mean().item<double>()) < 1e-6);
        QVERIFY(std::abs(train.var(false).sqrt().item<double>() - 1.0) < 1e-6);
        QVERIFY2(QString::fromStdString(data.description)
                     .contains(QString("U8, 4 classes; train 30 / val 10 (split 0.25 of train), "
                                       "normalized with train mean %1 std %2")
                                   .arg(mean, 0, 'f', 4)
                                   .arg(std, 0, 'f', 4)),
                 data.description.c_str());

        // Without normalize: byte / 255, exactly as float computes it.
        config.normalize = false;
        const DataBundle plain = loadData(config, 3);
        QVERIFY(torch::equal(plain.val.inputs,
                             (rows.val.inputs.to(torch::kFloat64) / 255.0).to(torch::kFloat32)));
        QVERIFY2(QString::fromStdString(plain.description).endsWith(", scaled to [0, 1]"),
                 plain.description.c_str());
    }

    void leavesFloatInputsAsTheyAre() {
        // normalize is on (the default): float inputs are already what the model sees.
        DataConfig config = tensorsConfig(setPath());
        config.inputs = "xh";
        config.validation = "test";
        config.val_inputs = "xv";  // F32 val beside F16 train: both floating point
        config.val_targets = "yv";
        const DataBundle data = loadData(config, 0);
        QCOMPARE(data.train.inputs.scalar_type(), torch::kFloat32);
        QVERIFY(torch::equal(data.train.inputs, (rowsOf(40) / 3).to(torch::kFloat16).to(torch::kFloat32)));
        QVERIFY(torch::equal(data.val.inputs, rowsOf(10) + 100));
        // [N] inputs are one feature per sample.
        config.inputs = "yr";
        config.validation = "split";
        config.val_inputs = config.val_targets = "";
        const DataBundle column = loadData(config, 0);
        QCOMPARE(column.input_shape, (std::vector<int64_t>{1}));
        QCOMPARE(column.train.inputs.sizes().vec(), (std::vector<int64_t>{30, 1}));
    }

    void floatTargetsMakeARegression() {
        DataConfig config = tensorsConfig(setPath());
        config.targets = "yr";
        const DataBundle data = loadData(config, 3);
        QCOMPARE(data.task, std::string("regression"));
        QCOMPARE(data.num_classes, int64_t(0));
        QCOMPARE(data.train.targets.scalar_type(), torch::kFloat32);
        QCOMPARE(data.train.targets.sizes().vec(), (std::vector<int64_t>{30, 1}));
        QCOMPARE(modelOutputs(data), int64_t(1));
        // Still paired: target = first input / 4.
        QCOMPARE(floats(data.val.targets.squeeze(1)), floats(data.val.inputs.select(1, 0) * 0.25));
        QVERIFY2(QString::fromStdString(data.description).contains("40 x [3] F32, regression to [1] F32;"),
                 data.description.c_str());

        config.targets = "yr3";  // BF16 [40, 3]: shape kept, values exact in bf16
        const DataBundle wide = loadData(config, 3);
        QCOMPARE(wide.train.targets.sizes().vec(), (std::vector<int64_t>{30, 3}));
        QCOMPARE(wide.train.targets.scalar_type(), torch::kFloat32);
        QVERIFY(torch::equal(wide.train.targets, wide.train.inputs.to(torch::kBFloat16).to(torch::kFloat32)));
        QCOMPARE(modelOutputs(wide), int64_t(3));

        config.targets = "yr22";  // kept as [N, 2, 2], which the built-in models cannot predict
        const DataBundle square = loadData(config, 3);
        QCOMPARE(square.train.targets.sizes().vec(), (std::vector<int64_t>{30, 2, 2}));
        QString error;
        try {
            modelOutputs(square);
        } catch (const InputError& e) {
            error = e.what();
        }
        QCOMPARE(error, QString("data.targets: 2x2 regression values per sample; the built-in "
                                "models end in a linear layer, so store the targets flat as [N, 4]"));
    }

    void int32ClassIdsBecomeInt64() {
        DataConfig config = tensorsConfig(setPath());
        config.targets = "y32";
        const DataBundle data = loadData(config, 3);
        QCOMPARE(data.train.targets.scalar_type(), torch::kInt64);
        QCOMPARE(data.num_classes, int64_t(3));
        QCOMPARE(int64s(data.train.targets), int64s(data.train.inputs.select(1, 0).to(torch::kInt64) % 3));
    }

    void refusals_data() {
        QTest::addColumn<QString>("inputs");
        QTest::addColumn<QString>("targets");
        QTest::addColumn<QString>("valInputs");
        QTest::addColumn<QString>("valTargets");
        QTest::addColumn<QString>("validation");
        QTest::addColumn<QString>("message");  // $PATH: the file
        const QString listed =
            "(the file holds \"x\", \"y\", \"xv\", \"yv\", \"xb\", \"xbv\", \"xh\", \"yr\", ... (22 tensors))";
        QTest::newRow("a name not in the file")
            << "q" << "y" << "" << "" << "split" << "$PATH: data.inputs: no tensor \"q\" " + listed;
        QTest::newRow("a val name not in the file")
            << "x" << "y" << "xv" << "qv" << "test" << "$PATH: data.val_targets: no tensor \"qv\" " + listed;
        QTest::newRow("inputs and targets with different sample counts")
            << "x" << "y39" << "" << "" << "split"
            << "$PATH: data.targets: tensor \"y39\" holds 39 samples but \"x\" (data.inputs) holds 40";
        QTest::newRow("val pair with different sample counts")
            << "x" << "y" << "xv" << "y39" << "test"
            << "$PATH: data.val_targets: tensor \"y39\" holds 39 samples but \"xv\" (data.val_inputs) holds 10";
        QTest::newRow("0-dim inputs")
            << "scalar" << "y" << "" << "" << "split"
            << "$PATH: data.inputs: tensor \"scalar\" is a scalar (shape []); its first dimension must count the samples";
        QTest::newRow("no samples")
            << "none" << "y" << "" << "" << "split" << "$PATH: data.inputs: tensor \"none\" holds 0 samples (shape [0,3])";
        QTest::newRow("integer inputs")
            << "xi" << "y" << "" << "" << "split"
            << "$PATH: data.inputs: tensor \"xi\" is I64; inputs must be F32, F16, BF16 or U8";
        QTest::newRow("U8 targets")
            << "x" << "yu8" << "" << "" << "split"
            << "$PATH: data.targets: tensor \"yu8\" is U8; targets must be I64 or I32 (class ids) or F32, F16 or BF16 (regression)";
        QTest::newRow("F64 targets")
            << "x" << "yf64" << "" << "" << "split"
            << "$PATH: data.targets: tensor \"yf64\" is F64; targets must be I64 or I32 (class ids) or F32, F16 or BF16 (regression)";
        QTest::newRow("two class ids per sample")
            << "x" << "y2d" << "" << "" << "split"
            << "$PATH: data.targets: tensor \"y2d\" is I64 [40,2]; class ids are one per sample, [N] or [N,1]";
        QTest::newRow("a negative class id")
            << "x" << "yneg" << "" << "" << "split"
            << "$PATH: data.targets: tensor \"yneg\" holds class id -1 at sample 5; class ids must be >= 0";
        QTest::newRow("a class id past 65535")
            << "x" << "yhuge" << "" << "" << "split"
            << "$PATH: data.targets: class id 70000 means 70001 classes (at most 65536)";
        QTest::newRow("val inputs shaped unlike train")
            << "x" << "y" << "x4" << "yv" << "test"
            << "$PATH: data.val_inputs: tensor \"x4\" has samples of [4] but \"x\" (data.inputs) has [3]";
        QTest::newRow("val inputs U8 beside float train")
            << "x" << "y" << "xbv" << "yv" << "test"
            << "$PATH: data.val_inputs: tensor \"xbv\" is U8 but \"x\" (data.inputs) is F32; both must be U8 or both floating point";
        QTest::newRow("val targets a regression beside class ids")
            << "x" << "y" << "xv" << "yrv" << "test"
            << "$PATH: data.val_targets: tensor \"yrv\" is F32 but \"y\" (data.targets) is I64; both must be class ids or both regression values";
        QTest::newRow("validation test without a val pair")
            << "x" << "y" << "" << "" << "test"
            << "data.val_inputs: validation \"test\" needs the validation pair (data.val_inputs and "
               "data.val_targets) from the file; name them, or use validation \"split\"";
        QTest::newRow("validation split with a val pair")
            << "x" << "y" << "xv" << "yv" << "split"
            << "data.val_inputs: validation \"split\" holds out data.val_fraction of data.inputs and "
               "would ignore the validation pair; clear it, or use validation \"test\"";
        QTest::newRow("val inputs without val targets")
            << "x" << "y" << "xv" << "" << "test" << "data.val_targets: required when data.val_inputs is set";
        QTest::newRow("no inputs named")
            << "" << "y" << "" << "" << "split"
            << "data.inputs: required for dataset tensors (the name of the training inputs in data.path)";
    }
    void refusals() {
        QFETCH(QString, inputs);
        QFETCH(QString, targets);
        QFETCH(QString, valInputs);
        QFETCH(QString, valTargets);
        QFETCH(QString, validation);
        QFETCH(QString, message);
        DataConfig config = tensorsConfig(setPath());
        config.inputs = inputs.toStdString();
        config.targets = targets.toStdString();
        config.val_inputs = valInputs.toStdString();
        config.val_targets = valTargets.toStdString();
        config.validation = validation.toStdString();
        QCOMPARE(loadError(config), message.replace("$PATH", QString::fromStdString(setPath())));
    }

    void refusesMissingPathAndFile() {
        DataConfig config = tensorsConfig("");
        QCOMPARE(loadError(config),
                 QString("data.path: required for dataset tensors (the .safetensors file)"));
        config.path = path("absent.safetensors");
        QCOMPARE(loadError(config), QString::fromStdString(config.path) +
                                        ": cannot open (No such file or directory)");
    }
};

QTEST_APPLESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
