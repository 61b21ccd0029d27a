#include "data/SafetensorsReader.h"

#include "common/InputError.h"

namespace ampscope {

bool torchDtypeOf(const std::string& dtype, torch::ScalarType& out) {
    if (dtype == "F32") out = torch::kFloat32;
    else if (dtype == "F16") out = torch::kFloat16;
    else if (dtype == "BF16") out = torch::kBFloat16;
    else if (dtype == "U8") out = torch::kUInt8;
    else if (dtype == "I64") out = torch::kInt64;
    else if (dtype == "I32") out = torch::kInt32;
    else return false;
    return true;
}

const char* readableSafetensorsDtypes() { return "F32, F16, BF16, U8, I64 and I32"; }

torch::Tensor readTensor(const SafetensorsFile& file, const SafetensorsEntry& entry) {
    torch::ScalarType dtype{};
    if (!torchDtypeOf(entry.dtype, dtype))
        file.fail("tensor " + quotedTensorName(entry.name) + " is " + entry.dtype +
                  "; AmpScope reads " + readableSafetensorsDtypes());
    torch::Tensor tensor = torch::empty(entry.shape, torch::TensorOptions().dtype(dtype));
    // Sizes were checked by SafetensorsFile: the tensor holds exactly the entry's bytes.
    TORCH_CHECK(static_cast<uint64_t>(tensor.nbytes()) == entry.byteCount(),
                "safetensors entry size disagrees with its tensor");
    if (entry.byteCount() > 0) file.read(entry, tensor.data_ptr());
    return tensor;
}

std::map<std::string, torch::Tensor> readSafetensors(const std::string& path,
                                                     const std::vector<std::string>& names) {
    const SafetensorsFile file(path);
    std::map<std::string, torch::Tensor> tensors;
    if (names.empty()) {
        for (const SafetensorsEntry& entry : file.entries())
            tensors.emplace(entry.name, readTensor(file, entry));
        return tensors;
    }
    for (const std::string& name : names) {
        const SafetensorsEntry* entry = file.find(name);
        if (!entry)
            file.fail("no tensor " + quotedTensorName(name) + " (the file holds " +
                      file.describeNames() + ")");
        tensors.emplace(name, readTensor(file, *entry));
    }
    return tensors;
}

}  // namespace ampscope
