#pragma once
// Versions of the libraries AmpScope runs on, for --version, About and reports.
#include <string>

namespace ampscope {

std::string torchVersion();       // "1.13.0"
bool cudaAvailable();             // a CUDA device is usable by this LibTorch
std::string libraryVersions();    // "LibTorch 1.13.0 (CPU only)"

}  // namespace ampscope
