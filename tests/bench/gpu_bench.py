#!/usr/bin/env python3
"""GPU benchmark: ampscope-cli on a CUDA device against the plain torch.amp loop
(peer_loop.py), and how faithful AmpScope's fp16 emulation is to real fp16.

1. Speed and memory. For simple_cnn and deep_cnn at batch 128 and 1024 (--cases picks),
   and the modes fp32, tf32, fp16 (+ dynamic loss scaler: torch.amp.GradScaler in the
   peer) and bf16, runs the engine (default probes on) and the peer interleaved,
   A B A B, --rounds times, and prints the medians: samples/s of each (after the first
   --warmup steps on both sides: the first CUDA step initialises cuBLAS/cuDNN and loads
   kernels, which is not the mode's speed), engine/peer,
   each one's samples/s as a ratio to its own fp32, and peak memory (summary.json's
   peak_memory_bytes, the CUDA allocator's peak on CUDA; the peer reports
   torch.cuda.max_memory_allocated, the same counter).
2. Emulation fidelity. fp16 on the GPU twice with the same seed, initial weights and
   batches: real (precision.emulate auto) and emulated (precision.emulate always).
   Prints, per layer, the mean flushed fraction of the scaled parameter gradients
   from summary.json (real fp16: estimated from the exponent histogram; emulated:
   counted exactly where fp16 would round) and the what-if flushed fraction at the
   loss scale from the underflow records (exact in both), then the loss curves' max
   and mean absolute difference, step by step.

  gpu_bench.py --cli build-gpu/app/ampscope-cli [--data DIR] [--steps 200] [--rounds 3]
               [--fidelity-steps 500] [--python python3]

--data: the folder with FashionMNIST's gzip IDX files (default: Debian's location).
--smoke: 3 steps, 1 round, one case; with --device cpu (what CTest runs) the modes are
fp32 and bf16, and the fidelity part cannot compare real fp16 with its emulation: the CPU
has no fp16, so both runs take the emulated path, and what it checks is that the same
path twice repeats itself exactly (the loss curves differ by 0), as it says when it prints.

The script checks its own rows: every case and mode with a positive samples/s on both
sides, both fidelity runs holding every step, and (same path twice) a difference of 0;
anything missing exits 1 with a line saying what.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_common import SMOKE_DATA_SETS

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASE_CONFIG = os.path.join(ROOT, "examples", "fashion-mnist-fp32.json")
CASES = [("simple_cnn", 128), ("simple_cnn", 1024), ("deep_cnn", 128), ("deep_cnn", 1024)]
GPU_MODES = ["fp32", "tf32", "fp16", "bf16"]
CPU_MODES = ["fp32", "bf16"]  # the CPU has no tf32 units and no fp16 autocast here


def fail(message):
    sys.exit(f"gpu_bench.py: {message}")


PROBLEMS = []  # what the rows lack; printed, and exit 1, at the end


def expect(condition, problem):
    if not condition:
        PROBLEMS.append(problem)


def engine_run(args, workdir, name, settings):
    """Runs ampscope-cli on the base config with --set overrides; returns (summary, events)."""
    out = os.path.join(workdir, name)
    command = [args.cli, "run", BASE_CONFIG, "--out", out, "--quiet",
               "--set", f"device={args.device}", "--set", f"threads={args.threads}"]
    if args.data:
        command += ["--set", f"data.path={args.data}"]
    for key, value in settings.items():
        command += ["--set", f"{key}={value}"]
    if args.smoke:
        for setting in SMOKE_DATA_SETS:
            command += ["--set", setting]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()}")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    events = []
    with open(os.path.join(out, "events.jsonl")) as f:
        for line in f:
            line = line.strip()
            if line:
                events.append(json.loads(line))
    return summary, events


def steady_samples_per_second(events, batch, warmup):
    """The engine's samples/s over its steps after the first `warmup` (the peer times
    the same steps: it runs warmup + steps and times the last `steps`)."""
    seconds = 0.0
    samples = 0
    for e in events:
        if e.get("type") == "step" and e["step"] > warmup and e.get("samples_per_second"):
            seconds += batch / e["samples_per_second"]
            samples += batch
    return samples / seconds if seconds else 0.0


def peer_run(args, model, batch, mode, steps):
    command = [args.python, os.path.join(HERE, "peer_loop.py"), "--device", args.device,
               "--model", model, "--batch", str(batch), "--mode", mode, "--steps", str(steps),
               "--warmup", str(args.warmup), "--threads", str(args.threads)]
    if args.data:
        command += ["--data", args.data]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"peer_loop.py: exit {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def mib(n):
    return f"{n / 2**20:.0f}" if n else "-"


def speed_table(args, workdir, cases, modes):
    rows = []
    for model, batch in cases:
        for mode in modes:
            engine, peer = [], []
            for r in range(args.rounds):
                summary, events = engine_run(args, workdir, f"speed-{model}-{batch}-{mode}-{r}", {
                    "model.name": model, "train.batch_size": batch, "precision.mode": mode,
                    "train.max_steps": args.steps + args.warmup})
                engine.append((steady_samples_per_second(events, batch, args.warmup),
                               summary.get("peak_memory_bytes", 0)))
                result = peer_run(args, model, batch, mode, args.steps)
                peer.append((result["samples_per_second"], result.get("peak_memory_bytes", 0)))
            rows.append({
                "model": model, "batch": batch, "mode": mode,
                "engine": statistics.median(e[0] for e in engine),
                "peer": statistics.median(p[0] for p in peer),
                "engine_peak": statistics.median(e[1] for e in engine),
                "peer_peak": statistics.median(p[1] for p in peer)})
    print(f"Engine vs plain torch.amp loop on {args.device}: FashionMNIST, Adam, {args.steps} steps "
          f"timed after {args.warmup} warm-up steps, median of {args.rounds} interleaved rounds")
    print()
    print("| model | batch | mode | ampscope-cli samples/s | peer samples/s | engine/peer "
          "| engine vs its fp32 | peer vs its fp32 | engine peak MiB | peer peak MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    expect(len(rows) == len(cases) * len(modes),
           f"speed table: {len(rows)} rows for {len(cases)} cases x {len(modes)} modes")
    for row in rows:
        expect(row["engine"] > 0 and row["peer"] > 0,
               f"speed table: {row['model']} {row['batch']} {row['mode']}: samples/s engine "
               f"{row['engine']}, peer {row['peer']}")
    for row in rows:
        fp32 = next(r for r in rows if r["model"] == row["model"] and r["batch"] == row["batch"]
                    and r["mode"] == "fp32")
        print(f"| {row['model']} | {row['batch']} | {row['mode']} | {row['engine']:.0f} | "
              f"{row['peer']:.0f} | {row['engine'] / row['peer']:.2f} | "
              f"{row['engine'] / fp32['engine']:.2f} | {row['peer'] / fp32['peer']:.2f} | "
              f"{mib(row['engine_peak'])} | {mib(row['peer_peak'])} |")
    print()


def step_losses(events):
    return {e["step"]: e["loss"] for e in events if e.get("type") == "step"}


def what_if_flushed(events):
    """Per layer: mean over probe steps of the flushed fraction of the unscaled gradients
    multiplied by the loss scale (the middle of the scale/2, scale, 2*scale records)."""
    by_layer_step = {}
    for e in events:
        if e.get("type") == "underflow" and e.get("kind") == "param_grad":
            by_layer_step.setdefault(e["layer"], {}).setdefault(e["step"], []).append(e)
    out = {}
    for layer, steps in by_layer_step.items():
        fractions = []
        for rows in steps.values():
            rows.sort(key=lambda r: r.get("multiplier", 1.0))
            at_scale = rows[len(rows) // 2]
            total = sum(at_scale[k] for k in ("zero", "flushed", "subnormal", "normal", "overflow", "nan", "inf"))
            if total:
                fractions.append(at_scale["flushed"] / total)
        if fractions:
            out[layer] = statistics.mean(fractions)
    return out


def fidelity(args, workdir, model, batch):
    settings = {"model.name": model, "train.batch_size": batch, "precision.mode": "fp16",
                "train.max_steps": args.fidelity_steps, "probes.every": args.probe_every}
    real_summary, real_events = engine_run(args, workdir, "fidelity-real", dict(settings, **{"precision.emulate": "auto"}))
    emu_summary, emu_events = engine_run(args, workdir, "fidelity-emulated", dict(settings, **{"precision.emulate": "always"}))
    # Without fp16 hardware (the CPU) "real" resolves to the emulated path too: the two runs
    # are then the same path twice, and what is compared is that it repeats itself.
    same_path = real_summary["precision"]["execution"] == emu_summary["precision"]["execution"]
    print(f"fp16 on {args.device}, {model} batch {batch}, {args.fidelity_steps} steps, probes every "
          f"{args.probe_every}: real ({real_summary['precision']['execution']}) vs emulated "
          f"({emu_summary['precision']['execution']})")
    if same_path:
        print(f"No fp16 on {args.device}: both runs took the emulated path, so this part checks that "
              "the path repeats itself exactly, not how faithful the emulation is.")
    print()
    real_flush = {u["layer"]: u for u in real_summary.get("underflow", [])}
    emu_flush = {u["layer"]: u for u in emu_summary.get("underflow", [])}
    real_what_if, emu_what_if = what_if_flushed(real_events), what_if_flushed(emu_events)
    print("| layer | flushed, real (estimated) | flushed, emulated (exact) | what-if at scale, real "
          "| what-if at scale, emulated |")
    print("|---|---|---|---|---|")
    layers = [u["layer"] for u in real_summary.get("underflow", [])] or sorted(real_what_if)
    for layer in layers:
        r, e = real_flush.get(layer), emu_flush.get(layer)
        cells = [f"{x['mean_flushed_fraction']:.3g}" if x else "-" for x in (r, e)]
        cells += [f"{d[layer]:.3g}" if layer in d else "-" for d in (real_what_if, emu_what_if)]
        print(f"| {layer} | " + " | ".join(cells) + " |")
    print()
    real_losses, emu_losses = step_losses(real_events), step_losses(emu_events)
    common = sorted(set(real_losses) & set(emu_losses))
    diffs = [abs(real_losses[s] - emu_losses[s]) for s in common
             if real_losses[s] is not None and emu_losses[s] is not None]
    label = "the emulated path twice, must be 0" if same_path else "real vs emulated"
    print(f"loss curves over {len(common)} steps, {label}: max |difference| = "
          f"{max(diffs) if diffs else float('nan'):.4g}, "
          f"mean = {statistics.mean(diffs) if diffs else float('nan'):.4g}; final train loss real "
          f"{real_summary.get('final_train_loss')}, emulated {emu_summary.get('final_train_loss')}; "
          f"skipped steps real {real_summary.get('skipped_steps')}, emulated {emu_summary.get('skipped_steps')}")
    expect(len(real_losses) == args.fidelity_steps and len(emu_losses) == args.fidelity_steps,
           f"fidelity: {len(real_losses)} and {len(emu_losses)} step losses for {args.fidelity_steps} steps")
    expect(len(diffs) == len(common), f"fidelity: {len(common) - len(diffs)} steps without a loss")
    expect(bool(layers), "fidelity: no layer in the flushed-fraction table")
    if same_path:
        expect(diffs and max(diffs) == 0.0,
               f"fidelity: the same path twice differs (max {max(diffs) if diffs else 'no steps'})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "ampscope-cli"))
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--data", default="", help="FashionMNIST folder (default: Debian's)")
    parser.add_argument("--python", default=sys.executable, help="the python with torch for the peer")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=5, help="untimed first steps, both sides")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--fidelity-steps", type=int, default=500)
    parser.add_argument("--probe-every", type=int, default=10)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-fidelity", action="store_true")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--cases", default="",
                        help="MODEL:BATCH,... (default: every case: " +
                             ",".join(f"{m}:{b}" for m, b in CASES) + ")")
    args = parser.parse_args()
    cases = CASES
    if args.cases:
        try:
            cases = [(m, int(b)) for m, b in (c.split(":") for c in args.cases.split(","))]
        except ValueError:
            fail(f"--cases {args.cases!r}: expected MODEL:BATCH[,MODEL:BATCH...]")
    modes = GPU_MODES if args.device == "cuda" else CPU_MODES
    if args.smoke:
        args.steps, args.rounds, args.fidelity_steps, args.probe_every, args.warmup = 3, 1, 4, 2, 1
        cases = CASES[:1]
    if not os.access(args.cli, os.X_OK):
        fail(f"{args.cli}: not an executable (build first or pass --cli)")
    with tempfile.TemporaryDirectory(prefix="ampscope-gpu-bench-") as workdir:
        if not args.skip_speed:
            speed_table(args, workdir, cases, modes)
        if not args.skip_fidelity:
            fidelity(args, workdir, *cases[0])
    for problem in PROBLEMS:
        print(f"gpu_bench.py: {problem}", file=sys.stderr)
    if PROBLEMS:
        sys.exit(1)


if __name__ == "__main__":
    main()
