#!/bin/sh
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for SECONDS.
#
#   tests/fuzz/run-fuzzers.sh [SECONDS] [TARGET ...]    (default: 60 s, every target)
#   tests/fuzz/run-fuzzers.sh 600                        a 10-minute run per target
#
# Each target starts from its seed corpus (tests/fuzz/corpus/TARGET, read only)
# plus a working corpus in build-fuzz/work/TARGET that keeps what earlier runs
# found. A crash, leak or broken contract stops the target and leaves the input
# in build-fuzz/artifacts/; the script then exits 1. Copy such an input to
# tests/fuzz/regressions/TARGET/ and fix the parser: test_fuzz_replay replays
# that folder in every build. Environment: FUZZ_BUILD (default build-fuzz),
# FUZZ_JOBS (targets run in parallel, default 1), FUZZ_NICE (default 19).
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-config config_override idx run_reader safetensors}
build=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-1}
niceness=${FUZZ_NICE:-19}

cmake -S tests/fuzz -B "$build" -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j"$(nproc)"
mkdir -p "$build/artifacts" "$build/logs"

run_one() {
    target=$1
    mkdir -p "$build/work/$target"
    # -rss_limit_mb: the readers refuse huge headers before allocating; 2 GiB
    # catches one that does not. -timeout: no single input may take 10 s.
    if nice -n "$niceness" "$build/fuzz_$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$target-" \
        "$build/work/$target" "tests/fuzz/corpus/$target" >"$build/logs/$target.log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/logs/$target.log")
        echo "fuzz_$target: ${runs:-?} executions in ${seconds} s, no finding"
        return 0
    fi
    echo "fuzz_$target: FINDING (log: $build/logs/$target.log)" >&2
    grep -E "ERROR|FUZZ_CHECK|SUMMARY|Test unit written" "$build/logs/$target.log" >&2 || true
    return 1
}

status=0
set -- $targets
while [ $# -gt 0 ]; do
    # Up to $jobs targets at a time; each writes its own log.
    pids=""
    n=0
    while [ $# -gt 0 ] && [ "$n" -lt "$jobs" ]; do
        run_one "$1" &
        pids="$pids $!"
        n=$((n + 1))
        shift
    done
    for pid in $pids; do wait "$pid" || status=1; done
done
exit $status
