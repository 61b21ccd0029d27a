#!/bin/bash
# The Debian 13 (trixie) lane: LibTorch and python3-torch 2.6, Qt 6.8, GCC 14. In a
# debootstrap root (.ci/debian-root.sh, kept in /var/cache/ampscope-ci), a copy of this
# checkout runs the README's test command unchanged (every suite, the GUI ones offscreen),
# then the .deb built there installs there, runs and leaves again. Run it as root from
# the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
readme_test_command="./installer/install-deps.sh && ./installer/build.sh && ctest --test-dir build --output-on-failure"
export CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-$(nproc)}"
export AMPSCOPE_REQUIRE_SSHD="${AMPSCOPE_REQUIRE_SSHD:-1}"
echo "== Debian 13 (trixie): the README's test command in a root of its own =="
SECONDS=0
.ci/debian-root.sh ensure trixie trixie
# Then the .deb built there installs there, runs, and leaves again (the root is kept).
.ci/debian-root.sh run trixie "$PWD" "$readme_test_command"' && (cd build && cpack -G DEB >/dev/null) &&
  apt-get install -y -q ./build/ampscope_*.deb >/dev/null && ampscope-cli --version &&
  ampscope-cli run /usr/share/ampscope/examples/spirals-mlp-fp32.json --out /tmp/spirals --set train.max_steps=20 --quiet &&
  test -f /tmp/spirals/summary.json && apt-get remove -y -q ampscope >/dev/null && rm -rf /tmp/spirals' \
  || { status=$?; echo "Debian 13 lane: the README's test command failed (exit $status)" >&2; exit "$status"; }
echo "Debian 13 lane: ${SECONDS} s"

