// The built-in teaching scenarios: the catalogue, its one source in
// resources/scenarios/ (the package installs the editable copies from it), and for every scenario a shortened run (through the same
// override path as `ampscope-cli run --scenario NAME --set ...`) whose recorded
// numbers must still show the phenomenon the scenario teaches. A scenario whose
// lesson no longer shows fails here.
#include <QtCore/QDirIterator>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "TestSupport.h"
#include "common/InputError.h"
#include "engine/Engine.h"
#include "run/RunReader.h"
#include "scenarios/ComparisonTable.h"
#include "scenarios/EmbeddedScenarioFiles.h"
#include "scenarios/ScenarioCatalogue.h"

using namespace ampscope;
using nlohmann::json;

namespace {

struct Recorded {
    json summary;
    std::vector<json> events;

    std::vector<json> ofType(const std::string& type) const {
        std::vector<json> out;
        for (const auto& e : events)
            if (e.value("type", "") == type) out.push_back(e);
        return out;
    }
    std::vector<json> steps() const { return ofType("step"); }
    double number(const char* key) const {
        const auto& v = summary.at(key);
        return v.is_number() ? v.get<double>() : NAN;
    }
    int64_t count(const char* key) const { return summary.at(key).get<int64_t>(); }
    // summary.json's mean flushed fraction of one layer's gradient (as fp16 holds it).
    double flushed(const std::string& layer) const {
        for (const auto& u : summary.at("underflow"))
            if (u.at("layer") == layer) return u.at("mean_flushed_fraction").get<double>();
        return NAN;
    }
};

// Runs every run of a scenario (overrides applied as --set would) into a temporary
// directory and reads back what was recorded.
std::map<std::string, Recorded> runScenario(const std::string& name, std::vector<std::string> overrides) {
    overrides.push_back("threads=2");
    QTemporaryDir dir;
    std::map<std::string, Recorded> out;
    for (const auto& run : scenarioRunConfigs(scenarioNamed(name), overrides)) {
        const std::string directory = dir.filePath(QString::fromStdString(run.name)).toStdString();
        Engine engine(run.config, directory);
        engine.start();
        engine.wait();
        const RunData data = readRunDirectory(directory);
        Recorded recorded;
        recorded.summary = data.summary.value_or(json::object());
        recorded.events = data.events;
        qInfo("%s/%s: status %s, %lld steps, final loss %s, val loss %s, val acc %s, skipped %lld, final scale %s",
              name.c_str(), run.name.c_str(), recorded.summary.value("status", "?").c_str(),
              static_cast<long long>(recorded.summary.value("steps", 0)),
              recorded.summary.value("final_train_loss", json()).dump().c_str(),
              recorded.summary.value("val_loss", json()).dump().c_str(),
              recorded.summary.value("val_accuracy", json()).dump().c_str(),
              static_cast<long long>(recorded.summary.value("skipped_steps", 0)),
              recorded.summary.value("final_scale", json()).dump().c_str());
        out[run.name] = recorded;
    }
    return out;
}

double stepNumber(const json& step, const char* key) {
    const auto it = step.find(key);
    if (it == step.end() || !it->is_number()) {
        const auto tag = step.find(std::string(key) + "_nonfinite");
        if (tag != step.end() && *tag == "inf") return INFINITY;
        return NAN;
    }
    return it->get<double>();
}

// Fraction of a histogram's finite non-zero elements below 2^exponent.
double massBelow(const json& histogram, int exponent) {
    const int minExponent = histogram.at("min_exponent").get<int>();
    double below = histogram.at("below").get<double>(), total = below + histogram.at("above").get<double>();
    const auto& counts = histogram.at("counts");
    for (size_t i = 0; i < counts.size(); ++i) {
        const double c = counts[i].get<double>();
        total += c;
        if (minExponent + static_cast<int>(i) < exponent) below += c;
    }
    return total > 0 ? below / total : NAN;
}

// Fraction of a histogram's elements that are exactly zero.
double zeroFraction(const json& histogram) {
    double total = histogram.at("zero").get<double>() + histogram.at("below").get<double>() +
                   histogram.at("above").get<double>();
    for (const auto& c : histogram.at("counts")) total += c.get<double>();
    return total > 0 ? histogram.at("zero").get<double>() / total : NAN;
}

std::vector<json> probes(const Recorded& r, const std::string& type, const std::string& layer,
                         const std::string& kind = "") {
    std::vector<json> out;
    for (const auto& e : r.ofType(type))
        if (e.value("layer", "") == layer && (kind.empty() || e.value("kind", "") == kind)) out.push_back(e);
    return out;
}

// The format_quant records of one rounding point (layer, operand, direction), by step.
std::map<int64_t, json> formatPoint(const Recorded& r, const std::string& layer, const std::string& operand,
                                    const std::string& direction) {
    std::map<int64_t, json> out;
    for (const auto& e : r.ofType("format_quant"))
        if (e.at("layer") == layer && e.at("operand") == operand && e.at("direction") == direction)
            out[e.at("step").get<int64_t>()] = e;
    return out;
}

// A field summed over every format_quant record of one step (of the given direction, or all).
double formatSum(const Recorded& r, int64_t step, const char* field, const std::string& direction = "") {
    double sum = 0;
    for (const auto& e : r.ofType("format_quant"))
        if (e.at("step").get<int64_t>() == step && (direction.empty() || e.at("direction") == direction))
            sum += e.at(field).get<double>();
    return sum;
}

}  // namespace

class ScenariosTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void catalogueListsEveryLesson() {
        const std::vector<std::string> expected = {
            "amp-sanity",         "fp16-no-scaler",         "bf16-no-scaler-needed", "scale-dynamics",
            "clip-without-unscale", "log-of-small-sum",     "pure-fp16-lost-updates", "batchnorm-variance",
            "softmax-overflow",   "tiny-loss-scale-growth", "fp8-delayed-scaling-lag", "mx-outlier-block",
            "nvfp4-gradient-rounding", "format-sweep"};
        QCOMPARE(scenarioNames(), expected);
        for (const Scenario& s : builtInScenarios()) {
            QVERIFY2(!s.summary.empty() && s.summary.size() < 160, s.name.c_str());
            QVERIFY2(s.summary.find('\n') == std::string::npos, s.name.c_str());
            // A narrative says what to look at and why, and what fixes it.
            QVERIFY2(s.narrative.size() > 600, s.name.c_str());
            QVERIFY2(s.narrative.find("What to look at") != std::string::npos, s.name.c_str());
            QVERIFY2(s.narrative.find("**Why") != std::string::npos, s.name.c_str());
            QVERIFY2(s.narrative.find("fix") != std::string::npos ||
                         s.narrative.find("What to do") != std::string::npos,
                     s.name.c_str());
            QVERIFY2(s.narrative.find("plot") != std::string::npos ||
                         s.narrative.find("inspector") != std::string::npos,
                     s.name.c_str());
            for (const auto& run : s.runs)
                QVERIFY2(run.config.name == s.name + "-" + run.name, run.config.name.c_str());
        }
        QCOMPARE(scenarioNamed("amp-sanity").runs.size(), size_t(3));
        QCOMPARE(std::string(kDefaultScenario), std::string("amp-sanity"));
    }

    // resources/scenarios/ is the only copy in the source tree: the build compiles it in and
    // the package installs it as /usr/share/ampscope/examples/scenarios/ (test_package), so
    // the built-ins and what users copy cannot drift apart. A second copy in examples/
    // would come back to drift (and the install of examples/ would overwrite the real one).
    void resourcesAreTheOneSourceOfTheBuiltIns() {
        const QString source = QString::fromStdString(test::sourceDir());
        QVERIFY2(!QFileInfo::exists(source + "/examples/scenarios"),
                 "examples/scenarios/ is a second copy of resources/scenarios/: remove it");
        const QString root = source + "/resources/scenarios";
        QSet<QString> embedded;
        for (const auto& file : embeddedScenarioFiles()) {
            const QString path = QString::fromStdString(file.path);
            embedded.insert(path);
            QFile original(root + "/" + path);
            QVERIFY2(original.open(QIODevice::ReadOnly), qPrintable("built in but not in the source tree: " + path));
            QVERIFY2(original.readAll() == QByteArray(file.text.data(), static_cast<qsizetype>(file.text.size())),
                     qPrintable("resources/scenarios/" + path + " changed since this build embedded it"));
        }
        QDirIterator it(root, {"*.json", "*.md"}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = QDir(root).relativeFilePath(it.next());
            QVERIFY2(embedded.contains(path), qPrintable("resources/scenarios/" + path + " is not built in"));
        }
        QVERIFY(embedded.size() >= 30);
    }

    void unknownNameListsTheValidOnes() {
        try {
            scenarioNamed("fp8-magic");
            QFAIL("no error");
        } catch (const InputError& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("unknown scenario \"fp8-magic\"") != std::string::npos, e.what());
            for (const auto& name : scenarioNames()) QVERIFY2(message.find(name) != std::string::npos, e.what());
            QVERIFY(message.find('\n') == std::string::npos);
        }
        QVERIFY(findScenario("fp8-magic") == nullptr);
    }

    void overridesReachEveryRun() {
        const auto configs = scenarioRunConfigs(scenarioNamed("softmax-overflow"), {"train.max_steps=7"});
        QCOMPARE(configs.size(), size_t(3));
        for (const auto& c : configs) QCOMPARE(c.config.train.max_steps, int64_t(7));
        QCOMPARE(configs[0].config.model.name, std::string("mlp_manual_softmax"));
        try {
            scenarioRunConfigs(scenarioNamed("amp-sanity"), {"optim.lrr=1"});
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("run fp32") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("optim.lrr") != std::string::npos, e.what());
        }
    }

    void comparisonTableLinesUpTheRuns() {
        RunSummary a, b;
        a.mode = "fp32";
        a.samplesPerSecond = 1234.5;
        a.peakMemoryBytes = 3 * 1024 * 1024;
        a.valAccuracy = 0.8765;
        a.valLoss = 0.35;
        b.mode = "fp16";
        b.emulated = true;
        b.valAccuracy = NAN;
        b.valLoss = NAN;
        b.skippedSteps = 4;
        b.scaleBackoffs = 4;
        b.finalScale = 4096;
        b.firstNonFinite = NonFiniteEvent{};
        b.firstNonFinite->step = 3;
        b.firstNonFinite->layer = "softmax";
        b.firstNonFinite->phase = "forward";
        const std::string table = formatComparisonTable({{"fp32", a}, {"fp16-scaler", b}});
        const QStringList lines = QString::fromStdString(table).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[0].startsWith("run ") && lines[0].contains("samples/s") && lines[0].contains("peak memory") &&
                lines[0].contains("val acc"));
        QVERIFY2(lines[1].contains("87.65%") && lines[1].contains("1234.5") && lines[1].contains("3.0 MiB"),
                 qPrintable(lines[1]));
        QVERIFY2(lines[2].contains("emulated") && lines[2].contains("nan") && lines[2].contains("4096") &&
                     lines[2].contains("softmax forward step 3"),
                 qPrintable(lines[2]));
        // Columns line up: "val acc" ends where each row's accuracy ends.
        const int end = lines[0].indexOf("val acc") + 7;
        QCOMPARE(lines[1].mid(end - 6, 6), QString("87.65%"));
        QCOMPARE(lines[2].mid(end - 1, 1), QString("-"));
    }

    // --- one lesson per scenario, shortened where needed ---------------------------

    void ampSanity() {
        auto runs = runScenario("amp-sanity", {"data.subset=1024", "train.max_steps=12", "train.batch_size=64",
                                               "data.validation=split", "data.val_fraction=0.005"});
        const double fp32 = runs["fp32"].number("val_accuracy");
        for (const char* name : {"fp32", "fp16-scaler", "bf16"}) {
            const Recorded& r = runs[name];
            QCOMPARE(r.summary.value("status", ""), std::string("finished"));
            QVERIFY2(r.number("val_accuracy") > 0.4, name);  // chance is 0.1
            QVERIFY2(std::fabs(r.number("val_accuracy") - fp32) < 0.08, name);
            QVERIFY(r.number("samples_per_second") > 0);
            QVERIFY(r.count("peak_memory_bytes") > 0);
            QCOMPARE(r.count("nonfinite_losses"), int64_t(0));
        }
        QCOMPARE(runs["fp16-scaler"].summary["precision"]["emulated"].get<bool>(), true);
        QCOMPARE_BITS(runs["fp16-scaler"].number("final_scale"), 65536.0);  // no overflow in a plain CNN
        QCOMPARE(runs["fp16-scaler"].count("skipped_steps"), int64_t(0));
        QCOMPARE_BITS(runs["bf16"].number("final_scale"), 1.0);
    }

    void fp16NoScaler() {
        auto runs = runScenario("fp16-no-scaler", {});  // 832 steps of a linear model: ~2 s
        const Recorded& off = runs["no-scaler"];
        const Recorded& on = runs["dynamic-scaler"];
        QVERIFY2(off.flushed("out") > 0.9, qPrintable(QString::number(off.flushed("out"))));
        QVERIFY2(on.flushed("out") < 0.01, qPrintable(QString::number(on.flushed("out"))));
        // The histogram of the gradient as fp16 holds it: without the scaler most of it
        // is in the zero bin (flushed), with it none is and nothing sits below 2^-24.
        const auto histograms = probes(off, "histogram", "out", "param_grad_scaled");
        QVERIFY(!histograms.empty());
        QVERIFY(zeroFraction(histograms.back()) > 0.8);
        const auto scaledHistogram = probes(on, "histogram", "out", "param_grad_scaled").back();
        QCOMPARE_BITS(zeroFraction(scaledHistogram), 0.0);
        QVERIFY(massBelow(scaledHistogram, -24) < 0.01);
        // The loss stalls without the scaler and falls with it.
        QVERIFY2(off.number("val_loss") > 10 * on.number("val_loss"), "loss did not stall without the scaler");
        QCOMPARE_BITS(off.number("final_scale"), 1.0);
    }

    void bf16NoScalerNeeded() {
        auto runs = runScenario("bf16-no-scaler-needed", {});
        const Recorded& bf16 = runs["bf16-no-scaler"];
        const Recorded& fp32 = runs["fp32"];
        QCOMPARE_BITS(bf16.number("final_scale"), 1.0);
        QCOMPARE(bf16.count("skipped_steps"), int64_t(0));
        QVERIFY2(bf16.number("val_loss") < 2.0 * fp32.number("val_loss"), "bf16 did not train like fp32");
        // The gradients lie where fp16 would flush them, yet bf16 holds them (no zeros).
        const auto h = probes(bf16, "histogram", "out", "param_grad").back();
        QVERIFY(massBelow(h, -25) > 0.5);
        QCOMPARE(h.at("zero").get<int64_t>(), int64_t(0));
    }

    void scaleDynamics() {
        auto runs = runScenario("scale-dynamics", {"train.epochs=6"});
        const Recorded& r = runs["fp16-dynamic"];
        const int64_t backoffs = r.count("scale_backoffs"), growths = r.count("scale_growths");
        QVERIFY2(backoffs >= 8 && growths >= 2,
                 qPrintable(QString("backoffs %1 growths %2").arg(backoffs).arg(growths)));
        QCOMPARE(r.count("skipped_steps"), backoffs);  // every backoff is a skipped step
        int64_t maxTracker = 0, initialBackoffs = 0;
        bool stillBackingOff = true;
        for (const auto& s : r.steps()) {
            const double scale = stepNumber(s, "scale"), after = stepNumber(s, "scale_after");
            maxTracker = std::max<int64_t>(maxTracker, s.at("growth_tracker").get<int64_t>());
            if (s.value("found_inf", false)) {
                QVERIFY(s.value("step_skipped", false));
                QCOMPARE(s.value("scale_change", ""), std::string("backoff"));
                QCOMPARE_BITS(after, scale / 2);
                QCOMPARE(s.at("growth_tracker").get<int64_t>(), int64_t(0));
                QVERIFY(!s.value("first_nonfinite_layer", "").empty());
                if (stillBackingOff) ++initialBackoffs;
            } else {
                stillBackingOff = false;
                if (s.value("scale_change", "") == "growth") {
                    QCOMPARE_BITS(after, scale * 2);
                    QCOMPARE(s.at("growth_tracker").get<int64_t>(), int64_t(0));
                }
            }
        }
        // 2^24 is far too large: the first steps overflow one after another.
        QVERIFY2(initialBackoffs >= 5, qPrintable(QString::number(initialBackoffs)));
        QCOMPARE(maxTracker, int64_t(19));  // the sawtooth climbs to growth_interval - 1
    }

    void clipWithoutUnscale() {
        auto runs = runScenario("clip-without-unscale", {"train.epochs=4"});
        const double threshold = 0.5;
        int steps = 0, clippedRight = 0;
        for (const auto& s : runs["clip-scaled"].steps()) {
            if (s.value("step_skipped", false)) continue;
            const double norm = stepNumber(s, "grad_norm"), clipped = stepNumber(s, "grad_norm_clipped");
            // Clipped to threshold / scale on every step, whatever the true norm.
            QVERIFY(std::fabs(clipped * stepNumber(s, "scale") / threshold - 1.0) < 1e-3);
            QVERIFY(clipped / norm < 1e-3);
            ++steps;
        }
        QVERIFY(steps > 50);
        int rightSteps = 0;
        for (const auto& s : runs["unscale-then-clip"].steps()) {
            if (s.value("step_skipped", false)) continue;
            const double norm = stepNumber(s, "grad_norm"), clipped = stepNumber(s, "grad_norm_clipped");
            if (norm > threshold) {
                QVERIFY(std::fabs(clipped - threshold) < 1e-9);
                ++clippedRight;
            } else {
                QCOMPARE_BITS(clipped, norm);
            }
            ++rightSteps;
        }
        QVERIFY2(clippedRight > 0 && clippedRight < rightSteps,
                 qPrintable(QString("%1 of %2 clipped").arg(clippedRight).arg(rightSteps)));
        QVERIFY(runs["clip-scaled"].number("final_train_loss") > runs["unscale-then-clip"].number("final_train_loss") + 0.1);
    }

    void logOfSmallSum() {
        auto runs = runScenario("log-of-small-sum", {"train.max_steps=20"});
        const Recorded& bad = runs["fp16"];
        const json& first = bad.summary.at("first_nonfinite");
        QVERIFY2(first.is_object(), "no non-finite value was located");
        QCOMPARE(first.at("step").get<int64_t>(), int64_t(1));
        QCOMPARE(first.at("layer").get<std::string>(), std::string("loss"));
        QCOMPARE(first.at("phase").get<std::string>(), std::string("forward"));
        QCOMPARE(first.at("pos_inf").get<int64_t>(), int64_t(1));
        // The frames show why: loss_head's output is exactly zero (flushed).
        const auto records = bad.ofType("nonfinite");
        QCOMPARE(records.size(), size_t(1));
        bool sawHead = false;
        for (const auto& layer : records[0].at("frames").back().at("layers"))
            if (layer.at("layer") == "loss_head") {
                QCOMPARE_BITS(layer.at("activation").at("abs_max").get<double>(), 0.0);
                sawHead = true;
            }
        QVERIFY(sawHead);
        QCOMPARE(bad.count("skipped_steps"), bad.count("steps"));  // the scaler skips them all
        QVERIFY(bad.number("final_scale") < 1.0);                // and the scale collapses
        const Recorded& fixed = runs["fp16-head-fp32"];
        QVERIFY(fixed.summary.at("first_nonfinite").is_null());
        QCOMPARE(fixed.count("nonfinite_losses"), int64_t(0));
        QCOMPARE(fixed.count("skipped_steps"), int64_t(0));
    }

    void pureFp16LostUpdates() {
        auto runs = runScenario("pure-fp16-lost-updates", {"train.epochs=4"});
        double lostSum = 0;
        int lostCount = 0;
        for (const auto& u : probes(runs["fp16-pure"], "update_ratio", "fc2")) {
            QVERIFY(u.contains("lost_fraction"));
            lostSum += u.at("lost_fraction").get<double>();
            ++lostCount;
        }
        QVERIFY(lostCount > 0);
        QVERIFY2(lostSum / lostCount > 0.5, qPrintable(QString::number(lostSum / lostCount)));
        // fp32 master weights: nothing is lost to rounding (the field exists only in pure modes).
        for (const auto& u : probes(runs["fp16-master-weights"], "update_ratio", "fc2")) {
            QVERIFY(!u.contains("lost_fraction"));
            QVERIFY(u.at("ratio").get<double>() > 0);
        }
        QVERIFY(runs["fp16-pure"].number("final_train_loss") > runs["fp16-master-weights"].number("final_train_loss"));
    }

    void batchNormVariance() {
        auto runs = runScenario("batchnorm-variance", {"train.epochs=3"});
        const json& first = runs["fp16-statistics"].summary.at("first_nonfinite");
        QVERIFY2(first.is_object(), "no non-finite value was located");
        QCOMPARE(first.at("layer").get<std::string>(), std::string("bn1"));
        QCOMPARE(first.at("phase").get<std::string>(), std::string("forward"));
        QCOMPARE(first.at("step").get<int64_t>(), int64_t(1));
        QVERIFY(first.at("pos_inf").get<int64_t>() + first.at("neg_inf").get<int64_t>() + first.at("nan").get<int64_t>() > 0);
        const Recorded& fixed = runs["fp32-statistics"];
        QVERIFY(fixed.summary.at("first_nonfinite").is_null());
        QCOMPARE(fixed.count("nonfinite_losses"), int64_t(0));
        QVERIFY(std::isfinite(fixed.number("val_loss")));
    }

    void softmaxOverflow() {
        auto runs = runScenario("softmax-overflow", {});
        const json& first = runs["manual-pure-fp16"].summary.at("first_nonfinite");
        QVERIFY2(first.is_object(), "the hand-written softmax did not overflow");
        QCOMPARE(first.at("layer").get<std::string>(), std::string("softmax"));
        QCOMPARE(first.at("phase").get<std::string>(), std::string("forward"));
        QVERIFY(runs["manual-pure-fp16"].count("nonfinite_losses") > 0);
        for (const char* fixed : {"library-pure-fp16", "library-autocast-fp16"}) {
            QVERIFY2(runs[fixed].summary.at("first_nonfinite").is_null(), fixed);
            QCOMPARE(runs[fixed].count("nonfinite_losses"), int64_t(0));
        }
    }

    void fp8DelayedScalingLag() {
        // The spike is at step 30, a probe step (every 5); the steps after it show the
        // history holding the spike's amax.
        const std::vector<std::string> shortened = {"train.max_steps=40", "data.validation=split",
                                                    "data.val_fraction=0.02"};
        auto runs = runScenario("fp8-delayed-scaling-lag", shortened);
        const auto delayed = formatPoint(runs["delayed"], "fc", "input", "forward");
        const auto current = formatPoint(runs["current"], "fc", "input", "forward");
        QVERIFY(delayed.count(25) && delayed.count(30) && delayed.count(35));
        QVERIFY(current.count(30));
        // Before the spike, delayed scaling works: nothing saturates.
        QCOMPARE(delayed.at(25).at("saturated").get<int64_t>(), int64_t(0));
        // At the spike the history's amax lags the tensor's by the spike's factor (64,
        // give or take the step's own change) and a large part of the tensor saturates.
        const json& spike = delayed.at(30);
        const double lag = spike.at("amax").get<double>() / spike.at("scale_amax").get<double>();
        QVERIFY2(lag > 20 && lag < 200, qPrintable(QString::number(lag)));
        QVERIFY2(spike.at("saturated_fraction").get<double>() > 0.05,
                 qPrintable(QString::number(spike.at("saturated_fraction").get<double>())));
        QVERIFY(spike.at("snr_db").get<double>() < 10);
        // Current scaling takes the spike's own amax: nothing saturates, the SNR is that
        // of an ordinary step.
        const json& adapted = current.at(30);
        QCOMPARE(adapted.at("saturated").get<int64_t>(), int64_t(0));
        QCOMPARE_BITS(adapted.at("scale_amax").get<double>(), adapted.at("amax").get<double>());
        QVERIFY(adapted.at("snr_db").get<double>() > 25);
        // Afterwards the delayed history still holds the spike's amax (max over 1024 steps).
        QCOMPARE_BITS(delayed.at(35).at("scale_amax").get<double>(), spike.at("amax").get<double>());
        QCOMPARE(runs["delayed"].count("nonfinite_losses"), int64_t(0));
    }

    void mxOutlierBlock() {
        auto runs = runScenario("mx-outlier-block", {"train.max_steps=10", "data.validation=split",
                                                     "data.val_fraction=0.02"});
        const Recorded& mx = runs["mxfp4"];
        const Recorded& nv = runs["nvfp4"];
        for (const Recorded* r : {&mx, &nv}) {
            QVERIFY(!r->ofType("format_quant").empty());
            QCOMPARE(r->count("nonfinite_losses"), int64_t(0));
        }
        // The logits' gradient: one large entry (the true class's) per row of 10, the
        // others crushed to zero in either format.
        const json mxLogits = formatPoint(mx, "fc", "output", "backward").at(10);
        QVERIFY2(mxLogits.at("crushed_fraction").get<double>() > 0.3,
                 qPrintable(QString::number(mxLogits.at("crushed_fraction").get<double>())));
        QVERIFY(mxLogits.at("block_scale_exponents").size() > 0);
        // Over the whole step NVFP4 crushes fewer values than MXFP4 and saturates far
        // fewer (its e4m3 block scale fits the block's largest value within 1/16, where
        // `floor` leaves it between 4 and 8 scale units and e2m1 stops at 6), and its
        // SNR is higher.
        const double mxCrushed = formatSum(mx, 10, "crushed_by_outlier") / formatSum(mx, 10, "elements");
        const double nvCrushed = formatSum(nv, 10, "crushed_by_outlier") / formatSum(nv, 10, "elements");
        QVERIFY2(nvCrushed < mxCrushed, qPrintable(QString("%1 vs %2").arg(nvCrushed).arg(mxCrushed)));
        QVERIFY(formatSum(mx, 10, "saturated") > 0);
        QVERIFY(formatSum(nv, 10, "saturated") < formatSum(mx, 10, "saturated") / 10);
        const double mxSnr = 10 * std::log10(formatSum(mx, 10, "squared_signal") / formatSum(mx, 10, "squared_error"));
        const double nvSnr = 10 * std::log10(formatSum(nv, 10, "squared_signal") / formatSum(nv, 10, "squared_error"));
        QVERIFY2(nvSnr > mxSnr + 1, qPrintable(QString("%1 dB vs %2 dB").arg(nvSnr).arg(mxSnr)));
    }

    void nvfp4GradientRounding() {
        auto runs = runScenario("nvfp4-gradient-rounding", {"train.max_steps=10", "data.validation=split",
                                                            "data.val_fraction=0.02"});
        const Recorded& nearest = runs["nearest"];
        const Recorded& stochastic = runs["stochastic"];
        // The forward is the same in both: the first step's loss is equal; the gradients
        // then differ, and so does every later loss.
        QCOMPARE_BITS(stepNumber(stochastic.steps().front(), "loss"), stepNumber(nearest.steps().front(), "loss"));
        QVERIFY(stepNumber(stochastic.steps().back(), "loss") != stepNumber(nearest.steps().back(), "loss"));
        // Stochastic rounding trades noise for bias: the gradients' SNR is lower.
        const double snrNearest = 10 * std::log10(formatSum(nearest, 10, "squared_signal", "backward") /
                                                  formatSum(nearest, 10, "squared_error", "backward"));
        const double snrStochastic = 10 * std::log10(formatSum(stochastic, 10, "squared_signal", "backward") /
                                                     formatSum(stochastic, 10, "squared_error", "backward"));
        QVERIFY2(snrStochastic < snrNearest - 1,
                 qPrintable(QString("%1 dB vs %2 dB").arg(snrStochastic).arg(snrNearest)));
        // The forward operands are rounded to nearest in both runs: same SNR at step 1.
        QCOMPARE_BITS(formatSum(stochastic, 1, "squared_error", "forward"), formatSum(nearest, 1, "squared_error", "forward"));
        for (const Recorded* r : {&nearest, &stochastic}) QCOMPARE(r->count("nonfinite_losses"), int64_t(0));
    }

    void formatSweep() {
        auto runs = runScenario("format-sweep", {"train.max_steps=20", "data.validation=split",
                                                 "data.val_fraction=0.02"});
        const Recorded& r = runs["fp32"];
        const auto sweep = r.ofType("format_sweep");
        // One sweep step (20): conv1, conv2 and fc x gradient and activation x 7 formats.
        QCOMPARE(sweep.size(), size_t(3 * 2 * 7));
        std::map<std::string, std::map<std::string, json>> byTensor;  // "layer tensor" -> format -> record
        for (const auto& e : sweep) {
            QCOMPARE(e.at("step").get<int64_t>(), int64_t(20));
            byTensor[e.at("layer").get<std::string>() + " " + e.at("tensor").get<std::string>()]
                    [e.at("format").get<std::string>()] = e;
        }
        QCOMPARE(byTensor.size(), size_t(6));
        auto snr = [](const json& e) { return e.at("snr_db").get<double>(); };
        for (const auto& [tensor, formats] : byTensor) {
            const char* what = tensor.c_str();
            QCOMPARE(formats.size(), size_t(7));
            // Mantissa bits decide where nothing underflows or saturates: about 6 dB each
            // (fp16 10, bf16 7, e4m3 3, e5m2 2).
            QVERIFY2(snr(formats.at("bf16")) > 50 && snr(formats.at("bf16")) < 60, what);
            QVERIFY2(snr(formats.at("fp16")) > snr(formats.at("bf16")) + 12, what);
            QVERIFY2(snr(formats.at("e4m3")) > snr(formats.at("e5m2")) + 4, what);
            QVERIFY2(snr(formats.at("e4m3")) < snr(formats.at("bf16")) - 20, what);
            QCOMPARE(formats.at("bf16").at("underflowed").get<int64_t>(), int64_t(0));
            QCOMPARE(formats.at("bf16").at("saturated").get<int64_t>(), int64_t(0));
            // mxfp4's e2m1 elements under power-of-two scales: below 20 dB everywhere.
            QVERIFY2(snr(formats.at("mxfp4")) < 20, what);
        }
        // Gradients in 4 bits: NVFP4's finer block scales zero fewer values than MXFP4's.
        for (const char* layer : {"conv1", "conv2", "fc"}) {
            const auto& formats = byTensor.at(std::string(layer) + " gradient");
            QVERIFY2(formats.at("nvfp4").at("underflowed").get<int64_t>() <
                         formats.at("mxfp4").at("underflowed").get<int64_t>(),
                     layer);
        }
        // conv1's input has one channel: MX blocks of one value each, whose `floor` scale
        // leaves values with a mantissa above 1.75 past e4m3's 448: mxfp8 saturates them.
        QVERIFY(byTensor.at("conv1 activation").at("mxfp8").at("saturated_fraction").get<double>() > 0.01);
    }

    void tinyLossScaleGrowth() {
        auto runs = runScenario("tiny-loss-scale-growth", {});
        const Recorded& scaled = runs["bf16-with-scaler"];
        const double limit = std::ldexp(1.0, 127);
        double largest = 0;
        int64_t growthsBeforeFault = 0, stepsAtLimit = 0;
        for (const auto& s : scaled.steps()) {
            const double after = stepNumber(s, "scale_after");
            QVERIFY2(std::isfinite(after), "the scale became inf");
            largest = std::max(largest, after);
            const int64_t step = s.at("step").get<int64_t>();
            if (step < 600 && s.value("scale_change", "") == "growth") ++growthsBeforeFault;
            if (step < 600 && stepNumber(s, "scale") == limit) ++stepsAtLimit;
            if (step == 600) {
                QVERIFY(s.value("step_skipped", false));
                QCOMPARE(s.value("scale_change", ""), std::string("backoff"));
            } else {
                QVERIFY(!s.value("step_skipped", false));
            }
        }
        QCOMPARE_BITS(largest, limit);                        // grew to float's limit and stopped there
        QCOMPARE(growthsBeforeFault, int64_t(127 - 16));  // 2^16 -> 2^127, one doubling at a time
        QVERIFY(stepsAtLimit > 10);                      // growth attempts at the limit change nothing
        const Recorded& plain = runs["bf16-no-scaler"];
        QCOMPARE_BITS(plain.number("final_scale"), 1.0);
        QCOMPARE(plain.count("skipped_steps"), int64_t(0));
    }
};

QTEST_GUILESS_MAIN(ScenariosTest)
#include "test_scenarios.moc"
