#include "runset/ProbeSeriesStore.h"

namespace ampscope::ui {

std::vector<std::size_t> indicesKeptByThinning(const std::vector<double>& weights) {
    std::vector<std::size_t> kept;
    kept.reserve((weights.size() + 1) / 2);
    for (std::size_t i = 0; i < weights.size(); i += 2) {
        // The second of the pair only when it weighs strictly more: ties keep the first,
        // so that a store without weights keeps every second step.
        const bool second = i + 1 < weights.size() && weights[i + 1] > weights[i];
        kept.push_back(second ? i + 1 : i);
    }
    return kept;
}

}  // namespace ampscope::ui
