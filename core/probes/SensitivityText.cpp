#include "probes/SensitivityText.h"

#include <cmath>
#include <cstdio>

namespace ampscope {

namespace {

std::string formatted(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

std::string percent(double share) { return formatted("%.2f%%", 100.0 * share); }

std::string padded(std::string text, size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
}

}  // namespace

std::vector<std::string> sensitivityTable(const SensitivityRecord& record, size_t passes) {
    std::vector<std::string> lines;
    double totalFlops = 0.0;
    size_t nameWidth = 5;
    for (const auto& layer : record.layers) {
        totalFlops += layer.flops;
        nameWidth = std::max(nameWidth, layer.layer.size());
    }
    lines.push_back("sensitivity at step " + std::to_string(record.step) + ", mean of " + std::to_string(passes) +
                    (passes == 1 ? " pass" : " passes") + " (fp32 loss " + formatted("%.4g", record.loss) +
                    "): per layer, what quantizing it alone costs the loss,");
    lines.push_back("score: (sum dL/dY (Y_q - Y))^2 over its outputs, the first-order squared loss change (loss^2); "
                    "fisher: ModelOpt's sum (dL/dY)^2 (Y_q - Y)^2; saturated and flushed: shares of its quantized "
                    "operands");
    for (const auto& format : record.formats) {
        lines.push_back("");
        lines.push_back(format + ", most sensitive first:");
        lines.push_back("  rank  " + padded("layer", nameWidth) + "  score       fisher      FLOPs    saturated  flushed");
        int rank = 0;
        for (const LayerSensitivity* layer : rankByScore(record, format)) {
            const LayerFormatSensitivity& s = *layer->in(format);
            const std::string score = std::isnan(s.score) ? "not finite" : formatted("%.3e", s.score);
            lines.push_back("  " + padded(std::to_string(++rank), 4) + "  " + padded(layer->layer, nameWidth) + "  " +
                            padded(score, 10) + "  " + padded(formatted("%.3e", s.fisher), 10) + "  " +
                            padded(percent(totalFlops > 0 ? layer->flops / totalFlops : 0.0), 7) + "  " +
                            padded(percent(s.saturatedShare()), 9) + "  " + percent(s.flushedShare()));
        }
    }
    return lines;
}

}  // namespace ampscope
