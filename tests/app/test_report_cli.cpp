// `ampscope-cli report` / `export-csv` / `export-tfevents` on runs recorded by the CLI:
// the report carries summary.json's values, the PDF renders to non-blank A4 pages, the
// HTML is one self-contained file, and bad or half-written run directories give one
// clear line or a report marked INCOMPLETE, never a crash.
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "SshServer.h"
#include "TestSupport.h"
#include "common/Text.h"

using namespace ampscope;
using nlohmann::json;

namespace {

QString readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

void writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(text);
}

json runConfig(const std::string& mode, bool injectNan) {
    json c = {{"schema_version", 1},
              {"name", "report-" + mode},
              {"seed", 3},
              {"threads", 1},
              {"device", "cpu"},
              {"data",
               {{"dataset", "spirals"},
                {"synthetic_samples", 256},
                {"validation", "split"},
                {"val_fraction", 0.25}}},
              {"model", {{"name", "mlp"}, {"hidden", {16, 16}}}},
              {"precision", {{"mode", mode}}},
              {"optim", {{"lr", 0.01}}},
              {"train", {{"epochs", 2}, {"batch_size", 32}}},
              {"probes", {{"every", 2}}}};
    if (injectNan)
        c["faults"] = json::array({{{"step", 5}, {"kind", "nan_grad"}, {"layer", "fc2"}}});
    return c;
}

// Records a run with the CLI; returns its directory.
QString recordRun(const QTemporaryDir& tmp, const QString& name, const json& config) {
    const QString configPath = tmp.filePath(name + QStringLiteral(".json"));
    writeText(configPath, QByteArray::fromStdString(config.dump()));
    const QString dir = tmp.filePath(name);
    const auto r = test::runCli({QStringLiteral("run"), configPath, QStringLiteral("--out"), dir,
                                 QStringLiteral("--quiet")});
    if (r.exitCode != 0) qWarning("run failed: %s", qPrintable(r.err));
    return dir;
}

// The results-table values as the report writes them, computed here from summary.json.
QStringList expectedResultValues(const json& s) {
    QStringList values;
    values << QString::number(s.at("steps").get<int64_t>());
    values << QString::fromStdString(formatDuration(s.at("wall_seconds").get<double>()));
    values << QString::fromStdString(formatNumber(s.at("samples_per_second").get<double>(), 4));
    values << QString::fromStdString(formatBytes(s.at("peak_memory_bytes").get<int64_t>()));
    values << QString::fromStdString(formatNumber(s.at("final_train_loss").get<double>(), 5));
    values << QString::fromStdString(formatNumber(s.at("val_loss").get<double>(), 5));
    values << QString::number(s.at("val_accuracy").get<double>() * 100.0, 'f', 2) +
                  QStringLiteral(" %");
    values << QString::fromStdString(formatNumber(s.at("final_scale").get<double>(), 6));
    values << QStringLiteral("%1 / %2")
                  .arg(s.at("scale_backoffs").get<int64_t>())
                  .arg(s.at("scale_growths").get<int64_t>());
    return values;
}

struct Gray {
    int width = 0, height = 0;
    QByteArray pixels;
};

// A binary PGM (P5, maxval 255) as pdftoppm -gray writes it.
Gray readPgm(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QByteArray data = file.readAll();
    QList<QByteArray> fields;
    int at = 0;
    while (fields.size() < 4 && at < data.size()) {
        while (at < data.size() && QChar(data[at]).isSpace()) ++at;
        int start = at;
        while (at < data.size() && !QChar(data[at]).isSpace()) ++at;
        fields << data.mid(start, at - start);
    }
    ++at;  // the single whitespace after maxval
    if (fields.size() < 4 || fields[0] != "P5") return {};
    Gray g{fields[1].toInt(), fields[2].toInt(), data.mid(at)};
    if (g.pixels.size() != g.width * g.height) return {};
    return g;
}

// The records of one type in a run's events.jsonl.
std::vector<json> recordsOf(const QString& dir, const std::string& type) {
    std::vector<json> records;
    for (const QString& line : readText(dir + QStringLiteral("/events.jsonl")).split(QLatin1Char('\n'))) {
        if (line.isEmpty()) continue;
        json record = json::parse(line.toStdString());
        if (record.value("type", "") == type) records.push_back(std::move(record));
    }
    return records;
}

