#include "run/JobNonFiniteOrigin.h"

#include <algorithm>
#include <map>
#include <utility>

#include "probes/ProbeRecords.h"
#include "run/RunReader.h"

namespace ampscope {
namespace {

// "rank 0", "ranks 0 and 2", "ranks 0, 2 and 3"
std::string rankList(const std::vector<long long>& ranks) {
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (i > 0) text += i + 1 == ranks.size() ? " and " : ", ";
        text += std::to_string(ranks[i]);
    }
    return text;
}

bool received(const NonFiniteEvent& event) {
    return event.via == nonfinite_via::kGradientAllReduce;
}

std::string where(const NonFiniteEvent& event) {
    return "in " + event.layer + " (" + event.phase + ")";
}

// The earliest non-finite loss of the job: its step and its ranks (sorted); none when every
// loss was finite.
std::optional<std::pair<long long, std::vector<long long>>> firstNonFiniteLoss(const std::vector<RankNonFinite>& ranks) {
    std::optional<long long> firstStep;
    for (const RankNonFinite& r : ranks)
        if (r.firstNonFiniteLossStep && (!firstStep || *r.firstNonFiniteLossStep < *firstStep))
            firstStep = r.firstNonFiniteLossStep;
    if (!firstStep) return std::nullopt;
    std::vector<long long> numbers;
    for (const RankNonFinite& r : ranks)
        if (r.firstNonFiniteLossStep == firstStep) numbers.push_back(r.rank);
    std::sort(numbers.begin(), numbers.end());
    return std::make_pair(*firstStep, numbers);
}

}  // namespace

std::string jobNonFiniteOrigin(std::vector<RankNonFinite> ranks) {
    const auto loss = firstNonFiniteLoss(ranks);
    if (std::none_of(ranks.begin(), ranks.end(), [](const RankNonFinite& r) { return r.first.has_value(); })) {
        if (!loss) return {};
        return "no rank recorded where it went non-finite; the loss went non-finite first on " +
               rankList(loss->second) + ", at step " + std::to_string(loss->first);
    }
    ranks.erase(std::remove_if(ranks.begin(), ranks.end(), [](const RankNonFinite& r) { return !r.first; }),
                ranks.end());  // not empty: a rank has a record
    std::sort(ranks.begin(), ranks.end(), [](const RankNonFinite& a, const RankNonFinite& b) {
        const long long stepA = a.first->step, stepB = b.first->step;
        return stepA != stepB ? stepA < stepB : a.rank < b.rank;
    });
    // The ranks are in step order: the first own event is the origin, unless a rank
    // received something before it (from a rank that recorded nothing).
    std::optional<long long> originStep;
    for (const RankNonFinite& r : ranks)
        if (!received(*r.first)) {
            originStep = r.first->step;
            break;
        }
    for (const RankNonFinite& r : ranks)
        if (received(*r.first) && originStep && r.first->step < *originStep) {
            originStep.reset();
            break;
        }

    std::vector<std::string> clauses;
    std::vector<const RankNonFinite*> origins;
    if (originStep) {
        for (const RankNonFinite& r : ranks)
            if (!received(*r.first) && r.first->step == *originStep) origins.push_back(&r);
        std::vector<long long> numbers;
        for (const RankNonFinite* r : origins) numbers.push_back(r->rank);
        std::string clause = rankList(numbers) + " went non-finite first, at step " + std::to_string(*originStep);
        if (origins.size() == 1) {
            clause += " " + where(*origins[0]->first);
        } else {
            clause += ":";
            for (std::size_t i = 0; i < origins.size(); ++i)
                clause += (i ? ", rank " : " rank ") + std::to_string(origins[i]->rank) + " " +
                          where(*origins[i]->first);
        }
        clauses.push_back(clause);
    } else {
        clauses.push_back("no recorded rank went non-finite on its own first");
    }
    // The others, in step order: who received it when, and who went non-finite later.
    std::map<std::pair<long long, bool>, std::vector<long long>> groups;  // (step, received) -> ranks
    std::map<std::pair<long long, bool>, std::vector<const RankNonFinite*>> members;
    for (const RankNonFinite& r : ranks) {
        if (std::find(origins.begin(), origins.end(), &r) != origins.end()) continue;
        const auto key = std::make_pair(r.first->step, received(*r.first));
        groups[key].push_back(r.rank);
        members[key].push_back(&r);
    }
    for (const auto& [key, numbers] : groups) {
        const std::string step = std::to_string(key.first);
        if (key.second) {
            clauses.push_back(rankList(numbers) + (originStep ? " received it" : " received non-finite gradients") +
                              " through the gradient all-reduce at step " + step);
        } else {
            for (const RankNonFinite* r : members[key])
                clauses.push_back(rankList({r->rank}) + " went non-finite at step " + step + " " + where(*r->first));
        }
    }
    // A loss non-finite before any record: a rank whose probe missed it. Said, not hidden.
    if (loss && loss->first < ranks.front().first->step)
        clauses.push_back("the loss went non-finite earlier on " + rankList(loss->second) + ", at step " +
                          std::to_string(loss->first) + ", with no record of where");
    std::string text;
    for (std::size_t i = 0; i < clauses.size(); ++i) text += (i ? "; " : "") + clauses[i];
    return text;
}

std::string jobNonFiniteOriginOf(const std::vector<std::string>& rankDirectories) {
    std::vector<RankNonFinite> ranks;
    for (const std::string& directory : rankDirectories) {
        RankNonFinite rank{rankOfDirectory(directory), std::nullopt, std::nullopt};
        forEachRunRecord(
            directory,
            [&](nlohmann::json& record) {
                if (rank.first || record.value("type", std::string()) != probe_record_type::kNonFinite) return;
                try {
                    rank.first = nonFiniteRecordFromJson(record).event;
                } catch (const std::exception&) {
                    // A damaged record: the rank counts as one without a known event.
                }
            },
            // Lines that cannot be the record are passed over unparsed.
            [](std::string_view line) { return line.find("nonfinite\"") == std::string_view::npos; });
        ranks.push_back(std::move(rank));
    }
    return jobNonFiniteOrigin(std::move(ranks));
}

}  // namespace ampscope
