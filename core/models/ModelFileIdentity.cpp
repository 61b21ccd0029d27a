#include "models/ModelFileIdentity.h"

#include <filesystem>

#include "common/InputError.h"
#include "common/Sha256.h"

namespace ampscope {

void identifyModelFile(ModelConfig& model) {
    if (model.name != "torchscript") return;
    std::error_code error;
    const auto absolute = std::filesystem::absolute(model.path, error);
    if (!error) model.path = absolute.lexically_normal().string();
    if (!std::filesystem::exists(model.path, error))
        throw InputError("model.path: " + model.path + ": no such file");
    if (!std::filesystem::is_regular_file(model.path, error))
        throw InputError("model.path: " + model.path + ": not a regular file");
    uint64_t bytes = 0;
    std::string digest;
    try {
        digest = sha256OfFile(model.path, &bytes);
    } catch (const InputError& e) {
        throw InputError(std::string("model.path: ") + e.what());
    }
    if (!model.sha256.empty() && model.sha256 != digest)
        throw InputError("model.sha256: " + model.path + " has SHA-256 " + digest + ", the config expects " +
                         model.sha256 + " (the file changed; remove model.sha256 to train this one)");
    model.sha256 = digest;
    model.file_bytes = static_cast<int64_t>(bytes);
}

}  // namespace ampscope
