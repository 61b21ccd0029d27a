#pragma once
// Which runs are seeds of one config, the rule the window's seed band and its labels share:
// runs whose config.json documents are equal once "seed" and "name" are taken out (a seed
// run is named after its seed, `ampscope-cli run --seeds` and `prescribe` both do so) are
// one config trained with several seeds.
//
// Contract:
// - seedGroups(configs): the groups of indices into `configs`, each in ascending order,
//   the groups ordered by their first index (so "the first group" is the one whose first
//   run comes first in the caller's list).
// - A group holds at least kMinimumSeeds runs with distinct seeds: a run whose seed an
//   earlier run of its config already has is a repeat, not another seed (it would narrow
//   the band with no new noise), and stays out of every group. A config seen with one
//   seed only is no group.
// - A document that is not a JSON object (a run whose config is unknown) is in no group.
// - Only the top-level "seed" and "name" are ignored: a nested key of that name (the
//   model's or the optimizer's "name") is part of the config.
// No torch, no Qt.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::stats {

std::vector<std::vector<std::size_t>> seedGroups(const std::vector<nlohmann::json>& configs);

// A group's name: the first run's config name ("mlp-fp32 seed 7": a run opened from disk is
// titled by its folder, and a set's folders, "seed-1", say nothing of the config), else its
// title ("reference-seed-1" from `prescribe`), without the seed that `run --seeds`,
// `prescribe` and a scenario's seeds end a seed run's name with ("seed" and digits, with
// spaces, '-' or '_' around). The title itself when both are only a seed.
std::string seedGroupName(const std::string& configName, const std::string& title);

}  // namespace ampscope::stats
