#include "precision/NamedOpScope.h"

#include <array>
#include <vector>

namespace ampscope {

NamedOpScope::NamedOpScope(const char* name, const at::Tensor& input) : guard_(at::RecordScope::FUNCTION) {
    if (!guard_.isActive()) return;
    if (guard_.needsInputs()) {
        const std::array<c10::IValue, 1> inputs{input};
        guard_.before(name, c10::ArrayRef<const c10::IValue>(inputs.data(), inputs.size()));
    } else {
        guard_.before(name);
    }
}

const at::Tensor& NamedOpScope::output(const at::Tensor& result) {
    if (guard_.isActive() && guard_.needsOutputs()) guard_.setOutputs(std::vector<c10::IValue>{result});
    return result;
}

}  // namespace ampscope
