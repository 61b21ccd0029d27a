#include "models/TorchScriptGraphPass.h"

#include <functional>
#include <unordered_set>

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/library.h>

#include "models/ScriptRunContext.h"
#include "precision/InsertedOps.h"
#include "precision/Autocast.h"

namespace ampscope {

namespace {

// ---- the ops the pass inserts ------------------------------------------------------

constexpr int64_t kRoleInput = 0;
constexpr int64_t kRoleWeight = 1;
constexpr int64_t kRoleBias = 2;
// An operand's role and the BlockLayout of its reduction dimension travel as one int
// (role + kLayoutUnit * layout), the `role` argument of ampscope::operand.
constexpr int64_t kLayoutUnit = 16;

int64_t withLayout(int64_t role, BlockLayout layout) {
    return role + kLayoutUnit * static_cast<int64_t>(layout);
}

void enterModule(std::string relative) {
    if (auto* context = currentScriptRunContext()) context->enter(relative);
}

void leaveModuleOther() {
    if (auto* context = currentScriptRunContext()) context->leave();
}

at::Tensor leaveModule(const at::Tensor& output) {
    auto* context = currentScriptRunContext();
    if (!context) return output;
    at::Tensor seen = context->moduleOutput(output);
    context->leave();
    return seen;
}

at::Tensor moduleInput(const at::Tensor& input) {
    auto* context = currentScriptRunContext();
    return context ? context->moduleInput(input) : input;
}

at::Tensor roundOperand(const at::Tensor& operand, int64_t roleAndLayout) {
    auto* context = currentScriptRunContext();
    if (!context || !operand.defined()) return operand;
    const LayerCompute& compute = context->compute();
    const int64_t role = roleAndLayout % kLayoutUnit;
    const auto layout = static_cast<BlockLayout>(roleAndLayout / kLayoutUnit);
    if (role == kRoleBias) return compute.bias(operand);
    return role == kRoleWeight ? compute.weight(operand, layout) : compute.input(operand, layout);
}

c10::optional<at::Tensor> roundOptionalOperand(const c10::optional<at::Tensor>& operand, int64_t role) {
    if (!operand.has_value()) return operand;
    return roundOperand(*operand, role);
}

// LibTorch 1.13's CPU autocast lists aten::conv2d and the old 12-argument
// aten::_convolution, but not the 13-argument one torch.jit.trace records for every
// nn.Conv*d: under real autocast its operands are cast to the autocast dtype here, as
// autocast casts conv2d's (the same values and the same backward: a cast).
at::Tensor autocastLow(const at::Tensor& operand) {
    if (!operand.defined() || !operand.is_floating_point()) return operand;
    const auto device = operand.device().type();
    return autocastEnabled(device) ? operand.to(autocastDtype(device)) : operand;
}

c10::optional<at::Tensor> autocastLowOptional(const c10::optional<at::Tensor>& operand) {
    if (!operand.has_value()) return operand;
    return autocastLow(*operand);
}

// Norms are on autocast's fp32 list on CUDA (and the JIT's own autocast pass treats
// them so); LibTorch 1.13's CPU autocast leaves them out, where a bf16 input and fp32
// weights would stop the model. Under real autocast they get fp32 inputs, as there.
at::Tensor autocastFp32(const at::Tensor& input) {
    if (!input.defined() || !autocastEnabled(input.device().type())) return input;
    const auto dtype = input.scalar_type();
    if (dtype != at::kHalf && dtype != at::kBFloat16) return input;
    return input.to(at::kFloat);
}

at::Tensor roundResult(const at::Tensor& result, int64_t layout) {
    auto* context = currentScriptRunContext();
    return context ? context->compute().result(result, static_cast<BlockLayout>(layout)) : result;
}

// CONSERVATIVE: the ops read and change the thread's run context, so the JIT must
// neither drop (enter_module returns nothing) nor merge or reorder them. Registered
// as composite kernels: autograd records what they run (the roundings' own backward).
TORCH_LIBRARY(ampscope, m) {
    const auto conservative = c10::AliasAnalysisKind::CONSERVATIVE;
    m.def(torch::schema("enter_module(str relative) -> ()", conservative), &enterModule);
    m.def(torch::schema("leave_module(Tensor output) -> Tensor", conservative), &leaveModule);
    m.def(torch::schema("leave_module_other() -> ()", conservative), &leaveModuleOther);
    m.def(torch::schema("module_input(Tensor input) -> Tensor", conservative), &moduleInput);
    m.def(torch::schema("operand(Tensor operand, int role) -> Tensor", conservative), &roundOperand);
    m.def(torch::schema("operand_optional(Tensor? operand, int role) -> Tensor?", conservative),
          &roundOptionalOperand);
    m.def(torch::schema("op_result(Tensor result, int layout) -> Tensor", conservative), &roundResult);
    m.def(torch::schema("autocast_fp32(Tensor input) -> Tensor", conservative), &autocastFp32);
    m.def(torch::schema("autocast_low(Tensor operand) -> Tensor", conservative), &autocastLow);
    m.def(torch::schema("autocast_low_optional(Tensor? operand) -> Tensor?", conservative),
          &autocastLowOptional);
}

// ---- the pass ----------------------------------------------------------------------

using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;
using torch::jit::WithInsertPoint;

const c10::Symbol kEnter = c10::Symbol::fromQualString(inserted_op::kEnterModule);
const c10::Symbol kLeave = c10::Symbol::fromQualString(inserted_op::kLeaveModule);
const c10::Symbol kLeaveOther = c10::Symbol::fromQualString(inserted_op::kLeaveModuleOther);
const c10::Symbol kModuleInput = c10::Symbol::fromQualString(inserted_op::kModuleInput);
const c10::Symbol kOperand = c10::Symbol::fromQualString(inserted_op::kOperand);
const c10::Symbol kOperandOptional = c10::Symbol::fromQualString(inserted_op::kOperandOptional);
const c10::Symbol kOpResult = c10::Symbol::fromQualString(inserted_op::kOpResult);
const c10::Symbol kAutocastFp32 = c10::Symbol::fromQualString(inserted_op::kAutocastFp32);
const c10::Symbol kAutocastLow = c10::Symbol::fromQualString(inserted_op::kAutocastLow);
const c10::Symbol kAutocastLowOptional = c10::Symbol::fromQualString(inserted_op::kAutocastLowOptional);

bool isNorm(const Node* node) {
    static const std::unordered_set<std::string> norms = {"aten::layer_norm", "aten::group_norm",
                                                          "aten::batch_norm", "aten::instance_norm"};
    return norms.count(node->kind().toQualString()) > 0;
}

// A convolution that is not transposed: aten::_convolution and aten::convolution say
// so in their 7th argument, a constant in traced and scripted models alike.
bool isForwardConvolution(const Node* node) {
    const std::string kind = node->kind().toQualString();
    if (kind == "aten::conv1d" || kind == "aten::conv2d" || kind == "aten::conv3d") return true;
    if (kind != "aten::_convolution" && kind != "aten::convolution") return false;
    if (node->inputs().size() < 7) return false;
    const auto transposed = torch::jit::toIValue(node->input(6));
    return transposed && transposed->isBool() && !transposed->toBool();
}

// The operand roles of a matmul/conv op, by input position, with the layout of each
// operand's reduction dimension (where the block formats' blocks run); empty: not one.
// A transposed convolution keeps its blocks along the last dimension.
std::vector<int64_t> operandRoles(const Node* node) {
    const std::string kind = node->kind().toQualString();
    if (isForwardConvolution(node))
        return {withLayout(kRoleInput, BlockLayout::Channels),
                withLayout(kRoleWeight, BlockLayout::FlattenTrailing), kRoleBias};
    // (input, weight, bias): bias rounds as the zoo rounds it (LayerCompute::bias).
    static const std::unordered_set<std::string> weighted = {
        "aten::linear", "aten::_convolution", "aten::convolution", "aten::conv_transpose1d",
        "aten::conv_transpose2d", "aten::conv_transpose3d"};
    if (weighted.count(kind)) return {kRoleInput, kRoleWeight, kRoleBias};
    if (kind == "aten::matmul" || kind == "aten::mm" || kind == "aten::bmm")
        return {kRoleInput, withLayout(kRoleInput, BlockLayout::SecondToLast)};
    // addmm(bias, mat1, mat2): what older traces of nn.Linear give, with mat2 = weight.t().
    if (kind == "aten::addmm")
        return {kRoleBias, kRoleInput, withLayout(kRoleWeight, BlockLayout::SecondToLast)};
    if (kind == "aten::baddbmm")
        return {kRoleInput, kRoleInput, withLayout(kRoleInput, BlockLayout::SecondToLast)};
    return {};
}

// Where the blocks of a compute op's output gradient run: a forward convolution's
// output channels (the reduction of the input gradient's convolution), else the last
// dimension.
BlockLayout resultLayout(const Node* node) {
    return isForwardConvolution(node) ? BlockLayout::Channels : BlockLayout::LastDim;
}

bool isTensor(const Value* value) { return value->type()->kind() == c10::TypeKind::TensorType; }

bool isOptionalTensor(const Value* value) {
    const auto optional = value->type()->cast<c10::OptionalType>();
    return optional && optional->getElementType()->kind() == c10::TypeKind::TensorType;
}

// "a.b.0" when `module` is self.a.b[0] reached through prim::GetAttr; empty otherwise.
std::string attributePath(Value* module, const Value* self) {
    std::string path;
    while (module != self) {
        const Node* node = module->node();
        if (node->kind() != c10::prim::GetAttr) return "";
        const std::string& name = node->s(c10::attr::name);
        path = path.empty() ? name : name + "." + path;
        module = node->input(0);
    }
    return path;
}

class Pass {
public:
    GraphPassReport report;

