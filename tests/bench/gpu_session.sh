#!/bin/bash
# One GPU-machine session in one command: unpack the carried Debian packages (.gpu/debs),
# configure against the pip torch's CUDA LibTorch with the GUI off, build the CLI, the
# CUDA-relevant suites and the probe benchmark, then run the stages named on the command
# line. Every stage appends to $LOG (default: $OUT/session.log on the device tool's
# machine, else gpu-session.log), and prints its wall time, so a cut-off run still tells
# how far it got.
#
#   tests/bench/gpu_session.sh build test probe-bench "speed simple_cnn:128" fidelity
#
# TensorBoard export is off: the image's protoc does not match the protobuf headers that
# the pip torch ships in its include folder, which come first on core's include path.
#
# Stages: build, test, probe-bench, steps (per-step times of the CLI's variants), "speed CASES" (CASES as gpu_bench.py --cases),
# trace (Chrome traces of a probe step and a clean step, summarised), fidelity. Run from the repository root.
set -uo pipefail
ROOT=$PWD
LOG=${LOG:-${OUT:-$ROOT}/session.log}
BUILD=${BUILD:-build-gpu}
DATA=$ROOT/.gpu/root/usr/share/datasets/fashion-mnist
say() { echo "== $* ($(date +%T))" | tee -a "$LOG"; }

prepare() {
  say "machine"
  { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2; g++ --version | head -1; cmake --version | head -1
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
    nproc; } 2>&1 | tee -a "$LOG"
  mkdir -p .gpu/root
  for f in .gpu/debs/*.deb; do dpkg -x "$f" .gpu/root; done
  export LD_LIBRARY_PATH=$ROOT/.gpu/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # Qt Core needs GLib; the image may lack it, then the carried copy is used.
  if ! ldconfig -p | grep -q 'libglib-2.0.so.0'; then
    say "no GLib on this machine: unpacking the carried one"
    for f in .gpu/extra/*.deb; do dpkg -x "$f" .gpu/root; done
    export LD_LIBRARY_PATH=$ROOT/.gpu/root/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
  fi
}

build() {
  say "configure"
  local torch_prefix
  torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAMPSCOPE_BUILD_GUI=OFF \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$ROOT/.gpu/root/usr" -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DZLIB_INCLUDE_DIR=$ROOT/.gpu/root/usr/include -DZLIB_LIBRARY=/usr/lib/x86_64-linux-gnu/libz.so.1 \
    -DAMPSCOPE_TFEVENTS=OFF \
    >>"$LOG" 2>&1 || { tail -40 "$LOG"; return 1; }
  grep -E "CUDA kernels|Fused probe|Torch|TFEvents|tfevents" "$LOG" | tail -8
  say "build"
  SECONDS=0
  cmake --build "$BUILD" -j"$(nproc)" --target ampscope-cli test_cuda_fused_probe \
    test_fused_probe_rules test_precision_emulate test_probes test_engine test_nonfinite_replay \
    test_probe_engine test_grad_scaler test_multi_tensor_optimizer fused_probe_bench step_op_count \
    -- -k 0 >"$ROOT/.gpu/build.log" 2>&1
  local rc=$?
  grep -E "error|FAILED" "$ROOT/.gpu/build.log" | head -60 | tee -a "$LOG"
  cp "$ROOT/.gpu/build.log" "${OUT:-$ROOT}/build.log" 2>/dev/null || true
  say "build exit $rc in ${SECONDS} s"
  return $rc
}

stage() {
  SECONDS=0
  case "$1" in
    test)
      say "ctest"
      ctest --test-dir "$BUILD" --output-on-failure -R \
        '/(test_cuda_fused_probe|test_fused_probe_rules|test_precision_emulate|test_probes|test_engine|test_nonfinite_replay|test_probe_engine|test_grad_scaler|test_multi_tensor_optimizer)$' \
        2>&1 | tee -a "$LOG" | grep -E "Test +#|tests passed|FAIL|SKIP|QWARN" ;;
    probe-bench)
      say "fused_probe_bench"
      "./$BUILD/tests/bench/fused_probe_bench" 2>&1 | tee -a "$LOG" ;;
    speed*)
      say "gpu_bench speed ${1#speed }"
      PYTHONUNBUFFERED=1 python3 tests/bench/gpu_bench.py --cli "$BUILD/app/ampscope-cli" --data "$DATA" \
        --skip-fidelity --cases "${1#speed }" --rounds "${ROUNDS:-2}" --steps "${STEPS:-200}" 2>&1 | tee -a "$LOG" ;;
    steps)
      say "per-step times"
      PYTHONUNBUFFERED=1 python3 tests/bench/gpu_step_times.py --cli "$BUILD/app/ampscope-cli" --data "$DATA" \
        "default" "probes off::probes.every=0,probes.locate_nonfinite=off" \
        "locator by replay only::probes.every=0" "locator always only::probes.every=0,probes.locate_nonfinite=always" \
        "locator always, probes every 50::probes.locate_nonfinite=always" \
        "bf16::precision.mode=bf16" "batch 1024::train.batch_size=1024" \
        2>&1 | tee -a "$LOG"
      PYTHONUNBUFFERED=1 python3 tests/bench/peer_loop.py --device cuda --data "$DATA" --steps 200 --warmup 0 \
        2>&1 | tee -a "$LOG"
      PYTHONUNBUFFERED=1 python3 tests/bench/peer_loop.py --device cuda --data "$DATA" --steps 200 --warmup 5 \
        2>&1 | tee -a "$LOG" ;;
    trace)
      # A probe step (50) and a clean step (51) of deep_cnn fp16 at batch 1024 and of
      # simple_cnn at 128, traced with their kernels; the summaries say where the time went.
      say "step traces"
      for case in "deep_cnn 1024 fp16" "simple_cnn 128 fp32"; do
        read -r model batch mode <<<"$case"
        local dir="$BUILD/trace-$model-$batch"
        rm -rf "$dir"
        "$BUILD/app/ampscope-cli" run examples/fashion-mnist-fp32.json --out "$dir" --quiet \
          --set device=cuda --set model.name="$model" --set train.batch_size="$batch" --set precision.mode="$mode" \
          --set train.max_steps=52 --set data.path="$DATA" --trace-steps 50,51 2>&1 | tee -a "$LOG"
        python3 tests/bench/trace_summary.py "$dir/trace-step-50.json" "$dir/trace-step-51.json" 2>&1 | tee -a "$LOG"
        for step in 50 51; do cp "$dir/trace-step-$step.json" "${OUT:-$ROOT}/trace-$model-$batch-step-$step.json"; done
      done ;;
    fidelity)
      say "gpu_bench fidelity"
      PYTHONUNBUFFERED=1 python3 tests/bench/gpu_bench.py --cli "$BUILD/app/ampscope-cli" --data "$DATA" \
        --skip-speed 2>&1 | tee -a "$LOG" ;;
    *) echo "gpu_session.sh: unknown stage '$1'" | tee -a "$LOG"; return 2 ;;
  esac
  say "stage '$1' took ${SECONDS} s"
}

prepare
for s in "$@"; do
  if [ "$s" = build ]; then build || exit 1; else stage "$s"; fi
done
