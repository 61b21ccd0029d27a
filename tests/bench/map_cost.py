#!/usr/bin/env python3
"""Precision map cost: how long a mapped step takes (probes.precision_map_steps: the
step itself watched, every op's output kept and, in a low-precision mode, each op run
again in fp32 on the run's own inputs; the same step in an fp32 twin, each of its ops
compared as it is kept; the record written) against the plain steps of the same run,
interleaved: every fifth step is mapped, the steps between are plain. Target: at most
4x a plain step.

  map_cost.py --cli build/app/ampscope-cli [--steps 40] [--rounds 3] [--threads 2]
              [--json] [--smoke]

Reports, per mode (simple_cnn on FashionMNIST, batch 128), the median over the rounds
of the median mapped step and the median plain step (probe steps left out).
"""
import json
import os
import statistics
import tempfile

from bench_common import ROOT, emit, engine_bench_parser, engine_summary, fail, median, \
    parse_engine_bench_args, row

SCRIPT = "map_cost.py"
MODES = [("fashion-mnist-fp32.json", "fp32", []), ("fashion-mnist-bf16.json", "bf16", []),
         ("fashion-mnist-fp32.json", "mxfp8", ["precision.mode=mxfp8"])]
TARGET = 4.0


def step_seconds(out):
    times = {}
    with open(os.path.join(out, "events.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "step" and isinstance(record.get("step_seconds"), (int, float)):
                times[record["step"]] = record["step_seconds"]
    return times


def measure(cli, steps, rounds, threads):
    rows = []
    mapped_steps = list(range(5, steps + 1, 5))
    if not mapped_steps:
        fail(SCRIPT, "--steps: at least 5")
    with tempfile.TemporaryDirectory(prefix="ampscope-map-") as workdir:
        for example, mode, sets in MODES:
            mapped_ms, plain_ms = [], []
            for r in range(rounds):
                out = os.path.join(workdir, f"{mode}-{r}")
                engine_summary(SCRIPT, cli, os.path.join(ROOT, "examples", example),
                               sets + [f"train.max_steps={steps}", f"threads={threads}", "probes.every=1000",
                                       f"probes.precision_map_steps={json.dumps(mapped_steps)}"], out)
                maps = 0
                with open(os.path.join(out, "events.jsonl")) as f:
                    maps = sum(1 for line in f if '"type":"precision_map"' in line.replace(" ", ""))
                if maps != len(mapped_steps):
                    fail(SCRIPT, f"{out}: {maps} precision_map records, expected {len(mapped_steps)}")
                times = step_seconds(out)
                mapped_ms.append(1000 * statistics.median(times[s] for s in mapped_steps))
                # Step 1 is a probe step and warms up: left out.
                plain_ms.append(1000 * statistics.median(t for s, t in times.items()
                                                         if s > 1 and s not in mapped_steps))
            m, p = median(mapped_ms), median(plain_ms)
            ratio = m / p
            rows.append(row("map cost", f"simple_cnn {mode}, batch 128: a mapped step / a plain step, ms",
                            f"{m:.1f} / {p:.1f}", f"{ratio:.2f}x a step", f"<= {TARGET:g}x", ratio <= TARGET))
    return rows


def main():
    parser = engine_bench_parser(__doc__.splitlines()[0], 40)
    args = parse_engine_bench_args(SCRIPT, parser)
    if args.smoke:
        args.steps = 6
    rows = measure(args.cli, args.steps, args.rounds, args.threads)
    emit(rows, args.json, f"Precision map cost: {args.threads} threads, {args.steps} steps, "
                          f"median of {args.rounds} rounds")


if __name__ == "__main__":
    main()