    void graph(const std::shared_ptr<Graph>& g) {
        if (!g || !seen_.insert(g.get()).second) return;
        const Value* self = g->inputs().empty() ? nullptr : g->inputs()[0];
        block(*g, g->block(), self);
        g->lint();
    }

private:
    void block(Graph& g, torch::jit::Block* b, const Value* self) {
        std::vector<Node*> nodes(b->nodes().begin(), b->nodes().end());
        for (Node* node : nodes) {
            for (auto* inner : node->blocks()) block(g, inner, self);
            if (node->kind() == c10::prim::Constant) {
                noteCudaConstant(node);
            } else if (node->kind() == c10::prim::CallMethod) {
                callMethod(g, node, self);
            } else if (node->kind() == c10::prim::CallFunction) {
                const auto type = node->input(0)->type()->cast<c10::FunctionType>();
                if (type) graph(torch::jit::toGraphFunction(*type->function()).graph());
            } else if (auto roles = operandRoles(node); !roles.empty()) {
                computeOp(g, node, roles);
            } else if (isNorm(node) && isTensor(node->input(0))) {
                WithInsertPoint before(node);
                node->replaceInput(0, g.insert(kAutocastFp32, {node->input(0)}));
            }
        }
    }

    void callMethod(Graph& g, Node* node, const Value* self) {
        const auto type = node->input(0)->type()->cast<c10::ClassType>();
        if (!type) return;
        graph(torch::jit::toGraphFunction(type->getMethod(node->s(c10::attr::name))).graph());
        const std::string path = self ? attributePath(node->input(0), self) : "";
        if (path.empty()) return;  // a module from a list or a dict: not located by name
        {
            WithInsertPoint before(node);
            g.insert(kEnter, {path});
            for (size_t i = 1; i < node->inputs().size(); ++i)
                if (isTensor(node->input(i))) node->replaceInput(i, g.insert(kModuleInput, {node->input(i)}));
        }
        WithInsertPoint after(node->next());
        if (node->outputs().size() == 1 && isTensor(node->output())) {
            Value* seen = g.insert(kLeave, {node->output()});
            node->output()->replaceAllUsesAfterNodeWith(seen->node(), seen);
        } else {
            g.insert(kLeaveOther, {});
        }
        ++report.moduleCalls;
    }

