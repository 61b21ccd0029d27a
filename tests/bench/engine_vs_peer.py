#!/usr/bin/python3
"""Engine vs peer: ampscope-cli (default probes on) against a plain PyTorch loop
(peer_loop.py), the same model, data, batch, optimizer, mode and threads, run
interleaved A B A B so that drift of the machine hits both alike. Reports the
median samples/s of each over the rounds and the ratio.

  engine_vs_peer.py --cli build/app/ampscope-cli [--steps 200] [--rounds 3]
                    [--threads 2] [--workloads cnn-fp32,cnn-bf16,mlp-fp32,cnn-fp32-nocache]
                    [--json] [--smoke]

Workloads (FashionMNIST, Adam lr 1e-3):
  cnn-fp32, cnn-bf16    SimpleCNN, batch 128 (bf16: CPU autocast on both sides)
  mlp-fp32              a small MLP (784-128-10, relu), batch 32: Python's per-op
                        overhead shows here
  cnn-fp32-nocache      the engine with its CPU block cache off
                        (AMPSCOPE_CPU_BLOCK_CACHE=0): what the cache buys

samples/s on both sides counts forward + backward + optimizer step of each
training step (AmpScope's summary.json samples_per_second; peer_loop.py times
the same span). --smoke: 3 steps, 1 round: proves both sides run and every row
prints (the numbers mean nothing then).
"""
import json
import os
import subprocess
import sys
import tempfile

from bench_common import (HERE, ROOT, emit, engine_bench_parser, engine_summary, fail, median,
                          parse_engine_bench_args, row)

SCRIPT = "engine_vs_peer.py"

WORKLOADS = {
    "cnn-fp32": {"example": "fashion-mnist-fp32.json", "sets": [], "env": {},
                 "peer": ["--model", "simple_cnn", "--mode", "fp32", "--batch", "128"],
                 "what": "simple_cnn fp32, batch 128", "target": 1.05},
    "cnn-bf16": {"example": "fashion-mnist-bf16.json", "sets": [], "env": {},
                 "peer": ["--model", "simple_cnn", "--mode", "bf16", "--batch", "128"],
                 "what": "simple_cnn bf16 autocast, batch 128", "target": 1.10},
    "mlp-fp32": {"example": "fashion-mnist-fp32.json",
                 "sets": ["model.name=mlp", "model.hidden=[128]", "train.batch_size=32"], "env": {},
                 "peer": ["--model", "mlp", "--mode", "fp32", "--batch", "32"],
                 "what": "small MLP 784-128-10 fp32, batch 32", "target": 1.0},
    "cnn-fp32-nocache": {"example": "fashion-mnist-fp32.json", "sets": [],
                         "env": {"AMPSCOPE_CPU_BLOCK_CACHE": "0"},
                         "peer": ["--model", "simple_cnn", "--mode", "fp32", "--batch", "128"],
                         "what": "simple_cnn fp32, engine without its block cache", "target": None},
}


def engine_run(cli, workload, steps, threads, workdir, index):
    w = WORKLOADS[workload]
    out = os.path.join(workdir, f"engine-{workload}-{index}")
    sets = w["sets"] + [f"train.max_steps={steps}", f"threads={threads}"]
    summary = engine_summary(SCRIPT, cli, os.path.join(ROOT, "examples", w["example"]), sets, out,
                             w["env"])
    return summary["samples_per_second"]


def peer_run(workload, steps, threads):
    command = [sys.executable, os.path.join(HERE, "peer_loop.py"), *WORKLOADS[workload]["peer"],
               "--steps", str(steps), "--warmup", "0", "--threads", str(threads)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(SCRIPT, f"peer_loop.py: exit {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)["samples_per_second"]


def measure(cli, workloads, steps, rounds, threads):
    rows = []
    with tempfile.TemporaryDirectory(prefix="ampscope-bench-") as workdir:
        for workload in workloads:
            engine, peer = [], []
            for r in range(rounds):
                engine.append(engine_run(cli, workload, steps, threads, workdir, r))
                peer.append(peer_run(workload, steps, threads))
            e, p = median(engine), median(peer)
            target = WORKLOADS[workload]["target"]
            rows.append(row("engine vs PyTorch loop", WORKLOADS[workload]["what"] +
                            ": ampscope-cli / plain loop, samples/s", f"{e:.0f} / {p:.0f}",
                            f"{e / p:.2f}", "" if target is None else f">= {target:.2f}",
                            None if target is None else e / p >= target))
    return rows


def main():
    parser = engine_bench_parser(__doc__.splitlines()[0], 200)
    parser.add_argument("--workloads", default="cnn-fp32,cnn-bf16,mlp-fp32,cnn-fp32-nocache")
    args = parse_engine_bench_args(SCRIPT, parser)
    workloads = args.workloads.split(",")
    for w in workloads:
        if w not in WORKLOADS:
            fail(SCRIPT, f"--workloads: unknown workload {w!r} (known: {', '.join(WORKLOADS)})")
    rows = measure(args.cli, workloads, args.steps, args.rounds, args.threads)
    emit(rows, args.json,
         f"Engine vs plain PyTorch loop: FashionMNIST, Adam, {args.threads} threads, "
         f"{args.steps} steps, median of {args.rounds} interleaved rounds")


if __name__ == "__main__":
    main()
