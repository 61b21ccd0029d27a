#!/usr/bin/python3
"""A user's model against the built-in one: the TorchScript export of simple_cnn
(tests/tools/export_script_models.py, traced as a user would) trained by ampscope-cli
beside the built-in simple_cnn, FashionMNIST, batch 128, Adam, default probes, fp32
and bf16, interleaved (built-in, export, built-in, export, ...) in each round;
reports the median samples/s and the export's ratio to the built-in model.

  own_model_cost.py --cli build/app/ampscope-cli [--steps 150] [--rounds 3]
                    [--threads 2] [--json] [--smoke]

Target: the export at least 0.9x the built-in model's samples/s. --smoke: 3 steps,
1 round.
"""
import os
import subprocess
import sys
import tempfile

from bench_common import (ROOT, emit, engine_bench_parser, engine_summary, fail, median,
                          parse_engine_bench_args, row)

SCRIPT = "own_model_cost.py"
EXPORTER = os.path.join(ROOT, "tests", "tools", "export_script_models.py")
MODES = [("fp32", "fashion-mnist-fp32.json"), ("bf16", "fashion-mnist-bf16.json")]


def measure(cli, steps, rounds, threads):
    results = {(mode, kind): [] for mode, _ in MODES for kind in ("built-in", "export")}
    with tempfile.TemporaryDirectory(prefix="ampscope-own-model-") as workdir:
        exported = subprocess.run([sys.executable, EXPORTER, os.path.join(workdir, "models")],
                                  capture_output=True, text=True)
        if exported.returncode != 0:
            fail(SCRIPT, f"exporting the TorchScript models: {exported.stderr.strip()}")
        model = os.path.join(workdir, "models", "simple_cnn.pt")
        for r in range(rounds):
            for mode, example in MODES:
                for kind in ("built-in", "export"):
                    sets = [f"train.max_steps={steps}", f"threads={threads}"]
                    if kind == "export":
                        sets += ["model.name=torchscript", f"model.path={model}"]
                    summary = engine_summary(SCRIPT, cli, os.path.join(ROOT, "examples", example), sets,
                                             os.path.join(workdir, f"{mode}-{kind}-{r}"))
                    results[(mode, kind)].append(summary["samples_per_second"])
    rows = []
    for mode, _ in MODES:
        builtin, export = median(results[(mode, "built-in")]), median(results[(mode, "export")])
        ratio = export / builtin
        rows.append(row("own model", f"simple_cnn {mode}, batch 128: TorchScript export / built-in, samples/s",
                        f"{export:.0f} / {builtin:.0f}", f"{ratio:.2f}", ">= 0.90", ratio >= 0.90))
    return rows


def main():
    args = parse_engine_bench_args(SCRIPT, engine_bench_parser(__doc__.splitlines()[0], 150))
    rows = measure(args.cli, args.steps, args.rounds, args.threads)
    emit(rows, args.json,
         f"Own model: simple_cnn as a TorchScript export against the built-in model, FashionMNIST, "
         f"batch 128, Adam, default probes, {args.threads} threads, {args.steps} steps, "
         f"median of {args.rounds} rounds")


if __name__ == "__main__":
    main()
