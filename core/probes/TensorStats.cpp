#include "probes/TensorStats.h"

#include <cmath>

namespace ampscope {
namespace {

bool sameNumber(double a, double b) {
    return a == b || (std::isnan(a) && std::isnan(b));
}

}  // namespace

bool sameStats(const TensorStats& a, const TensorStats& b) {
    return sameNumber(a.min, b.min) && sameNumber(a.max, b.max) && sameNumber(a.mean, b.mean) &&
           sameNumber(a.absMax, b.absMax) && a.nan == b.nan && a.posInf == b.posInf &&
           a.negInf == b.negInf && a.numel == b.numel;
}

}  // namespace ampscope
