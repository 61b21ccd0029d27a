#include "precision/FormatQuantizer.h"

#include <stdexcept>
#include <vector>

#include "precision/InsertedOps.h"
#include "precision/NamedOpScope.h"
#include "precision/formats/TensorQuantizers.h"

namespace ampscope {

const char* formatRecipeName(FormatRecipe recipe) {
    switch (recipe) {
        case FormatRecipe::None: return "";
        case FormatRecipe::CurrentScaling: return "current";
        case FormatRecipe::DelayedScaling: return "delayed";
        case FormatRecipe::Mx: return "mx";
        case FormatRecipe::Nvfp4: return "nvfp4";
    }
    return "";
}

torch::Tensor quantizeAtPoint(const torch::Tensor& x, const FormatQuantizer& quantizer,
                              FormatPointState* state, bool advance, at::Generator* generator,
                              QuantizationStats* stats, BlockLayout layout) {
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
        // The blocks along the reduction dimension, wherever it lies.
        case FormatRecipe::Mx: out = quantizeMx(x, quantizer.element, quantizer.mxRule, options, layout); break;
        case FormatRecipe::Nvfp4: out = quantizeNvfp4(x, options, layout); break;
    }
    if (stats) *stats = out.stats;
    // The quantizers compute in fp32; a tensor of another dtype gets its dtype back.
    return out.values.scalar_type() == x.scalar_type() ? out.values : out.values.to(x.scalar_type());
}

namespace {

// quantizeAtPoint, telling the tag's observer (a probe step) what it did.
torch::Tensor quantizeObserved(const torch::Tensor& x, const FormatQuantizer& quantizer,
                               FormatPoints* points, bool backward, bool advance,
                               at::Generator* generator, const RoundingTag* tag, BlockLayout layout) {
    FormatPointState* state = points ? (backward ? &points->backward : &points->forward) : nullptr;
    if (quantizer.none() || !tag || !tag->observer)
        return quantizeAtPoint(x, quantizer, state, advance, generator, nullptr, layout);
    QuantizationStats stats;
    auto out = quantizeAtPoint(x, quantizer, state, advance, generator, &stats, layout);
    tag->observer->afterQuantizing(*tag, backward, quantizer, stats);
    return out;
}

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
                                 int64_t generator, int64_t tag, int64_t layout) {
        ctx->saved_data["backward"] = backwardQuantizer;
        ctx->saved_data["layout"] = layout;
        // IValue holds no raw pointers; the policy's points, generator and tags outlive
        // every graph.
        ctx->saved_data["points"] = points;
        ctx->saved_data["generator"] = generator;
        ctx->saved_data["tag"] = tag;
        const FormatQuantizer q = decode(forwardQuantizer);
        // A custom function must not hand its input back as its output (autograd would
        // make it a view, which in-place ops after it may not modify). A matmul/conv
        // result that only rounds its gradient (the format modes' result()) comes back
        // as a new tensor on the same memory instead of a copy: the op that produced it
        // saves no output, and nothing else reads it.
        if (q.none()) return torch::empty({0}, values.options()).set_(values);
        return quantizeObserved(values, q, reinterpret_cast<FormatPoints*>(points), false, true,
                                reinterpret_cast<at::Generator*>(generator),
                                reinterpret_cast<const RoundingTag*>(tag), static_cast<BlockLayout>(layout));
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads) {
        const FormatQuantizer q = decode(ctx->saved_data["backward"].toIntVector());
        auto* p = reinterpret_cast<FormatPoints*>(ctx->saved_data["points"].toInt());
        auto* g = reinterpret_cast<at::Generator*>(ctx->saved_data["generator"].toInt());
        const auto* tag = reinterpret_cast<const RoundingTag*>(ctx->saved_data["tag"].toInt());
        const auto layout = static_cast<BlockLayout>(ctx->saved_data["layout"].toInt());
        NamedOpScope scope(inserted_op::kGradientRounding, grads[0]);
        return {scope.output(quantizeObserved(grads[0], q, p, true, true, g, tag, layout)), torch::Tensor(),
                torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

torch::Tensor quantizeWithGradient(const torch::Tensor& values, const FormatQuantizer& forward,
                                   const FormatQuantizer& backward, FormatPoints* points,
                                   at::Generator* generator, const RoundingTag* tag, BlockLayout layout) {
    if (forward.none() && backward.none()) return values;
    const bool training = torch::GradMode::is_enabled();
    if (!values.requires_grad() || !training)
        return quantizeObserved(values, forward, points, false, training, generator, tag, layout);
    return FormatQuantizeFunction::apply(values, encode(forward), encode(backward),
                                         reinterpret_cast<int64_t>(points),
                                         reinterpret_cast<int64_t>(generator),
                                         reinterpret_cast<int64_t>(tag), static_cast<int64_t>(layout));
}

}  // namespace ampscope
