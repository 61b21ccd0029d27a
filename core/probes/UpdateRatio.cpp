#include "probes/UpdateRatio.h"

#include <cmath>

namespace ampscope {

double updateRatioOf(double updateNorm, double weightNorm) {
    if (!std::isfinite(updateNorm) || !std::isfinite(weightNorm)) return std::nan("");
    if (updateNorm == 0.0) return 0.0;
    if (weightNorm == 0.0) return std::numeric_limits<double>::infinity();
    return updateNorm / weightNorm;
}

}  // namespace ampscope
