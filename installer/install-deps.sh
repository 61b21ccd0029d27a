#!/bin/sh
# Installs AmpScope's build, run and test dependencies from the Debian archive of the
# release it runs on: Debian 12 (bookworm), Debian 13 (trixie) or testing. Idempotent;
# runs as root or through sudo. Nothing else is downloaded.
set -eu

# The packages whose names differ between releases: the LLVM that the sanitizers' and
# libFuzzer's runtimes (libclang-rt-N-dev) and llvm-symbolizer (llvm-N) come from, the
# same major version as the release's default clang. Debian 12 has LLVM 14, Debian 13
# LLVM 19; testing moves, so there the default clang's own dependency names it.
# --cuda (Debian 13 and later): Debian's CUDA build of LibTorch and torch (contrib, which
# replaces the CPU packages) and the CUDA toolkit with nvcc (non-free), for compiling what
# a GPU machine builds; tests/bench/cuda_compile_check.sh uses it in a root of its own.
cuda=""
case "${1:-}" in
  --cuda) cuda=yes ;;
  "") ;;
  *) echo "install-deps.sh: unknown argument '$1' (the only option is --cuda)" >&2; exit 2 ;;
esac

codename=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2>/dev/null || true)
case "$codename" in
  bookworm) llvm_version=14 ;;
  trixie) llvm_version=19 ;;
  *) llvm_version="" ;;
esac

PACKAGES="
  build-essential cmake ccache git pkg-config
  libtorch-dev nlohmann-json3-dev zlib1g-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev
  dataset-fashion-mnist
  python3-torch python3-numpy python3-venv python3-setuptools
  xvfb xauth poppler-utils
  libprotobuf-dev protobuf-compiler
  clang
  dpkg-dev file desktop-file-utils appstream groff-base
  openssh-client openssh-server
"
# libprotobuf-dev + protobuf-compiler: TensorBoard event files (core/export).
# clang, libclang-rt-N-dev (libFuzzer, ASan/UBSan runtimes) and llvm-N
# (llvm-symbolizer for readable sanitizer stacks): tests/fuzz and .ci/run; N is chosen above.
# dpkg-dev (dpkg-shlibdeps) and file: cpack's DEB generator; desktop-file-utils, appstream
# and groff-base: tests/installer/test_package.cpp validates the shipped .desktop, metainfo, man pages.
# python3-setuptools: torch.compile's inductor backend builds its C++ kernels through it
# (torch 2.x: the recorder's compile suites). python3-venv: the README installs the recorder into a venv (Debian's python3 refuses pip
# installs: PEP 668). openssh-client: following a run on another machine (ssh://host/path);
# openssh-server: the tests start their own sshd on 127.0.0.1 (tests/support/SshServer.h).

if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "install-deps.sh: run as root or install sudo" >&2
  exit 2
fi

export DEBIAN_FRONTEND=noninteractive
updated=""
default_clang_major() {
  apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n 1
}
if [ -z "$llvm_version" ]; then
  # A release this script has no row for (testing, unstable): its default clang says,
  # from the package lists, fetched first where there are none yet.
  llvm_version=$(default_clang_major)
  if [ -z "$llvm_version" ]; then
    $SUDO apt-get update -q
    updated=yes
    llvm_version=$(default_clang_major)
  fi
  if [ -z "$llvm_version" ]; then
    echo "install-deps.sh: cannot tell which LLVM this Debian release (${codename:-unknown}) ships: 'apt-cache depends clang' names no clang-N" >&2
    exit 2
  fi
fi
PACKAGES="$PACKAGES libclang-rt-$llvm_version-dev llvm-$llvm_version"
if [ -n "$cuda" ]; then
  if [ "$codename" = bookworm ]; then
    echo "install-deps.sh: --cuda needs Debian 13 or later (Debian 12 has no CUDA build of LibTorch)" >&2
    exit 2
  fi
  PACKAGES=$(echo "$PACKAGES" | sed -e 's/ libtorch-dev / libtorch-cuda-dev /' -e 's/ python3-torch / python3-torch-cuda /')
  PACKAGES="$PACKAGES nvidia-cuda-toolkit"
  # The CUDA LibTorch depends on nvidia-cudnn, an installer whose postinst downloads
  # NVIDIA's library once its licence is agreed (the default answer): nothing is
  # downloaded here, and compiling needs no cuDNN, so the licence is declined and the
  # package installs empty.
  echo "nvidia-cudnn nvidia-cudnn/question select I Decline" | $SUDO debconf-set-selections
fi

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "install-deps.sh: all dependencies already installed"
  exit 0
fi

echo "install-deps.sh: installing$missing"
[ -n "$updated" ] || $SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
