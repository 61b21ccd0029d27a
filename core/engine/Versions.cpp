#include "engine/Versions.h"

#include <torch/torch.h>
#include <torch/version.h>

namespace ampscope {

std::string torchVersion() { return TORCH_VERSION; }

bool cudaAvailable() { return torch::cuda::is_available(); }

std::string libraryVersions() {
    return "LibTorch " + torchVersion() +
           (cudaAvailable() ? " (CUDA, " + std::to_string(torch::cuda::device_count()) + " device(s))"
                            : " (CPU only)");
}

}  // namespace ampscope
