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
# trace (Chrome traces of a probe step and a clean step, summarised), fidelity, recorder (the
# recorder's suites under the machine's PyTorch, the example script in fp16 and bf16 and with a
# NaN, its cost on a GPT-style model), script-model (a TorchScript model on CUDA in fp16, bf16
# and fp8, with a NaN located), fp8 (emulated against real fp8 GEMMs), gui (the window trains
# fp16 on the GPU offscreen and saves a screenshot). Run from the repository root.
#
# When .gpu/gui holds the window's packages (docs/guide/gpu.md), the build stage configures
# with the GUI on and builds the window too; if that configure fails it says why and builds
# without it. When .gpu/data/fashion-mnist exists it is the data (a smaller carry than the deb).
set -uo pipefail
ROOT=$PWD
LOG=${LOG:-${OUT:-$ROOT}/session.log}
BUILD=${BUILD:-build-gpu}
DATA=$ROOT/.gpu/root/usr/share/datasets/fashion-mnist
[ -d "$ROOT/.gpu/data/fashion-mnist" ] && DATA=$ROOT/.gpu/data/fashion-mnist
GUI_ROOT=$ROOT/.gpu/guiroot
PYTHON=$(command -v python3)
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
  # The window's libraries go to a root of their own (with Qt Core beside them, where Qt's
  # CMake files look for their siblings), put on the library path only for the window, so
  # that the machine's Python and tools keep their own newer copies of the libraries.
  if [ -d .gpu/gui ]; then
    mkdir -p "$GUI_ROOT"
    for f in .gpu/debs/*.deb .gpu/gui/*.deb; do dpkg -x "$f" "$GUI_ROOT"; done
  fi
}

configure() {
  local torch_prefix=$1 gui=$2 prefix="$1;$ROOT/.gpu/root/usr"
  [ "$gui" = ON ] && prefix="$1;$GUI_ROOT/usr"
  rm -f "$BUILD/CMakeCache.txt"
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAMPSCOPE_BUILD_GUI=$gui \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DZLIB_INCLUDE_DIR=$ROOT/.gpu/root/usr/include -DZLIB_LIBRARY=/usr/lib/x86_64-linux-gnu/libz.so.1 \
    -DAMPSCOPE_TFEVENTS=OFF -DAMPSCOPE_PYTHON="$PYTHON" \
    ${gui:+$( [ "$gui" = ON ] && echo "-DOPENGL_opengl_LIBRARY=$GUI_ROOT/usr/lib/x86_64-linux-gnu/libOpenGL.so.0 -DOPENGL_glx_LIBRARY=$GUI_ROOT/usr/lib/x86_64-linux-gnu/libGLX.so.0 -DOPENGL_INCLUDE_DIR=$GUI_ROOT/usr/include -DOPENGL_EGL_INCLUDE_DIR=$GUI_ROOT/usr/include -DOPENGL_egl_LIBRARY=$GUI_ROOT/usr/lib/x86_64-linux-gnu/libEGL.so.1 -DXKB_INCLUDE_DIR=$GUI_ROOT/usr/include -DXKB_LIBRARY=$GUI_ROOT/usr/lib/x86_64-linux-gnu/libxkbcommon.so.0")} \
    >>"$LOG" 2>&1
}

# The window's run-time environment: the carried libraries and Qt plugins, a fontconfig
# file naming the carried fonts, the offscreen platform.
gui_env() {
  local lib=$GUI_ROOT/usr/lib/x86_64-linux-gnu
  export LD_LIBRARY_PATH=$lib:$LD_LIBRARY_PATH QT_PLUGIN_PATH=$lib/qt6/plugins QT_QPA_PLATFORM=offscreen
  mkdir -p /tmp/ampscope-fc
  cat >/tmp/ampscope-fc/fonts.conf <<CONF
<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$GUI_ROOT/usr/share/fonts</dir><dir>/usr/share/fonts</dir><cachedir>/tmp/ampscope-fc/cache</cachedir></fontconfig>
CONF
  export FONTCONFIG_FILE=/tmp/ampscope-fc/fonts.conf
}

build() {
  say "configure"
  local torch_prefix
  torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
  local gui_targets=""
  if [ -d .gpu/gui ] && configure "$torch_prefix" ON; then
    gui_targets="ampscope"
  else
    [ -d .gpu/gui ] && { say "GUI configure failed: building without the window"; grep -B2 -A12 "CMake Error" "$LOG" | head -40; }
    configure "$torch_prefix" OFF || { tail -40 "$LOG"; return 1; }
  fi
  grep -E "CUDA kernels|Fused probe|Torch|TFEvents|tfevents|recorder suites" "$LOG" | tail -8
  say "build"
  SECONDS=0
  # shellcheck disable=SC2046
  cmake --build "$BUILD" -j"$(nproc)" --target $(grep -v '^#' tests/bench/gpu-targets.txt) $gui_targets \
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
        '/(test_cuda_fused_probe|test_fused_probe_rules|test_precision_emulate|test_probes|test_engine|test_nonfinite_replay|test_probe_engine|test_grad_scaler|test_multi_tensor_optimizer|test_format_modes|test_formats|test_script_model|test_lockstep|test_shadow_probe|script_model_fixtures)$' \
        -j4 2>&1 | tee -a "$LOG" | grep -E "Test +#|tests passed|FAIL|SKIP|QWARN|Not Run" ;;
    recorder)
      say "recorder suites under $("$PYTHON" -c 'import torch; print("torch", torch.__version__)')"
      ctest --test-dir "$BUILD" --output-on-failure -R '^python/' -j8 2>&1 | tee -a "$LOG" \
        | grep -E "Test +#|tests passed|FAIL|Not Run"
      local rr=$BUILD/record-your-run
      rm -rf "$rr"
      for variant in "fp16::" "bf16::" "fp16-nan::--nan-at 120"; do
        local name=${variant%%::*} extra=${variant#*::}
        say "examples/record-your-run/train.py ${name}"
        # shellcheck disable=SC2086
        PYTHONPATH=$ROOT/python "$PYTHON" examples/record-your-run/train.py --steps 300 \
          --precision "${name%-nan}" --out "$rr/$name" $extra 2>&1 | tail -2 | tee -a "$LOG"
        "$PYTHON" - "$rr/$name" <<'PY' 2>&1 | tee -a "$LOG"
import json, sys
run = sys.argv[1]
summary = json.load(open(run + "/summary.json"))
info = next(json.loads(l) for l in open(run + "/events.jsonl") if '"run_info"' in l)
steps = [json.loads(l) for l in open(run + "/events.jsonl") if '"type":"step"' in l.replace(" ", "")]
print(f"  {run}: {len(steps)} steps, torch {info.get('torch_version')}, device {info.get('device_name')}, "
      f"mode {info['precision']['mode']}, final loss {steps[-1].get('loss')}, "
      f"skipped {sum(1 for s in steps if s.get('step_skipped'))}, final scale {steps[-1].get('scale_after')}")
print("  first non-finite:", json.dumps(summary.get("first_nonfinite")))
PY
      done
      say "recorder cost on a GPT-style model"
      PYTHONUNBUFFERED=1 "$PYTHON" tests/bench/recorder_gpu_cost.py --mode fp16 2>&1 | tee -a "$LOG"
      PYTHONUNBUFFERED=1 "$PYTHON" tests/bench/recorder_gpu_cost.py --mode bf16 --blocks 4 2>&1 | tee -a "$LOG" ;;
    script-model)
      say "a TorchScript model on CUDA"
      local sm=$BUILD/own-model
      rm -rf "$sm" && mkdir -p "$sm"
      cp examples/own-model/tinyvit.json "$sm/"
      "$PYTHON" examples/own-model/export_model.py --mnist "$DATA" --out "$sm" 2>&1 | tail -2 | tee -a "$LOG"
      for variant in "fp16::" "bf16::" "fp8::" "fp16-nan::--set faults.0.step=30 --set faults.0.kind=nan_activation --set faults.0.layer=blocks.0.attn.qkv"; do
        local name=${variant%%::*} extra=${variant#*::}
        # shellcheck disable=SC2086
        "$BUILD/app/ampscope-cli" run "$sm/tinyvit.json" --out "$sm/run-$name" --quiet --set device=cuda \
          --set precision.mode="${name%-nan}" --set train.max_steps=60 $extra 2>&1 | tail -3 | tee -a "$LOG"
        "$PYTHON" - "$sm/run-$name" <<'PY' 2>&1 | tee -a "$LOG"
import json, sys
run = sys.argv[1]
summary = json.load(open(run + "/summary.json"))
events = [json.loads(l) for l in open(run + "/events.jsonl")]
info = next(e for e in events if e.get("type") == "run_info")
steps = [e for e in events if e.get("type") == "step"]
nonfinite = [e for e in events if e.get("type") == "nonfinite"]
print(f"  {run}: {len(steps)} steps on {info.get('device_name') or info.get('device')}, "
      f"{json.dumps(info.get('precision'))[:160]}, final loss {steps[-1].get('loss') if steps else None}")
for e in nonfinite[:1]:
    print("  first non-finite:", json.dumps({k: v for k, v in e.items() if k != "frames"})[:600])
PY
      done ;;
    fp8)
      say "emulated against real fp8 GEMMs"
      PYTHONUNBUFFERED=1 "$PYTHON" tests/bench/fp8_accumulation.py 2>&1 | tee -a "$LOG" ;;
    gui)
      say "the window on the GPU, offscreen"
      [ -x "$BUILD/app/ampscope" ] || { echo "no window was built" | tee -a "$LOG"; return 1; }
      (
        gui_env
        "$PYTHON" - "$DATA" >"$BUILD/gui-fp16-cuda.json" <<'PY'
import json, sys
config = json.load(open("examples/fashion-mnist-fp16.json"))
config.update(device="cuda", name="fashion-mnist-fp16-cuda")
config.setdefault("data", {})["path"] = sys.argv[1]
print(json.dumps(config))
PY
        for size in 1280x800 1920x1080; do
          # The offscreen platform's screen size comes from a config file of its own.
          printf '{"screens":[{"name":"gpu","x":0,"y":0,"width":%d,"height":%d,"logicalDpi":96}]}' \
            "${size%x*}" "${size#*x}" >"/tmp/ampscope-fc/screen-$size.json"
          QT_QPA_PLATFORM="offscreen:configfile=/tmp/ampscope-fc/screen-$size.json" timeout 300 \
            "$BUILD/app/ampscope" --config "$BUILD/gui-fp16-cuda.json" --out "$BUILD/gui-runs" \
            --screenshot "${OUT:-$ROOT}/gpu-window-fp16-$size.png" --after-steps 400 2>&1 | tail -5 | tee -a "$LOG"
        done
      ) ;;
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
