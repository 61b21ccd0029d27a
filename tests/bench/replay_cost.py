#!/usr/bin/env python3
"""Replay cost: how long the step that goes non-finite takes when the first NaN is
located by replaying it (probes.locate_nonfinite: replay, the default), against the
run's clean steps. The extra time is the replay: the step's forward and backward
run a second time with every layer's output and gradient checked, then the event
is written. A NaN is injected into a hidden layer's output at a step that is not a
probe step, so the replay is what finds it.

  replay_cost.py --cli build/app/ampscope-cli [--steps 100] [--rounds 3] [--threads 2]
                 [--json] [--smoke]

Reports, per mode (simple_cnn fp32 and bf16, batch 128), the median over the rounds
of: the NaN step's time, the median clean step's time, and their difference (the
time from the NaN step to its located event beyond a normal step).
"""
import json
import os
import statistics
import tempfile

from bench_common import ROOT, emit, engine_bench_parser, engine_summary, fail, median, \
    parse_engine_bench_args, row

SCRIPT = "replay_cost.py"
MODES = [("fashion-mnist-fp32.json", "fp32"), ("fashion-mnist-bf16.json", "bf16")]


def step_times_ms(out, batch):
    """Each step's time in ms (a step record's samples/s is batch / step time)."""
    times = {}
    with open(os.path.join(out, "events.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "step" and record.get("samples_per_second"):
                times[record["step"]] = 1000.0 * batch / record["samples_per_second"]
    return times


def located_event(out):
    with open(os.path.join(out, "events.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "nonfinite":
                return record
    return None


def measure(cli, steps, rounds, threads):
    rows = []
    # Not a probe step (every 50) and late enough for the clean steps to settle.
    nan_step = max(3, steps - 7 if (steps - 7) % 50 else steps - 8)
    batch = 128
    with tempfile.TemporaryDirectory(prefix="ampscope-replay-") as workdir:
        for example, mode in MODES:
            nan_ms, clean_ms = [], []
            for r in range(rounds):
                out = os.path.join(workdir, f"{mode}-{r}")
                engine_summary(SCRIPT, cli, os.path.join(ROOT, "examples", example),
                               [f"train.max_steps={steps}", f"threads={threads}",
                                'faults=[{"kind": "nan_activation", "layer": "conv2", '
                                f'"step": {nan_step}}}]'], out)
                event = located_event(out)
                if not event or event.get("step") != nan_step or event.get("located_by") != "replay":
                    fail(SCRIPT, f"{out}: expected an event at step {nan_step} located by replay, got {event}")
                times = step_times_ms(out, batch)
                nan_ms.append(times[nan_step])
                clean_ms.append(statistics.median(t for s, t in times.items() if 2 <= s < nan_step))
            n, c = median(nan_ms), median(clean_ms)
            rows.append(row("replay cost", f"simple_cnn {mode}, batch 128: the NaN step (replayed, "
                            "event located) / a clean step, ms", f"{n:.1f} / {c:.1f} (+{n - c:.1f} ms)",
                            f"{n / c:.2f}x a step"))
    return rows


def main():
    parser = engine_bench_parser(__doc__.splitlines()[0], 100)
    args = parse_engine_bench_args(SCRIPT, parser)
    if args.smoke:
        args.steps = 6
    rows = measure(args.cli, args.steps, args.rounds, args.threads)
    emit(rows, args.json, f"Replay cost: {args.threads} threads, {args.steps} steps, "
                          f"median of {args.rounds} rounds")


if __name__ == "__main__":
    main()
