#!/usr/bin/python3
"""Recorder cost: a plain PyTorch training loop with and without the AmpScope recorder
(python/ampscope) at its default cadence (probes every 50 steps, the non-finite checks
every step), in one process, interleaved A/B block by block so that drift (thermal,
other processes) hits both alike. Reports the median time per step of each (a block's
time over its steps, probe steps included) and the ratio recorded/plain.

  recorder_cost.py [--blocks 8] [--block-steps 50] [--threads 2] [--json] [--smoke]

Workloads (CPU, Debian's python3-torch): a small CNN on 28x28 inputs (two 3x3
convolutions, 16 and 32 channels, then a linear layer; batch 128) in fp32 and in bf16
autocast, and an MLP 784-128-10 (batch 32) in fp32. Target: a recorded step costs at
most 1.05x a plain one at the default cadence. --smoke: 3 steps, 1 round.

It checks its own rows: each workload's recorded run must hold a step record for every
step it trained, and every time must be positive; else it exits 1 saying what is missing.
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))

import torch  # noqa: E402

import ampscope  # noqa: E402
from bench_common import emit, median, row  # noqa: E402

TARGET = 1.05


def small_cnn():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 7 * 7, 10))


def mlp():
    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 10))


WORKLOADS = [
    ("small CNN fp32", small_cnn, 128, None),
    ("small CNN bf16 autocast", small_cnn, 128, torch.bfloat16),
    ("MLP 784-128-10 fp32", mlp, 32, None),
]


class Loop:
    """One training loop (model, optimizer, data) that runs blocks of steps on demand,
    with or without a recorder attached, so two loops can take turns block by block."""

    def __init__(self, make_model, batch, dtype, run_dir):
        torch.manual_seed(0)
        self.model = make_model()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        generator = torch.Generator().manual_seed(1)
        self.x = torch.randn(8, batch, 1, 28, 28, generator=generator)
        self.y = torch.randint(0, 10, (8, batch), generator=generator)
        self.dtype = dtype
        self.step_index = 0
        self.recorder = (ampscope.Recorder(run_dir, self.model, optimizer=self.optimizer,
                                           mode="bf16" if dtype else "fp32")
                         if run_dir else None)

    def block(self, steps):
        """Runs `steps` steps; returns their wall time in seconds."""
        started = time.perf_counter()
        for _ in range(steps):
            k = self.step_index % 8
            self.step_index += 1
            self.optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cpu", dtype=self.dtype or torch.bfloat16,
                                enabled=self.dtype is not None):
                loss = torch.nn.functional.cross_entropy(self.model(self.x[k]).float(), self.y[k])
            loss.backward()
            self.optimizer.step()
            if self.recorder is not None:
                self.recorder.step(loss)
            else:
                loss.item()  # a plain loop logs its loss too; the recorder reads it every step
        return time.perf_counter() - started

    def close(self):
        if self.recorder is not None:
            self.recorder.close()


def recorded_steps(run_dir):
    with open(os.path.join(run_dir, "events.jsonl")) as f:
        return sum(1 for line in f if '"type":"step"' in line.replace(" ", ""))


def measure(blocks, block_steps, problems):
    """Per workload: a plain and a recorded loop take turns, block by block (A B A B ...,
    the order swapped every other block), each block `block_steps` steps, so that each
    recorded block holds its share of probe steps (one per 50 steps) and drift on a
    shared machine hits both alike. The first block of each is a warm-up. The ratio is
    that of the medians of the block times."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="ampscope-recorder-cost-") as workdir:
        for what, make_model, batch, dtype in WORKLOADS:
            run_dir = os.path.join(workdir, what.replace(" ", "-"))
            plain = Loop(make_model, batch, dtype, None)
            recorded = Loop(make_model, batch, dtype, run_dir)
            times = {"plain": [], "recorded": []}
            for b in range(blocks + 1):
                order = (("plain", plain), ("recorded", recorded))
                for name, loop in (order if b % 2 == 0 else order[::-1]):
                    seconds = loop.block(block_steps)
                    if b > 0:
                        times[name].append(seconds / block_steps)
            plain.close()
            recorded.close()
            written = recorded_steps(run_dir)
            if written != recorded.step_index:
                problems.append(f"{what}: the recorder wrote {written} step records for "
                                f"{recorded.step_index} steps")
            if not (min(times["plain"]) > 0 and min(times["recorded"]) > 0):
                problems.append(f"{what}: a block took no time")
            ratio = median(times["recorded"]) / median(times["plain"])
            rows.append(row("recorder cost", f"{what}: plain step",
                            f"{median(times['plain']) * 1e3:.3f} ms"))
            rows.append(row("recorder cost", f"{what}: recorded step (probes every 50)",
                            f"{median(times['recorded']) * 1e3:.3f} ms", f"{ratio:.3f}x",
                            f"<= {TARGET}x", ratio <= TARGET))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=8, help="timed blocks per loop")
    parser.add_argument("--block-steps", type=int, default=50, help="steps per block")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.blocks, args.block_steps = 1, 3
    torch.set_num_threads(args.threads)
    problems = []
    rows = measure(args.blocks, args.block_steps, problems)
    if len(rows) != 2 * len(WORKLOADS):
        problems.append(f"{len(rows)} rows for {len(WORKLOADS)} workloads")
    emit(rows, args.json,
         f"Recorder cost: {args.blocks} timed blocks of {args.block_steps} steps per loop, "
         f"plain and recorded taking turns, {args.threads} threads, torch {torch.__version__}")
    for problem in problems:
        print(f"recorder_cost.py: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
