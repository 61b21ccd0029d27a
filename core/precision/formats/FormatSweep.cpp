#include "precision/formats/FormatSweep.h"

#include "precision/formats/TensorQuantizers.h"

namespace ampscope {

std::vector<FormatSweepRow> sweepFormats(const torch::Tensor& values, BlockLayout layout) {
    torch::NoGradGuard noGrad;
    // One fp32 contiguous copy shared by every format (the quantizers then skip theirs),
    // and one with the reduction dimension last for the block formats (the same
    // elements: the counts need no moving back).
    const auto x = values.detach().to(torch::kFloat).contiguous();
    const auto blocked = layout == BlockLayout::LastDim ? x : blocksLast(x, layout).contiguous();
    return {
        {"fp16", quantizeUnscaled(x, NumberFormat::Fp16).stats},
        {"bf16", quantizeUnscaled(x, NumberFormat::Bf16).stats},
        {"e4m3", quantizeCurrentScaling(x, NumberFormat::E4M3).stats},
        {"e5m2", quantizeCurrentScaling(x, NumberFormat::E5M2).stats},
        {"mxfp8", quantizeMx(blocked, NumberFormat::E4M3, MxScaleRule::Floor).stats},
        {"mxfp4", quantizeMx(blocked, NumberFormat::E2M1, MxScaleRule::Floor).stats},
        {"nvfp4", quantizeNvfp4(blocked).stats},
    };
}

}  // namespace ampscope
