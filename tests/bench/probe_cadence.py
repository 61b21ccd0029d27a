#!/usr/bin/python3
"""Probe cost: ampscope-cli trains the same model, data, seed and steps with probes
off (no cadence, no locator), at the default cadence (probes every 50, the first NaN
located by replay), at the default cadence with the locator checking every layer on
every step (probes.locate_nonfinite: always), with every probe on every step,
and at the default cadence with the format sweep on each probe step
(probes.format_sweep_every 50), interleaved variant by variant in each round so that
drift hits all alike. Each run is a fresh process, as a user's run is. Reports the
median samples/s and the ratio to "off"; from the sweep variant, the seconds one sweep
step adds and what the sweep would cost at its default cadence (every 1000 steps).

  probe_cadence.py --cli build/app/ampscope-cli [--steps 150] [--rounds 3]
                   [--threads 2] [--json] [--smoke] [--only WORKLOAD]

Workloads: simple_cnn fp32 and bf16 (batch 128) and the small MLP 784-128-10 fp32
(batch 32), on FashionMNIST with Adam. Target: the default cadence at least 0.97x of
off on each. --smoke: 3 steps, 1 round.
"""
import os
import tempfile

from bench_common import (ROOT, emit, engine_bench_parser, engine_summary, median,
                          parse_engine_bench_args, row)

SCRIPT = "probe_cadence.py"

WORKLOADS = [
    ("simple_cnn fp32", "fashion-mnist-fp32.json", []),
    ("simple_cnn bf16", "fashion-mnist-bf16.json", []),
    ("mlp fp32", "fashion-mnist-fp32.json", ["model.name=mlp", "model.hidden=[128]", "train.batch_size=32"]),
]
VARIANTS = [
    ("off", ["probes.every=0", "probes.locate_nonfinite=off"]),
    ("default (every 50, locator by replay)", []),
    ("every 50, locator on every step", ["probes.locate_nonfinite=always"]),
    ("every step", ["probes.every=1", "probes.locate_nonfinite=always"]),
    ("every 50, format sweep on each probe step", ["probes.format_sweep_every=50"]),
]
SWEEP_EVERY = 50
DEFAULT_SWEEP_EVERY = 500  # RunConfig.h's probes.format_sweep_every
BATCH = {"simple_cnn fp32": 128, "simple_cnn bf16": 128, "mlp fp32": 32}
TARGET = 0.97


def measure(cli, steps, rounds, threads, only=None):
    rows = []
    with tempfile.TemporaryDirectory(prefix="ampscope-probes-") as workdir:
        for what, example, sets in WORKLOADS:
            if only and only not in what:
                continue
            results = {name: [] for name, _ in VARIANTS}
            for r in range(rounds):
                for k, (name, variant) in enumerate(VARIANTS):
                    out = os.path.join(workdir, f"{what.replace(' ', '-')}-{k}-{r}")
                    summary = engine_summary(SCRIPT, cli, os.path.join(ROOT, "examples", example),
                                             sets + variant + [f"train.max_steps={steps}",
                                                               f"threads={threads}"], out)
                    results[name].append(summary["samples_per_second"])
            off = median(results[VARIANTS[0][0]])
            for k, (name, _) in enumerate(VARIANTS):
                sps = median(results[name])
                budgeted = k == 1
                rows.append(row("probe cadence", f"{what}: {name}, samples/s", f"{sps:.0f}",
                                f"{sps / off:.3f}x of off", f">= {TARGET}x of off" if budgeted else "",
                                (sps / off >= TARGET) if budgeted else None))
            # The sweep: the time its sweep steps add over the default cadence, per sweep
            # step, and that time spread over DEFAULT_SWEEP_EVERY steps of the default cadence.
            sweeps = steps // SWEEP_EVERY
            if sweeps:
                default = median(results[VARIANTS[1][0]])
                swept = median(results[VARIANTS[-1][0]])
                batch = BATCH[what]
                per_sweep = (steps * batch / swept - steps * batch / default) / sweeps
                step_seconds = batch / default
                estimate = default / off / (1 + per_sweep / (DEFAULT_SWEEP_EVERY * step_seconds))
                rows.append(row("probe cadence", f"{what}: seconds one format sweep step adds",
                                f"{per_sweep:.2f}", f"{per_sweep / step_seconds:.0f} steps' time", "", None))
                rows.append(row("probe cadence",
                                f"{what}: default cadence with the sweep every {DEFAULT_SWEEP_EVERY} steps "
                                "(estimated from the above), samples/s", f"{off * estimate:.0f}",
                                f"{estimate:.3f}x of off", ">= 0.95x of off", estimate >= 0.95))
    return rows


def main():
    parser = engine_bench_parser(__doc__.splitlines()[0], 150)
    parser.add_argument("--only", help="only the workloads whose name contains this")
    args = parse_engine_bench_args(SCRIPT, parser)
    rows = measure(args.cli, args.steps, args.rounds, args.threads, args.only)
    emit(rows, args.json, f"Probe cost: {args.threads} threads, {args.steps} steps, median of "
                          f"{args.rounds} interleaved rounds")


if __name__ == "__main__":
    main()
