#include "precision/formats/FormatSweep.h"

#include "precision/formats/ScalingRules.h"
#include "precision/formats/TensorQuantizers.h"

namespace ampscope {

std::vector<FormatSweepRow> sweepFormats(const torch::Tensor& values, BlockLayout layout) {
    torch::NoGradGuard noGrad;
    // One fp32 contiguous copy shared by every format (the quantizers then skip theirs);
    // the block formats read their blocks along `layout` where they lie.
    const auto x = values.detach().to(torch::kFloat).contiguous();
    // Only the statistics are kept: on the CPU every format writes its values into one
    // buffer (TensorQuantizers.h).
    QuantizeOptions options;
    if (x.device().is_cpu()) options.scratch = torch::empty_like(x);
    // Current scaling's amax, read once for e4m3 and e5m2 (quantizeCurrentScaling would
    // read it for each): the same scale and the same statistics.
    const auto current = [&](NumberFormat format, float amax) {
        auto out = quantizeWithScale(x, format, perTensorScale(amax, format, 0), options);
        out.stats.scaleAmax = amax;
        return out.stats;
    };
    const float amax = finiteAbsMax(x);
    return {
        {"fp16", quantizeUnscaled(x, NumberFormat::Fp16, options).stats},
        {"bf16", quantizeUnscaled(x, NumberFormat::Bf16, options).stats},
        {"e4m3", current(NumberFormat::E4M3, amax)},
        {"e5m2", current(NumberFormat::E5M2, amax)},
        {"mxfp8", quantizeMx(x, NumberFormat::E4M3, MxScaleRule::Floor, options, layout).stats},
        {"mxfp4", quantizeMx(x, NumberFormat::E2M1, MxScaleRule::Floor, options, layout).stats},
        {"nvfp4", quantizeNvfp4(x, options, layout).stats},
    };
}

}  // namespace ampscope
