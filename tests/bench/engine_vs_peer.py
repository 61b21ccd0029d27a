#!/usr/bin/python3
"""Engine vs peer: ampscope-cli (default probes on) against a plain PyTorch loop
(peer_loop.py), the same model, data, batch, optimizer, mode and threads, run
interleaved A B A B so that drift of the machine hits both alike. Prints a
Markdown table: the median samples/s of each over the rounds, and the ratio.

  engine_vs_peer.py --cli build/app/ampscope-cli [--steps 300] [--rounds 3]
                    [--threads 2] [--modes fp32,bf16] [--smoke]

samples/s on both sides counts forward + backward + optimizer step of each
training step (AmpScope's summary.json samples_per_second; peer_loop.py times
the same span). --smoke: 3 steps, 1 round: proves both sides run and every row
prints (CTest runs this; the numbers mean nothing then).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def engine_run(cli, mode, steps, threads, workdir, index):
    out = os.path.join(workdir, f"engine-{mode}-{index}")
    config = os.path.join(ROOT, "examples", f"fashion-mnist-{mode}.json")
    command = [cli, "run", config, "--out", out, "--quiet",
               "--set", f"train.max_steps={steps}", "--set", f"threads={threads}"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"engine_vs_peer.py: {' '.join(command)}: exit {done.returncode}: "
                 f"{done.stderr.strip()}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)["samples_per_second"]


def peer_run(mode, steps, threads):
    command = [sys.executable, os.path.join(HERE, "peer_loop.py"), "--mode", mode,
               "--steps", str(steps), "--warmup", "0", "--threads", str(threads)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"engine_vs_peer.py: peer_loop.py: exit {done.returncode}: "
                 f"{done.stderr.strip()}")
    return json.loads(done.stdout)["samples_per_second"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "ampscope-cli"))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--modes", default="fp32,bf16")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.steps, args.rounds = 3, 1
    if not os.access(args.cli, os.X_OK):
        sys.exit(f"engine_vs_peer.py: {args.cli}: not an executable (build first or pass --cli)")

    rows = []
    with tempfile.TemporaryDirectory(prefix="ampscope-bench-") as workdir:
        for mode in args.modes.split(","):
            engine, peer = [], []
            for r in range(args.rounds):
                engine.append(engine_run(args.cli, mode, args.steps, args.threads, workdir, r))
                peer.append(peer_run(mode, args.steps, args.threads))
            rows.append((mode, statistics.median(engine), statistics.median(peer)))

    print(f"Engine vs plain PyTorch loop: FashionMNIST simple_cnn, batch 128, Adam, "
          f"{args.threads} threads, {args.steps} steps, median of {args.rounds} interleaved rounds")
    print()
    print("| mode | ampscope-cli samples/s (default probes) | PyTorch loop samples/s | ratio |")
    print("|---|---|---|---|")
    for mode, engine, peer in rows:
        print(f"| {mode} | {engine:.0f} | {peer:.0f} | {engine / peer:.2f} |")


if __name__ == "__main__":
    main()
