#!/usr/bin/env python3
"""Sensitivity pass cost: how long one pass of `ampscope-cli sensitivity` takes (an fp32
twin's forward and backward on the step's batch, then one forward per format with each
layer's operands swapped in) against a plain training step of the same config, measured
side by side: a plain run, a sensitivity run and an ordinary run with the pass inside it
(`probes.sensitivity_every`) of the same steps, interleaved round by round. Target: at
most 2 plain steps per format, for the CLI's pass and for the engine's.

  sensitivity_cost.py --cli build/app/ampscope-cli [--steps 20] [--rounds 3] [--threads 2]
                      [--json] [--smoke]

Reports (simple_cnn on FashionMNIST, batch 128, fp32) the median over the rounds of the
median pass with all four formats, and the median plain step (step 1 left out); the
engine's row also the median step of the run that has the pass (its steps are timed
without the pass, so they should equal the plain run's).
"""
import json
import os
import statistics
import subprocess
import tempfile

from bench_common import ROOT, _smoke_data_sets, emit, engine_bench_parser, engine_summary, fail, median, \
    parse_engine_bench_args, row

SCRIPT = "sensitivity_cost.py"
CONFIG = os.path.join(ROOT, "examples", "fashion-mnist-fp32.json")
FORMATS = ["fp8", "mxfp8", "mxfp4", "nvfp4"]
TARGET = 2.0


def plain_step_ms(cli, steps, threads, out):
    engine_summary(SCRIPT, cli, CONFIG, [f"train.max_steps={steps}", f"threads={threads}"], out)
    times = []
    with open(os.path.join(out, "events.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "step" and record.get("step", 0) > 1:
                times.append(record["step_seconds"])
    return 1000 * statistics.median(times)


def pass_ms(cli, steps, threads, out):
    command = [cli, "sensitivity", CONFIG, "--out", out, "--quiet", "--formats", ",".join(FORMATS),
               "--steps", str(steps), "--every", str(max(1, steps // 4)), "--set", f"threads={threads}"]
    for s in _smoke_data_sets:
        command += ["--set", s]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(SCRIPT, f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()}")
    with open(os.path.join(out, "sensitivity.jsonl")) as f:
        seconds = [json.loads(line)["seconds"] for line in f if line.strip()]
    # The first pass builds the twins: left out when there are others.
    return 1000 * statistics.median(seconds[1:] if len(seconds) > 1 else seconds)


def engine_pass_ms(cli, steps, threads, out):
    """An ordinary run with the pass inside it: (median pass, median step), ms."""
    every = max(1, steps // 4)
    engine_summary(SCRIPT, cli, CONFIG, [f"train.max_steps={steps}", f"threads={threads}",
                                         f"probes.sensitivity_every={every}",
                                         "probes.sensitivity_formats=" + json.dumps(FORMATS)], out)
    seconds, times = [], []
    with open(os.path.join(out, "events.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "sensitivity":
                seconds.append(record["seconds"])
            elif record.get("type") == "step" and record.get("step", 0) > 1:
                times.append(record["step_seconds"])
    if len(seconds) != steps // every:
        fail(SCRIPT, f"{out}: {len(seconds)} sensitivity records, expected {steps // every}")
    return (1000 * statistics.median(seconds[1:] if len(seconds) > 1 else seconds),
            1000 * statistics.median(times))


def measure(cli, steps, rounds, threads):
    passes, plains, engine_passes, engine_steps = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="ampscope-sensitivity-") as workdir:
        for r in range(rounds):
            plains.append(plain_step_ms(cli, steps, threads, os.path.join(workdir, f"plain-{r}")))
            passes.append(pass_ms(cli, steps, threads, os.path.join(workdir, f"pass-{r}")))
            inside, step = engine_pass_ms(cli, steps, threads, os.path.join(workdir, f"engine-{r}"))
            engine_passes.append(inside)
            engine_steps.append(step)
    p, s = median(passes), median(plains)
    per_format = p / len(FORMATS) / s
    e = median(engine_passes)
    engine_per_format = e / len(FORMATS) / s
    return [row("sensitivity cost",
                f"simple_cnn fp32, batch 128: one pass in {len(FORMATS)} formats / a plain step, ms",
                f"{p:.1f} / {s:.1f}", f"{per_format:.2f} steps per format", f"<= {TARGET:g}",
                per_format <= TARGET),
            row("sensitivity cost",
                f"simple_cnn fp32, batch 128, inside a run (probes.sensitivity_every): one pass in "
                f"{len(FORMATS)} formats / a plain step, ms (that run's step: {median(engine_steps):.1f})",
                f"{e:.1f} / {s:.1f}", f"{engine_per_format:.2f} steps per format", f"<= {TARGET:g}",
                engine_per_format <= TARGET)]


def main():
    parser = engine_bench_parser(__doc__.splitlines()[0], 20)
    args = parse_engine_bench_args(SCRIPT, parser)
    if args.smoke:
        args.steps = 8
    rows = measure(args.cli, args.steps, args.rounds, args.threads)
    emit(rows, args.json, f"Sensitivity pass cost: {args.threads} threads, {args.steps} steps, "
                          f"median of {args.rounds} rounds")


if __name__ == "__main__":
    main()
