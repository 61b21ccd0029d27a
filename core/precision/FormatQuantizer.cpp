#include "precision/FormatQuantizer.h"

#include <stdexcept>
#include <vector>

#include "precision/formats/TensorQuantizers.h"

namespace ampscope {

torch::Tensor quantizeAtPoint(const torch::Tensor& x, const FormatQuantizer& quantizer,
                              FormatPointState* state, bool advance, at::Generator* generator,
                              QuantizationStats* stats) {
    if (quantizer.none()) return x;
    QuantizeOptions options;
    options.collectStats = stats != nullptr;  // the counts cost several passes: probe steps only
    if (quantizer.stochastic) {
        if (!generator) throw std::logic_error("stochastic rounding needs the policy's generator");
        options.generator = *generator;
    }
    QuantizedTensor out;
    switch (quantizer.recipe) {
        case FormatRecipe::None: return x;
        case FormatRecipe::CurrentScaling:
            out = quantizeCurrentScaling(x, quantizer.element, quantizer.margin, options);
            break;
        case FormatRecipe::DelayedScaling: {
            if (!state) throw std::logic_error("delayed scaling needs its rounding point's history");
            if (!state->delayed)
                state->delayed.emplace(quantizer.element, quantizer.amaxHistoryLength,
                                       quantizer.amaxCompute, quantizer.margin);
            if (advance) {
                out = quantizeDelayedScaling(x, *state->delayed, quantizer.element, options);
            } else {
                out = quantizeWithScale(x, quantizer.element, state->delayed->scale(), options);
                out.stats.scaleAmax = state->delayed->scaleAmax();
            }
            break;
        }
        case FormatRecipe::Mx: out = quantizeMx(x, quantizer.element, quantizer.mxRule, options); break;
        case FormatRecipe::Nvfp4: out = quantizeNvfp4(x, options); break;
    }
    if (stats) *stats = out.stats;
    // The quantizers compute in fp32; a tensor of another dtype gets its dtype back.
    return out.values.scalar_type() == x.scalar_type() ? out.values : out.values.to(x.scalar_type());
}

namespace {

// A quantizer travels to the backward as a list of integers (saved_data holds IValues).
std::vector<int64_t> encode(const FormatQuantizer& q) {
    return {static_cast<int64_t>(q.recipe),      static_cast<int64_t>(q.element),
            q.margin,                            q.amaxHistoryLength,
            static_cast<int64_t>(q.amaxCompute), static_cast<int64_t>(q.mxRule),
            q.stochastic ? 1 : 0};
}

FormatQuantizer decode(const std::vector<int64_t>& v) {
    FormatQuantizer q;
    q.recipe = static_cast<FormatRecipe>(v.at(0));
    q.element = static_cast<NumberFormat>(v.at(1));
    q.margin = static_cast<int>(v.at(2));
    q.amaxHistoryLength = static_cast<int>(v.at(3));
    q.amaxCompute = static_cast<DelayedScaling::AmaxCompute>(v.at(4));
    q.mxRule = static_cast<MxScaleRule>(v.at(5));
    q.stochastic = v.at(6) != 0;
    return q;
}

struct FormatQuantizeFunction : public torch::autograd::Function<FormatQuantizeFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& values,
                                 std::vector<int64_t> forwardQuantizer,
                                 std::vector<int64_t> backwardQuantizer, int64_t points,
                                 int64_t generator) {
        ctx->saved_data["backward"] = backwardQuantizer;
        // IValue holds no raw pointers; the policy's points and generator outlive every graph.
        ctx->saved_data["points"] = points;
        ctx->saved_data["generator"] = generator;
        auto* p = reinterpret_cast<FormatPoints*>(points);
        const FormatQuantizer q = decode(forwardQuantizer);
        // A custom function must not hand its input back as its output.
        if (q.none()) return values.clone();
        return quantizeAtPoint(values, q, p ? &p->forward : nullptr, true,
                               reinterpret_cast<at::Generator*>(generator));
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const FormatQuantizer q = decode(ctx->saved_data["backward"].toIntVector());
        auto* p = reinterpret_cast<FormatPoints*>(ctx->saved_data["points"].toInt());
        auto* g = reinterpret_cast<at::Generator*>(ctx->saved_data["generator"].toInt());
        return {quantizeAtPoint(grads[0], q, p ? &p->backward : nullptr, true, g), torch::Tensor(),
                torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

torch::Tensor quantizeWithGradient(const torch::Tensor& values, const FormatQuantizer& forward,
                                   const FormatQuantizer& backward, FormatPoints* points,
                                   at::Generator* generator) {
    if (forward.none() && backward.none()) return values;
    const bool training = torch::GradMode::is_enabled();
    if (!values.requires_grad() || !training)
        return quantizeAtPoint(values, forward, points ? &points->forward : nullptr, training, generator);
    return FormatQuantizeFunction::apply(values, encode(forward), encode(backward),
                                         reinterpret_cast<int64_t>(points),
                                         reinterpret_cast<int64_t>(generator));
}

}  // namespace ampscope
