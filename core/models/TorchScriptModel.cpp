#include "models/TorchScriptModel.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>

#include "common/InputError.h"
#include "models/ScriptErrorText.h"
#include "models/ScriptRunContext.h"
#include "models/TorchScriptGraphPass.h"

namespace ampscope {

namespace {

// A LibTorch message as one line of a refusal: its meaningful line, or words saying
// that there were none (a message can be blank).
std::string reasonIn(const std::string& message) {
    const std::string line = meaningfulErrorLine(message);
    return line.empty() ? "LibTorch gave no reason" : line;
}

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
    throw InputError("model.path: " + path + ": " + problem);
}

constexpr const char* kHowToExport =
    "export it with torch.jit.trace(model, example_input) or torch.jit.script(model), then .save(path)";

constexpr const char* kExportedProgram =
    "a torch.export program (torch.export.save, .pt2), not TorchScript: LibTorch's C++ API cannot load it "
    "to train; export the model with torch.jit.trace(model, example_input) or torch.jit.script(model), or "
    "record the run in your own script with the ampscope recorder";

// The name of a zip's first entry, from its local header (the 4 signature bytes already
// read): 26 more bytes, of which the last 4 are the name's and the extra field's lengths.
std::string firstEntryName(std::ifstream& in) {
    unsigned char header[26];
    in.read(reinterpret_cast<char*>(header), sizeof header);
    if (in.gcount() != sizeof header) return "";
    const size_t length = header[22] | (header[23] << 8);
    std::string name(length, '\0');
    in.read(name.data(), static_cast<std::streamsize>(length));
    return in.gcount() == static_cast<std::streamsize>(length) ? name : "";
}

bool endsWith(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What kind of file it is, before LibTorch reads it: a TorchScript archive is a zip
// holding code/ and constants.pkl; torch.save() writes a zip with data.pkl alone (or,
// with the legacy format, a bare pickle); torch.export.save() writes a zip whose
// entries sit at its top level (up to torch 2.6: serialized_exported_program.json
// first), which LibTorch's zip reader refuses with words about subdirectories, or a
// PT2 archive marked by its archive_format entry.
void checkArchive(const std::string& path) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) refuse(path, "no such file");
    if (std::filesystem::is_directory(path, error)) refuse(path, "is a directory, not a TorchScript file");
    std::ifstream in(path, std::ios::binary);
    if (!in) refuse(path, "cannot open");
    char magic[4] = {0, 0, 0, 0};
    in.read(magic, 4);
    if (in.gcount() >= 1 && static_cast<unsigned char>(magic[0]) == 0x80)
        refuse(path, std::string("a Python pickle (torch.save), not TorchScript; ") + kHowToExport);
    if (in.gcount() < 4 || std::string(magic, 4) != std::string("PK\x03\x04", 4))
        refuse(path, "not a TorchScript archive (not a zip file)");
    if (firstEntryName(in).rfind("serialized_exported_program", 0) == 0) refuse(path, kExportedProgram);
    try {
        caffe2::serialize::PyTorchStreamReader reader(path);
        if (reader.hasRecord("constants.pkl")) return;
        if (reader.hasRecord("data.pkl"))
            refuse(path, std::string("a torch.save() archive of a module or its weights, not "
                                     "TorchScript; ") + kHowToExport);
        if (reader.hasRecord("archive_format") || endsWith(path, ".pt2")) refuse(path, kExportedProgram);
    } catch (const c10::Error& e) {
        const std::string newer = newerPyTorchRefusal(e.what_without_backtrace(), TORCH_VERSION);
        if (!newer.empty()) refuse(path, newer);
        refuse(path, "not a TorchScript archive (" + reasonIn(e.what_without_backtrace()) + ")");
    }
}

int depthOf(const std::string& name) {
    return name.empty() ? 0 : 1 + static_cast<int>(std::count(name.begin(), name.end(), '.'));
}

bool isWithin(const std::string& name, const std::string& module) {
    if (module.empty()) return true;
    return name == module || (name.size() > module.size() && name.compare(0, module.size(), module) == 0 &&
                              name[module.size()] == '.');
}

std::string listed(const std::vector<std::string>& names, size_t most = 12) {
    std::string text;
    for (size_t i = 0; i < names.size() && i < most; ++i)
        text += (i ? ", " : "") + (names[i].empty() ? std::string(kRootLayerName) : names[i]);
    if (names.size() > most) text += ", ... (" + std::to_string(names.size()) + " in all)";
    return text;
}

}  // namespace

struct TorchScriptModel::Impl {
    std::string path;
    torch::jit::Module module;
    bool takesTargets = false;
    ScriptModuleMap map;
    std::vector<ScriptModuleInfo> modules;          // pre-order, [0] = the model itself
    std::vector<std::string> layerPaths;            // per layer: module path ("" = root)
    std::vector<std::vector<torch::Tensor>> layerParams, layerBuffers;
    std::vector<torch::Tensor> allParams, allBuffers;

