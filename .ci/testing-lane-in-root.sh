#!/bin/bash
# The Debian testing lane inside its root (.ci/testing-lane.sh runs it there): the
# dependencies from the same install script, then against testing's LibTorch and Qt only
# what the suites below need: the CLI (with its report renderer, which draws with the
# window's views), the window (the recorder's suites open their runs in it), the two test
# tools and core's suites; then core's suites and the recorder's.
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DAMPSCOPE_BUILD_GUI=ON
suites='^(core|python|tools)/'
# A suite's build target is the part of its CTest name that starts with test_
# (core/probes/test_probes, core/run/test_run_directory/permissions), where the build has
# such a target: the Python suites (python/test_recorder) are files that call the CLI and
# two test tools.
mapfile -t known < <(cmake --build build --target help | sed -n 's/^\.\.\. \([^ ]*\).*/\1/p')
mapfile -t targets < <(ctest --test-dir build -N -R "$suites" | sed -n 's/^ *Test *#[0-9]*: //p' |
  tr '/' '\n' | grep '^test_' | sort -u | grep -xF -f <(printf '%s\n' "${known[@]}"))
[ "${#targets[@]}" -gt 0 ] || { echo "testing lane: no suite matches $suites" >&2; exit 1; }
cmake --build build -j"$(nproc)" --target ampscope-cli ampscope probe_reference record_vocabulary "${targets[@]}"
ctest --test-dir build --output-on-failure --no-tests=error -R "$suites"
