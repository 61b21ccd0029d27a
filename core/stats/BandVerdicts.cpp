#include "stats/BandVerdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/Text.h"
#include "stats/SeedGroups.h"

namespace ampscope::stats {

namespace {

bool trainsInFp32(const nlohmann::json& config) {
    const auto precision = config.find("precision");
    return precision != config.end() && precision->is_object() && precision->value("mode", std::string()) == "fp32";
}

template <typename Value>
SampleSummary summaryOf(const std::vector<BandCandidate>& runs, const std::vector<std::size_t>& members, Value value) {
    std::vector<double> values;
    for (std::size_t i : members) values.push_back(value(runs[i]));
    return summarize(values);  // non-finite values left out
}

double valLossOf(const BandCandidate& run) { return run.finalValLoss; }
double valAccuracyOf(const BandCandidate& run) { return run.finalValAccuracy; }

// A single run's value against the band: NoBand when the run has none.
GapLabel singleLabel(double value, const SampleSummary& band) {
    if (!std::isfinite(value)) return {};
    return labelRunAgainstBand(value, band);
}

std::string nameOf(const std::vector<BandCandidate>& runs, const std::vector<std::size_t>& members, bool welch) {
    const BandCandidate& first = runs[members.front()];
    if (!welch) return first.name;
    const std::string configName = first.config.is_object() ? first.config.value("name", std::string()) : "";
    return seedGroupName(configName, first.name) + " (" + std::to_string(members.size()) + " seeds)";
}

}  // namespace

BandVerdicts bandVerdicts(const std::vector<BandCandidate>& runs) {
    BandVerdicts verdicts;
    std::vector<nlohmann::json> configs;
    for (const BandCandidate& run : runs) configs.push_back(run.config);
    const std::vector<std::vector<std::size_t>> groups = seedGroups(configs);
    if (groups.empty()) return verdicts;
    const auto fp32 = std::find_if(groups.begin(), groups.end(),
                                   [&](const std::vector<std::size_t>& g) { return trainsInFp32(runs[g.front()].config); });
    const std::size_t referenceGroup = fp32 == groups.end() ? 0 : static_cast<std::size_t>(fp32 - groups.begin());
    verdicts.reference = groups[referenceGroup];
    verdicts.valLoss = summaryOf(runs, verdicts.reference, valLossOf);
    verdicts.valAccuracy = summaryOf(runs, verdicts.reference, valAccuracyOf);

    std::vector<std::vector<StepValue>> referenceLosses;
    for (std::size_t i : verdicts.reference)
        if (!runs[i].smoothedLoss.empty()) referenceLosses.push_back(runs[i].smoothedLoss);
    const std::vector<StepBand> band =
        referenceLosses.size() >= static_cast<std::size_t>(kMinimumSeeds) ? seedBandSeries(referenceLosses)
                                                                           : std::vector<StepBand>{};

    // Entries in the order of their first run: a group at its first member, a lone run at itself.
    std::vector<int> groupOf(runs.size(), -1);
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (std::size_t i : groups[g]) groupOf[i] = static_cast<int>(g);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        ComparedVerdict verdict;
        if (groupOf[i] >= 0) {
            const auto& group = groups[static_cast<std::size_t>(groupOf[i])];
            if (group.front() != i || static_cast<std::size_t>(groupOf[i]) == referenceGroup) continue;
            verdict.runs = group;
            verdict.welch = true;
            verdict.valLoss = labelSeedsAgainstBand(summaryOf(runs, group, valLossOf), verdicts.valLoss,
                                                    Alternative::Greater);
            verdict.valAccuracy = labelSeedsAgainstBand(summaryOf(runs, group, valAccuracyOf), verdicts.valAccuracy,
                                                        Alternative::Less);
        } else {
            verdict.runs = {i};
            verdict.valLoss = singleLabel(runs[i].finalValLoss, verdicts.valLoss);
            verdict.valAccuracy = singleLabel(runs[i].finalValAccuracy, verdicts.valAccuracy);
        }
        for (std::size_t member : verdict.runs)
            verdict.outside.push_back(band.empty() ? std::vector<StepRange>{}
                                                   : stepsOutsideBand(band, runs[member].smoothedLoss));
        verdicts.compared.push_back(std::move(verdict));
    }
    return verdicts;
}

std::string gapWords(const GapLabel& label, bool welch) {
    if (label.label == Label::NoBand) return labelName(label.label);
    return std::string(labelName(label.label)) + (welch ? " (Welch p = " : " (p = ") + formatNumber(label.p, 2) + ")";
}

std::string outsideWords(const std::vector<StepRange>& ranges) {
    if (ranges.empty()) return {};
    const auto longest = std::max_element(ranges.begin(), ranges.end(), [](const StepRange& a, const StepRange& b) {
        return a.last - a.first < b.last - b.first;
    });
    const std::string times = ranges.size() == 1 ? "once" : std::to_string(ranges.size()) + " times";
    return "smoothed loss left the band " + times + ", longest at steps " + std::to_string(longest->first) + "-" +
           std::to_string(longest->last) + (longest->above ? " (above)" : " (below)");
}

std::vector<std::string> bandVerdictLines(const BandVerdicts& verdicts, const std::vector<BandCandidate>& runs) {
    std::vector<std::string> lines;
    if (verdicts.reference.empty()) return lines;
    lines.push_back("reference: the seed band of " + nameOf(runs, verdicts.reference, true) + ", " + kSeedBandRule);
    for (const ComparedVerdict& verdict : verdicts.compared) {
        lines.push_back(nameOf(runs, verdict.runs, verdict.welch) + ": val loss " +
                        gapWords(verdict.valLoss, verdict.welch) + ", val accuracy " +
                        gapWords(verdict.valAccuracy, verdict.welch));
        for (std::size_t k = 0; k < verdict.runs.size(); ++k) {
            const std::string along = outsideWords(verdict.outside[k]);
            if (!along.empty()) lines.push_back("  " + runs[verdict.runs[k]].name + ": " + along);
        }
    }
    return lines;
}

}  // namespace ampscope::stats