    torch::Tensor run(std::vector<c10::IValue> inputs, const ComputePolicy& policy,
                      LayerObserver* observer) {
        ScriptRunContext context(map, policy, observer);
        ScriptRunScope scope(context);
        // The interpreter runs the instrumented graph as it is: no fusion or
        // specialisation that could move an op across the inserted ones, and the same
        // numbers on the first call as on the later ones.
        torch::jit::GraphOptimizerEnabledGuard plain(false);
        c10::IValue out;
        try {
            out = module.forward(std::move(inputs));
        } catch (const c10::Error& e) {
            throw InputError("model.path: " + path + ": forward failed: " + reasonIn(e.what_without_backtrace()));
        } catch (const InputError&) {
            throw;
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& e) {
            // The interpreter rethrows an op's error as a plain std::runtime_error
            // holding its traceback and, last, the error itself.
            throw InputError("model.path: " + path + ": forward failed: " + reasonIn(e.what()));
        }
        if (!out.isTensor())
            throw InputError("model.path: " + path + ": forward returns a " + out.tagKind() +
                             ", not a tensor");
        return context.moduleOutput(out.toTensor());
    }

    void chooseLayers(const ModelConfig& config);
};

void TorchScriptModel::Impl::chooseLayers(const ModelConfig& config) {
    std::vector<std::string> names;
    std::vector<torch::jit::Module> handles;
    for (const auto& item : module.named_modules()) {
        ScriptModuleInfo info;
        info.name = item.name;
        const auto qualified = item.value.type()->name();
        info.type = qualified ? qualified->name() : "Module";
        for (const auto& p : item.value.named_parameters(false)) info.parameters += p.value.numel();
        info.depth = depthOf(item.name);
        modules.push_back(info);
        names.push_back(item.name);
        handles.push_back(item.value);
    }
    auto indexOf = [&](const std::string& name) -> long {
        const auto it = std::find(names.begin(), names.end(), name);
        return it == names.end() ? -1 : static_cast<long>(it - names.begin());
    };
    std::set<long> chosen;
    if (!config.probe_modules.empty()) {
        for (const auto& name : config.probe_modules) {
            const long index = name == kRootLayerName ? 0 : indexOf(name);
            if (index < 0)
                throw InputError("model.probe_modules: no module named \"" + name + "\" in " + path +
                                 " (modules: " + listed({names.begin() + 1, names.end()}) + ")");
            chosen.insert(index);
        }
    } else if (config.probe_depth > 0) {
        for (size_t i = 1; i < modules.size(); ++i) {
            const bool leaf = i + 1 == modules.size() || !isWithin(names[i + 1], names[i]);
            if (modules[i].depth == config.probe_depth || (leaf && modules[i].depth < config.probe_depth))
                chosen.insert(static_cast<long>(i));
        }
    } else {
        for (size_t i = 0; i < modules.size(); ++i)
            if (modules[i].parameters > 0) chosen.insert(static_cast<long>(i));
    }
    // The nearest chosen module around (or at) module i. The model itself, as a layer,
    // stands for its own parameters only: it would otherwise swallow every other one.
    auto owner = [&](size_t i) -> long {
        long best = -1;
        for (long c : chosen)
            if ((c == 0 ? i == 0 : isWithin(names[i], names[static_cast<size_t>(c)])) &&
                (best < 0 || names[static_cast<size_t>(c)].size() >= names[static_cast<size_t>(best)].size()))
                best = c;
        return best;
    };
    // Every parameter in one layer: a holder no chosen module covers becomes one.
    for (size_t i = 0; i < modules.size(); ++i)
        if (modules[i].parameters > 0 && owner(i) < 0) chosen.insert(static_cast<long>(i));

    std::map<long, size_t> layerOf;
    for (long c : chosen) {
        const size_t index = layerPaths.size();
        layerOf[c] = index;
        layerPaths.push_back(names[static_cast<size_t>(c)]);
        map.layers.push_back(c == 0 ? std::string(kRootLayerName) : names[static_cast<size_t>(c)]);
        map.layerIndex[names[static_cast<size_t>(c)]] = index;
        modules[static_cast<size_t>(c)].probed = true;
    }
    layerParams.resize(layerPaths.size());
    layerBuffers.resize(layerPaths.size());
    for (size_t i = 0; i < modules.size(); ++i) {
        const long c = owner(i);
        for (const auto& p : handles[i].named_parameters(false)) {
            allParams.push_back(p.value);
            if (c >= 0) layerParams[layerOf[c]].push_back(p.value);
        }
        for (const auto& b : handles[i].named_buffers(false)) {
            allBuffers.push_back(b.value);
            if (c >= 0) layerBuffers[layerOf[c]].push_back(b.value);
        }
    }
}

