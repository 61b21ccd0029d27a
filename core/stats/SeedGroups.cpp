#include "stats/SeedGroups.h"

#include <algorithm>

#include "stats/SeedBand.h"

namespace ampscope::stats {

namespace {

// The config as the grouping compares it: what the seed and the run's name leave.
nlohmann::json withoutSeedAndName(const nlohmann::json& config) {
    nlohmann::json rest = config;
    rest.erase("seed");
    rest.erase("name");
    return rest;
}

}  // namespace

std::vector<std::vector<std::size_t>> seedGroups(const std::vector<nlohmann::json>& configs) {
    struct Candidate {
        nlohmann::json rest;
        std::vector<std::size_t> members;
        std::vector<nlohmann::json> seeds;
    };
    std::vector<Candidate> candidates;  // in the order of their first run
    for (std::size_t i = 0; i < configs.size(); ++i) {
        if (!configs[i].is_object()) continue;
        nlohmann::json rest = withoutSeedAndName(configs[i]);
        const nlohmann::json seed = configs[i].value("seed", nlohmann::json());
        auto same = std::find_if(candidates.begin(), candidates.end(),
                                 [&](const Candidate& c) { return c.rest == rest; });
        if (same == candidates.end()) {
            candidates.push_back({std::move(rest), {i}, {seed}});
            continue;
        }
        if (std::find(same->seeds.begin(), same->seeds.end(), seed) != same->seeds.end()) continue;  // a repeat
        same->members.push_back(i);
        same->seeds.push_back(seed);
    }
    std::vector<std::vector<std::size_t>> groups;
    for (Candidate& c : candidates)
        if (static_cast<int>(c.members.size()) >= kMinimumSeeds) groups.push_back(std::move(c.members));
    return groups;
}

}  // namespace ampscope::stats
