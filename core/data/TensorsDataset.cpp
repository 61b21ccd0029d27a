#include "data/TensorsDataset.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/InputError.h"
#include "data/PixelConversion.h"
#include "data/SafetensorsFile.h"
#include "data/SafetensorsReader.h"
#include "data/SampleSplits.h"

namespace ampscope {
namespace {

bool isFloat(const std::string& dtype) {
    return dtype == "F32" || dtype == "F16" || dtype == "BF16";
}
bool isClassId(const std::string& dtype) { return dtype == "I64" || dtype == "I32"; }

std::vector<int64_t> perSample(const SafetensorsEntry& entry) {
    return {entry.shape.begin() + 1, entry.shape.end()};
}

std::string shapeText(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) text += ",";  // appended apart: "," + std::to_string trips GCC 12's -Wrestrict
        text += std::to_string(shape[i]);
    }
    return text + "]";
}

// The fields the loader needs before it opens the file. validateConfig says the same
// at the field; loadData may be called without it (tests, tools), so it checks again.
void checkFields(const DataConfig& config) {
    if (config.path.empty())
        throw InputError("data.path: required for dataset tensors (the .safetensors file)");
    if (config.inputs.empty())
        throw InputError("data.inputs: required for dataset tensors (the name of the training "
                         "inputs in data.path)");
    if (config.targets.empty())
        throw InputError("data.targets: required for dataset tensors (the name of the training "
                         "targets in data.path)");
    const bool valInputs = !config.val_inputs.empty(), valTargets = !config.val_targets.empty();
    if (valInputs && !valTargets)
        throw InputError("data.val_targets: required when data.val_inputs is set");
    if (valTargets && !valInputs)
        throw InputError("data.val_inputs: required when data.val_targets is set");
    if (config.validation == "test" && !valInputs)
        throw InputError("data.val_inputs: validation \"test\" needs the validation pair "
                         "(data.val_inputs and data.val_targets) from the file; name them, or "
                         "use validation \"split\"");
    if (config.validation == "split" && valInputs)
        throw InputError("data.val_inputs: validation \"split\" holds out data.val_fraction of "
                         "data.inputs and would ignore the validation pair; clear it, or use "
                         "validation \"test\"");
}

// One tensor the config names: where it is in the file, and how messages call it.
struct Named {
    const char* field;  // "data.inputs"
    const SafetensorsEntry* entry;
    std::string quoted() const { return quotedTensorName(entry->name); }
    std::string said() const { return quoted() + " (" + field + ")"; }
    int64_t samples() const { return entry->shape[0]; }
};

Named lookUp(const SafetensorsFile& file, const char* field, const std::string& name) {
    const SafetensorsEntry* entry = file.find(name);
    if (!entry)
        file.fail(std::string(field) + ": no tensor " + quotedTensorName(name) +
                  " (the file holds " + file.describeNames() + ")");
    const Named named{field, entry};
    if (entry->shape.empty())
        file.fail(std::string(field) + ": tensor " + named.quoted() +
                  " is a scalar (shape []); its first dimension must count the samples");
    if (entry->shape[0] == 0)
        file.fail(std::string(field) + ": tensor " + named.quoted() + " holds 0 samples (shape " +
                  shapeText(entry->shape) + ")");
    return named;
}

void checkInputs(const SafetensorsFile& file, const Named& inputs) {
    const std::string& dtype = inputs.entry->dtype;
    if (!isFloat(dtype) && dtype != "U8")
        file.fail(std::string(inputs.field) + ": tensor " + inputs.quoted() + " is " + dtype +
                  "; inputs must be F32, F16, BF16 or U8");
}

void checkTargets(const SafetensorsFile& file, const Named& targets) {
    const std::string& dtype = targets.entry->dtype;
    if (!isFloat(dtype) && !isClassId(dtype))
        file.fail(std::string(targets.field) + ": tensor " + targets.quoted() + " is " + dtype +
                  "; targets must be I64 or I32 (class ids) or F32, F16 or BF16 (regression)");
    const std::vector<int64_t> sample = perSample(*targets.entry);
    if (isClassId(dtype) && !(sample.empty() || sample == std::vector<int64_t>{1}))
        file.fail(std::string(targets.field) + ": tensor " + targets.quoted() + " is " + dtype +
                  " " + shapeText(targets.entry->shape) +
                  "; class ids are one per sample, [N] or [N,1]");
}

void checkSameCount(const SafetensorsFile& file, const Named& inputs, const Named& targets) {
    if (targets.samples() != inputs.samples())
        file.fail(std::string(targets.field) + ": tensor " + targets.quoted() + " holds " +
                  std::to_string(targets.samples()) + " samples but " + inputs.said() +
                  " holds " + std::to_string(inputs.samples()));
}

// The validation pair must be read the way the training pair is.
void checkLikeTraining(const SafetensorsFile& file, const Named& val, const Named& train,
                       bool targets) {
    const std::string& a = val.entry->dtype;
    const std::string& b = train.entry->dtype;
    const bool sameKind = targets ? isClassId(a) == isClassId(b) : (a == "U8") == (b == "U8");
    if (!sameKind)
        file.fail(std::string(val.field) + ": tensor " + val.quoted() + " is " + a + " but " +
                  train.said() + " is " + b +
                  (targets ? "; both must be class ids or both regression values"
                           : "; both must be U8 or both floating point"));
    // Class ids may be [N] in one tensor and [N,1] in the other: both are one per sample.
    if (targets && isClassId(a)) return;
    if (perSample(*val.entry) != perSample(*train.entry))
        file.fail(std::string(val.field) + ": tensor " + val.quoted() + " has samples of " +
                  shapeText(perSample(*val.entry)) + " but " + train.said() + " has " +
                  shapeText(perSample(*train.entry)));
}