std::unique_ptr<TorchScriptModel> TorchScriptModel::load(const ModelConfig& config, const c10::Device& device,
                                                         bool takesTargets) {
    auto impl = std::make_unique<Impl>();
    impl->path = config.path;
    impl->takesTargets = takesTargets;
    if (config.path.empty()) throw InputError("model.path: the torchscript model needs a path to its file");
    checkArchive(config.path);
    try {
        impl->module = torch::jit::load(config.path, c10::Device(c10::kCPU));
    } catch (const c10::Error& e) {
        const std::string newer = newerPyTorchRefusal(e.what_without_backtrace(), TORCH_VERSION);
        if (!newer.empty()) refuse(config.path, newer);
        refuse(config.path, "cannot load as TorchScript (" + reasonIn(e.what_without_backtrace()) + ")");
    } catch (const std::exception& e) {
        const std::string newer = newerPyTorchRefusal(e.what(), TORCH_VERSION);
        if (!newer.empty()) refuse(config.path, newer);
        refuse(config.path, "cannot load as TorchScript (" + reasonIn(e.what()) + ")");
    }
    const auto forward = impl->module.find_method("forward");
    if (!forward) refuse(config.path, "the TorchScript module has no forward method");
    const size_t arguments = forward->function().getSchema().arguments().size() - 1;  // without self
    const size_t expected = takesTargets ? 2 : 1;
    if (arguments != expected)
        refuse(config.path, "forward takes " + std::to_string(arguments) + " input" +
                                (arguments == 1 ? "" : "s") + "; the lab passes " +
                                (takesTargets ? "(inputs, targets) with train.loss \"model\""
                                              : "the inputs alone (train.loss \"model\" passes (inputs, targets))"));
    const GraphPassReport report = instrumentTorchScriptModule(impl->module);
    if (!report.cudaConstants.empty() && !device.is_cuda())
        refuse(config.path, "its code puts tensors on " + report.cudaConstants.front() +
                                " and this run is on the CPU (trace or script it on the CPU, or run it on a CUDA device)");
    impl->chooseLayers(config);
    for (auto& p : impl->allParams)
        if (p.is_floating_point()) p.requires_grad_(true);
    impl->module.train(true);
    return std::unique_ptr<TorchScriptModel>(new TorchScriptModel(std::move(impl)));
}

TorchScriptModel::TorchScriptModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TorchScriptModel::~TorchScriptModel() = default;

torch::Tensor TorchScriptModel::forward(const torch::Tensor& input, const ComputePolicy& policy,
                                        LayerObserver* observer) {
    return impl_->run({input}, policy, observer);
}

bool TorchScriptModel::computesOwnLoss() const { return impl_->takesTargets; }

torch::Tensor TorchScriptModel::forwardLoss(const torch::Tensor& input, const torch::Tensor& targets,
                                            const ComputePolicy& policy, LayerObserver* observer) {
    return impl_->run({input, targets}, policy, observer);
}

const std::vector<std::string>& TorchScriptModel::layerNames() const { return impl_->map.layers; }

std::vector<std::string> TorchScriptModel::layersWithin(const std::string& name) const {
    std::vector<std::string> layers;
    if (name == kRootLayerName) {
        if (hasLayer(name)) layers.push_back(name);
        return layers;
    }
    for (size_t i = 0; i < impl_->layerPaths.size(); ++i)
        if (!impl_->layerPaths[i].empty() && isWithin(impl_->layerPaths[i], name))
            layers.push_back(impl_->map.layers[i]);
    // A module that holds no probed layer but exists still names something (its ops).
    if (layers.empty())
        for (const auto& m : impl_->modules)
            if (!m.name.empty() && m.name == name) layers.push_back(name);
    return layers;
}

std::vector<torch::Tensor> TorchScriptModel::layerParameters(size_t index) {
    return impl_->layerParams.at(index);
}

std::vector<torch::Tensor> TorchScriptModel::parameters() { return impl_->allParams; }
std::vector<torch::Tensor> TorchScriptModel::buffers() { return impl_->allBuffers; }

void TorchScriptModel::setTraining(bool on) { impl_->module.train(on); }

void TorchScriptModel::moveTo(const c10::Device& device) {
    // set_data keeps each tensor's identity, so the lists above stay valid.
    torch::NoGradGuard noGrad;
    for (auto* list : {&impl_->allParams, &impl_->allBuffers})
        for (auto& t : *list) t.set_data(t.to(device));
}

void TorchScriptModel::layerTo(size_t index, c10::ScalarType dtype) {
    torch::NoGradGuard noGrad;
    for (auto& t : impl_->layerParams.at(index)) t.set_data(t.to(dtype));
    for (auto& t : impl_->layerBuffers.at(index))
        if (t.is_floating_point()) t.set_data(t.to(dtype));
}

const std::vector<ScriptModuleInfo>& TorchScriptModel::modules() const { return impl_->modules; }

std::vector<ScriptModuleInfo> inspectTorchScriptFile(const std::string& path,
                                                     const std::vector<std::string>& probeModules,
                                                     int64_t probeDepth) {
    ModelConfig config;
    config.name = "torchscript";
    config.path = path;
    config.probe_modules = probeModules;
    config.probe_depth = probeDepth;
    // Both arities are models; the window shows the tree of either.
    try {
        return TorchScriptModel::load(config, c10::Device(c10::kCPU), false)->modules();
    } catch (const InputError& e) {
        if (std::string(e.what()).find("forward takes 2 inputs") == std::string::npos) throw;
        return TorchScriptModel::load(config, c10::Device(c10::kCPU), true)->modules();
    }
}

}  // namespace ampscope
