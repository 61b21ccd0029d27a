#include "precision/formats/FormatSweep.h"

#include "precision/formats/TensorQuantizers.h"

namespace ampscope {

std::vector<FormatSweepRow> sweepFormats(const torch::Tensor& values) {
    torch::NoGradGuard noGrad;
    // One fp32 contiguous copy shared by every format (the quantizers then skip theirs).
    const auto x = values.detach().to(torch::kFloat).contiguous();
    return {
        {"fp16", quantizeUnscaled(x, NumberFormat::Fp16).stats},
        {"bf16", quantizeUnscaled(x, NumberFormat::Bf16).stats},
        {"e4m3", quantizeCurrentScaling(x, NumberFormat::E4M3).stats},
        {"e5m2", quantizeCurrentScaling(x, NumberFormat::E5M2).stats},
        {"mxfp8", quantizeMx(x, NumberFormat::E4M3, MxScaleRule::Floor).stats},
        {"mxfp4", quantizeMx(x, NumberFormat::E2M1, MxScaleRule::Floor).stats},
        {"nvfp4", quantizeNvfp4(x).stats},
    };
}

}  // namespace ampscope
