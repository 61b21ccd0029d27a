#include "report/HistogramContrast.h"

#include <algorithm>
#include <cmath>

#include "probes/ExponentDistance.h"
#include "probes/ProbeRecords.h"
#include "runset/HistogramSeries.h"

namespace ampscope::ui {
namespace {

int kindOrder(const std::string& kind) {
    const std::string_view kinds[] = {probe_kind::kParamGrad, probe_kind::kParamGradScaled,
                                      probe_kind::kActivationGrad};
    for (int i = 0; i < 3; ++i)
        if (kind == kinds[i]) return i;
    return 3;
}

}  // namespace

HistogramTotals histogramTotals(const HistogramSeries& series) {
    HistogramTotals totals;
    for (const QString& kind : HistogramSeries::kinds())
        for (const QString& layer : series.layers().names()) {
            const HistogramSeries::Series* steps = series.series(kind, layer);
            if (!steps || steps->size() == 0) continue;
            ExponentHistogram& total = totals[{kind.toStdString(), layer.toStdString()}];
            for (std::size_t i = 0; i < steps->size(); ++i) total += steps->entry(i);
        }
    return totals;
}

std::vector<HistogramContrast> rankContrasts(const std::vector<HistogramTotals>& runs) {
    std::map<std::pair<std::string, std::string>, HistogramContrast> best;
    for (std::size_t a = 0; a < runs.size(); ++a) {
        for (std::size_t b = a + 1; b < runs.size(); ++b) {
            for (const auto& [key, histogram] : runs[a]) {
                const auto other = runs[b].find(key);
                if (other == runs[b].end()) continue;
                const double distance = exponentDistance(histogram, other->second);
                if (std::isnan(distance)) continue;
                auto [it, added] = best.try_emplace(key);
                if (added || distance > it->second.binades)
                    it->second = {QString::fromStdString(key.first), QString::fromStdString(key.second), distance,
                                  static_cast<int>(a), static_cast<int>(b)};
            }
        }
    }
    std::vector<HistogramContrast> ranked;
    for (auto& [key, contrast] : best) ranked.push_back(contrast);
    std::stable_sort(ranked.begin(), ranked.end(), [](const HistogramContrast& x, const HistogramContrast& y) {
        if (x.binades != y.binades) return x.binades > y.binades;
        const int kx = kindOrder(x.kind.toStdString()), ky = kindOrder(y.kind.toStdString());
        if (kx != ky) return kx < ky;
        return x.layer < y.layer;
    });
    return ranked;
}

}  // namespace ampscope::ui
