#!/usr/bin/python3
"""The emulated formats at the machine's limit, one table: what each format mode costs
per step against fp32, its peak memory against fp32's (batch 128 and 1024, probes on
and off) and where the memory goes, the default probes against probes off in fp32 and
bf16, and a format-sweep step against a plain step.

  emulation_cost.py [--build build] [--steps 150] [--rounds 3] [--threads 2] [--json] [--smoke]

Every run is its own ampscope-cli process on FashionMNIST simple_cnn (Adam, seed 0),
as a user's run is; the variants of a measurement take turns in each round (A B A B)
so that drift on a shared machine hits all alike, and the table shows medians and
ratios. Rows:
- cost: samples/s of fp8, mxfp8, mxfp4, nvfp4 and nvfp4 with stochastic gradients
  beside fp32 (batch 128, default probes, --steps steps); targets: fp8 and mxfp8 at
  most 1.3x fp32's step, mxfp4 and nvfp4 1.5x, nvfp4 stochastic 1.8x;
- memory: summary.json's peak memory (the process's peak RSS, the closing evaluation
  at batch 1000 included) of each mode against fp32's, batch 128 (20 steps) and 1024
  (8 steps), default probes (step 1 is a probe step) and probes off; target 1.1x; and
  format_step_bench --memory's split of the tensors alone (a training step, an
  evaluation pass), in use and held by the CPU block cache;
- probes: default probes (every 50, locator by replay) against off, fp32 and bf16,
  300 steps; target 0.98x;
- sweep: one fp32 run with probes every 10 steps and the format sweep every 20: the
  median step time of the sweep steps, of the probe steps without the sweep, and of
  the plain steps.
--smoke: a few steps, one round, memory at batch 128 alone, every row checked (the
numbers mean nothing).
"""
import argparse
import json
import os
import platform
import subprocess
import tempfile

from bench_common import ROOT, emit, engine_summary, fail, median, require_cli, row, use_smoke_data
from probe_cadence import VARIANTS as PROBE_VARIANTS

SCRIPT = "emulation_cost.py"
FP32 = os.path.join(ROOT, "examples", "fashion-mnist-fp32.json")
BF16 = os.path.join(ROOT, "examples", "fashion-mnist-bf16.json")

# mode, the overrides that make it, the cost target (x fp32's step time)
FORMATS = [
    ("fp8", ["precision.mode=fp8"], 1.3),
    ("mxfp8", ["precision.mode=mxfp8"], 1.3),
    ("mxfp4", ["precision.mode=mxfp4"], 1.5),
    ("nvfp4", ["precision.mode=nvfp4"], 1.5),
    ("nvfp4 stochastic", ["precision.mode=nvfp4", "precision.nvfp4.stochastic_gradients=true"], 1.8),
]
MEMORY_TARGET = 1.1
PROBE_TARGET = 0.98
PROBES_OFF, PROBES_DEFAULT = PROBE_VARIANTS[0][1], PROBE_VARIANTS[1][1]


def run(cli, config, sets, out):
    return engine_summary(SCRIPT, cli, config, sets, out)


def machine():
    """The CPU's name and the features that matter here (as /proc/cpuinfo says)."""
    name, flags = platform.processor() or "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    features = [label for flag, label in (("avx512_bf16", "avx512_bf16"), ("amx_tile", "AMX")) if flag in flags]
    return f"{name} with {' and '.join(features)}" if features else name


def cost_rows(cli, workdir, steps, rounds, threads):
    variants = [("fp32", [], None)] + FORMATS
    sps = {name: [] for name, _, _ in variants}
    for r in range(rounds):
        for name, sets, _ in variants:
            out = os.path.join(workdir, f"cost-{name.replace(' ', '-')}-{r}")
            summary = run(cli, FP32, sets + [f"train.max_steps={steps}", f"threads={threads}"], out)
            sps[name].append(summary["samples_per_second"])
    fp32 = median(sps["fp32"])
    rows = [row("cost", "fp32, batch 128, samples/s", f"{fp32:.0f}", "1.00x fp32's step")]
    for name, _, target in FORMATS:
        value = median(sps[name])
        cost = fp32 / value
        rows.append(row("cost", f"{name} (emulated), batch 128, samples/s", f"{value:.0f}",
                        f"{cost:.2f}x fp32's step", f"<= {target}x", cost <= target))
    return rows


