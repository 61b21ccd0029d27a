#pragma once
// INTERNAL (includes torch). Instruments a loaded TorchScript module (its TorchScript
// IR) so the lab can run it as it runs a zoo model. Every graph the module's methods
// reach (each module type once; functions they call) is rewritten:
//   - around each call of a submodule's method (prim::CallMethod on a chain of
//     attributes of `self`): ampscope::enter_module("attr.path") before, its tensor
//     arguments through ampscope::module_input, and its tensor result through
//     ampscope::leave_module after (ampscope::leave_module_other for other results);
//   - around each matmul/conv op (aten::linear, conv1d/2d/3d, _convolution, matmul,
//     mm, bmm, addmm, baddbmm): the operands through ampscope::operand (role input
//     or weight, as the zoo's LayerCompute::input/weight) and the result through
//     ampscope::op_result;
//   - the input of each norm (layer/group/batch/instance) through
//     ampscope::autocast_fp32: fp32 under real autocast, as CUDA autocast runs norms.
// The ops ask the thread's ScriptRunContext what to do; with none installed they
// return their input. Submodule types shared by several instances are rewritten once
// (the path is built at run time from the call sites), which is why the ops take
// relative attribute paths.
#include <string>
#include <vector>

#include <torch/script.h>

namespace ampscope {

struct GraphPassReport {
    int moduleCalls = 0;   // call sites wrapped
    int computeOps = 0;    // matmul/conv ops wrapped
    std::vector<std::string> cudaConstants;  // ops whose code names a CUDA device
};

GraphPassReport instrumentTorchScriptModule(torch::jit::Module& module);

}  // namespace ampscope
