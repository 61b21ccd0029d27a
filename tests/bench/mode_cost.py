#!/usr/bin/python3
"""Cost of each precision mode on this CPU: ampscope-cli trains FashionMNIST
simple_cnn (batch 128, Adam, default probes) in every mode, interleaved mode by
mode in each round so that drift hits all alike; reports the median samples/s
and the ratio to fp32.

  mode_cost.py --cli build/app/ampscope-cli [--steps 150] [--rounds 3]
               [--threads 2] [--json] [--smoke] [--modes fp32,fp8,...]

Targets: bf16 (real CPU autocast) at least 1.25x the speed of fp32 on a CPU with
avx512_bf16; fp16 emulation costing no more than 1.5x fp32 (speed ratio at least
1/1.5); the fp8 and mxfp8 emulations no more than 2x fp32. --smoke: 3 steps, 1 round.
"""
import os
import tempfile

from bench_common import (ROOT, emit, engine_bench_parser, engine_summary, median,
                          parse_engine_bench_args, row)

SCRIPT = "mode_cost.py"

# mode, example config, what the row says
MODES = [
    ("fp32", "fashion-mnist-fp32.json", "fp32"),
    ("bf16", "fashion-mnist-bf16.json", "bf16 (real CPU autocast)"),
    ("fp16", "fashion-mnist-fp16.json", "fp16 + dynamic scaler (emulated)"),
    ("tf32", "fashion-mnist-tf32.json", "tf32 (emulated)"),
    ("fp16_pure", "fashion-mnist-fp16-pure.json", "fp16 pure (emulated)"),
    ("bf16_pure", "fashion-mnist-bf16-pure.json", "bf16 pure (real bf16 weights)"),
    # The low-precision formats, emulated (fake quantization of every matmul/conv operand).
    ("fp8", "fashion-mnist-fp32.json", "fp8 hybrid, delayed scaling (emulated)"),
    ("mxfp8", "fashion-mnist-fp32.json", "mxfp8 (emulated)"),
    ("mxfp4", "fashion-mnist-fp32.json", "mxfp4 (emulated)"),
    ("nvfp4", "fashion-mnist-fp32.json", "nvfp4 (emulated)"),
]
# Modes run from another mode's example config, by name.
MODE_SETS = {"fp8": ["precision.mode=fp8"], "mxfp8": ["precision.mode=mxfp8"],
             "mxfp4": ["precision.mode=mxfp4"], "nvfp4": ["precision.mode=nvfp4"]}


def measure(cli, steps, rounds, threads, chosen):
    # fp32 always runs: every ratio is to it.
    modes = [m for m in MODES if not chosen or m[0] == "fp32" or m[0] in chosen]
    results = {mode: [] for mode, _, _ in modes}
    with tempfile.TemporaryDirectory(prefix="ampscope-modes-") as workdir:
        for r in range(rounds):
            for mode, example, _ in modes:
                summary = engine_summary(SCRIPT, cli, os.path.join(ROOT, "examples", example),
                                         [f"train.max_steps={steps}", f"threads={threads}"]
                                         + MODE_SETS.get(mode, []),
                                         os.path.join(workdir, f"{mode}-{r}"))
                results[mode].append(summary["samples_per_second"])
    fp32 = median(results["fp32"])
    rows = []
    for mode, _, what in modes:
        sps = median(results[mode])
        speed = sps / fp32
        target, met = "", None
        if mode == "bf16":
            target, met = ">= 1.25x fp32 speed", speed >= 1.25
        elif mode == "fp16":
            target, met = "cost <= 1.5x fp32", 1.0 / speed <= 1.5
        elif mode in ("fp8", "mxfp8"):
            target, met = "cost <= 2x fp32", 1.0 / speed <= 2.0
        rows.append(row("mode cost", f"{what}, samples/s", f"{sps:.0f}",
                        f"{speed:.2f}x speed ({1.0 / speed:.2f}x cost)", target, met))
    return rows


def main():
    parser = engine_bench_parser(__doc__.splitlines()[0], 150)
    parser.add_argument("--modes", default="", help="comma-separated modes to run (fp32 always runs)")
    args = parse_engine_bench_args(SCRIPT, parser)
    known = {mode for mode, _, _ in MODES}
    chosen = [m for m in args.modes.split(",") if m]
    for m in chosen:
        if m not in known:
            parser.error(f"--modes: unknown mode {m!r} (known: {', '.join(sorted(known))})")
    rows = measure(args.cli, args.steps, args.rounds, args.threads, chosen)
    emit(rows, args.json,
         f"Mode cost: FashionMNIST simple_cnn, batch 128, Adam, default probes, "
         f"{args.threads} threads, {args.steps} steps, median of {args.rounds} rounds")


if __name__ == "__main__":
    main()