def memory_rows(cli, workdir, smoke, threads):
    rows = []
    # --smoke: batch 128 alone (batch 1024 is the same code with a larger number; each
    # run is its own process, and CTest's smoke must stay short).
    for batch, steps in ((128, 2),) if smoke else ((128, 20), (1024, 8)):
        for probes, sets in (("default probes", PROBES_DEFAULT), ("probes off", PROBES_OFF)):
            peak = {}
            for name, mode_sets, _ in [("fp32", [], None)] + FORMATS:
                out = os.path.join(workdir, f"memory-{name.replace(' ', '-')}-{batch}-{len(sets)}")
                summary = run(cli, FP32, mode_sets + sets + [
                    f"train.max_steps={steps}", f"train.batch_size={batch}", f"threads={threads}"], out)
                peak[name] = summary["peak_memory_bytes"] / 2**20
            rows.append(row("memory", f"fp32, batch {batch}, {probes}: peak RSS MiB", f"{peak['fp32']:.0f}", "1.00x fp32's"))
            for name, _, _ in FORMATS:
                ratio = peak[name] / peak["fp32"]
                rows.append(row("memory", f"{name}, batch {batch}, {probes}: peak RSS MiB", f"{peak[name]:.0f}",
                                f"{ratio:.2f}x fp32's", f"<= {MEMORY_TARGET}x", ratio <= MEMORY_TARGET))
    return rows


# format_step_bench --memory's exit status where the build has no CPU block cache.
NO_BLOCK_CACHE = 3


