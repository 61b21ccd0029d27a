#!/bin/bash
# Compiles and links, on a machine without a GPU, everything the GPU machine builds
# (tests/bench/gpu-targets.txt: core with its CUDA paths, the CUDA kernels, the CUDA
# suites and benchmarks, the CLI) against Debian 13's CUDA build of LibTorch 2.6, in a
# debootstrap root of its own, so a GPU session never spends its minutes on a compile
# error. Run it from the repository root, as root, before asking for a device:
#
#   tests/bench/cuda_compile_check.sh
#
# The root (Debian 13 with contrib and non-free: libtorch-cuda-dev, nvidia-cuda-toolkit)
# and its compiler cache are kept in /var/cache/ampscope-ci/trixie-cuda; the first run
# downloads about 4 GB of packages and takes a cold build's time. Nothing runs on a GPU:
# the suites are linked, not run. Exit 0 when everything compiled and linked.
set -euo pipefail
cd "$(dirname "$0")/../.."
.ci/debian-root.sh ensure trixie-cuda trixie
# shellcheck disable=SC2016
AMPSCOPE_ROOT_WORKDIR=/srv/ampscope-cuda .ci/debian-root.sh run trixie-cuda "$PWD" '
  set -euo pipefail
  ./installer/install-deps.sh --cuda
  cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DAMPSCOPE_BUILD_GUI=OFF \
    -DAMPSCOPE_CUDA_KERNELS=ON -DAMPSCOPE_NO_PYTHON_TORCH=ON
  grep -q "^AMPSCOPE_CUDA_KERNELS:BOOL=ON" build-cuda/CMakeCache.txt
  cmake --build build-cuda -j"$(nproc)" --target $(grep -v "^#" tests/bench/gpu-targets.txt)
  echo "cuda_compile_check: every GPU target compiled and linked against LibTorch $(
    sed -n "s/^#define TORCH_VERSION \"\(.*\)\"/\1/p" /usr/include/torch/csrc/api/include/torch/version.h) with CUDA"'
