#pragma once
// Plain (no torch). One submodule of a user's TorchScript model, as the window's module
// tree, the model_modules record and the reports show it; and the torch-free way for
// the window to look inside a file before a run (TorchScriptModel.h loads it).
#include <cstdint>
#include <string>
#include <vector>

namespace ampscope {

// The layer name of a model's own parameters (its root module, whose qualified name is
// ""), wherever a layer is named: records, keep_fp32, the window.
inline constexpr const char* kRootLayerName = "(model)";

struct ScriptModuleInfo {
    std::string name;        // qualified ("" for the model itself)
    std::string type;        // the Python class name ("Linear", "Block")
    int64_t parameters = 0;  // elements of the parameters it holds itself
    int depth = 0;           // 0 for the model itself
    bool probed = false;     // one of the run's layers

    bool operator==(const ScriptModuleInfo&) const = default;
};

// The module tree of a TorchScript file with the layers `probeModules`/`probeDepth`
// would choose (model.probe_modules, model.probe_depth). Loading a TorchScript file runs
// the code inside it: call this only for a file the user picked. InputError (one line,
// naming the file) for anything that is not a usable TorchScript model.
std::vector<ScriptModuleInfo> inspectTorchScriptFile(const std::string& path,
                                                     const std::vector<std::string>& probeModules = {},
                                                     int64_t probeDepth = 0);

}  // namespace ampscope
