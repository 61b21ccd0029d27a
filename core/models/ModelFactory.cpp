#include "models/ModelFactory.h"

#include <cmath>

#include "common/InputError.h"
#include "models/BasicLayers.h"
#include "models/LessonLayers.h"
#include "models/TransformerLayers.h"

namespace ampscope {
namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
    std::string text;
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
    return text;
}

void requireImage(const ModelConfig& config, const std::vector<int64_t>& shape) {
    if (shape.size() != 3)
        throw InputError("model.name: " + config.name + " needs image input (CxHxW), the dataset gives " +
                         shapeText(shape) + " features; use model mlp");
}

std::shared_ptr<LayeredModel> buildMlp(const ModelConfig& config, const std::vector<int64_t>& shape,
                                       int64_t outputs) {
    auto model = std::make_shared<LayeredModel>();
    int64_t features = 1;
    for (auto d : shape) features *= d;
    if (shape.size() > 1) model->addLayer("flatten", std::make_shared<FlattenLayer>());
    const std::string norm = resolvedNorm(config);
    for (size_t i = 0; i < config.hidden.size(); ++i) {
        const auto index = std::to_string(i + 1);
        model->addLayer("fc" + index, std::make_shared<LinearLayer>(features, config.hidden[i]));
        if (norm != "none")
            model->addLayer("norm" + index, std::make_shared<FeatureNormLayer>(config.hidden[i], norm));
        model->addLayer("act" + index, std::make_shared<ActivationLayer>(config.activation));
        features = config.hidden[i];
    }
    model->addLayer("out", std::make_shared<LinearLayer>(features, outputs));
    return model;
}

// The simple CNN on 1x28x28: conv 1->64, pool, relu; conv 64->128, pool,
// relu; linear 128*7*7 -> 10.
std::shared_ptr<LayeredModel> buildSimpleCnn(const ModelConfig& config,
                                             const std::vector<int64_t>& shape, int64_t outputs) {
    requireImage(config, shape);
    const std::string norm = resolvedNorm(config);
    auto model = std::make_shared<LayeredModel>();
    model->addLayer("conv1", std::make_shared<ConvLayer>(shape[0], 64, 3, 1, 1, norm, false));
    model->addLayer("pool1", std::make_shared<MaxPoolLayer>(2));
    model->addLayer("relu1", std::make_shared<ActivationLayer>("relu"));
    model->addLayer("conv2", std::make_shared<ConvLayer>(64, 128, 3, 1, 1, norm, false));
    model->addLayer("pool2", std::make_shared<MaxPoolLayer>(2));
    model->addLayer("relu2", std::make_shared<ActivationLayer>("relu"));
    model->addLayer("flatten", std::make_shared<FlattenLayer>());
    const int64_t h = shape[1] / 4, w = shape[2] / 4;
    if (h < 1 || w < 1)
        throw InputError("model.name: simple_cnn needs images of at least 4x4 (got " + shapeText(shape) + ")");
    model->addLayer("fc", std::make_shared<LinearLayer>(128 * h * w, outputs));
    return model;
}

std::shared_ptr<LayeredModel> buildDeepCnn(const ModelConfig& config, const std::vector<int64_t>& shape,
                                           int64_t outputs) {
    requireImage(config, shape);
    const auto& blocks = config.blocks.empty() ? defaultDeepCnnBlocks() : config.blocks;
    if (blocks.front()[0] != shape[0])
        throw InputError("model.blocks: the first block takes " + std::to_string(blocks.front()[0]) +
                         " channels, the images have " + std::to_string(shape[0]));
    const std::string norm = resolvedNorm(config);
    auto model = std::make_shared<LayeredModel>();
    int64_t h = shape[1], w = shape[2];
    for (size_t i = 0; i < blocks.size(); ++i) {
        const auto& b = blocks[i];
        h = (h + 2 * b[4] - b[2]) / b[3] + 1;
        w = (w + 2 * b[4] - b[2]) / b[3] + 1;
        if (h < 1 || w < 1)
            throw InputError("model.blocks: block " + std::to_string(i) + " shrinks the " +
                             shapeText(shape) + " input to nothing");
        model->addLayer("block" + std::to_string(i + 1),
                        std::make_shared<ConvLayer>(b[0], b[1], b[2], b[3], b[4], norm, true));
    }
    model->addLayer("avgpool", std::make_shared<GlobalAvgPoolLayer>());
    // deep_cnn's classifier: three linears with no activation between them.
    model->addLayer("fc1", std::make_shared<LinearLayer>(blocks.back()[1], 1000));
    model->addLayer("fc2", std::make_shared<LinearLayer>(1000, 1000));
    model->addLayer("fc3", std::make_shared<LinearLayer>(1000, outputs));
    return model;
}

std::shared_ptr<LayeredModel> buildTransformer(const ModelConfig& config,
                                               const std::vector<int64_t>& shape, int64_t outputs) {
    requireImage(config, shape);
    if (shape[1] % config.patch != 0 || shape[2] % config.patch != 0)
        throw InputError("model.patch: " + std::to_string(config.patch) + " does not tile " +
                         shapeText(shape) + " images");
    auto model = std::make_shared<LayeredModel>();
    model->addLayer("patch_embed", std::make_shared<PatchEmbedLayer>(shape[0], shape[1], shape[2],
                                                                     config.patch, config.dim));
    for (int64_t i = 0; i < config.depth; ++i)
        model->addLayer("block" + std::to_string(i + 1),
                        std::make_shared<EncoderBlockLayer>(config.dim, config.heads, config.mlp_ratio));
    model->addLayer("pool", std::make_shared<TokenPoolLayer>(config.dim));
    model->addLayer("head", std::make_shared<LinearLayer>(config.dim, outputs));
    return model;
}