// Inputs as the model sees them, except U8, which stays bytes until the training rows
// are final (their statistics normalise every set).
torch::Tensor readInputs(const SafetensorsFile& file, const Named& inputs) {
    torch::Tensor tensor = readTensor(file, *inputs.entry);
    if (tensor.dim() == 1) tensor = tensor.reshape({tensor.size(0), 1});  // one feature each
    if (tensor.scalar_type() == torch::kUInt8) return tensor;
    return tensor.to(torch::kFloat32).contiguous();
}

torch::Tensor readTargets(const SafetensorsFile& file, const Named& targets) {
    torch::Tensor tensor = readTensor(file, *targets.entry);
    if (isClassId(targets.entry->dtype)) {
        tensor = tensor.to(torch::kInt64).reshape({tensor.size(0)});
        const torch::Tensor negative = (tensor < 0).nonzero();
        if (negative.size(0) > 0) {
            const int64_t at = negative[0][0].item<int64_t>();
            file.fail(std::string(targets.field) + ": tensor " + targets.quoted() +
                      " holds class id " + std::to_string(tensor[at].item<int64_t>()) +
                      " at sample " + std::to_string(at) + "; class ids must be >= 0");
        }
        return tensor;
    }
    tensor = tensor.to(torch::kFloat32).contiguous();
    // One value per sample becomes [N, 1], the shape of the models' one output.
    if (tensor.dim() == 1) tensor = tensor.reshape({tensor.size(0), 1});
    return tensor;
}

}  // namespace

DataBundle loadTensors(const DataConfig& config, uint64_t seed) {
    checkFields(config);
    const SafetensorsFile file(config.path);
    const bool valPair = !config.val_inputs.empty();

    // Everything the header can tell is checked before a byte of data is read.
    const Named inputs = lookUp(file, "data.inputs", config.inputs);
    const Named targets = lookUp(file, "data.targets", config.targets);
    checkInputs(file, inputs);
    checkTargets(file, targets);
    checkSameCount(file, inputs, targets);
    const bool classification = isClassId(targets.entry->dtype);
    const bool bytes = inputs.entry->dtype == "U8";
    Rows train{readInputs(file, inputs), readTargets(file, targets)};

    Rows val;
    std::string valNote;
    if (valPair) {
        const Named valInputs = lookUp(file, "data.val_inputs", config.val_inputs);
        const Named valTargets = lookUp(file, "data.val_targets", config.val_targets);
        checkLikeTraining(file, valInputs, inputs, false);
        checkLikeTraining(file, valTargets, targets, true);
        checkSameCount(file, valInputs, valTargets);
        val = {readInputs(file, valInputs), readTargets(file, valTargets)};
        valNote = "val " + std::to_string(val.size()) + " from " + valInputs.quoted();
    } else {
        valNote = holdOutValidation(train, val, config.val_fraction, seed);
    }

    DataBundle bundle;
    bundle.synthetic = false;
    std::string kindNote;
    if (classification) {
        // Over train and val: a class only val holds still needs its output.
        const int64_t trainLargest = train.targets.max().item<int64_t>();
        const int64_t largest = std::max(trainLargest, val.targets.max().item<int64_t>());
        if (largest >= kMaxTensorClasses)
            file.fail(std::string(!valPair || trainLargest == largest ? "data.targets"
                                                                      : "data.val_targets") +
                      ": class id " + std::to_string(largest) + " means " +
                      std::to_string(largest + 1) + " classes (at most " +
                      std::to_string(kMaxTensorClasses) + ")");
        bundle.task = "classification";
        bundle.num_classes = largest + 1;
        kindNote = std::to_string(bundle.num_classes) + " classes";
    } else {
        bundle.task = "regression";
        bundle.num_classes = 0;
        kindNote = "regression to " + shapeText(train.targets.sizes().slice(1).vec()) + " " +
                   targets.entry->dtype;
    }

    const int64_t fileSamples = train.size() + (valPair ? 0 : val.size());
    const std::string subsetNote = applySubset(train, config.subset, seed);

    std::string scaleNote;
    if (bytes) {
        PixelStats stats;  // mean 0, std 1: plain byte/255, as the image sets without normalize
        if (config.normalize) stats = pixelStats(train.inputs);
        train.inputs = bytesToFloat(train.inputs, stats);
        val.inputs = bytesToFloat(val.inputs, stats);
        scaleNote = config.normalize ? normalizedNote(stats) : ", scaled to [0, 1]";
    }

    bundle.train = {train.inputs.contiguous(), train.targets.contiguous()};
    bundle.val = {val.inputs.contiguous(), val.targets.contiguous()};
    bundle.input_shape = bundle.train.inputs.sizes().slice(1).vec();
    bundle.description = "tensors " + config.path + ": " + std::to_string(fileSamples) + " x " +
                         shapeText(bundle.input_shape) + " " + inputs.entry->dtype + ", " +
                         kindNote + "; train " + std::to_string(bundle.train.size()) +
                         subsetNote + " / " + valNote + scaleNote;
    return bundle;
}

}  // namespace ampscope
