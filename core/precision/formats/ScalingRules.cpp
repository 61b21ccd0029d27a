#include "precision/formats/ScalingRules.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ampscope {

float perTensorScale(float amax, NumberFormat format, int margin, float previous) {
    if (!(amax > 0.0f) || !std::isfinite(amax)) return previous;
    const auto maxFinite = static_cast<float>(describe(format).maxFinite);
    const float scale = maxFinite / amax / std::ldexp(1.0f, margin);
    // An amax in fp32's subnormals would give an infinite scale: keep the previous one.
    return std::isfinite(scale) ? scale : previous;
}

int mxScaleExponent(double amax, NumberFormat element, MxScaleRule rule) {
    if (!(amax > 0.0)) return kE8m0MinExponent;
    const FormatDescription& d = describe(element);
    int e = std::ilogb(amax) - d.maxExponent();
    // amax < 2^(k+1) and maxFinite >= 2^emax, so at most one step up is needed.
    if (rule == MxScaleRule::Rceil && amax > std::ldexp(d.maxFinite, e)) ++e;
    return std::clamp(e, kE8m0MinExponent, kE8m0MaxExponent);
}

float nvfp4TensorScale(float amax) {
    if (!(amax > 0.0f) || !std::isfinite(amax)) return 1.0f;
    const auto e4m3Max = static_cast<float>(describe(NumberFormat::E4M3).maxFinite);
    const auto e2m1Max = static_cast<float>(describe(NumberFormat::E2M1).maxFinite);
    return amax / (e4m3Max * e2m1Max);
}

DelayedScaling::DelayedScaling(NumberFormat format, int historyLength, AmaxCompute compute, int margin)
    : format_(format), historyLength_(historyLength), compute_(compute), margin_(margin) {
    if (historyLength < 1) throw std::invalid_argument("amax history length must be at least 1");
}

void DelayedScaling::record(float amax) {
    history_.push_back(amax);
    while (static_cast<int>(history_.size()) > historyLength_) history_.pop_front();
    // A non-finite amax (an overflowed tensor) takes no part: the scale stays.
    float combined = 0.0f;
    if (compute_ == AmaxCompute::MostRecent) {
        combined = std::isfinite(history_.back()) ? history_.back() : 0.0f;
    } else {
        for (float a : history_)
            if (std::isfinite(a)) combined = std::max(combined, a);
    }
    const float next = perTensorScale(combined, format_, margin_, scale_);
    if (combined > 0.0f && std::isfinite(next)) scaleAmax_ = combined;
    scale_ = next;
}

}  // namespace ampscope
