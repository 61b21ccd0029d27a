#pragma once
// KnownRuns: run directories written by hand, line by line as the schema spells them
// (core/run/EventSchema.md, core/probes/ProbeRecords.md), whose every per-step quantity
// follows a formula of the run's index k and the step s, so that no two runs share a
// value; and what a view must draw for each run, worked out here from the same
// formulas (never read back through the program's reader). For the suites that check
// that compared runs' overlays hold each run's own values, not only its name and colour.
//
// Each run: kSteps steps of one epoch of 4 steps each (epoch records at steps 4 and 8),
// a memory record every step, update_ratio and scaled-gradient underflow records for
// layers fc1 and fc2 on even steps; run 1's loss at step 5 is NaN (a gap in its raw
// line, the EMA held). Few points: no series is decimated.
#include <QDir>
#include <QFile>
#include <QString>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "config/ConfigJson.h"
#include "plots/QCustomPlotInclude.h"
#include "probes/ProbeRecords.h"

namespace ampscope::test::known_runs {

using Points = std::vector<std::pair<double, double>>;

constexpr int kSteps = 8;
constexpr int kStepsPerEpoch = 4;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr int64_t kIntended = 200;  // intended non-zero updates per layer record
const char* const kLayers[2] = {"fc1", "fc2"};
// Modes differ so the runs are not seeds of one config (the Loss view would band them).
const char* const kModes[3] = {"fp32", "fp16", "bf16"};

inline double loss(int k, int s) {
    if (k == 1 && s == 5) return std::numeric_limits<double>::quiet_NaN();
    return (1.0 + 0.5 * k) / s + 0.01 * k * s;
}
inline double samplesPerSecond(int k, int s) { return 1000.0 * (k + 1) + 7.0 * s; }
inline double stepSeconds(int k, int s) { return 0.001 * (k + 2) + 0.0001 * s; }
inline double scale(int k, int s) {
    if (k == 0) return 1.0;
    if (k == 1) return s <= 4 ? 65536.0 : 32768.0;
    return std::ldexp(1.0, 8 + s % 3);
}
inline double gradNorm(int k, int s) { return 0.1 * (k + 1) * s; }
inline double gradNormClipped(int k, int s) { return std::min(gradNorm(k, s), 0.25 * (k + 1)); }
inline double valLoss(int k, int epoch) { return 0.9 - 0.1 * k - 0.2 * epoch; }
inline double valAccuracy(int k, int epoch) { return 0.3 + 0.1 * k + 0.1 * epoch; }
inline int64_t rssMiB(int k, int s) { return 64 + 16 * k + s; }
inline int64_t peakRssMiB(int k, int s) { return rssMiB(k, s) + k + 1; }
inline int64_t cudaPeakMiB(int k, int s) { return 8 + 3 * k + s; }
inline double updateRatio(int k, int layer, int s) { return 1e-3 * (k + 1) * (layer + 1) / s; }
inline int64_t lostUpdates(int k, int layer, int s) { return 10 * k + s + layer; }
inline int64_t flushed(int k, int layer, int s) { return k + s / 2 + layer; }
constexpr int64_t kUnderflowElements = 100;  // per layer record: flushed + normal

// The run directory of run k (config.json and events.jsonl). `complete`: the run ended
// (a run_end record and summary.json: the window loads it at once, runs of a folder side
// by side); else it is still being written as far as a reader knows (the window
// follows it).
inline void writeKnownRun(const QString& directory, int k, bool complete) {
    QDir().mkpath(directory);
    RunConfig config;
    config.precision.mode = kModes[k];
    std::ofstream(QFile::encodeName(directory + QStringLiteral("/config.json")).toStdString())
        << configToJson(config).dump();
    std::ofstream events(QFile::encodeName(directory + QStringLiteral("/events.jsonl")).toStdString());
    using nlohmann::json;
    events << json{{"type", "run_start"}, {"schema_version", 1}, {"device", "cpu"}, {"threads", 1}}.dump() << "\n";
    for (int s = 1; s <= kSteps; ++s) {
        json step{{"type", "step"},
                  {"step", s},
                  {"epoch", (s - 1) / kStepsPerEpoch + 1},
                  {"lr", 0.01},
                  {"grad_norm", gradNorm(k, s)},
                  {"grad_norm_clipped", gradNormClipped(k, s)},
                  {"step_seconds", stepSeconds(k, s)},
                  {"samples_per_second", samplesPerSecond(k, s)},
                  {"scale", scale(k, s)},
                  {"scale_after", scale(k, s)},
                  {"growth_tracker", 0},
                  {"found_inf", false},
                  {"step_skipped", false}};
        if (std::isnan(loss(k, s))) {
            step["loss"] = nullptr;
            step["loss_nonfinite"] = "nan";
        } else {
            step["loss"] = loss(k, s);
        }
        events << step.dump() << "\n";
        events << json{{"type", "memory"},
                       {"step", s},
                       {"rss_bytes", rssMiB(k, s) * (1 << 20)},
                       {"peak_rss_bytes", peakRssMiB(k, s) * (1 << 20)},
                       {"cuda_peak_allocated_bytes", cudaPeakMiB(k, s) * (1 << 20)},
                       {"activation_bytes", json::object()},
                       {"activation_bytes_real", json::object()}}
                      .dump()
               << "\n";
        if (s % 2 == 0) {
            for (int l = 0; l < 2; ++l) {
                events << json{{"type", "update_ratio"},
                               {"step", s},
                               {"layer", kLayers[l]},
                               {"layer_index", 2 * l},
                               {"numel", 400},
                               {"ratio", updateRatio(k, l, s)},
                               {"weight_norm", 1.0},
                               {"update_norm", updateRatio(k, l, s)},
                               {"intended_nonzero", kIntended},
                               {"lost", lostUpdates(k, l, s)},
                               {"lost_fraction", static_cast<double>(lostUpdates(k, l, s)) / kIntended}}
                              .dump()
                       << "\n";
                const int64_t f = flushed(k, l, s);
                events << json{{"type", "underflow"},   {"step", s},
                               {"layer", kLayers[l]},   {"kind", std::string(probe_kind::kParamGradScaled)},
                               {"multiplier", 1.0},     {"zero", 0},
                               {"flushed", f},          {"subnormal", 0},
                               {"normal", kUnderflowElements - f}, {"overflow", 0},
                               {"nan", 0},              {"inf", 0},
                               {"exact", true}}
                              .dump()
                       << "\n";
            }
        }
        if (s % kStepsPerEpoch == 0) {
            const int epoch = s / kStepsPerEpoch;
            events << json{{"type", "epoch"},
                           {"epoch", epoch},
                           {"step", s},
                           {"train_loss", 0.5},
                           {"val_loss", valLoss(k, epoch)},
                           {"val_accuracy", valAccuracy(k, epoch)},
                           {"seconds", 1.0}}
                          .dump()
                   << "\n";
        }
    }
    if (!complete) return;
    events << json{{"type", "run_end"}, {"status", "finished"}, {"step", kSteps}}.dump() << "\n";
    std::ofstream(QFile::encodeName(directory + QStringLiteral("/summary.json")).toStdString())
        << json{{"status", "finished"}, {"steps", kSteps}}.dump();
}

// Per step s = 1..kSteps, f(s).
template <class F>
Points perStep(F f) {
    Points points;
    for (int s = 1; s <= kSteps; ++s) points.emplace_back(static_cast<double>(s), f(s));
    return points;
}

// Per epoch end, f(epoch).
template <class F>
Points perEpoch(F f) {
    Points points;
    for (int e = 1; e * kStepsPerEpoch <= kSteps; ++e) points.emplace_back(static_cast<double>(e * kStepsPerEpoch), f(e));
    return points;
}

// Per even step (the probe records), f(s).
template <class F>
Points perProbeStep(F f) {
    Points points;
    for (int s = 2; s <= kSteps; s += 2) points.emplace_back(static_cast<double>(s), f(s));
    return points;
}

// TensorBoard's debiased EMA with factor `smoothing` over the finite losses so far, in
// closed form: sum_j (1 - b) b^(m - j) x_j / (1 - b^m) over the m finite losses x_j; a
// non-finite loss leaves it where it was.
inline Points smoothedLoss(int k, double smoothing) {
    Points points;
    std::vector<double> finite;
    for (int s = 1; s <= kSteps; ++s) {
        if (std::isfinite(loss(k, s))) finite.push_back(loss(k, s));
        const auto m = static_cast<int>(finite.size());
        double sum = 0.0;
        for (int j = 1; j <= m; ++j) sum += (1.0 - smoothing) * std::pow(smoothing, m - j) * finite[static_cast<std::size_t>(j - 1)];
        points.emplace_back(static_cast<double>(s), m > 0 ? sum / (1.0 - std::pow(smoothing, m)) : std::nan(""));
    }
    return points;
}

// The percentage of scaled parameter-gradient elements flushed at each probe step, all
// layers together.
inline Points flushedPercent(int k) {
    return perProbeStep([k](int s) {
        const int64_t f = flushed(k, 0, s) + flushed(k, 1, s);
        return 100.0 * static_cast<double>(f) / static_cast<double>(2 * kUnderflowElements);
    });
}

// The one graph of `plot` named `name`; nullptr when there is none, or more than one.
inline QCPGraph* graphNamed(const QCustomPlot* plot, const QString& name) {
    QCPGraph* found = nullptr;
    for (int i = 0; i < plot->graphCount(); ++i) {
        if (plot->graph(i)->name() != name) continue;
        if (found) return nullptr;
        found = plot->graph(i);
    }
    return found;
}

// Empty when `graph` holds exactly the points `expected`, in order: the same x, and a y
// within `relative` of the expected one (0: equal), NaN where NaN is expected. Else
// the first difference, in words.
inline QString pointDifference(const QCPGraph* graph, const Points& expected, double relative) {
    if (!graph) return QStringLiteral("no such graph");
    const auto data = graph->data();
    if (data->size() != static_cast<int>(expected.size()))
        return QStringLiteral("%1 points, expected %2").arg(data->size()).arg(expected.size());
    for (int i = 0; i < data->size(); ++i) {
        const double x = data->at(i)->key, y = data->at(i)->value;
        const auto [ex, ey] = expected[static_cast<std::size_t>(i)];
        const bool sameY = std::isnan(ey) ? std::isnan(y) : (y == ey || std::abs(y - ey) <= relative * std::abs(ey));
        if (x != ex || !sameY)
            return QStringLiteral("point %1: (%2, %3), expected (%4, %5)")
                .arg(i)
                .arg(x, 0, 'g', 17)
                .arg(y, 0, 'g', 17)
                .arg(ex, 0, 'g', 17)
                .arg(ey, 0, 'g', 17);
    }
    return {};
}

}  // namespace ampscope::test::known_runs
