#include "PrescribeCommand.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "RequestedConfig.h"
#include "SeedRuns.h"
#include "common/InputError.h"
#include "common/Text.h"
#include "config/ConfigJson.h"
#include "config/ConfigValidation.h"
#include "engine/SensitivityScan.h"
#include "probes/Prescription.h"
#include "probes/SensitivityText.h"
#include "run/RunNaming.h"
#include "stats/SeedBand.h"

namespace ampscope::app {

namespace {

// The sensitivity pass's own training: long enough for trained gradients, short beside
// the verification's runs.
constexpr int64_t kSensitivitySteps = 40;

void writeText(const std::string& path, const std::string& text) {
    std::ofstream file(path);
    file << text;
    if (!file) throw InputError(path + ": cannot write");
}

std::string lines(const std::vector<std::string>& list) {
    std::string text;
    for (const auto& line : list) text += line + "\n";
    return text;
}

std::string cell(double value, int digits = 4) { return std::isfinite(value) ? formatNumber(value, digits) : "-"; }

ArmQuantity quantityOf(const std::vector<SeedRunResult>& runs, double RunSummary::*field) {
    std::vector<double> values;
    for (const auto& run : runs) values.push_back(run.summary.*field);
    const stats::SampleSummary s = stats::summarize(values);
    return {s.count, s.mean, s.sd, "", NAN};
}

// The compared arm's value against the reference's seeds, Welch one-sided toward "worse".
void labelAgainst(ArmQuantity& compared, const ArmQuantity& reference, stats::Alternative worse) {
    const stats::GapLabel gap = stats::labelSeedsAgainstBand({compared.seeds, compared.mean, compared.sd},
                                                             {reference.seeds, reference.mean, reference.sd}, worse);
    compared.label = stats::labelName(gap.label);
    compared.p = gap.label == stats::Label::NoBand ? NAN : gap.p;
}

// Inside on every quantity that has a band (a regression has no accuracy).
bool insideBand(const PrescriptionArm& arm) {
    for (const ArmQuantity* q : {&arm.valLoss, &arm.valAccuracy})
        if (q->label == stats::labelName(stats::Label::Outside)) return false;
    return arm.valLoss.label == stats::labelName(stats::Label::Inside);
}

std::string armLine(const PrescriptionArm& arm) {
    char line[320];
    const auto quantity = [&](const ArmQuantity& q) {
        if (!arm.trained) return std::string("-");
        std::string text = cell(q.mean) + " +- " + cell(q.sd, 2);
        if (!q.label.empty()) text += " (" + q.label + (std::isfinite(q.p) ? ", p " + cell(q.p, 3) : "") + ")";
        return text;
    };
    std::snprintf(line, sizeof line, "  %-14s %-34s %-34s %s", arm.name.c_str(), quantity(arm.valLoss).c_str(),
                  quantity(arm.valAccuracy).c_str(), arm.trained ? "" : "(not trained: not needed)");
    return line;
}

// --progress: one line of JSON per phase, flushed at once, for a program that runs this
// command and shows how far it got (the window's Prescribe…). The runs themselves are
// in DIR as they are written; these lines say which arm is training and how many runs
// the whole prescription has at most.
void announce(std::FILE* out, bool enabled, nlohmann::json fields) {
    if (!enabled) return;
    std::fprintf(out, "%s\n", nlohmann::json{{"prescribe_progress", std::move(fields)}}.dump().c_str());
    std::fflush(out);
}

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
    return text.empty() ? "none" : text;
}

}  // namespace

