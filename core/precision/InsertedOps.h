#pragma once
// Plain (no torch). The names of the lab's own ops as they appear in the dispatcher's
// RecordFunction stream: the ops TorchScriptGraphPass inserts into a user's model, and
// the same names on the scopes (NamedOpScope.h) around the zoo's matching work, so that
// whoever watches the stream (the first-non-finite watch, the precision map's capture)
// sees a zoo model as it sees a TorchScript one. Defined here once.
#include <string_view>

namespace ampscope::inserted_op {

inline constexpr std::string_view kNamespace = "ampscope::";

inline constexpr const char* kEnterModule = "ampscope::enter_module";
inline constexpr const char* kLeaveModule = "ampscope::leave_module";  // a module's output
inline constexpr const char* kLeaveModuleOther = "ampscope::leave_module_other";
inline constexpr const char* kModuleInput = "ampscope::module_input";  // a tensor entering a module
inline constexpr const char* kOperand = "ampscope::operand";           // a matmul/conv operand's rounding
inline constexpr const char* kOperandOptional = "ampscope::operand_optional";
inline constexpr const char* kOpResult = "ampscope::op_result";        // a matmul/conv result's rounding
inline constexpr const char* kAutocastFp32 = "ampscope::autocast_fp32";
inline constexpr const char* kAutocastLow = "ampscope::autocast_low";
inline constexpr const char* kAutocastLowOptional = "ampscope::autocast_low_optional";
// The rounding of a gradient in backward by one of the roundings above (its autograd
// node): the zoo's and a TorchScript model's alike.
inline constexpr const char* kGradientRounding = "ampscope::gradient_rounding";
// A fault the run's config injects (faults[]): a value replaced in a layer's output or
// in the gradient arriving at it.
inline constexpr const char* kInjectedFault = "ampscope::injected_fault";

inline bool isInserted(std::string_view name) { return name.substr(0, kNamespace.size()) == kNamespace; }

}  // namespace ampscope::inserted_op
