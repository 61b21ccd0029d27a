// Every record type of the run directory, written from a fully filled value: the text on
// disk is pinned byte for byte (runs written by earlier builds must keep opening, and
// tools outside this program read these lines), and reading the text back gives every
// field again, non-finite numbers included (null plus a "<key>_nonfinite" tag).
#include <QtTest/QtTest>
#include <array>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "ExactCompare.h"
#include "common/BuildInfo.h"
#include "config/RunConfig.h"
#include "engine/RunRecords.h"
#include "run/RunLifecycleRecords.h"
#include "run/StepRecordCodec.h"
#include "probes/ComparisonRecords.h"
#include "probes/ProbeRecords.h"
#include "probes/StepAuditRecords.h"

using namespace ampscope;
using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// NaN equals NaN here: the fields must come back as they went out.
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Shown whole when they differ.
QString onDisk(const json& record) { return QString::fromStdString(record.dump()); }
QString text(const std::string& s) { return QString::fromStdString(s); }

json throughText(const json& record) { return json::parse(record.dump()); }

// A record of a lenient codec, every field set to a value of its own: written, the text
// is `expected`; read back and written again, the same text (so every field came back).
template <class Record, class FromJson>
void pinnedBothWays(const Record& record, FromJson fromJson, const QString& expected) {
    QCOMPARE(onDisk(toJson(record)), expected);
    const auto back = fromJson(throughText(toJson(record)));
    QVERIFY(back);
    QCOMPARE(onDisk(toJson(*back)), expected);
}

TensorStats stats(double base, int64_t nan) {
    TensorStats s;
    s.min = -base;
    s.max = kInf;
    s.mean = base / 4;
    s.absMax = kNaN;
    s.nan = nan;
    s.posInf = 2;
    s.negInf = 3;
    s.numel = 100;
    return s;
}

void compareStats(const TensorStats& a, const TensorStats& b) {
    QVERIFY(same(a.min, b.min));
    QVERIFY(same(a.max, b.max));
    QVERIFY(same(a.mean, b.mean));
    QVERIFY(same(a.absMax, b.absMax));
    QCOMPARE(a.nan, b.nan);
    QCOMPARE(a.posInf, b.posInf);
    QCOMPARE(a.negInf, b.negInf);
    QCOMPARE(a.numel, b.numel);
}

void compareComparisons(const std::vector<GradientComparison>& a,
                        const std::vector<GradientComparison>& b) {
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(a[i].layer, b[i].layer);
        QVERIFY(same(a[i].relError, b[i].relError));
        QVERIFY(same(a[i].cosine, b[i].cosine));
        QCOMPARE(a[i].lost, b[i].lost);
        QCOMPARE(a[i].nonzero, b[i].nonzero);
        QCOMPARE(a[i].elements, b[i].elements);
    }
}

StepMetrics fullStep() {
    StepMetrics m;
    m.step = 42;
    m.epoch = 3;
    m.loss = kNaN;
    m.lr = 0.5;
    m.gradNorm = kInf;
    m.gradNormClipped = -kInf;
    m.stepSeconds = 0.25;
    m.samplesPerSecond = 256.0;
    m.scale = 65536.0;
    m.scaleAfter = 32768.0;
    m.growthTracker = 0;
    m.foundInf = true;
    m.stepSkipped = true;
    m.scaleChange = ScaleChange::Backoff;
    m.firstNonFiniteLayer = "fc1";
    return m;
}

}  // namespace

class RecordCodecTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void histogram() {
        HistogramRecord r{7, "fc1", std::string(probe_kind::kParamGradScaled), {}};
        r.histogram.counts.assign(r.histogram.counts.size(), 0);
        r.histogram.counts[0] = 5;   // 2^-64
        r.histogram.counts[64] = 9;  // 2^0
        r.histogram.below = 1;
        r.histogram.above = 2;
        r.histogram.zero = 3;
        r.histogram.nan = 4;
        r.histogram.posInf = 6;
        r.histogram.negInf = 8;
        const std::string zeros63 = [] {
            std::string s;
            for (int i = 0; i < 63; ++i) s += "0,";
            return s;
        }();
        const std::string zeros32 = [] {
            std::string s;
            for (int i = 0; i < 32; ++i) s += ",0";
            return s;
        }();
        QCOMPARE(onDisk(toJson(r)), text("{\"above\":2,\"below\":1,\"counts\":[5," + zeros63 + "9" + zeros32 +
                     "],\"kind\":\"param_grad_scaled\",\"layer\":\"fc1\",\"min_exponent\":-64,"
                     "\"nan\":4,\"neg_inf\":8,\"pos_inf\":6,\"step\":7,\"type\":\"histogram\","
                     "\"zero\":3}"));
        const HistogramRecord back = histogramRecordFromJson(throughText(toJson(r)));
        QCOMPARE(back.step, r.step);
        QCOMPARE(back.layer, r.layer);
        QCOMPARE(back.kind, r.kind);
        QCOMPARE(back.histogram.counts, r.histogram.counts);
        QCOMPARE(back.histogram.below, r.histogram.below);
        QCOMPARE(back.histogram.above, r.histogram.above);
        QCOMPARE(back.histogram.zero, r.histogram.zero);
        QCOMPARE(back.histogram.nan, r.histogram.nan);
        QCOMPARE(back.histogram.posInf, r.histogram.posInf);
        QCOMPARE(back.histogram.negInf, r.histogram.negInf);
    }

    void underflow() {
        UnderflowRecord r{9, "conv1", std::string(probe_kind::kParamGrad), kInf,
                          Fp16ClassCounts{1, 2, 3, 4, 5, 6, 7, false}};
        QCOMPARE(onDisk(toJson(r)), text(std::string("{\"exact\":false,\"flushed\":2,\"inf\":7,\"kind\":\"param_grad\","
                             "\"layer\":\"conv1\",\"multiplier\":null,\"multiplier_nonfinite\":"
                             "\"inf\",\"nan\":6,\"normal\":4,\"overflow\":5,\"step\":9,"
                             "\"subnormal\":3,\"type\":\"underflow\",\"zero\":1}")));
        const UnderflowRecord back = underflowRecordFromJson(throughText(toJson(r)));
        QCOMPARE(back.step, r.step);
        QCOMPARE(back.layer, r.layer);
        QCOMPARE(back.kind, r.kind);
        QVERIFY(same(back.multiplier, r.multiplier));
        QVERIFY(back.counts == r.counts);
    }

    void nonFinite() {
        NonFiniteRecord r;
        r.event = NonFiniteEvent{11, "fc2", 1, "backward", "gradient", 3, 2, 1, 64, "replay", 10};
        StatsFrame frame;
        frame.step = 10;
        frame.layers.push_back({"fc1", 0, stats(1.5, 0), std::nullopt});
        frame.layers.push_back({"fc2", 1, std::nullopt, stats(0.5, 7)});
        frame.loss = stats(2.0, 0);
        StatsFrame bare;
        bare.step = 11;
        r.frames = {frame, bare};
        QCOMPARE(onDisk(toJson(r)), text(std::string(
                     "{\"frames\":[{\"layers\":[{\"activation\":{\"abs_max\":null,\"abs_max_nonfinite\":"
                     "\"nan\",\"max\":null,\"max_nonfinite\":\"inf\",\"mean\":0.375,\"min\":-1.5,"
                     "\"nan\":0,\"neg_inf\":3,\"numel\":100,\"pos_inf\":2},\"layer\":\"fc1\","
                     "\"layer_index\":0},{\"gradient\":{\"abs_max\":null,\"abs_max_nonfinite\":"
                     "\"nan\",\"max\":null,\"max_nonfinite\":\"inf\",\"mean\":0.125,\"min\":-0.5,"
                     "\"nan\":7,\"neg_inf\":3,\"numel\":100,\"pos_inf\":2},\"layer\":\"fc2\","
                     "\"layer_index\":1}],\"loss\":{\"abs_max\":null,\"abs_max_nonfinite\":\"nan\","
                     "\"max\":null,\"max_nonfinite\":\"inf\",\"mean\":0.5,\"min\":-2.0,\"nan\":0,"
                     "\"neg_inf\":3,\"numel\":100,\"pos_inf\":2},\"step\":10},{\"layers\":[],"
                     "\"step\":11}],\"layer\":\"fc2\",\"layer_index\":1,\"located_by\":\"replay\","
                     "\"nan\":3,\"neg_inf\":1,\"numel\":64,\"phase\":\"backward\",\"pos_inf\":2,"
                     "\"replay_missed_step\":10,\"step\":11,\"tensor\":\"gradient\",\"type\":"
                     "\"nonfinite\"}")));
        const NonFiniteRecord back = nonFiniteRecordFromJson(throughText(toJson(r)));
        QVERIFY(back.event == r.event);
        QCOMPARE(back.frames.size(), size_t(2));
        QCOMPARE(back.frames[0].step, 10);
        QCOMPARE(back.frames[0].layers.size(), size_t(2));
        QCOMPARE(back.frames[0].layers[0].layer, std::string("fc1"));
        QCOMPARE(back.frames[0].layers[0].layerIndex, 0);
        QVERIFY(back.frames[0].layers[0].activation);
        compareStats(*back.frames[0].layers[0].activation, *frame.layers[0].activation);
        QVERIFY(!back.frames[0].layers[0].gradient);
        QVERIFY(!back.frames[0].layers[1].activation);
        QVERIFY(back.frames[0].layers[1].gradient);
        compareStats(*back.frames[0].layers[1].gradient, *frame.layers[1].gradient);
        QVERIFY(back.frames[0].loss);
        compareStats(*back.frames[0].loss, *frame.loss);
        QCOMPARE(back.frames[1].step, 11);
        QVERIFY(back.frames[1].layers.empty());
        QVERIFY(!back.frames[1].loss);
    }

    void updateRatio() {
        LayerUpdateRatio measured{"fc1", 2, 4.0, 0.5, 0.125, 10, 8, 2};
        UpdateRatioRecord r{5, measured};
        QCOMPARE(onDisk(toJson(r)), text(std::string("{\"intended_nonzero\":8,\"layer\":\"fc1\",\"layer_index\":2,\"lost\":2,"
                             "\"lost_fraction\":0.25,\"numel\":10,\"ratio\":0.125,\"step\":5,\"type\":"
                             "\"update_ratio\",\"update_norm\":0.5,\"weight_norm\":4.0}")));
        UpdateRatioRecord back = updateRatioRecordFromJson(throughText(toJson(r)));
        QCOMPARE(back.step, 5);
        QCOMPARE(back.ratio.layer, measured.layer);
        QCOMPARE(back.ratio.layerIndex, measured.layerIndex);
        QCOMPARE_BITS(back.ratio.weightNorm, measured.weightNorm);
        QCOMPARE_BITS(back.ratio.updateNorm, measured.updateNorm);
        QCOMPARE_BITS(back.ratio.ratio, measured.ratio);
        QCOMPARE(back.ratio.numel, measured.numel);
        QCOMPARE(back.ratio.intendedNonZero, measured.intendedNonZero);
        QCOMPARE(back.ratio.lost, measured.lost);

        // A zero weight that moved: ratio +inf; loss not measured: no loss fields.
        UpdateRatioRecord unmeasured{6, {"fc2", 3, 0.0, 1.0, kInf, 4, -1, -1}};
        QCOMPARE(onDisk(toJson(unmeasured)), text(std::string("{\"layer\":\"fc2\",\"layer_index\":3,\"numel\":4,\"ratio\":null,"
                             "\"ratio_nonfinite\":\"inf\",\"step\":6,\"type\":\"update_ratio\","
                             "\"update_norm\":1.0,\"weight_norm\":0.0}")));
        back = updateRatioRecordFromJson(throughText(toJson(unmeasured)));
        QCOMPARE_BITS(back.ratio.ratio, kInf);
        QCOMPARE(back.ratio.intendedNonZero, -1);
        QCOMPARE(back.ratio.lost, -1);
    }

    void shadow() {
        ShadowRecord r{12, {{"fc1", 0.25, kNaN, 1, 2, 3}, {"fc2", -kInf, 0.5, 0, 0, 9}}};
        QCOMPARE(onDisk(toJson(r)), text(std::string("{\"layers\":[{\"cosine\":null,\"cosine_nonfinite\":\"nan\",\"elements\":"
                             "3,\"layer\":\"fc1\",\"lost\":1,\"nonzero\":2,\"rel_error\":0.25},{"
                             "\"cosine\":0.5,\"elements\":9,\"layer\":\"fc2\",\"lost\":0,\"nonzero\":0,"
                             "\"rel_error\":null,\"rel_error_nonfinite\":\"-inf\"}],\"step\":12,"
                             "\"type\":\"shadow\"}")));
        const ShadowRecord back = shadowRecordFromJson(throughText(toJson(r)));
        QCOMPARE(back.step, r.step);
        compareComparisons(back.layers, r.layers);
    }

    void lockstep() {
        LockstepRecord r{13, "fp16", kNaN, -0.25, true, {{"fc1", 0.125, 0.75, 4, 5, 6}}};
        QCOMPARE(onDisk(toJson(r)), text(std::string("{\"layers\":[{\"cosine\":0.75,\"elements\":6,\"layer\":\"fc1\",\"lost\":4,"
                             "\"nonzero\":5,\"rel_error\":0.125}],\"loss\":null,\"loss_diff\":-0.25,"
                             "\"loss_nonfinite\":\"nan\",\"mode\":\"fp16\",\"skipped\":true,\"step\":13,"
                             "\"type\":\"lockstep\"}")));
        LockstepRecord back = lockstepRecordFromJson(throughText(toJson(r)));
        QCOMPARE(back.step, r.step);
        QCOMPARE(back.mode, r.mode);
        QVERIFY(same(back.loss, r.loss));
        QCOMPARE_BITS(back.lossDiff, r.lossDiff);
        QCOMPARE(back.skipped, r.skipped);
        compareComparisons(back.layers, r.layers);

        // Off probe steps there are no layers, and the key is left out.
        const LockstepRecord plain{14, "bf16", 1.5, 0.0, false, {}};
        QCOMPARE(onDisk(toJson(plain)), text(std::string("{\"loss\":1.5,\"loss_diff\":0.0,\"mode\":\"bf16\",\"skipped\":false,"
                             "\"step\":14,\"type\":\"lockstep\"}")));
        back = lockstepRecordFromJson(throughText(toJson(plain)));
        QVERIFY(back.layers.empty());
        QCOMPARE_BITS(back.loss, 1.5);
    }

    void opDtypes() {
        OpDtypesRecord r{15,
                         {{"fc1",
                           {{"linear", "float16", "float16", "float16", true, "float16"},
                            {"relu", "float32", "", "float32", false, ""}}},
                          {"loss", {}}}};
        QCOMPARE(onDisk(toJson(r)), text(std::string("{\"layers\":[{\"layer\":\"fc1\",\"ops\":[{\"emulated\":true,\"emulated_as\":"
                             "\"float16\",\"input\":\"float16\",\"op\":\"linear\",\"output\":\"float16\","
                             "\"storage\":\"float32\",\"weight\":\"float16\"},{\"emulated\":false,"
                             "\"input\":\"float32\",\"op\":\"relu\",\"output\":\"float32\"}]},{\"layer\":"
                             "\"loss\",\"ops\":[]}],\"step\":15,\"type\":\"op_dtypes\"}")));
        const OpDtypesRecord back = opDtypesRecordFromJson(throughText(toJson(r)));
        QCOMPARE(back.step, r.step);
        QCOMPARE(back.layers.size(), r.layers.size());
        for (size_t l = 0; l < r.layers.size(); ++l) {
            QCOMPARE(back.layers[l].layer, r.layers[l].layer);
            QCOMPARE(back.layers[l].ops.size(), r.layers[l].ops.size());
            for (size_t o = 0; o < r.layers[l].ops.size(); ++o) {
                const OpDtype& a = back.layers[l].ops[o];
                const OpDtype& b = r.layers[l].ops[o];
                QCOMPARE(a.op, b.op);
                QCOMPARE(a.input, b.input);
                QCOMPARE(a.weight, b.weight);
                QCOMPARE(a.output, b.output);
                QCOMPARE(a.emulated, b.emulated);
                QCOMPARE(a.emulatedAs, b.emulatedAs);
            }
        }
    }

    void memory() {
        MemoryRecord r{16, {1000, 2000, 3000, {{"float16", 64}, {"float32", 128}}, {{"float32", 256}}}};
        QCOMPARE(onDisk(toJson(r)), text(std::string("{\"activation_bytes\":{\"float16\":64,\"float32\":128},"
                             "\"activation_bytes_real\":{\"float32\":256},\"cuda_peak_allocated_bytes\":"
                             "3000,\"peak_rss_bytes\":2000,\"rss_bytes\":1000,\"step\":16,\"type\":"
                             "\"memory\"}")));
        MemoryRecord back = memoryRecordFromJson(throughText(toJson(r)));
        QCOMPARE(back.step, r.step);
        QCOMPARE(back.usage.rssBytes, r.usage.rssBytes);
        QCOMPARE(back.usage.peakRssBytes, r.usage.peakRssBytes);
        QCOMPARE(back.usage.cudaPeakAllocatedBytes, r.usage.cudaPeakAllocatedBytes);
        QCOMPARE(back.usage.activationBytes, r.usage.activationBytes);
        QCOMPARE(back.usage.activationBytesReal, r.usage.activationBytesReal);

        // On CPU there is no allocator peak: null, and none read back.
        const MemoryRecord cpu{17, {1, 2, std::nullopt, {}, {}}};
        QCOMPARE(onDisk(toJson(cpu)), text(std::string("{\"activation_bytes\":{},\"activation_bytes_real\":{},"
                             "\"cuda_peak_allocated_bytes\":null,\"peak_rss_bytes\":2,\"rss_bytes\":1,"
                             "\"step\":17,\"type\":\"memory\"}")));
        back = memoryRecordFromJson(throughText(toJson(cpu)));
        QVERIFY(!back.usage.cudaPeakAllocatedBytes);
        QVERIFY(back.usage.activationBytes.empty());
    }

    void step() {
        const StepMetrics m = fullStep();
        const std::string expected =
            "{\"epoch\":3,\"first_nonfinite_layer\":\"fc1\",\"found_inf\":true,\"grad_norm\":null,"
            "\"grad_norm_clipped\":null,\"grad_norm_clipped_nonfinite\":\"-inf\","
            "\"grad_norm_nonfinite\":\"inf\",\"growth_tracker\":0,\"loss\":null,\"loss_nonfinite\":"
            "\"nan\",\"lr\":0.5,\"samples_per_second\":256.0,\"scale\":65536.0,\"scale_after\":"
            "32768.0,\"scale_change\":\"backoff\",\"step\":42,\"step_seconds\":0.25,"
            "\"step_skipped\":true,\"type\":\"step\"}";
        QCOMPARE(onDisk(stepRecord(m)), text(expected));
        std::string fast;
        appendStepRecordText(m, fast);
        QCOMPARE(text(fast), text(expected));

        // Back through both readers: the fast text parser and the JSON one.
        StepMetrics fromText;
        QVERIFY(parseStepRecordText(expected, fromText));
        const auto fromJson = stepFromJson(json::parse(expected));
        QVERIFY(fromJson);
        for (const StepMetrics* back : std::array<const StepMetrics*, 2>{&fromText, &*fromJson}) {
            QCOMPARE(back->step, m.step);
            QCOMPARE(back->epoch, m.epoch);
            QVERIFY(same(back->loss, m.loss));
            QCOMPARE_BITS(back->lr, m.lr);
            QCOMPARE_BITS(back->gradNorm, m.gradNorm);
            QCOMPARE_BITS(back->gradNormClipped, m.gradNormClipped);
            QCOMPARE_BITS(back->stepSeconds, m.stepSeconds);
            QCOMPARE_BITS(back->samplesPerSecond, m.samplesPerSecond);
            QCOMPARE_BITS(back->scale, m.scale);
            QCOMPARE_BITS(back->scaleAfter, m.scaleAfter);
            QCOMPARE(back->growthTracker, m.growthTracker);
            QCOMPARE(back->foundInf, m.foundInf);
            QCOMPARE(back->stepSkipped, m.stepSkipped);
            QVERIFY(back->scaleChange == m.scaleChange);
            QCOMPARE(back->firstNonFiniteLayer, m.firstNonFiniteLayer);
        }
    }

    // Records from older runs may leave fields out: the documented defaults fill them
    // (clipped norm = the norm, scale after = the scale), on both read paths.
    void stepDefaults() {
        const std::string line = "{\"grad_norm\":2.5,\"scale\":8.0,\"step\":3,\"type\":\"step\"}";
        StepMetrics fromText;
        QVERIFY(parseStepRecordText(line, fromText));
        const auto fromJson = stepFromJson(json::parse(line));
        QVERIFY(fromJson);
        for (const StepMetrics* back : std::array<const StepMetrics*, 2>{&fromText, &*fromJson}) {
            QCOMPARE(back->step, 3);
            QCOMPARE(back->epoch, 0);
            QVERIFY(std::isnan(back->loss));
            QCOMPARE_BITS(back->gradNormClipped, 2.5);
            QCOMPARE_BITS(back->scaleAfter, 8.0);
            QCOMPARE_BITS(back->lr, 0.0);
            QVERIFY(back->scaleChange == ScaleChange::None);
            QVERIFY(back->firstNonFiniteLayer.empty());
        }
        QVERIFY(!stepFromJson(json{{"type", "step"}}));
        QVERIFY(!stepFromJson(json{{"type", "epoch"}, {"step", 1}}));
    }

    void epoch() {
        const EpochMetrics e{2, 40, 0.75, kNaN, 0.875, 1.5};
        QCOMPARE(onDisk(epochRecord(e)), text(std::string("{\"epoch\":2,\"seconds\":1.5,\"step\":40,\"train_loss\":0.75,\"type\":"
                             "\"epoch\",\"val_accuracy\":0.875,\"val_loss\":null,\"val_loss_nonfinite\":"
                             "\"nan\"}")));
        const auto back = epochFromJson(throughText(epochRecord(e)));
        QVERIFY(back);
        QCOMPARE(back->epoch, e.epoch);
        QCOMPARE(back->step, e.step);
        QCOMPARE_BITS(back->trainLoss, e.trainLoss);
        QVERIFY(std::isnan(back->valLoss));
        QCOMPARE_BITS(back->valAccuracy, e.valAccuracy);
        QCOMPARE_BITS(back->seconds, e.seconds);
        QVERIFY(!epochFromJson(json{{"type", "step"}}));
    }

    void summary() {
        RunSummary s;
        s.status = "error";
        s.error = "bad thing";
        s.device = "cpu";
        s.deviceName = "Some CPU";
        s.threads = 2;
        s.torchVersion = "1.13.0";
        s.mode = "fp16";
        s.emulated = true;
        s.execution = "emulated on CPU";
        s.model = "mlp";
        s.dataset = "synthetic";
        s.parameters = 1234;
        s.steps = 40;
        s.epochs = 2;
        s.wallSeconds = 1.5;
        s.trainSeconds = 1.25;
        s.samplesPerSecond = 512.0;
        s.peakMemoryBytes = 4096;
        s.finalTrainLoss = kNaN;
        s.valLoss = 0.5;
        s.valAccuracy = 0.875;
        s.skippedSteps = 3;
        s.finalScale = kInf;
        s.scaleBackoffs = 3;
        s.scaleGrowths = 1;
        s.nonFiniteLosses = 2;
        s.underflow = {{"fc1", 0.25, 0.125, 0.0, 4, false}};
        s.firstNonFinite = NonFiniteEvent{7, "fc2", 1, "backward", "gradient", 3, 2, 1, 64};
        s.probeOverhead = 0.0625;
        s.shadow = {{"fc1", 0.5, 0.75, 3}, {"fc2", kNaN, 1.0, 0}};
        s.lockstep = LockstepSummary{"fp32", -kInf, {{"fc1", 0.25, 0.5, 2}}};
        QCOMPARE(onDisk(summaryToJson(s)), text(std::string(
            "{\"ampscope_version\":\"" + std::string(build::kVersion) + "\",\"dataset\":\"synthet"
            "ic\",\"device\":\"cpu\",\"device_name\":\"Some CPU\",\"emulated\":true,\"epochs\":2,"
            "\"error\":\"bad thing\",\"final_scale\":null,\"final_scale_nonfinite\":\"inf\",\"fin"
            "al_train_loss\":null,\"final_train_loss_nonfinite\":\"nan\",\"first_nonfinite\":{\"l"
            "ayer\":\"fc2\",\"nan\":3,\"neg_inf\":1,\"numel\":64,\"phase\":\"backward\",\"pos_inf"
            "\":2,\"step\":7,\"tensor\":\"gradient\"},\"lockstep\":{\"final_loss\":null,\"final_l"
            "oss_nonfinite\":\"-inf\",\"mean_cosine_per_layer\":{\"fc1\":0.5},\"mean_rel_error_pe"
            "r_layer\":{\"fc1\":0.25},\"mode\":\"fp32\",\"steps_per_layer\":{\"fc1\":2}},\"model"
            "\":\"mlp\",\"nonfinite_losses\":2,\"parameters\":1234,\"peak_memory_bytes\":4096,\"p"
            "recision\":{\"emulated\":true,\"execution\":\"emulated on CPU\",\"mode\":\"fp16\"},"
            "\"probe_overhead\":0.0625,\"samples_per_second\":512.0,\"scale_backoffs\":3,\"scale_"
            "growths\":1,\"schema_version\":1,\"shadow\":{\"mean_cosine_per_layer\":{\"fc1\":0.75"
            ",\"fc2\":null},\"mean_rel_error_per_layer\":{\"fc1\":0.5,\"fc2\":null},\"steps_per_l"
            "ayer\":{\"fc1\":3,\"fc2\":0}},\"skipped_steps\":3,\"status\":\"error\",\"steps\":40,"
            "\"threads\":2,\"torch_version\":\"1.13.0\",\"train_seconds\":1.25,\"underflow\":[{\""
            "exact\":false,\"layer\":\"fc1\",\"mean_flushed_fraction\":0.25,\"mean_overflow_fract"
            "ion\":0.0,\"mean_subnormal_fraction\":0.125,\"probe_steps\":4}],\"val_accuracy\":0.8"
            "75,\"val_loss\":0.5,\"wall_seconds\":1.5}")));

        const RunSummary back = summaryFromJson(throughText(summaryToJson(s)));
        QCOMPARE(back.status, s.status);
        QCOMPARE(back.error, s.error);
        QCOMPARE(back.device, s.device);
        QCOMPARE(back.deviceName, s.deviceName);
        QCOMPARE(back.threads, s.threads);
        QCOMPARE(back.torchVersion, s.torchVersion);
        QCOMPARE(back.mode, s.mode);
        QCOMPARE(back.emulated, s.emulated);
        QCOMPARE(back.execution, s.execution);
        QCOMPARE(back.model, s.model);
        QCOMPARE(back.dataset, s.dataset);
        QCOMPARE(back.parameters, s.parameters);
        QCOMPARE(back.steps, s.steps);
        QCOMPARE(back.epochs, s.epochs);
        QCOMPARE_BITS(back.wallSeconds, s.wallSeconds);
        QCOMPARE_BITS(back.trainSeconds, s.trainSeconds);
        QCOMPARE_BITS(back.samplesPerSecond, s.samplesPerSecond);
        QCOMPARE(back.peakMemoryBytes, s.peakMemoryBytes);
        QVERIFY(std::isnan(back.finalTrainLoss));
        QCOMPARE_BITS(back.valLoss, s.valLoss);
        QCOMPARE_BITS(back.valAccuracy, s.valAccuracy);
        QCOMPARE(back.skippedSteps, s.skippedSteps);
        QCOMPARE_BITS(back.finalScale, kInf);
        QCOMPARE(back.scaleBackoffs, s.scaleBackoffs);
        QCOMPARE(back.scaleGrowths, s.scaleGrowths);
        QCOMPARE(back.nonFiniteLosses, s.nonFiniteLosses);
        QCOMPARE(back.underflow.size(), size_t(1));
        QCOMPARE(back.underflow[0].layer, std::string("fc1"));
        QCOMPARE_BITS(back.underflow[0].flushedFraction, 0.25);
        QCOMPARE_BITS(back.underflow[0].subnormalFraction, 0.125);
        QCOMPARE_BITS(back.underflow[0].overflowFraction, 0.0);
        QCOMPARE(back.underflow[0].probeSteps, 4);
        QCOMPARE(back.underflow[0].exact, false);
        QVERIFY(back.firstNonFinite);
        QCOMPARE(back.firstNonFinite->step, 7);
        QCOMPARE(back.firstNonFinite->layer, std::string("fc2"));
        QCOMPARE(back.firstNonFinite->phase, std::string("backward"));
        QCOMPARE(back.firstNonFinite->tensor, std::string("gradient"));
        QCOMPARE(back.firstNonFinite->nan, 3);
        QCOMPARE(back.firstNonFinite->posInf, 2);
        QCOMPARE(back.firstNonFinite->negInf, 1);
        QCOMPARE(back.firstNonFinite->numel, 64);
        QCOMPARE_BITS(back.probeOverhead, s.probeOverhead);
        // Means of a layer without a finite step are written null and read as NaN.
        QCOMPARE(back.shadow.size(), size_t(2));
        QCOMPARE(back.shadow[0].layer, std::string("fc1"));
        QCOMPARE_BITS(back.shadow[0].meanRelError, 0.5);
        QCOMPARE_BITS(back.shadow[0].meanCosine, 0.75);
        QCOMPARE(back.shadow[0].steps, 3);
        QCOMPARE(back.shadow[1].layer, std::string("fc2"));
        QVERIFY(std::isnan(back.shadow[1].meanRelError));
        QVERIFY(std::isnan(back.shadow[1].meanCosine));
        QCOMPARE(back.shadow[1].steps, 0);
        QVERIFY(back.lockstep);
        QCOMPARE(back.lockstep->mode, std::string("fp32"));
        QCOMPARE_BITS(back.lockstep->finalLoss, -kInf);
        QCOMPARE(back.lockstep->layers.size(), size_t(1));
        QCOMPARE_BITS(back.lockstep->layers[0].meanRelError, 0.25);
        QCOMPARE_BITS(back.lockstep->layers[0].meanCosine, 0.5);
        QCOMPARE(back.lockstep->layers[0].steps, 2);
    }

    // A run without a first non-finite event, shadow or lock-step partner: null, and the
    // optional parts left out; an old summary without them reads with the defaults.
    void bareSummary() {
        RunSummary s;
        s.status = "finished";
        QCOMPARE(onDisk(summaryToJson(s)), text(std::string(
            "{\"ampscope_version\":\"" + std::string(build::kVersion) + "\",\"dataset\":\"\",\"de"
            "vice\":\"cpu\",\"device_name\":\"\",\"emulated\":false,\"epochs\":0,\"final_scale\":"
            "1.0,\"final_train_loss\":0.0,\"first_nonfinite\":null,\"model\":\"\",\"nonfinite_los"
            "ses\":0,\"parameters\":0,\"peak_memory_bytes\":0,\"precision\":{\"emulated\":false,"
            "\"execution\":\"\",\"mode\":\"fp32\"},\"probe_overhead\":0.0,\"samples_per_second\":"
            "0.0,\"scale_backoffs\":0,\"scale_growths\":0,\"schema_version\":1,\"skipped_steps\":"
            "0,\"status\":\"finished\",\"steps\":0,\"threads\":1,\"torch_version\":\"\",\"train_s"
            "econds\":0.0,\"underflow\":[],\"va"
            "l_accuracy\":0.0,\"val_loss\":0.0,\"wall_seconds\":0.0}")));
        const RunSummary back = summaryFromJson(json{{"status", "stopped"}});
        QCOMPARE(back.status, std::string("stopped"));
        QCOMPARE(back.mode, std::string("fp32"));  // no "precision": the default mode
        QCOMPARE_BITS(back.finalScale, 1.0);
        QVERIFY(!back.firstNonFinite);
        QVERIFY(!back.lockstep);
        QVERIFY(back.shadow.empty());
    }

    // A hand-edited summary.json (what a user opens): every field of another type than the
    // schema's is named, nested ones by their path, and reads as its default; the others
    // read as they are; nothing throws.
    void summaryOfAnotherTypeSaysWhichField() {
        const json damaged = json::parse(R"({"status": 5, "steps": "many", "first_nonfinite": [1],
            "threads": 2, "model": "mlp", "val_loss": "low", "precision": "fp16",
            "underflow": [{"layer": "fc1", "probe_steps": 4}, 7, {"layer": 3}],
            "lockstep": {"mode": false, "final_loss": 0.5},
            "shadow": {"mean_cosine_per_layer": [0.5]}})");
        const SummaryReading read = readSummaryChecked(damaged);
        const std::vector<std::string> expected = {
            "\"status\" must be a string (got 5)",
            "\"precision\" must be an object (got \"fp16\")",
            "\"steps\" must be an integer (got \"many\")",
            "\"first_nonfinite\" must be an object (got [1])",
            "\"underflow[1]\" must be an object (got 7)",
            "\"underflow[2].layer\" must be a string (got 3)",
            "\"shadow.mean_cosine_per_layer\" must be an object (got [0.5])",
            "\"lockstep.mode\" must be a string (got false)",
            "\"val_loss\" must be a number or null (got \"low\")",
        };
        QCOMPARE(read.problems, expected);
        QVERIFY(!read.hasStatus);
        QVERIFY(read.statusMistyped);
        QCOMPARE(read.summary.status, std::string());
        QCOMPARE(read.summary.steps, int64_t{0});
        QVERIFY(!read.summary.firstNonFinite);
        QCOMPARE(read.summary.threads, 2);
        QCOMPARE(read.summary.model, std::string("mlp"));
        QCOMPARE(read.summary.underflow.size(), size_t(2));  // the entry that is no object is left out
        QCOMPARE(read.summary.underflow[0].probeSteps, int64_t{4});
        QVERIFY(read.summary.lockstep);
        QCOMPARE_BITS(read.summary.lockstep->finalLoss, 0.5);
        // The same values as the silent reading: reporting changes nothing read.
        const RunSummary silent = summaryFromJson(damaged);
        QCOMPARE(silent.threads, read.summary.threads);
        QCOMPARE(silent.underflow.size(), read.summary.underflow.size());
        QVERIFY(std::isnan(silent.valLoss) && std::isnan(read.summary.valLoss));

        // Not an object at all, and a summary as the engine writes it.
        const SummaryReading array = readSummaryChecked(json::array({1}));
        QCOMPARE(array.problems, std::vector<std::string>{"not a JSON object"});
        RunSummary written;
        written.status = "stopped";
        const SummaryReading clean = readSummaryChecked(summaryToJson(written));
        QVERIFY(clean.problems.empty());
        QVERIFY(clean.hasStatus && !clean.statusMistyped);
        QCOMPARE(clean.summary.status, std::string("stopped"));
    }

    // What a summary does not state is absent, not 0: a run stopped before its first
    // epoch has no validation; a loss the file states non-finite is NaN; a null without the
    // non-finite tag (not measured) or a value of another type is not stated; a file
    // without "precision" states no mode.
    void summaryResultsItDoesNotStateAreAbsent() {
        const SummaryReading bare = readSummaryChecked(json{{"status", "stopped"}, {"steps", 3}});
        QVERIFY(!bare.finalTrainLoss && !bare.valLoss && !bare.valAccuracy && !bare.finalScale);
        QCOMPARE(bare.summary.mode, std::string());
        QCOMPARE(bare.summary.steps, int64_t{3});

        const SummaryReading stated = readSummaryChecked(json::parse(R"({"final_train_loss": 0.25,
            "val_loss": null, "val_loss_nonfinite": "nan", "val_accuracy": null, "final_scale": "big",
            "precision": {"mode": "bf16", "emulated": false, "execution": "native"}})"));
        QVERIFY(stated.finalTrainLoss);
        QCOMPARE_BITS(*stated.finalTrainLoss, 0.25);
        QVERIFY(stated.valLoss && std::isnan(*stated.valLoss));
        QVERIFY(!stated.valAccuracy);  // null without a tag: not measured
        QVERIFY(!stated.finalScale);   // of another type: named among the problems instead
        QCOMPARE(stated.problems.size(), std::size_t{1});
        QCOMPARE(stated.summary.mode, std::string("bf16"));

        // As the engine writes it, every result is stated, with its value's bits.
        RunSummary written;
        written.finalTrainLoss = 0.125;
        written.valLoss = std::numeric_limits<double>::infinity();
        written.valAccuracy = 0.75;
        written.finalScale = 65536.0;
        const SummaryReading engine = readSummaryChecked(summaryToJson(written));
        QVERIFY(engine.finalTrainLoss && engine.valLoss && engine.valAccuracy && engine.finalScale);
        QCOMPARE_BITS(*engine.finalTrainLoss, 0.125);
        QCOMPARE_BITS(*engine.valLoss, std::numeric_limits<double>::infinity());
        QCOMPARE_BITS(*engine.valAccuracy, 0.75);
        QCOMPARE_BITS(*engine.finalScale, 65536.0);
        QCOMPARE(engine.summary.mode, written.mode);
    }

    void runInfoErrorAndRunEnd() {
        RunSummary facts;
        facts.deviceName = "Some CPU";
        facts.threads = 2;
        facts.torchVersion = "1.13.0";
        facts.mode = "fp16";
        facts.emulated = true;
        facts.execution = "emulated on CPU";
        facts.model = "mlp";
        facts.parameters = 1234;
        const std::vector<std::string> layers = {"fc1", "fc2"};
        QCOMPARE(onDisk(runInfoRecord("a run", facts, layers, 80)), text(std::string(
            "{\"description\":\"a run\",\"device\":\"cpu\",\"device_name\":\"Some CPU\",\"git_rev"
            "ision\":\"" + std::string(build::kGitRevision) + "\",\"layers\":[\"fc1\",\"fc2\"],\""
            "model\":\"mlp\",\"parameters\":1234,\"precision\":{\"emulated\":true,\"execution\":"
            "\"emulated on CPU\",\"mode\":\"fp16\"},\"threads\":2,\"torch_version\":\"1.13.0\",\""
            "total_steps\":80,\"type\":\"run_info\""
            "}")));
        QCOMPARE(onDisk(toJson(ErrorRecord{5, "broke", true})),
                 text("{\"input_error\":true,\"message\":\"broke\",\"step\":5,\"type\":\"error\"}"));
        FaultConfig fault;
        fault.step = 3;
        fault.kind = "scale_loss";
        fault.layer = "fc1";
        fault.factor = 2.0;
        QCOMPARE(onDisk(faultRecord(fault)),
                 text("{\"factor\":2.0,\"kind\":\"scale_loss\",\"layer\":\"fc1\",\"step\":3,\"type\":\"fault\"}"));
        const json end = toJson(RunEndRecord{"stopped", 9, utcTimeNow()});
        QCOMPARE(end.size(), size_t(4));
        QCOMPARE(end["type"], "run_end");
        QCOMPARE(end["status"], "stopped");
        QCOMPARE(end["step"], 9);
        // ISO 8601 UTC to the second: 2026-01-02T03:04:05Z
        QVERIFY(QRegularExpression("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$")
                    .match(QString::fromStdString(end["time"].get<std::string>()))
                    .hasMatch());
    }

    // run_start as the writer and the Python recorder write it (the engine leaves the
    // source empty and the bare writer also device and threads: those keys are left out).
    void runStart() {
        const RunStartRecord full{1, "2026-01-02T03:04:05Z", "0.1.0", "cuda", 8, "pytorch_recorder"};
        const QString expected = text(
            "{\"ampscope_version\":\"0.1.0\",\"device\":\"cuda\",\"schema_version\":1,"
            "\"source\":\"pytorch_recorder\",\"threads\":8,\"time\":\"2026-01-02T03:04:05Z\","
            "\"type\":\"run_start\"}");
        pinnedBothWays(full, runStartFromJson, expected);
        QCOMPARE(onDisk(toJson(RunStartRecord{1, "t", "v", "", 0, ""})),
                 text("{\"ampscope_version\":\"v\",\"schema_version\":1,\"time\":\"t\",\"type\":\"run_start\"}"));
        // The one required field: without an integer schema_version run_start does not read.
        QVERIFY(!runStartFromJson(json{{"type", "run_start"}, {"time", "t"}}));
        QVERIFY(!runStartFromJson(json{{"type", "run_start"}, {"schema_version", "1"}}));
        QVERIFY(!runStartFromJson(json{{"type", "run_info"}, {"schema_version", 1}}));
        // A version beyond int64 reads saturated, not wrapped to -1.
        const auto huge = runStartFromJson(json::parse(R"({"type":"run_start","schema_version":18446744073709551615})"));
        QVERIFY(huge);
        QCOMPARE(huge->schemaVersion, std::numeric_limits<int64_t>::max());
    }

    // run_info, error, run_end and fault read back every field they wrote.
    void lifecycleRecordsRoundTrip() {
        RunInfoRecord info;
        info.totalSteps = 80;
        info.description = "a run";
        info.device = "cuda";
        info.deviceName = "Some GPU";
        info.threads = 4;
        info.torchVersion = "2.4.1";
        info.cudaVersion = "12.1";
        info.gitRevision = "abc123";
        info.mode = "bf16";
        info.emulated = true;
        info.execution = "emulated on CPU";
        info.model = "mlp";
        info.parameters = 1234;
        info.layers = {"fc1", "act1", "fc2"};
        info.source = "pytorch_recorder";
        const QString expected = text(
            "{\"cuda_version\":\"12.1\",\"description\":\"a run\",\"device\":\"cuda\",\"device_name\":"
            "\"Some GPU\",\"git_revision\":\"abc123\",\"layers\":[\"fc1\",\"act1\",\"fc2\"],\"model\":"
            "\"mlp\",\"parameters\":1234,\"precision\":{\"emulated\":true,\"execution\":\"emulated on "
            "CPU\",\"mode\":\"bf16\"},\"source\":\"pytorch_recorder\",\"threads\":4,\"torch_version\":"
            "\"2.4.1\",\"total_steps\":80,\"type\":\"run_info\"}");
        pinnedBothWays(info, runInfoFromJson, expected);

        const auto error = errorFromJson(throughText(toJson(ErrorRecord{5, "broke", true})));
        QVERIFY(error);
        QCOMPARE(error->step, int64_t{5});
        QCOMPARE(error->message, std::string("broke"));
        QCOMPARE(error->inputError, true);

        const auto end = runEndFromJson(throughText(toJson(RunEndRecord{"stopped", 9, "2026-01-02T03:04:05Z"})));
        QVERIFY(end);
        QCOMPARE(end->status, std::string("stopped"));
        QCOMPARE(end->step, int64_t{9});
        QCOMPARE(end->time, std::string("2026-01-02T03:04:05Z"));

        FaultConfig fault;
        fault.step = 3;
        fault.kind = "scale_activation";
        fault.layer = "fc2";
        fault.factor = 1e6;
        const auto faultBack = faultFromJson(throughText(faultRecord(fault)));
        QVERIFY(faultBack);
        QCOMPARE(faultBack->step, fault.step);
        QCOMPARE(faultBack->kind, fault.kind);
        QCOMPARE(faultBack->layer, fault.layer);
        QCOMPARE_BITS(faultBack->factor, fault.factor);
    }

    // As the Python recorder and older builds wrote them: what is absent or null takes its
    // default and the rest still reads; a record of another type is nullopt.
    void lifecycleRecordsReadLeniently() {
        const auto error = errorFromJson(
            json::parse(R"({"type":"error","step":null,"message":"the loop fails here","input_error":false})"));
        QVERIFY(error);
        QCOMPARE(error->step, int64_t{0});
        QCOMPARE(error->message, std::string("the loop fails here"));

        const auto info = runInfoFromJson(json::parse(
            R"({"type":"run_info","device":"cpu","cuda_version":null,"threads":4294967298,)"
            R"("layers":["fc1",7],"precision":"fp16"})"));
        QVERIFY(info);
        QCOMPARE(info->device, std::string("cpu"));
        QCOMPARE(info->cudaVersion, std::string());
        QCOMPARE(info->threads, std::numeric_limits<int>::max());  // saturated, not wrapped to 2
        QVERIFY(info->layers.empty());                              // not a list of names
        QCOMPARE(info->mode, std::string());                        // not an object
        QVERIFY(!info->emulated);

        const auto bare = runInfoFromJson(json{{"type", "run_info"}});
        QVERIFY(bare);
        QCOMPARE(bare->threads, 0);
        QVERIFY(bare->layers.empty());
        QVERIFY(!runInfoFromJson(json{{"type", "error"}}));
        QVERIFY(!errorFromJson(json{{"type", "run_end"}}));
        QVERIFY(!runEndFromJson(json::array()));
        QVERIFY(!faultFromJson(json{{"step", 3}}));
    }
};

QTEST_APPLESS_MAIN(RecordCodecTest)
#include "test_record_codec.moc"
