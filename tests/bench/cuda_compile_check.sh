#!/bin/bash
# Compiles and links, on a machine without a GPU, everything the GPU machine builds
# (tests/bench/gpu-targets.txt: core with its CUDA paths, the CUDA kernels, the CUDA
# suites and benchmarks, the CLI) against Debian 13's CUDA build of LibTorch 2.6, in a
# debootstrap root of its own, so a GPU session never spends its minutes on a compile
# error. Run it from the repository root, as root, before asking for a device:
#
#   tests/bench/cuda_compile_check.sh            every GPU target, compiled and linked
#   tests/bench/cuda_compile_check.sh --quick    only the files that take another path
#                                                with a CUDA LibTorch, and the kernels
#
# The root (Debian 13 with contrib and non-free: libtorch-cuda-dev, nvidia-cuda-toolkit)
# and its compiler cache are kept in /var/cache/ampscope-ci/trixie-cuda; the first run
# downloads about 4 GB of packages and takes a cold build's time. Nothing runs on a GPU:
# the suites are linked, not run. Exit 0 when everything compiled (and linked).
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1:-} in
  --quick) quick=yes ;;
  "") quick="" ;;
  *) echo "usage: tests/bench/cuda_compile_check.sh [--quick]" >&2; exit 2 ;;
esac
.ci/debian-root.sh ensure trixie-cuda trixie
# cuDNN is declined at install (install-deps.sh --cuda): LibTorch's CUDA library then
# names a libcudnn that is not there, which only a program that runs needs; the linker
# is told to leave a shared library's own undefined symbols alone.
# shellcheck disable=SC2016
AMPSCOPE_ROOT_WORKDIR=/srv/ampscope-cuda .ci/debian-root.sh run trixie-cuda "$PWD" '
  set -euo pipefail
  ./installer/install-deps.sh --cuda
  cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DAMPSCOPE_BUILD_GUI=OFF \
    -DAMPSCOPE_CUDA_KERNELS=ON -DAMPSCOPE_NO_PYTHON_TORCH=ON \
    -DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined >build-cuda.log
  grep -E "CUDA kernels|Fused probe" build-cuda.log
  grep -q "^AMPSCOPE_CUDA_KERNELS:BOOL=ON" build-cuda/CMakeCache.txt
  torch=$(sed -n "s/^#define TORCH_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p" \
    /usr/include/torch/csrc/api/include/torch/version.h | paste -sd.)
  torch="$torch, nvcc $(nvcc --version | sed -n "s/.*release \([0-9.]*\).*/\1/p")"
  if [ '"'${quick}'"' = yes ]; then
    # The files that compile differently against a CUDA LibTorch: those that include
    # CUDA headers or test for a CUDA build, and every kernel.
    files=$(grep -rlE "c10/cuda|ATen/cuda|AMPSCOPE_HAVE_(C10_CUDA|FUSED_PROBE)|TorchCompat.h" core --include=*.cpp)
    cmake --build build-cuda -j"$(nproc)" --target ampscope_cuda_kernels
    for f in $files; do
      cmake --build build-cuda/core -j"$(nproc)" --target "${f#core/}.o"
    done
    echo "cuda_compile_check --quick: compiled against LibTorch $torch:" $files "and the kernels"
  else
    cmake --build build-cuda -j"$(nproc)" --target $(grep -v "^#" tests/bench/gpu-targets.txt)
    echo "cuda_compile_check: every GPU target compiled and linked against LibTorch $torch"
  fi'
