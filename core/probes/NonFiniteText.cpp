#include "probes/NonFiniteText.h"

#include "precision/InsertedOps.h"

namespace ampscope {

namespace {

std::string counts(const NonFiniteEvent& e) {
    std::string text;
    auto add = [&](int64_t n, const char* what) {
        if (n > 0) text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    };
    add(e.nan, "NaN");
    add(e.posInf, "+Inf");
    add(e.negInf, "-Inf");
    if (text.empty()) text = "non-finite values";
    if (e.numel > 0) text += " of " + std::to_string(e.numel);
    return text;
}

// The lab's own ops (the graph pass's, the zoo's scopes, faults), in words.
std::string opInWords(const std::string& op) {
    if (op == inserted_op::kInjectedFault) return "an injected fault (" + op + ")";
    if (op == inserted_op::kOpResult) return "the rounding of a matmul/conv result (" + op + ")";
    if (op == inserted_op::kOperand || op == inserted_op::kOperandOptional)
        return "the rounding of a matmul/conv operand (" + op + ")";
    if (op == inserted_op::kGradientRounding) return "the rounding of a gradient (" + op + ")";
    if (op == inserted_op::kLeaveModule) return "the module's output: pure-mode rounding (" + op + ")";
    return op;
}

}  // namespace

std::string describeFirstNonFinite(const NonFiniteEvent& e) {
    std::string text = "step " + std::to_string(e.step) + ": " + counts(e) + " in ";
    if (e.layer == kLossLayerName)
        text += "the loss";
    else
        text += "the " + e.tensor + " of " + e.layer + " (" + e.phase + ")";
    if (!e.op.empty()) text += "; first op " + describeFirstOperator(e);
    if (e.locatedBy == nonfinite_located_by::kReplay) text += "; found by replaying the step";
    return text;
}

std::string describeFirstOperator(const NonFiniteEvent& e) {
    if (e.op.empty()) return {};
    std::string text = opInWords(e.op);
    if (!e.opModule.empty()) text += " in " + e.opModule;
    if (!e.opNode.empty()) text += " in " + e.opNode;
    return text + " (" + e.opPhase + ")";
}

}  // namespace ampscope
