#include "data/SampleSplits.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <utility>

#include "common/InputError.h"
#include "common/Text.h"
#include "data/SeedStreams.h"

namespace ampscope {
namespace {

torch::Generator generatorFor(uint64_t seed, SeedStream stream) {
    return at::make_generator<at::CPUGeneratorImpl>(deriveSeed(seed, stream));
}

}  // namespace

Split holdOut(const Rows& all, double fraction, uint64_t seed) {
    const int64_t total = all.size();
    const auto held = static_cast<int64_t>(std::llround(fraction * double(total)));
    if (held < 1 || held >= total)
        throw InputError("data.val_fraction: " + formatNumber(fraction, 6) + " of " +
                         std::to_string(total) + " samples holds out " + std::to_string(held) +
                         "; train and val must each keep at least one sample");
    torch::Generator generator = generatorFor(seed, SeedStream::ValidationSplit);
    const torch::Tensor order = torch::randperm(total, generator, torch::kInt64);
    return {all.select(order.narrow(0, held, total - held)), all.select(order.narrow(0, 0, held))};
}

std::string holdOutValidation(Rows& train, Rows& val, double fraction, uint64_t seed) {
    Split split = holdOut(train, fraction, seed);
    train = std::move(split.train);
    val = std::move(split.val);
    return "val " + std::to_string(val.size()) + " (split " + formatNumber(fraction, 6) + " of train)";
}

std::string applySubset(Rows& train, int64_t subset, uint64_t seed) {
    const int64_t total = train.size();
    if (subset <= 0) return "";
    if (subset >= total)
        return " (subset " + std::to_string(subset) + " >= " + std::to_string(total) +
               ": all kept)";
    torch::Generator generator = generatorFor(seed, SeedStream::TrainSubset);
    const torch::Tensor order = torch::randperm(total, generator, torch::kInt64);
    train = train.select(order.narrow(0, 0, subset));
    return " (subset of " + std::to_string(total) + ")";
}

}  // namespace ampscope
