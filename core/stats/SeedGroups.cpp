#include "stats/SeedGroups.h"

#include <algorithm>
#include <string_view>

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

bool isSeparator(char c) { return c == ' ' || c == '\t' || c == '-' || c == '_'; }

// `name` without a trailing "seed" + digits (and the separators around them).
std::string withoutSeedSuffix(std::string name) {
    std::size_t end = name.size();
    while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
    if (end == name.size()) return name;  // no digits: no seed suffix
    while (end > 0 && isSeparator(name[end - 1])) --end;
    constexpr std::string_view kSeed = "seed";
    if (end < kSeed.size() || name.compare(end - kSeed.size(), kSeed.size(), kSeed) != 0) return name;
    end -= kSeed.size();
    while (end > 0 && isSeparator(name[end - 1])) --end;
    name.resize(end);
    return name;
}

}  // namespace

std::string seedGroupName(const std::string& configName, const std::string& title) {
    for (const std::string& name : {configName, title}) {
        std::string stripped = withoutSeedSuffix(name);
        if (!stripped.empty()) return stripped;
    }
    return title;
}

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