    void computeOp(Graph& g, Node* node, const std::vector<int64_t>& roles) {
        const bool castByHand = node->kind() == c10::aten::_convolution && node->inputs().size() == 13;
        {
            WithInsertPoint before(node);
            for (size_t i = 0; i < roles.size() && i < node->inputs().size(); ++i) {
                Value* operand = node->input(i);
                if (castByHand && isTensor(operand)) {
                    operand = g.insert(kAutocastLow, {operand});
                    node->replaceInput(i, operand);
                } else if (castByHand && isOptionalTensor(operand)) {
                    operand = g.insert(kAutocastLowOptional, {operand});
                    node->replaceInput(i, operand);
                }
                if (isTensor(operand))
                    node->replaceInput(i, g.insert(kOperand, {operand, roles[i]}));
                else if (isOptionalTensor(operand))
                    node->replaceInput(i, g.insert(kOperandOptional, {operand, roles[i]}));
            }
        }
        if (node->outputs().size() == 1 && isTensor(node->output())) {
            WithInsertPoint after(node->next());
            Value* rounded =
                g.insert(kOpResult, {node->output(), static_cast<int64_t>(resultLayout(node))});
            node->output()->replaceAllUsesAfterNodeWith(rounded->node(), rounded);
        }
        ++report.computeOps;
    }

    void noteCudaConstant(Node* node) {
        if (node->output()->type()->kind() != c10::TypeKind::DeviceObjType) return;
        const auto value = torch::jit::toIValue(node->output());
        if (value && value->isDevice() && value->toDevice().is_cuda())
            report.cudaConstants.push_back(value->toDevice().str());
    }

    std::unordered_set<const Graph*> seen_;
};

}  // namespace

GraphPassReport instrumentTorchScriptModule(torch::jit::Module& module) {
    Pass pass;
    for (const auto& method : module.get_methods())
        pass.graph(torch::jit::toGraphFunction(method.function()).graph());
    return pass.report;
}

}  // namespace ampscope
