#!/bin/bash
# The Debian testing lane: LibTorch 2.14, GCC 16, CMake 4. In a debootstrap root
# (.ci/debian-root.sh, kept in /var/cache/ampscope-ci), the CLI, the window and core's
# suites are built against testing's LibTorch and Qt, and core's and the recorder's suites
# run (.ci/testing-lane-in-root.sh), so an API change reaches us before a GPU session does.
# Run it as root from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
export CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-$(nproc)}"
echo "== Debian testing: the CLI, the window and core's suites against its LibTorch, core's and the recorder's suites run =="
SECONDS=0
.ci/debian-root.sh ensure testing testing
.ci/debian-root.sh run testing "$PWD" .ci/testing-lane-in-root.sh \
  || { status=$?; echo "Debian testing lane failed (exit $status)" >&2; exit "$status"; }
echo "Debian testing lane: ${SECONDS} s"