// The log-of-a-tiny-sum lesson: a head whose outputs are tiny (~1e-9) feeds a loss
// -log(sum |x|). In fp32 the sum is small but positive; wherever fp16 holds the
// head's output it flushes to zero, the sum is 0 and the loss is +inf. Keeping
// "loss_head" in fp32 is the fix (the region a PyTorch script wraps in autocast(enabled=False)).
std::shared_ptr<LayeredModel> buildLogSum(const ModelConfig& config, const std::vector<int64_t>& shape) {
    auto model = std::make_shared<LayeredModel>();
    int64_t features = 1;
    for (auto d : shape) features *= d;
    if (shape.size() > 1) model->addLayer("flatten", std::make_shared<FlattenLayer>());
    const int64_t hidden = config.hidden.empty() ? 32 : config.hidden.front();
    model->addLayer("fc1", std::make_shared<LinearLayer>(features, hidden));
    model->addLayer("act1", std::make_shared<ActivationLayer>("tanh"));
    auto head = std::make_shared<LinearLayer>(hidden, kLogSumOutputs);
    {
        torch::NoGradGuard noGrad;
        for (auto& p : head->parameters()) p.mul_(std::ldexp(1.0, -28));
    }
    model->addLayer("loss_head", head);
    return model;
}

// Scenario "batchnorm-variance": a bias-free linear (the usual layer before a
// BatchNorm) feeding a hand-written BatchNorm whose statistics are computed in the
// layer's precision. On tiny inputs (tiny_gradients, |x| ~ 2^-14) the deviations are
// ~3e-5, their squares ~1e-9 flush to zero in fp16 and the variance is 0.
std::shared_ptr<LayeredModel> buildBatchNormMlp(const ModelConfig& config, const std::vector<int64_t>& shape,
                                                int64_t outputs) {
    auto model = std::make_shared<LayeredModel>();
    int64_t features = 1;
    for (auto d : shape) features *= d;
    if (shape.size() > 1) model->addLayer("flatten", std::make_shared<FlattenLayer>());
    const int64_t hidden = config.hidden.empty() ? 32 : config.hidden.front();
    model->addLayer("fc1", std::make_shared<LinearLayer>(features, hidden, /*bias=*/false));
    model->addLayer("bn1", std::make_shared<HalfStatsBatchNormLayer>(hidden));
    model->addLayer("act1", std::make_shared<ActivationLayer>(config.activation));
    model->addLayer("out", std::make_shared<LinearLayer>(hidden, outputs));
    return model;
}

// Scenario "softmax-overflow": an MLP whose logits are multiplied by a logit scale
// (an inverse temperature, as contrastive losses use) and turned into
// log-probabilities by a softmax written by hand or by the library. Cross-entropy of
// log-probabilities is exactly their negative log-likelihood (their logsumexp is 0).
std::shared_ptr<LayeredModel> buildSoftmaxMlp(const ModelConfig& config, const std::vector<int64_t>& shape,
                                              int64_t outputs, bool manual) {
    if (outputs < 2)
        throw InputError("model.name: " + config.name + " needs a classification data set (the dataset gives " +
                         "one regression output)");
    auto model = std::make_shared<LayeredModel>();
    int64_t features = 1;
    for (auto d : shape) features *= d;
    if (shape.size() > 1) model->addLayer("flatten", std::make_shared<FlattenLayer>());
    for (size_t i = 0; i < config.hidden.size(); ++i) {
        const auto index = std::to_string(i + 1);
        model->addLayer("fc" + index, std::make_shared<LinearLayer>(features, config.hidden[i]));
        model->addLayer("act" + index, std::make_shared<ActivationLayer>(config.activation));
        features = config.hidden[i];
    }
    model->addLayer("logits", std::make_shared<LinearLayer>(features, outputs));
    model->addLayer("logit_scale", std::make_shared<ScaleLayer>(kSoftmaxLogitScale));
    if (manual)
        model->addLayer("softmax", std::make_shared<ManualSoftmaxLayer>());
    else
        model->addLayer("softmax", std::make_shared<LibrarySoftmaxLayer>());
    return model;
}

}  // namespace

std::string resolvedNorm(const ModelConfig& config) {
    if (config.norm != "auto") return config.norm;
    if (config.name == "deep_cnn") return "batch";  // deep_cnn's blocks carry BatchNorm
    if (config.name == "transformer") return "layer";
    return "none";
}

std::shared_ptr<LayeredModel> buildModel(const ModelConfig& config,
                                         const std::vector<int64_t>& inputShape, int64_t outputs) {
    if (config.name == "mlp") return buildMlp(config, inputShape, outputs);
    if (config.name == "simple_cnn") return buildSimpleCnn(config, inputShape, outputs);
    if (config.name == "deep_cnn") return buildDeepCnn(config, inputShape, outputs);
    if (config.name == "transformer") return buildTransformer(config, inputShape, outputs);
    if (config.name == "log_sum") return buildLogSum(config, inputShape);
    if (config.name == "batchnorm_mlp") return buildBatchNormMlp(config, inputShape, outputs);
    if (config.name == "mlp_manual_softmax") return buildSoftmaxMlp(config, inputShape, outputs, true);
    if (config.name == "mlp_library_softmax") return buildSoftmaxMlp(config, inputShape, outputs, false);
    throw InputError("model.name: unknown model \"" + config.name + "\"");
}

}  // namespace ampscope