def memory_part_rows(bench, smoke, threads):
    """format_step_bench --memory: | variant | train in use | held | eval in use | held |"""
    rows = []
    for batch in ((4,) if smoke else (128, 1024)):
        command = [bench, "--memory", "--batch", str(batch), "--threads", str(threads),
                   "--variants", "fp32,fp8,mxfp8,mxfp4,nvfp4,nvfp4-sr"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode == NO_BLOCK_CACHE:
            # The split counts the CPU block cache's blocks, which LibTorch 2.x builds do not
            # install: one row says so instead of six numbers.
            return [row("memory parts", "tensors of a training step and an evaluation, MiB",
                        "not measured: " + done.stderr.strip().removeprefix("format_step_bench: "))]
        if done.returncode != 0:
            fail(SCRIPT, f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")
        parts = {}
        for line in done.stdout.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("|") and len(cells) == 5 and cells[1][:1].isdigit():
                parts[cells[0]] = [float(c) for c in cells[1:]]
        if "fp32" not in parts:
            fail(SCRIPT, f"format_step_bench --memory printed no fp32 row:\n{done.stdout}")
        for name, (train, train_held, evaluation, eval_held) in parts.items():
            base = parts["fp32"]
            ratio = "" if name == "fp32" else f"{train / base[0]:.2f}x / {evaluation / base[2]:.2f}x fp32's in use"
            rows.append(row("memory parts", f"{name}, batch {batch}: tensors of a training step in use / held, "
                                            f"of an evaluation (batch 1000) in use / held, MiB",
                            f"{train:.1f} / {train_held:.1f}, {evaluation:.1f} / {eval_held:.1f}", ratio))
    return rows


def probe_rows(cli, workdir, steps, rounds, threads):
    rows = []
    for what, config in (("fp32", FP32), ("bf16", BF16)):
        sps = {"off": [], "default": []}
        for r in range(rounds):
            for name, sets in (("off", PROBES_OFF), ("default", PROBES_DEFAULT)):
                out = os.path.join(workdir, f"probes-{what}-{name}-{r}")
                summary = run(cli, config, sets + [f"train.max_steps={steps}", f"threads={threads}"], out)
                sps[name].append(summary["samples_per_second"])
        off, default = median(sps["off"]), median(sps["default"])
        rows.append(row("probes", f"simple_cnn {what}, batch 128: probes off, samples/s", f"{off:.0f}", "1.000x of off"))
        rows.append(row("probes", f"simple_cnn {what}, batch 128: default probes (every 50, locator by replay), "
                                  "samples/s", f"{default:.0f}", f"{default / off:.3f}x of off",
                        f">= {PROBE_TARGET}x of off", default / off >= PROBE_TARGET))
    return rows


def sweep_rows(cli, workdir, steps, threads):
    """Step times of one run with probes every 10 and the sweep every 20."""
    out = os.path.join(workdir, "sweep")
    run(cli, FP32, ["probes.every=10", "probes.format_sweep_every=20", f"train.max_steps={steps}",
                    f"threads={threads}"], out)
    times = {"sweep": [], "probe": [], "plain": []}
    with open(os.path.join(out, "events.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") != "step" or record["step"] == 1:
                continue  # step 1: a probe step that also warms up
            step = record["step"]
            kind = "sweep" if step % 20 == 0 else ("probe" if step % 10 == 0 else "plain")
            times[kind].append(record["step_seconds"])
    if not all(times.values()):
        fail(SCRIPT, f"sweep: {steps} steps hold no sweep, probe or plain step")
    sweep, probe, plain = (median(times[k]) * 1e3 for k in ("sweep", "probe", "plain"))
    return [row("sweep", "simple_cnn fp32, batch 128: a plain step / a probe step / a format-sweep step, ms",
                f"{plain:.1f} / {probe:.1f} / {sweep:.1f}", f"sweep step {sweep / plain:.2f}x a plain step "
                f"(the sweep itself {(sweep - probe) / plain:.2f}x)")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build folder")
    parser.add_argument("--steps", type=int, default=150, help="steps of the cost runs")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    cli = os.path.join(args.build, "app", "ampscope-cli")
    bench = os.path.join(args.build, "tests", "bench", "format_step_bench")
    require_cli(SCRIPT, cli)
    require_cli(SCRIPT, bench)
    steps, rounds, probe_steps, sweep_steps = args.steps, args.rounds, 300, 101
    if args.smoke:
        steps, rounds, probe_steps, sweep_steps = 3, 1, 3, 21
        use_smoke_data()
    with tempfile.TemporaryDirectory(prefix="ampscope-emulation-") as workdir:
        rows = cost_rows(cli, workdir, steps, rounds, args.threads)
        rows += memory_rows(cli, workdir, args.smoke, args.threads)
        rows += memory_part_rows(bench, args.smoke, args.threads)
        rows += probe_rows(cli, workdir, probe_steps, rounds, args.threads)
        rows += sweep_rows(cli, workdir, sweep_steps, args.threads)
    # Its own rows: 6 cost, 6 modes of memory per batch size and probe setting, 6 modes'
    # parts per batch size, 4 probe rows, 1 sweep row; each with a number.
    # Without the block cache the parts are one row that says so.
    parts_measured = not any(str(r["value"]).startswith("not measured") for r in rows)
    expected = 6 + 6 * (2 if args.smoke else 4) + (6 * (1 if args.smoke else 2) if parts_measured else 1) + 4 + 1
    problems = [f"{r['benchmark']} | {r['measurement']}: no number in {r['value']!r}"
                for r in rows if not any(c.isdigit() for c in str(r["value"]))
                and not str(r["value"]).startswith("not measured")]
    if len(rows) != expected:
        problems.append(f"{len(rows)} rows, {expected} expected")
    load = os.getloadavg()
    emit(rows, args.json,
         f"Emulated formats on {os.cpu_count()} cores of an {machine()}, {args.threads} threads; "
         f"FashionMNIST simple_cnn, Adam; cost over {steps} steps, median of {rounds} interleaved rounds; "
         f"load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    if problems:
        fail(SCRIPT, "; ".join(problems))


if __name__ == "__main__":
    main()
