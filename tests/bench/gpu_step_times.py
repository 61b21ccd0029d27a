#!/usr/bin/env python3
"""Per-step time profile of ampscope-cli runs on the GPU machine: for each variant of
one config (--set overrides after '::'), runs the CLI and prints the first step's
time, the median and 90th percentile of the rest, summary samples/s and probe
overhead, so a slow row of gpu_bench.py can be pinned to warm-up, probes or the step.

  gpu_step_times.py --cli build-gpu/app/ampscope-cli --data DIR \
      "default" "probes off::probes.every=0,probes.locate_nonfinite=false"
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE_CONFIG = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "fashion-mnist-fp32.json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--data", default="")
    parser.add_argument("--common", default="device=cuda,train.max_steps=200,model.name=simple_cnn,"
                                             "train.batch_size=128")
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    print("| variant | step 1 ms | median ms (2..) | p90 ms | slowest after 1: ms at step | "
          "summary samples/s | probe overhead |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for k, variant in enumerate(args.variants):
            name, _, sets = variant.partition("::")
            settings = [s for s in (args.common + "," + sets).split(",") if s]
            if args.data:
                settings.append(f"data.path={args.data}")
            out = os.path.join(work, f"run{k}")
            command = [args.cli, "run", BASE_CONFIG, "--out", out, "--quiet"]
            for s in settings:
                command += ["--set", s]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"| {name} | exit {done.returncode}: {done.stderr.strip()[:200]} |")
                continue
            batch = int([s.split("=")[1] for s in settings if s.startswith("train.batch_size=")][-1])
            times = []  # ms per step (index 0: step 1): a step record's samples/s is batch / step time
            with open(os.path.join(out, "events.jsonl")) as f:
                for line in f:
                    e = json.loads(line)
                    if e.get("type") == "step" and e.get("samples_per_second"):
                        times.append(1000.0 * batch / e["samples_per_second"])
            with open(os.path.join(out, "summary.json")) as f:
                summary = json.load(f)
            rest = sorted(times[1:])
            slowest = max(range(1, len(times)), key=lambda k: times[k])
            print(f"| {name} | {times[0]:.2f} | {statistics.median(rest):.2f} | "
                  f"{rest[int(0.9 * (len(rest) - 1))]:.2f} | {times[slowest]:.2f} at {slowest + 1} | "
                  f"{summary['samples_per_second']:.0f} | "
                  f"{summary.get('probe_overhead', 0):.3f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
