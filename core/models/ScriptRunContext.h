#pragma once
// INTERNAL (includes torch). What the ops the graph pass inserts into a TorchScript
// model (TorchScriptGraphPass.h) need while that model runs: the precision policy,
// the observer, and the stack of submodules the interpreter is inside. The model's
// forward installs one for the duration of the call (ScriptRunScope); with none
// installed (the module run by anyone else) the inserted ops pass tensors through.
//
// The stack is thread-local because the interpreter runs the ops on the calling
// (engine) thread; backward runs later, but each rounding captured what it needs
// (the rounding and its tag) when the forward op ran.
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <torch/torch.h>

#include "models/LayeredModel.h"
#include "models/ScriptModuleInfo.h"
#include "precision/Autocast.h"
#include "precision/ComputePolicy.h"

namespace ampscope {

// What the model knows about its module paths, fixed at load time.
struct ScriptModuleMap {
    // The probed modules' qualified names, in order; the model itself, when it is one
    // (it holds parameters of its own), is listed as kRootLayerName (ScriptModuleInfo.h).
    std::vector<std::string> layers;
    std::unordered_map<std::string, size_t> layerIndex;  // module path ("" = root) -> index
};


class ScriptRunContext {
public:
    ScriptRunContext(const ScriptModuleMap& modules, const ComputePolicy& policy,
                     LayerObserver* observer);

    // A call into the submodule `relative` (a dotted attribute path from the current
    // module) begins / ends.
    void enter(const std::string& relative);
    void leave();
    // A tensor entering the current submodule: cast to fp32 inside a module kept in
    // fp32, to the low dtype in pure modes elsewhere (what the zoo does per layer).
    torch::Tensor moduleInput(const torch::Tensor& x) const;
    // The current submodule's output: pure-mode rounding, then the observer (which may
    // replace it) when the submodule is a probed layer.
    torch::Tensor moduleOutput(torch::Tensor y);
    // Operands and results of a matmul/conv op inside the current submodule.
    const LayerCompute& compute() const { return frames_.back()->compute; }

    // The innermost submodule the interpreter is in, qualified ("" for the model itself).
    const std::string& currentModule() const { return frames_.back()->path; }

private:
    struct Frame {
        std::string path;
        long layer = -1;           // index when this module is a probed layer
        long innermostLayer = -1;  // this one or the nearest enclosing probed layer
        bool kept = false;         // in a module kept in fp32
        LayerCompute compute;      // for the matmul/conv ops directly in this module
        std::optional<AutocastScope> fp32Region;
    };
    const ScriptModuleMap& modules_;
    const ComputePolicy& policy_;
    LayerObserver* observer_;
    std::vector<std::unique_ptr<Frame>> frames_;  // [0]: the model itself
};

// Installs a context for the current thread for one forward call.
class ScriptRunScope {
public:
    explicit ScriptRunScope(ScriptRunContext& context);
    ~ScriptRunScope();
    ScriptRunScope(const ScriptRunScope&) = delete;
    ScriptRunScope& operator=(const ScriptRunScope&) = delete;

private:
    ScriptRunContext* previous_;
};

// The context installed on this thread, or null.
ScriptRunContext* currentScriptRunContext();

}  // namespace ampscope
