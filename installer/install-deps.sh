#!/bin/sh
# Installs AmpScope's build, run and test dependencies from Debian bookworm's
# archive. Idempotent; runs as root or through sudo. Nothing else is downloaded.
set -eu

PACKAGES="
  build-essential cmake ccache git pkg-config
  libtorch-dev nlohmann-json3-dev zlib1g-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev
  dataset-fashion-mnist
  python3-torch python3-numpy python3-venv
  xvfb xauth poppler-utils
  libprotobuf-dev protobuf-compiler
  clang libclang-rt-14-dev llvm-14
  dpkg-dev file desktop-file-utils appstream groff-base
  openssh-client openssh-server
"
# libprotobuf-dev + protobuf-compiler: TensorBoard event files (core/export).
# clang, libclang-rt-14-dev (libFuzzer, ASan/UBSan runtimes) and llvm-14
# (llvm-symbolizer for readable sanitizer stacks): tests/fuzz and .ci/run.
# dpkg-dev (dpkg-shlibdeps) and file: cpack's DEB generator; desktop-file-utils, appstream
# and groff-base: tests/installer/test_package.cpp validates the shipped .desktop, metainfo, man pages.
# python3-venv: the README installs the recorder into a venv (Debian's python3 refuses pip
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
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
