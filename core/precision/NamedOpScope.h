#pragma once
// INTERNAL (includes torch). Shows a stretch of work as one named op in the dispatcher's
// RecordFunction stream, with its input and output, for the watchers of that stream
// (FirstNonFiniteOp, OpCapture): the zoo's roundings and module boundaries get the names
// the TorchScript graph pass gives the same work (precision/InsertedOps.h), an injected fault its
// own. Costs a thread-local check when nobody watches.
#include <ATen/core/Tensor.h>
#include <ATen/record_function.h>

namespace ampscope {

class NamedOpScope {
public:
    // `name`: one of inserted_op's names (a string that outlives the scope).
    NamedOpScope(const char* name, const at::Tensor& input);
    NamedOpScope(const NamedOpScope&) = delete;
    NamedOpScope& operator=(const NamedOpScope&) = delete;

    // What the work produced; returns it, so `return scope.output(y);` reads as it does.
    const at::Tensor& output(const at::Tensor& result);

private:
    at::RecordFunction guard_;
};

}  // namespace ampscope
