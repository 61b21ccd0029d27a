#!/bin/sh
# Configures and builds AmpScope in build/ (Release, ccache when present).
# Extra arguments go to CMake's configure step, e.g. -DAMPSCOPE_BUILD_GUI=OFF.
set -eu
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"