int runPrescribeCommand(const CliRequest& request, std::FILE* out, std::FILE* err) {
    RunConfig config = requestedConfig(request);
    if (request.prescribeSteps > 0) config.train.max_steps = request.prescribeSteps;
    throwIfInvalid(config);
    requireNewOrEmptyFolder(request.outDirectory);
    const std::string& format = request.prescribeFormat;
    const std::string dir = request.outDirectory;
    const std::string name = runName(config);

    RunConfig reference = config;
    reference.precision.mode = "fp32";
    reference.precision.keep_fp32.clear();

    const bool progress = request.prescribeProgress;
    const int seeds = request.prescribeSeeds;

    // 1. Sensitivity, from the reference's own short training.
    if (!request.quiet) std::fprintf(out, "== sensitivity of every matmul/conv layer in %s ==\n", format.c_str());
    SensitivityScanRequest scanRequest{{format}, 0, 0};
    int64_t total = config.train.max_steps > 0 ? config.train.max_steps : kSensitivitySteps;
    scanRequest.steps = std::min(total, kSensitivitySteps);
    announce(out, progress, {{"phase", "sensitivity"}, {"steps", scanRequest.steps}, {"runs", 3 * seeds}});
    // Each pass says how far the scan is (a window following this shows the step).
    const SensitivityScan scan = scanSensitivity(reference, scanRequest, [&](const SensitivityRecord& pass) {
        announce(out, progress, {{"phase", "sensitivity"}, {"step", pass.step}, {"steps", scanRequest.steps},
                                 {"runs", 3 * seeds}});
    });
    std::filesystem::create_directories(dir);
    writeText(dir + "/sensitivity.json", toJson(scan.combined).dump(1) + "\n");
    writeText(dir + "/sensitivity.txt", lines(sensitivityTable(scan.combined, scan.passes.size())));
    Prescription prescription = choosePrescription(scan.combined, format, request.prescribeBudget);

    // 2. The reference and the model all in the format, with the seeds.
    const auto trainArm = [&](PrescriptionArm& arm, const RunConfig& armConfig, const std::string& prefix,
                              std::vector<SeedRunResult>& results, int runsBefore, int runs) {
        announce(out, progress, {{"phase", "arm"}, {"arm", arm.name}, {"prefix", prefix}, {"seeds", seeds},
                                 {"runs_before", runsBefore}, {"runs", runs}});
        const SeedSetLayout layout{dir, prefix, name + " " + arm.name, request.prescribeSeeds, {}};
        if (const int code = trainSeeds(armConfig, layout, out, err, request.quiet, results); code != 0) return code;
        for (const auto& r : results) arm.runs.push_back(r.directory);
        arm.valLoss = quantityOf(results, &RunSummary::valLoss);
        arm.valAccuracy = quantityOf(results, &RunSummary::valAccuracy);
        writeText(dir + "/" + prefix + "config.json", configToJson(armConfig).dump(2) + "\n");
        return 0;
    };
    std::vector<PrescriptionArm> arms(3);
    arms[0] = {"reference", "fp32", {}, {}, {}, {}, true};
    arms[1] = {"all " + format, format, {}, {}, {}, {}, true};
    RunConfig allFormat = reference;
    allFormat.precision.mode = format;
    std::vector<SeedRunResult> referenceRuns, formatRuns, prescribedRuns;
    if (const int code = trainArm(arms[0], reference, "reference-", referenceRuns, 0, 3 * seeds); code != 0) return code;
    if (const int code = trainArm(arms[1], allFormat, format + "-", formatRuns, seeds, 3 * seeds);
        code != 0) return code;
    labelAgainst(arms[1].valLoss, arms[0].valLoss, stats::Alternative::Greater);
    labelAgainst(arms[1].valAccuracy, arms[0].valAccuracy, stats::Alternative::Less);

    // 3. The prescription, when the format alone is not good enough.
    const bool formatSuffices = insideBand(arms[1]);
    if (formatSuffices)
        for (auto& layer : prescription.ranking) layer.kept = false;
    RunConfig prescribed = allFormat;
    prescribed.precision.keep_fp32 = prescription.kept();
    arms[2] = {"prescribed", format, prescribed.precision.keep_fp32, {}, {}, {}, !formatSuffices};
    if (!formatSuffices && !prescribed.precision.keep_fp32.empty()) {
        if (const int code = trainArm(arms[2], prescribed, "prescribed-", prescribedRuns, 2 * seeds, 3 * seeds);
            code != 0) return code;
        labelAgainst(arms[2].valLoss, arms[0].valLoss, stats::Alternative::Greater);
        labelAgainst(arms[2].valAccuracy, arms[0].valAccuracy, stats::Alternative::Less);
    } else {
        arms[2].trained = false;
        announce(out, progress, {{"phase", "arm skipped"}, {"arm", arms[2].name}, {"runs", 2 * seeds}});
    }

    // 4. The verdict.
    std::string verdict;
    const std::string share = cell(100.0 * prescription.formatFlopsShare(), 3) + "% of the FLOPs in " + format;
    if (formatSuffices) {
        verdict = "the model trains in " + format + " inside the fp32 band: no layer needs to stay in higher precision";
    } else if (prescribed.precision.keep_fp32.empty()) {
        verdict = "all in " + format + " is outside the fp32 band, and no layer can be kept within the budget of " +
                  cell(100.0 * prescription.budget, 3) + "% of the FLOPs in " + format + ": lower --budget";
    } else if (insideBand(arms[2])) {
        verdict = "keep " + joined(prescribed.precision.keep_fp32) + " in fp32 (" + share +
                  "): inside the fp32 band, where all in " + format + " is outside";
    } else {
        verdict = "keeping " + joined(prescribed.precision.keep_fp32) + " in fp32 (" + share +
                  ") is still outside the fp32 band: the remaining layers' error matters too (lower --budget), or "
                  "the format does not train this model in these steps";
    }
    writeText(dir + "/prescription.json", prescriptionJson(prescription, arms, verdict).dump(1) + "\n");

    std::vector<std::string> text;
    text.push_back("prescription for " + name + " in " + format + ": " + verdict);
    text.push_back("");
    text.push_back("layers by sensitivity in " + format + " (score: first-order squared loss change; kept until " +
                   cell(100.0 * kPrescriptionScoreShare, 3) + "% of the total score, at least " +
                   cell(100.0 * prescription.budget, 3) + "% of the FLOPs staying in " + format + "):");
    for (const auto& layer : prescription.ranking)
        text.push_back("  " + layer.layer + ": score " + cell(layer.score) + ", " +
                       cell(100.0 * layer.flopsShare, 3) + "% of FLOPs" +
                       (layer.kept ? ", kept" : layer.overBudget ? ", over the budget" : ""));
    text.push_back("");
    text.push_back(std::to_string(request.prescribeSeeds) + " seeds per arm; final validation loss and accuracy "
                   "(mean +- sd), against the reference by Welch's one-sided t-test at 5%:");
    {
        char header[160];
        std::snprintf(header, sizeof header, "  %-14s %-34s %-34s", "arm", "val loss", "val accuracy");
        text.push_back(header);
    }
    for (const auto& arm : arms) text.push_back(armLine(arm));
    text.push_back("");
    for (const auto& line : prescriptionSnippets(prescription.kept())) text.push_back(line);
    writeText(dir + "/prescription.txt", lines(text));
    announce(out, progress, {{"phase", "done"}, {"runs", arms[2].trained ? 3 * seeds : 2 * seeds}});
    if (!request.quiet) std::fprintf(out, "\n%s\nwritten: %s/prescription.{txt,json}\n", lines(text).c_str(), dir.c_str());
    return 0;
}

}  // namespace ampscope::app
