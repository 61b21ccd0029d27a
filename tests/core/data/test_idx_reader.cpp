// IdxReader: reading raw and gzip IDX files, and one clear InputError per kind of
// broken file. Every file is written at runtime into a temporary directory.
#include <zlib.h>

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "ExactCompare.h"
#include "common/InputError.h"
#include "data/IdxReader.h"

using namespace ampscope;

namespace {

using Bytes = std::vector<uint8_t>;

void putBigEndian(Bytes& out, uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(uint8_t(value >> shift));
}

Bytes idxBytes(const std::vector<uint32_t>& dims, const Bytes& payload, uint8_t type = 0x08) {
    Bytes out = {0, 0, type, uint8_t(dims.size())};
    for (uint32_t dim : dims) putBigEndian(out, dim);
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

// Pseudo-random bytes: incompressible enough that deflate emits real Huffman blocks,
// so that flipping bytes in the middle hits compressed data.
Bytes noise(size_t size, uint32_t state = 12345) {
    Bytes out(size);
    for (auto& byte : out) {
        state = state * 1664525u + 1013904223u;
        byte = uint8_t(state >> 24) & 0x3f;  // 6 bits: compressible but not trivially
    }
    return out;
}

Bytes sequence(size_t size) {
    Bytes out(size);
    for (size_t i = 0; i < size; ++i) out[i] = uint8_t(i * 7 % 251);
    return out;
}

void writeRaw(const std::string& path, const Bytes& bytes) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

void writeGzip(const std::string& path, const Bytes& bytes, const char* mode = "wb6") {
    gzFile file = gzopen(path.c_str(), mode);
    QVERIFY(file != nullptr);
    if (!bytes.empty())
        QCOMPARE(gzwrite(file, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
    QCOMPARE(gzclose(file), Z_OK);
}

Bytes readRaw(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// The InputError message of reading `path`, "" when it reads fine. Any other exception
// is reported as such so that the test fails with its text instead of aborting.
QString readError(const std::string& path) {
    try {
        readIdxFile(path);
    } catch (const InputError& error) {
        return QString::fromStdString(error.what());
    } catch (const std::exception& error) {
        return QStringLiteral("NOT AN InputError: ") + QString::fromStdString(error.what());
    }
    return {};
}

}  // namespace

class TestIdxReader : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }

    void expectError(const std::string& file, const QString& phrase) {
        const QString message = readError(file);
        QVERIFY2(message.startsWith(QString::fromStdString(file) + ": "), qPrintable(message));
        QVERIFY2(message.contains(phrase), qPrintable(message));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void readsRawImages() {
        const Bytes payload = sequence(3 * 4 * 5);
        writeRaw(path("images-raw"), idxBytes({3, 4, 5}, payload));
        const IdxArray array = readIdxFile(path("images-raw"));
        QCOMPARE(array.dims, (std::vector<int64_t>{3, 4, 5}));
        QCOMPARE(array.count(), int64_t(3));
        QVERIFY(array.data == payload);
    }

    void readsGzipLabels() {
        const Bytes payload = {0, 1, 2, 9, 4, 5, 6};
        writeGzip(path("labels.gz"), idxBytes({7}, payload, 0x08));
        const IdxArray array = readIdxFile(path("labels.gz"));
        QCOMPARE(array.dims, (std::vector<int64_t>{7}));
        QVERIFY(array.data == payload);
    }

    void detectsCompressionFromContentNotName() {
        const Bytes payload = sequence(2 * 28 * 28);
        writeGzip(path("gzip-without-suffix"), idxBytes({2, 28, 28}, payload));
        writeRaw(path("raw-with-suffix.gz"), idxBytes({2, 28, 28}, payload));
        QVERIFY(readIdxFile(path("gzip-without-suffix")).data == payload);
        QVERIFY(readIdxFile(path("raw-with-suffix.gz")).data == payload);
    }

    void readsMultiMemberGzip() {
        // gzip allows concatenated members (e.g. `cat a.gz b.gz`); it is one stream.
        const Bytes whole = idxBytes({2, 50}, sequence(100));
        writeGzip(path("part1.gz"), Bytes(whole.begin(), whole.begin() + 40));
        writeGzip(path("part2.gz"), Bytes(whole.begin() + 40, whole.end()));
        Bytes joined = readRaw(path("part1.gz"));
        const Bytes second = readRaw(path("part2.gz"));
        joined.insert(joined.end(), second.begin(), second.end());
        writeRaw(path("joined.gz"), joined);
        QVERIFY(readIdxFile(path("joined.gz")).data == sequence(100));
    }

    void readsPayloadLargerThanTheFirstGzipChunk() {
        // 70 MB is above the 64 MiB first allocation, so the buffer has to grow.
        const size_t rows = 70'000'000 / 784 + 1;
        const Bytes payload = sequence(rows * 784);
        writeGzip(path("large.gz"), idxBytes({uint32_t(rows), 28, 28}, payload), "wb1");
        const IdxArray array = readIdxFile(path("large.gz"));
        QCOMPARE(array.dims, (std::vector<int64_t>{int64_t(rows), 28, 28}));
        QVERIFY(array.data == payload);
        QCOMPARE(array.data.capacity(), array.data.size());
    }

    void rejectsWrongMagic() {
        writeRaw(path("magic"), {0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1, 0});
        expectError(path("magic"),
                    "not an IDX file (magic 0x12345678, expected 0x00000801 or 0x00000803)");
        // A text file is a typical wrong input.
        writeRaw(path("text.gz"), {'h', 'e', 'l', 'l', 'o', '\n'});
        expectError(path("text.gz"), "not an IDX file (magic 0x68656C6C");
    }

    void rejectsUnsupportedElementType() {
        Bytes floats = idxBytes({2}, {0, 0, 0, 0, 0, 0, 0, 0}, 0x0D);
        writeRaw(path("floats"), floats);
        expectError(path("floats"), "unsupported IDX element type 0x0D (float32)");
    }

    void rejectsTruncatedHeader() {
        writeRaw(path("header5"), {0, 0, 8, 3, 0});
        expectError(path("header5"), "truncated header (5 bytes, need 16)");
        writeRaw(path("header2"), {0, 0});
        expectError(path("header2"), "truncated header (2 bytes, need at least 4)");
        writeGzip(path("header9.gz"), Bytes{0, 0, 8, 3, 0, 0, 0, 1, 0});
        expectError(path("header9.gz"), "truncated header (9 bytes, need 16)");
    }

    void rejectsTruncatedData() {
        Bytes bytes = idxBytes({60000, 28, 28}, sequence(1000));
        writeRaw(path("short"), bytes);
        expectError(path("short"), "truncated data (header says 47040000 bytes, file has 1000)");
        writeGzip(path("short.gz"), bytes);
        expectError(path("short.gz"), "truncated data (header says 47040000 bytes, file has 1000)");
    }

    void rejectsTrailingData() {
        Bytes bytes = idxBytes({3, 2, 2}, sequence(12));
        bytes.insert(bytes.end(), {1, 2, 3});
        writeRaw(path("trailing"), bytes);
        expectError(path("trailing"), "trailing data (header says 12 bytes, file has 15)");
        writeGzip(path("trailing.gz"), bytes);
        expectError(path("trailing.gz"), "trailing data (header says 12 bytes, file has 15)");
    }

    void rejectsZeroDimension() {
        writeRaw(path("zero"), idxBytes({3, 0, 2}, {}));
        expectError(path("zero"), "dimension 1 is zero");
    }

    void rejectsLyingDimensionsBeforeAllocating() {
        // 1e12 bytes: reading must fail at once, not try to allocate a terabyte.
        const Bytes huge = idxBytes({100000, 100000, 100}, sequence(16));
        writeRaw(path("huge"), huge);
        expectError(path("huge"),
                    "dimensions 100000 x 100000 x 100 = 1e+12 bytes exceed the "
                    "4 GiB limit");
        writeGzip(path("huge.gz"), huge);
        expectError(path("huge.gz"), "exceed the 4 GiB limit");
        // Products that wrap around 64 bits must not sneak under the limit.
        const Bytes wrapping =
            idxBytes({0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0x10u}, sequence(16));
        writeRaw(path("wrapping"), wrapping);
        expectError(path("wrapping"), "exceed the 4 GiB limit");
        // A corrupted rank byte: the message stays short.
        writeRaw(path("many"), idxBytes({1000, 1000, 1000, 1000, 1000, 1000}, {}));
        expectError(path("many"),
                    "dimensions 1000 x 1000 x 1000 x 1000 x ... (6 dimensions) = "
                    "1e+18 bytes exceed the 4 GiB limit");
        // Just over the limit with a 2-D array.
        writeGzip(path("just-over.gz"), idxBytes({0xFFFFFFFFu, 2}, {}));
        expectError(path("just-over.gz"), "exceed the 4 GiB limit");
    }

    void rejectsEmptyFile() {
        writeRaw(path("empty"), {});
        expectError(path("empty"), "empty file");
        writeGzip(path("empty.gz"), {});
        expectError(path("empty.gz"), "empty file");
    }

    void rejectsMissingFileAndDirectory() {
        expectError(path("does-not-exist.gz"), "cannot open (No such file or directory)");
        expectError(dir_.path().toStdString(), "cannot open (Is a directory)");
    }

    void rejectsCorruptedGzip_data() {
        QTest::addColumn<double>("where");
        QTest::newRow("quarter") << 0.25;
        QTest::newRow("middle") << 0.5;
        QTest::newRow("three quarters") << 0.75;
    }
    void rejectsCorruptedGzip() {
        QFETCH(double, where);
        const Bytes idx = idxBytes({100, 28, 28}, noise(100 * 28 * 28));
        writeGzip(path("good.gz"), idx);
        Bytes gzip = readRaw(path("good.gz"));
        QVERIFY(gzip.size() > 1000);
        const size_t at = size_t(where * double(gzip.size()));
        for (size_t i = at; i < at + 16; ++i) gzip[i] ^= 0xFF;
        writeRaw(path("corrupted.gz"), gzip);
        expectError(path("corrupted.gz"), "gzip stream corrupted (zlib: ");
    }

    void rejectsCorruptedChecksum() {
        // A broken CRC is only seen at the very end: the reader must get that far.
        const Bytes idx = idxBytes({10, 28, 28}, noise(10 * 28 * 28));
        writeGzip(path("crc.gz"), idx);
        Bytes gzip = readRaw(path("crc.gz"));
        gzip[gzip.size() - 6] ^= 0x01;  // inside the CRC32 of the 8-byte trailer
        writeRaw(path("crc.gz"), gzip);
        expectError(path("crc.gz"), "gzip stream corrupted (zlib: incorrect data check)");
    }

    void rejectsTruncatedGzip_data() {
        QTest::addColumn<double>("keep");
        QTest::newRow("half") << 0.5;
        QTest::newRow("all but the trailer") << -8.0;
        QTest::newRow("inside the gzip header") << -1.0;
    }
    void rejectsTruncatedGzip() {
        QFETCH(double, keep);
        const Bytes idx = idxBytes({100, 28, 28}, noise(100 * 28 * 28));
        writeGzip(path("whole.gz"), idx);
        Bytes gzip = readRaw(path("whole.gz"));
        const size_t size = keep == -8.0   ? gzip.size() - 8
                            : keep == -1.0 ? 5
                                           : size_t(keep * double(gzip.size()));
        gzip.resize(size);
        writeRaw(path("cut.gz"), gzip);
        expectError(path("cut.gz"), "gzip stream truncated (zlib: unexpected end of file)");
    }
};

QTEST_APPLESS_MAIN(TestIdxReader)
#include "test_idx_reader.moc"
