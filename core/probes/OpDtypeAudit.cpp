#include "probes/OpDtypeAudit.h"

#include <ATen/record_function.h>

#include <cstring>
#include <string_view>
#include <unordered_set>

namespace ampscope {
namespace {

thread_local OpDtypeAudit* tlsAudit = nullptr;

// The ops worth naming; anything else (views, casts, adds) is plumbing.
const std::unordered_set<std::string_view>& auditedOps() {
    static const std::unordered_set<std::string_view> ops = {
        "linear", "conv2d", "conv1d", "conv3d", "matmul", "mm", "bmm",
        "softmax", "log_softmax", "layer_norm", "group_norm", "batch_norm",
        "relu", "gelu", "tanh", "max_pool2d", "adaptive_avg_pool2d",
        "cross_entropy_loss", "nll_loss", "mse_loss", "log", "abs", "sum", "mean"};
    return ops;
}

// Ops whose second tensor argument is a weight (or the second matmul operand).
bool hasWeight(std::string_view op) {
    return op == "linear" || op == "conv1d" || op == "conv2d" || op == "conv3d" || op == "matmul" ||
           op == "mm" || op == "bmm" || op == "layer_norm" || op == "group_norm" || op == "batch_norm";
}

// Ops LayerCompute rounds around under emulation.
bool isMatmul(std::string_view op) {
    return op == "linear" || op == "conv1d" || op == "conv2d" || op == "conv3d" || op == "matmul" ||
           op == "mm" || op == "bmm";
}

std::string_view shortName(const char* name) {
    std::string_view n(name);
    constexpr std::string_view prefix = "aten::";
    if (n.substr(0, prefix.size()) == prefix) n.remove_prefix(prefix.size());
    return n;
}

const char* roundedName(Rounding r) {
    switch (r) {
        case Rounding::Half: return "float16";
        case Rounding::BFloat16: return "bfloat16";
        case Rounding::Tf32: return "tfloat32";
        case Rounding::None: break;
    }
    return "";
}

}  // namespace

struct OpDtypeAudit::Frame : at::ObserverContext {
    std::string op;
    std::string input, weight, output;
    bool redispatched = false;  // autocast called the same op again with cast arguments
    std::string innerInput, innerWeight;
};

namespace {

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
    if (!tlsAudit || !tlsAudit->listening() || fn.scope() != at::RecordScope::FUNCTION) return nullptr;
    const auto op = shortName(fn.name());
    if (!auditedOps().count(op)) return nullptr;
    auto frame = std::make_unique<OpDtypeAudit::Frame>();
    frame->op = std::string(op);
    int tensors = 0;
    for (const auto& value : fn.inputs()) {
        if (!value.isTensor()) continue;
        const auto& t = value.toTensor();
        if (!t.defined()) continue;
        if (tensors == 0) frame->input = dtypeName(t.scalar_type());
        if (tensors == 1 && hasWeight(op)) frame->weight = dtypeName(t.scalar_type());
        if (++tensors == 2) break;
    }
    tlsAudit->opStarted(*frame);
    return frame;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext* context) {
    if (!tlsAudit || !context) return;
    auto& frame = static_cast<OpDtypeAudit::Frame&>(*context);
    for (const auto& value : fn.outputs()) {
        if (value.isTensor() && value.toTensor().defined()) {
            frame.output = dtypeName(value.toTensor().scalar_type());
            break;
        }
    }
    tlsAudit->opEnded(frame);
}

}  // namespace

std::string dtypeName(c10::ScalarType type) {
    switch (type) {
        case c10::ScalarType::Float: return "float32";
        case c10::ScalarType::Double: return "float64";
        case c10::ScalarType::Half: return "float16";
        case c10::ScalarType::BFloat16: return "bfloat16";
        case c10::ScalarType::Long: return "int64";
        case c10::ScalarType::Int: return "int32";
        case c10::ScalarType::Bool: return "bool";
        default: return c10::toString(type);
    }
}

OpDtypeAudit::OpDtypeAudit() = default;

OpDtypeAudit::~OpDtypeAudit() {
    if (active_) end();
}

void OpDtypeAudit::begin() {
    if (active_) end();
    layers_.clear();
    pending_.clear();
    stack_.clear();
    paused_ = 0;
    operandRounding_ = resultRounding_ = Rounding::None;
    tlsAudit = this;
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&onStart, &onEnd).needsInputs(true).needsOutputs(true));
    active_ = true;
}

void OpDtypeAudit::setEmulation(Rounding operands, Rounding result) {
    operandRounding_ = operands;
    resultRounding_ = result;
}

void OpDtypeAudit::layerEnded(const std::string& layer) {
    if (active_) flushLayer(layer);
}

void OpDtypeAudit::end() {
    if (!active_) return;
    at::removeCallback(handle_);
    if (tlsAudit == this) tlsAudit = nullptr;
    active_ = false;
    operandRounding_ = resultRounding_ = Rounding::None;
    flushLayer("loss");
}

void OpDtypeAudit::flushLayer(const std::string& layer) {
    layers_.push_back({layer, std::move(pending_)});
    pending_.clear();
}

void OpDtypeAudit::opStarted(Frame& frame) { stack_.push_back(&frame); }

void OpDtypeAudit::opEnded(Frame& frame) {
    if (stack_.empty() || stack_.back() != &frame) {
        stack_.clear();  // an exception unwound ops without their end: start afresh
        return;
    }
    stack_.pop_back();
    if (!stack_.empty()) {
        Frame& parent = *stack_.back();
        if (parent.op == frame.op && !parent.redispatched) {
            parent.redispatched = true;
            parent.innerInput = frame.input;
            parent.innerWeight = frame.weight;
        }
        return;  // the outer op's implementation
    }
    OpDtype op;
    op.op = frame.op;
    op.input = frame.redispatched ? frame.innerInput : frame.input;
    op.weight = frame.redispatched ? frame.innerWeight : frame.weight;
    op.output = frame.output;
    if (isMatmul(op.op) && operandRounding_ != Rounding::None && op.input == "float32") {
        op.emulated = true;
        op.emulatedAs = roundedName(operandRounding_);
        op.input = op.emulatedAs;
        if (!op.weight.empty()) op.weight = op.emulatedAs;
        if (resultRounding_ != Rounding::None) op.output = roundedName(resultRounding_);
    }
    pending_.push_back(std::move(op));
}

}  // namespace ampscope
