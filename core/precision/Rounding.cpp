#include "precision/Rounding.h"

#include <cstdint>
#include <cstring>
#include <cmath>

#include "precision/InsertedOps.h"
#include "precision/NamedOpScope.h"

namespace ampscope {

torch::Tensor roundToHalf(const torch::Tensor& values) {
    return values.to(torch::kHalf).to(values.scalar_type());
}

torch::Tensor roundToTf32(const torch::Tensor& values) {
    auto as_float = values.to(torch::kFloat).contiguous();
    auto bits = as_float.view(torch::kInt32);
    // Adding half of the dropped 13-bit ulp to the magnitude bits and clearing
    // them rounds the magnitude to nearest, ties away from zero. A carry into
    // the exponent is the correct round-up; a carry out of 0x7F7FFFFF gives inf.
    auto rounded = (bits + 0x1000).bitwise_and(static_cast<int32_t>(0xFFFFE000)).view(torch::kFloat);
    // NaN payloads would carry into the sign; non-finite values stay as they are.
    auto result = torch::where(torch::isfinite(as_float), rounded, as_float);
    return result.to(values.scalar_type());
}

float roundToTf32(float value) {
    if (!std::isfinite(value)) return value;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    bits = (bits + 0x1000u) & 0xFFFFE000u;
    float out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
}

torch::Tensor roundTo(const torch::Tensor& values, Rounding rounding) {
    switch (rounding) {
        case Rounding::None: return values;
        case Rounding::Half: return roundToHalf(values);
        case Rounding::BFloat16: return values.to(torch::kBFloat16).to(values.scalar_type());
        case Rounding::Tf32: return roundToTf32(values);
    }
    return values;
}

namespace {

void observe(const RoundingTag* tag, bool backward, const torch::Tensor& values, Rounding rounding) {
    if (tag && tag->observer && rounding != Rounding::None)
        tag->observer->beforeRounding(*tag, backward, values, rounding);
}

struct RoundingFunction : public torch::autograd::Function<RoundingFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& values,
                                 int64_t forward_rounding, int64_t backward_rounding, int64_t tag) {
        ctx->saved_data["backward"] = backward_rounding;
        // IValue holds no raw pointers; the tag outlives every graph of its model.
        ctx->saved_data["tag"] = tag;
        const auto rounding = static_cast<Rounding>(forward_rounding);
        observe(reinterpret_cast<const RoundingTag*>(tag), false, values, rounding);
        // A custom function must not hand its input back as its output.
        return rounding == Rounding::None ? values.clone() : roundTo(values, rounding);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const auto rounding = static_cast<Rounding>(ctx->saved_data["backward"].toInt());
        const auto* tag = reinterpret_cast<const RoundingTag*>(ctx->saved_data["tag"].toInt());
        observe(tag, true, grads[0], rounding);
        NamedOpScope scope(inserted_op::kGradientRounding, grads[0]);
        return {scope.output(roundTo(grads[0], rounding)), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

torch::Tensor roundWithGradient(const torch::Tensor& values, Rounding forward, Rounding backward,
                                const RoundingTag* tag) {
    if (forward == Rounding::None && backward == Rounding::None) return values;
    if (!values.requires_grad() || !torch::GradMode::is_enabled()) {
        observe(tag, false, values, forward);
        return roundTo(values, forward);
    }
    return RoundingFunction::apply(values, static_cast<int64_t>(forward), static_cast<int64_t>(backward),
                                   reinterpret_cast<int64_t>(tag));
}

}  // namespace ampscope