// A number of a record that may be written null with a "_nonfinite" tag.
double numberOf(const json& record, const std::string& key) {
    if (record.at(key).is_number()) return record.at(key).get<double>();
    const std::string tag = record.at(key + "_nonfinite").get<std::string>();
    return tag == "inf" ? INFINITY : tag == "-inf" ? -INFINITY : NAN;
}

// A fraction as the format tables write it, computed here from the rule the report
// states: 0, below 0.01 %, else two decimals.
QString percentCell(double fraction) {
    if (fraction == 0.0) return QStringLiteral("0 %");
    if (fraction < 1e-4) return QStringLiteral("<0.01 %");
    return QString::number(fraction * 100.0, 'f', 2) + QStringLiteral(" %");
}

QString snrCell(double db) {
    if (std::isinf(db) && db > 0) return QStringLiteral("exact");
    return QString::fromStdString(formatNumber(db, 3)) + QStringLiteral(" dB");
}

double inkFraction(const Gray& g) {
    qint64 ink = 0;
    for (char c : g.pixels) ink += static_cast<unsigned char>(c) < 200;
    return g.pixels.isEmpty() ? 0.0 : double(ink) / double(g.pixels.size());
}

}  // namespace

class ReportCliTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString fp16_, fp32_, nanRun_, sweepRun_, fp8Run_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        fp16_ = recordRun(tmp_, QStringLiteral("fp16"), runConfig("fp16", false));
        fp32_ = recordRun(tmp_, QStringLiteral("fp32"), runConfig("fp32", false));
        nanRun_ = recordRun(tmp_, QStringLiteral("nan"), runConfig("fp32", true));
        // 12 steps (192 training samples, batch 32, 2 epochs), probes every 2: sweep steps
        // 4, 8 and 12; fp8's quantization points on every probe step.
        json sweep = runConfig("fp32", false);
        sweep["probes"]["format_sweep_every"] = 4;
        sweepRun_ = recordRun(tmp_, QStringLiteral("sweep"), sweep);
        fp8Run_ = recordRun(tmp_, QStringLiteral("fp8"), runConfig("fp8", false));
        for (const QString& d : {fp16_, fp32_, nanRun_, sweepRun_, fp8Run_})
            QVERIFY2(QFile::exists(d + QStringLiteral("/summary.json")), qPrintable(d));
    }

    void htmlReportCarriesTheSummaryValuesAndEmbedsItsPlots() {
        const QString out = tmp_.filePath(QStringLiteral("fp16.html"));
        const auto r =
            test::runCli({QStringLiteral("report"), fp16_, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = readText(out);
        const json summary =
            json::parse(readText(fp16_ + QStringLiteral("/summary.json")).toStdString());
        for (const QString& value : expectedResultValues(summary))
            QVERIFY2(html.contains(QStringLiteral("<td>") + value.toHtmlEscaped() +
                                   QStringLiteral("</td>")),
                     qPrintable(value));
        QVERIFY(html.contains(QStringLiteral("fp16 (emulated)")));
        QVERIFY(html.contains(QStringLiteral("LibTorch ")));
        // Self-contained: the plots are data URIs (loss, scale, >= 1 histogram, underflow).
        QVERIFY(html.count(QStringLiteral("src=\"data:image/svg+xml;base64,")) >= 4);
        QVERIFY(!html.contains(QStringLiteral("src=\"http")));
        QVERIFY(!html.contains(QStringLiteral("href=\"http")));
        const QRegularExpression image(QStringLiteral("base64,([A-Za-z0-9+/=]+)\""));
        const QByteArray svg = QByteArray::fromBase64(image.match(html).captured(1).toLatin1());
        QVERIFY(svg.contains("<svg"));
        QVERIFY(svg.contains("Loss"));  // the title drawn above the plot
    }

    void pdfReportRendersToNonBlankA4PagesWithTheValues() {
        const QString out = tmp_.filePath(QStringLiteral("fp16.pdf"));
        const auto r =
            test::runCli({QStringLiteral("report"), fp16_, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(readText(out).startsWith(QStringLiteral("%PDF-")));

        const QString prefix = tmp_.filePath(QStringLiteral("page"));
        QCOMPARE(QProcess::execute(QStringLiteral("pdftoppm"),
                                   {QStringLiteral("-r"), QStringLiteral("72"),
                                    QStringLiteral("-gray"), out, prefix}),
                 0);
        const QStringList pages =
            QDir(tmp_.path()).entryList({QStringLiteral("page-*.pgm")}, QDir::Files, QDir::Name);
        QVERIFY2(pages.size() >= 2,
                 qPrintable(pages.join(',')));  // text + four plots do not fit on one
        for (const QString& page : pages) {
            const Gray g = readPgm(tmp_.filePath(page));
            // A4 at 72 dpi: 595.3 x 841.9 points.
            QCOMPARE(g.width, 595);
            QCOMPARE(g.height, 842);
            QVERIFY2(inkFraction(g) > 0.01, qPrintable(page));
        }
        // The text layer holds the results table's values.
        QProcess text;
        text.start(QStringLiteral("pdftotext"),
                   {QStringLiteral("-layout"), out, QStringLiteral("-")});
        QVERIFY(text.waitForFinished(60000));
        const QString words = QString::fromUtf8(text.readAllStandardOutput());
        const json summary =
            json::parse(readText(fp16_ + QStringLiteral("/summary.json")).toStdString());
        for (const QString& value : expectedResultValues(summary))
            QVERIFY2(words.contains(value), qPrintable(value));
    }

    void comparisonReportHasTheSideBySideTable() {
        const QString out = tmp_.filePath(QStringLiteral("compare.html"));
        const auto r =
            test::runCli({QStringLiteral("report"), fp32_, fp16_, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = readText(out);
        QVERIFY(html.contains(QStringLiteral("AmpScope comparison of 2 runs")));
        QVERIFY(html.contains(QStringLiteral("Side by side")));
        // The baseline against itself: x1.00 and +0.00 pt.
        QVERIFY(html.contains(QStringLiteral("<td>×1.00</td>")));
        QVERIFY(html.contains(QStringLiteral("<td>+0.00 pt (within 0.5 pt)</td>")));
        const json a = json::parse(readText(fp32_ + QStringLiteral("/summary.json")).toStdString());
        const json b = json::parse(readText(fp16_ + QStringLiteral("/summary.json")).toStdString());
        const double ratio =
            b.at("samples_per_second").get<double>() / a.at("samples_per_second").get<double>();
        QVERIFY(html.contains(QStringLiteral("<td>×%1</td>").arg(ratio, 0, 'f', 2)));
    }

    void nanRunReportsTheDiagnosis() {
        const QString out = tmp_.filePath(QStringLiteral("nan.html"));
        const auto r =
            test::runCli({QStringLiteral("report"), nanRun_, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = readText(out);
        QVERIFY2(html.contains(QStringLiteral(
                     "First non-finite value at step 5</b>: layer <b>fc2</b>, backward pass")),
                 qPrintable(html.mid(html.indexOf(QStringLiteral("NaN / Inf")), 400)));
        QVERIFY(html.contains(QStringLiteral("fc2 · gradient")));
        // Step 5 is not a probe step (every 2): the replay of it found the value.
        QVERIFY(html.contains(QStringLiteral("Found by running step 5 again with every layer checked")));
    }

    void narrativeNextToTheRunIsPrinted() {
        const QString dir = tmp_.filePath(QStringLiteral("scenario-run"));
        QVERIFY(QDir().mkpath(dir));
        for (const char* name : {"config.json", "events.jsonl", "summary.json"})
            QVERIFY(QFile::copy(fp32_ + QLatin1Char('/') + QLatin1String(name),
                                dir + QLatin1Char('/') + QLatin1String(name)));
        writeText(dir + QStringLiteral("/narrative.md"),
                  "# The lesson\n\nLook at the **loss** plot.\n");
        const QString out = tmp_.filePath(QStringLiteral("scenario.html"));
        const auto r = test::runCli({QStringLiteral("report"), dir, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = readText(out);
        QVERIFY(html.contains(QStringLiteral("Scenario narrative")));
        QVERIFY(html.contains(QStringLiteral("The lesson")));
        QVERIFY(html.contains(QStringLiteral("loss")));
    }

    void halfWrittenRunIsReportedIncomplete() {
        const QString dir = tmp_.filePath(QStringLiteral("half"));
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(QFile::copy(fp16_ + QStringLiteral("/config.json"),
                            dir + QStringLiteral("/config.json")));
        QByteArray events = readText(fp16_ + QStringLiteral("/events.jsonl")).toUtf8();
        events.truncate(events.size() / 2 + 7);  // mid-run, mid-line: a torn last line
        writeText(dir + QStringLiteral("/events.jsonl"), events);
        for (const char* suffix : {"pdf", "html"}) {
            const QString out = tmp_.filePath(QStringLiteral("half.") + QLatin1String(suffix));
            const auto r =
                test::runCli({QStringLiteral("report"), dir, QStringLiteral("--out"), out});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QVERIFY(QFileInfo(out).size() > 0);
        }
        const QString html = readText(tmp_.filePath(QStringLiteral("half.html")));
        QVERIFY(html.contains(QStringLiteral("INCOMPLETE")));
        QVERIFY(html.contains(QStringLiteral("ignored a torn last line")));
    }

    void badInputGivesOneClearLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing run")
            << QStringList{QStringLiteral("report"), QStringLiteral("/no/such/run"),
                           QStringLiteral("--out"), QStringLiteral("x.pdf")}
            << QStringLiteral("/no/such/run: no such run directory");
        QTest::newRow("no --out") << QStringList{QStringLiteral("report"), QStringLiteral("/tmp")}
                                  << QStringLiteral("report: missing --out");
        QTest::newRow("no run") << QStringList{QStringLiteral("report"), QStringLiteral("--out"),
                                               QStringLiteral("x.pdf")}
                                << QStringLiteral("report: missing RUN_DIR");
        QTest::newRow("csv missing run")
            << QStringList{QStringLiteral("export-csv"), QStringLiteral("/no/such/run"),
                           QStringLiteral("--out"), QStringLiteral("/tmp/x")}
            << QStringLiteral("/no/such/run: no such run directory");
        QTest::newRow("tb two runs")
            << QStringList{QStringLiteral("export-tfevents"), QStringLiteral("a"),
                           QStringLiteral("b"), QStringLiteral("--out"), QStringLiteral("/tmp/x")}
            << QStringLiteral("export-tfevents: one RUN_DIR only (got 2)");
    }
    void badInputGivesOneClearLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = test::runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
    }

    // The Number formats section of a run with a sweep: the last sweep step's table cells
    // are the records' SNR and underflow, and the sentence of each layer names the formats
    // in which both of its tensors keep SNR >= 20 dB, underflow < 1 % and saturation < 1 %
    // (computed here from the records' fields).
    void reportShowsTheLastFormatSweep() {
        const QString out = tmp_.filePath(QStringLiteral("sweep.html"));
        const auto r = test::runCli({QStringLiteral("report"), sweepRun_, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = readText(out);
        QVERIFY(html.contains(QStringLiteral("<h3>Number formats</h3>")));
        QVERIFY(html.contains(QStringLiteral("Format sweep at step 12")));
        QVERIFY(html.contains(QStringLiteral("SNR is at least 20 dB and under 1 % of its elements underflow and "
                                             "under 1 % saturate")));
        // layer -> format -> why it fails (empty: both tensors survive); gradient records
        // come before activation ones, so the first failing tensor is named.
        std::map<std::string, std::map<std::string, QString>> failure;
        std::vector<std::string> layers, formats;
        int64_t atLastStep = 0;
        for (const json& record : recordsOf(sweepRun_, "format_sweep")) {
            QVERIFY(record.at("step") == 4 || record.at("step") == 8 || record.at("step") == 12);
            if (record.at("step") != 12) continue;
            ++atLastStep;
            const std::string layer = record.at("layer"), format = record.at("format");
            if (std::find(layers.begin(), layers.end(), layer) == layers.end()) layers.push_back(layer);
            if (std::find(formats.begin(), formats.end(), format) == formats.end()) formats.push_back(format);
            const double elements = record.at("elements").get<double>();
            const double underflow = record.at("underflowed").get<double>() / elements;
            const double saturated = record.at("saturated").get<double>() / elements;
            const double snr = numberOf(record, "snr_db");
            QString& why = failure[layer][format];
            const QString tensor = QString::fromStdString(record.at("tensor"));
            if (why.isEmpty()) {
                if (snr < 20.0)
                    why = tensor + QStringLiteral(" SNR ") + snrCell(snr);
                else if (underflow >= 0.01)
                    why = tensor + QLatin1Char(' ') + percentCell(underflow) + QStringLiteral(" underflow");
                else if (saturated >= 0.01)
                    why = tensor + QLatin1Char(' ') + percentCell(saturated) + QStringLiteral(" saturated");
            }
            const QString cell = QStringLiteral("<td>%1</td>").arg(
                (snrCell(snr) + QStringLiteral(" / ") + percentCell(underflow)).toHtmlEscaped());
            QVERIFY2(html.contains(cell), qPrintable(QString::fromStdString(layer + " " + format) + cell));
        }
        // fc1, fc2, out x 2 tensors x 7 formats.
        QCOMPARE(atLastStep, int64_t{3 * 2 * 7});
        for (const auto& layer : layers) {
            QStringList kept, lost;
            for (const auto& format : formats)
                if (failure[layer][format].isEmpty())
                    kept << QString::fromStdString(format);
                else
                    lost << QString::fromStdString(format) + QStringLiteral(" (") + failure[layer][format] + QLatin1Char(')');
            const QString sentence =
                QStringLiteral("<li><b>%1</b> survives %2%3.</li>")
                    .arg(QString::fromStdString(layer),
                         kept.isEmpty() ? QStringLiteral("none of the formats") : kept.join(QStringLiteral(", ")),
                         lost.isEmpty() ? QStringLiteral(" (all of them)")
                                        : QStringLiteral("; not ") + lost.join(QStringLiteral(", ")).toHtmlEscaped());
            QVERIFY2(html.contains(sentence), qPrintable(sentence));
        }
        // A run without a sweep says how to get one (a short run sweeps at its last probe
        // step unless the sweep is off).
        json noSweep = runConfig("fp32", false);
        noSweep["probes"]["format_sweep_every"] = 0;
        const QString noSweepRun = recordRun(tmp_, QStringLiteral("no-sweep"), noSweep);
        const QString plain = tmp_.filePath(QStringLiteral("plain.html"));
        QCOMPARE(test::runCli({QStringLiteral("report"), noSweepRun, QStringLiteral("--out"), plain}).exitCode, 0);
        QVERIFY(readText(plain).contains(QStringLiteral("No format sweep was recorded in this run")));
    }

    // A format mode's run: one row per quantization point of the last probe step, with
    // the record's underflow, saturation and SNR.
    void reportShowsAFormatModesPoints() {
        const QString out = tmp_.filePath(QStringLiteral("fp8.html"));
        const auto r = test::runCli({QStringLiteral("report"), fp8Run_, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString html = readText(out);
        QVERIFY(html.contains(QStringLiteral("The precision mode's own quantization at step 12")));
        int64_t rows = 0;
        for (const json& record : recordsOf(fp8Run_, "format_quant")) {
            if (record.at("step") != 12) continue;
            ++rows;
            const double elements = record.at("elements").get<double>();
            const QString row =
                QStringLiteral("<td class=\"key\">%1</td><td>%2 %3</td><td>%4</td><td>%5</td><td>%6</td><td>%7</td><td>%8</td>")
                    .arg(QString::fromStdString(record.at("layer")), QString::fromStdString(record.at("operand")),
                         QString::fromStdString(record.at("direction")), QString::fromStdString(record.at("format")),
                         QString::fromStdString(record.at("recipe")),
                         percentCell(record.at("underflowed").get<double>() / elements).toHtmlEscaped(),
                         percentCell(record.at("saturated").get<double>() / elements).toHtmlEscaped(),
                         snrCell(numberOf(record, "snr_db")));
            QVERIFY2(html.contains(row), qPrintable(row));
        }
        QCOMPARE(rows, int64_t{3 * 3});  // 3 linear layers x (input, weight, output gradient)
    }

    void reportRefusesWhatIsNotARunOrAFormat() {
        const QString empty = tmp_.filePath(QStringLiteral("empty"));
        QVERIFY(QDir().mkpath(empty));
        auto r = test::runCli({QStringLiteral("report"), empty, QStringLiteral("--out"),
                               tmp_.filePath(QStringLiteral("e.pdf"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("missing config.json")), qPrintable(r.err));
        QVERIFY(!QFile::exists(tmp_.filePath(QStringLiteral("e.pdf"))));
        r = test::runCli({QStringLiteral("report"), fp16_, QStringLiteral("--out"),
                          tmp_.filePath(QStringLiteral("r.docx"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("unknown report type 'docx' (use .pdf or .html)")),
                 qPrintable(r.err));
        r = test::runCli({QStringLiteral("report"), fp16_, QStringLiteral("--out"),
                          QStringLiteral("/no/such/dir/r.pdf")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("/no/such/dir/r.pdf: cannot be written")),
                 qPrintable(r.err));
    }

    void exportCommandsWriteTheFiles() {
        const QString csv = tmp_.filePath(QStringLiteral("csv"));
        auto r = test::runCli({QStringLiteral("export-csv"), fp16_, QStringLiteral("--out"), csv});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json summary =
            json::parse(readText(fp16_ + QStringLiteral("/summary.json")).toStdString());
        const QString steps = readText(csv + QStringLiteral("/steps.csv"));
        QCOMPARE(steps.count(QLatin1Char('\n')),
                 static_cast<qsizetype>(summary.at("steps").get<int64_t>() + 1));
        QVERIFY(r.out.contains(
            QStringLiteral("steps.csv: %1 rows").arg(summary.at("steps").get<int64_t>())));
        QVERIFY(QFile::exists(csv + QStringLiteral("/histograms.csv")));
        QVERIFY(QFile::exists(csv + QStringLiteral("/config.json")));

        const QString tb = tmp_.filePath(QStringLiteral("tb"));
        r = test::runCli({QStringLiteral("export-tfevents"), fp16_, QStringLiteral("--out"), tb});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList files =
            QDir(tb).entryList({QStringLiteral("events.out.tfevents.*")}, QDir::Files);
        QCOMPARE(files.size(), 1);
        QVERIFY(QFileInfo(tb + QLatin1Char('/') + files[0]).size() > 0);
    }

    // The same commands on a run on "another machine": ssh:// through a real sshd on
    // 127.0.0.1. What they write equals what they write from the folder itself.
    void commandsReadARunOverSsh() {
        test::SshServer server;
        AMPSCOPE_SKIP_WITHOUT_SSHD(server);
        qputenv("AMPSCOPE_SSH_CONFIG", server.sshConfig().toLocal8Bit());
        const QString remote = test::SshServer::address(nanRun_);
        const QString html = tmp_.filePath(QStringLiteral("remote.html"));
        auto r = test::runCli({QStringLiteral("report"), remote, QStringLiteral("--out"), html});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString report = readText(html);
        QVERIFY(report.contains(QStringLiteral("<td>%1</td>").arg(remote)));  // named as given
        QVERIFY(report.contains(QStringLiteral("First non-finite value at step 5")));
        const QString localCsv = tmp_.filePath(QStringLiteral("local-csv"));
        const QString remoteCsv = tmp_.filePath(QStringLiteral("remote-csv"));
        QCOMPARE(test::runCli({QStringLiteral("export-csv"), nanRun_, QStringLiteral("--out"), localCsv}).exitCode, 0);
        r = test::runCli({QStringLiteral("export-csv"), remote, QStringLiteral("--out"), remoteCsv});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList files = QDir(localCsv).entryList(QDir::Files);
        QVERIFY(files.contains(QStringLiteral("steps.csv")));
        QCOMPARE(QDir(remoteCsv).entryList(QDir::Files), files);
        for (const QString& file : files)
            QVERIFY2(readText(localCsv + QLatin1Char('/') + file) == readText(remoteCsv + QLatin1Char('/') + file),
                     qPrintable(file));
        const QString tb = tmp_.filePath(QStringLiteral("remote-tb"));
        r = test::runCli({QStringLiteral("export-tfevents"), remote, QStringLiteral("--out"), tb});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(QDir(tb).entryList({QStringLiteral("events.out.tfevents.*")}, QDir::Files).size(), 1);
        // The export's failures name the run as the user did, like the report's.
        r = test::runCli({QStringLiteral("export-csv"), test::SshServer::address(tmp_.filePath(QStringLiteral("none"))),
                          QStringLiteral("--out"), tmp_.filePath(QStringLiteral("none-csv"))});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed(), QStringLiteral("ampscope-cli: ampscope-test:%1: no such run directory")
                                      .arg(tmp_.filePath(QStringLiteral("none"))));
        qunsetenv("AMPSCOPE_SSH_CONFIG");
    }
};

QTEST_GUILESS_MAIN(ReportCliTest)
#include "test_report_cli.moc"
