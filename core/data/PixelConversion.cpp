#include "data/PixelConversion.h"

#include <ATen/Parallel.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace ampscope {
namespace {
constexpr int64_t kGrain = int64_t{1} << 18;  // pixels per task: large enough to amortise

std::string fixed(double value, int decimals) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}
}  // namespace

std::string normalizedNote(const PixelStats& stats) {
    return ", normalized with train mean " + fixed(stats.mean, 4) + " std " + fixed(stats.std, 4);
}

PixelStats pixelStats(const torch::Tensor& pixels) {
    const torch::Tensor bytes = pixels.contiguous();
    TORCH_CHECK(bytes.scalar_type() == torch::kUInt8, "pixelStats expects uint8 pixels");
    const uint8_t* data = bytes.data_ptr<uint8_t>();
    std::array<uint64_t, 256> counts{};
    std::mutex merge;
    at::parallel_for(0, bytes.numel(), kGrain, [&](int64_t begin, int64_t end) {
        std::array<uint64_t, 256> local{};
        for (int64_t i = begin; i < end; ++i) ++local[data[i]];
        const std::lock_guard<std::mutex> lock(merge);
        for (size_t v = 0; v < 256; ++v) counts[v] += local[v];
    });

    const double total = static_cast<double>(bytes.numel());
    PixelStats stats;
    if (total == 0) return stats;
    double sum = 0;
    for (size_t v = 0; v < 256; ++v) sum += static_cast<double>(counts[v]) * (v / 255.0);
    stats.mean = sum / total;
    double squares = 0;
    for (size_t v = 0; v < 256; ++v) {
        const double d = v / 255.0 - stats.mean;
        squares += static_cast<double>(counts[v]) * d * d;
    }
    stats.std = std::sqrt(squares / total);
    return stats;
}

torch::Tensor bytesToFloat(const torch::Tensor& bytes, const PixelStats& stats) {
    const torch::Tensor in = bytes.contiguous();
    TORCH_CHECK(in.scalar_type() == torch::kUInt8, "bytesToFloat expects uint8");
    // A constant set has std 0; dividing by it would turn every value into NaN.
    const double scale = stats.std > 0 ? stats.std : 1.0;
    std::array<float, 256> table{};
    for (size_t v = 0; v < 256; ++v)
        table[v] = static_cast<float>((v / 255.0 - stats.mean) / scale);

    torch::Tensor out = torch::empty(in.sizes(), torch::kFloat32);
    const uint8_t* source = in.data_ptr<uint8_t>();
    float* dst = out.data_ptr<float>();
    at::parallel_for(0, in.numel(), kGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) dst[i] = table[source[i]];
    });
    return out;
}

torch::Tensor pixelsToFloat(const torch::Tensor& pixels, const PixelStats& stats) {
    TORCH_CHECK(pixels.scalar_type() == torch::kUInt8 && pixels.dim() == 3,
                "pixelsToFloat expects uint8 [N, H, W]");
    // Inserting the channel dimension keeps the result contiguous (a view, no copy).
    return bytesToFloat(pixels, stats).unsqueeze(1);
}

}  // namespace ampscope
