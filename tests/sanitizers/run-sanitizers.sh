#!/bin/bash
# The reliability runs: the core, engine and CLI suites under ASan + UBSan, the threaded
# suites under TSan (each in a build directory of its own), and each
# libFuzzer target for FUZZ_SECONDS (default 30). One command from the repository root,
# after the README's install step (docs/guide/tests-and-ci.md describes the runs):
#
#   tests/sanitizers/run-sanitizers.sh [asan] [tsan] [fuzz]     (default: all three)
#
# CI does not run them (the three platform lanes take its time): run them by hand;
# name a step to run it alone. Every step's failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/../.."
steps=${*:-asan tsan fuzz}
want() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# Runs exactly the suites named (CTest names) in a build directory: a name that matches
# no test fails CI rather than shrinking the run.
ctest_suites() {
  local dir=$1; shift
  local regex registered name
  regex="^($(IFS='|'; echo "$*"))\$"
  # Each name is looked up in the full list: a filtered listing also shows the fixture
  # suites the named ones require (tools/script_model_fixtures), so counts do not compare.
  registered=$(ctest --test-dir "$dir" -N | sed -n 's/^ *Test *#[0-9]*: //p')
  for name in "$@"; do
    if ! grep -qxF "$name" <<<"$registered"; then
      echo "CI: $dir: suite $name is not registered" >&2
      exit 1
    fi
  done
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -R "$regex"
}

# A suite's build target is the last part of its CTest name (core/probes/test_probes).
suite_targets() { for name in "$@"; do echo "${name##*/}"; done; }

# Each step prints its duration. LibTorch and Qt
# are not instrumented: tests/sanitizers/ holds the suppressions (today only Qt's
# test harness under TSan; nothing from libtorch or libgomp is needed, because
# test_engine trains with threads=1 and the ASan suites are leak-clean).
# Measured cold (no ccache) on 2 cores shared with other builds: ASan + UBSan
# 1049 s (of which tests ~2.3 min), TSan 355 s, fuzz at 60 s per target 194 s.
# CCACHE_BASEDIR (CMakeLists.txt) lets a clean clone reuse earlier compiles.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
# die_after_fork=0: test_remote_run starts ssh, sshd and the recorder from a process that
# has threads (the mirror's, Qt's), and each child execs at once; without it TSan ends the
# suite at the next thread it starts after such a fork ("starting new threads after
# multi-threaded fork is not supported"), before any race could be looked for.
export TSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1:die_after_fork=0"

# Left out: test_models (70 s of torch, no parsing or threads), test_cli_bad_input (about
# 200 CLI processes, each loading LibTorch under ASan: more than ten minutes; the readers it
# feeds bad bytes are fuzzed below, and the readers' own suites run here) and the window's
# suites (the report suites below drive the same views offscreen through the CLI).
# The GUI is built so that the CLI's report command (the views drawn offscreen) runs
# instrumented; Qt and QCustomPlot themselves are not.
if want asan; then
echo "== ASan + UBSan: core, engine, CLI and report suites =="
SECONDS=0
asan_tests="core/config/test_config core/config/test_config_field_rules
  core/data/test_idx_reader core/data/test_datasets core/data/test_safetensors
  core/precision/test_formats core/precision/test_format_modes core/precision/test_format_sweep
  core/precision/test_grad_scaler core/precision/test_rounding
  core/run/test_run_directory core/run/test_record_codec core/run/test_flat_record_text
  core/run/test_step_record_text core/run/test_parsed_run_reader core/run/test_remote_run
  core/run/test_run_naming core/run/test_job_nonfinite_origin
  core/probes/test_probes core/probes/test_probe_records core/probes/test_probe_locator
  core/probes/test_exponent_distance core/probes/test_prescription
  core/engine/test_engine core/engine/test_engine_stress core/engine/test_metric_stream
  core/engine/test_precision_map core/engine/test_sensitivity
  core/stats/test_stats core/stats/test_seed_groups core/scenarios/test_scenarios fuzz/test_fuzz_replay
  app/test_cli app/test_cli_prescribe app/test_cli_lessons app/test_report_cli app/test_report_sets"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMPSCOPE_SANITIZE=address,undefined -DAMPSCOPE_BUILD_GUI=ON -DAMPSCOPE_CUDA_KERNELS=OFF
# shellcheck disable=SC2086
cmake --build build-asan -j"$(nproc)" --target ampscope-cli $(suite_targets $asan_tests)
# shellcheck disable=SC2086
ctest_suites build-asan $asan_tests
echo "ASan + UBSan step: ${SECONDS} s"
fi

if want tsan; then
echo "== TSan: engine thread, metric stream, run readers, remote mirror, precision map =="
SECONDS=0
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMPSCOPE_SANITIZE=thread -DAMPSCOPE_BUILD_GUI=OFF -DAMPSCOPE_CUDA_KERNELS=OFF
tsan_tests="core/engine/test_engine core/engine/test_engine_stress core/engine/test_metric_stream
  core/run/test_parsed_run_reader core/run/test_remote_run core/engine/test_precision_map"
# shellcheck disable=SC2086
cmake --build build-tsan -j"$(nproc)" --target $(suite_targets $tsan_tests)
# shellcheck disable=SC2086
ctest_suites build-tsan $tsan_tests
echo "TSan step: ${SECONDS} s"
fi

if want fuzz; then
echo "== libFuzzer: config, --set, IDX, run-directory and safetensors readers =="
SECONDS=0
FUZZ_BUILD=build-fuzz FUZZ_JOBS="$(nproc)" FUZZ_NICE=0 tests/fuzz/run-fuzzers.sh "${FUZZ_SECONDS:-30}"
echo "fuzz step: ${SECONDS} s"
fi
