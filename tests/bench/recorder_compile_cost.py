#!/usr/bin/python3
"""Recorder cost under torch.compile: a training loop whose model is compiled (inductor,
the default backend), without and with the AmpScope recorder (python/ampscope) at its
default cadence (probes every 50 steps, the non-finite checks every step), in one
process, interleaved A/B block by block as recorder_cost.py does. Reports the median time
per step of each, the ratio recorded/plain, the first step (the compilation) of each, and
the graphs and graph breaks Dynamo counted compiling each (torch._dynamo.utils.counters);
the same model's plain eager step takes turns with them, for reference.

  recorder_compile_cost.py [--blocks 8] [--block-steps 50] [--threads 2] [--json] [--smoke]

Workloads (CPU, fp32): the small CNN of recorder_cost.py (batch 128) and the MLP
784-128-10 (batch 32). torch 2.3 or later, with a C++ compiler for inductor (and, on
Debian, python3-setuptools). The plain and the recorded model are instances of two
classes whose forward() differ as code, so that Dynamo caches a graph for each: it does
not guard on a module's hooks, and two instances of one class could share one graph.

It checks its own rows: each recorded run holds a step record for every step; each loop
compiled at least one graph of its own; the recorder added no graph and no break;
every time is positive. Else it exits 1 saying what went wrong.
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
from recorder_cost import mlp, recorded_steps, small_cnn  # noqa: E402


class Plain(torch.nn.Module):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return self.body(x)


class Recorded(Plain):
    def forward(self, x):  # its own code object: its own entry in Dynamo's cache
        return self.body(x)


WORKLOADS = [("small CNN fp32", small_cnn, 128), ("MLP 784-128-10 fp32", mlp, 32)]


class Loop:
    """One compiled training loop, with or without a recorder (given the compiled module)."""

    def __init__(self, make_body, batch, run_dir, compiled=True):
        torch.manual_seed(0)
        self.model = (Recorded if run_dir else Plain)(make_body())
        self.compiled = torch.compile(self.model) if compiled else self.model
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        generator = torch.Generator().manual_seed(1)
        self.x = torch.randn(8, batch, 1, 28, 28, generator=generator)
        self.y = torch.randint(0, 10, (8, batch), generator=generator)
        self.step_index = 0
        self.recorder = (ampscope.Recorder(run_dir, self.compiled, optimizer=self.optimizer)
                         if run_dir else None)

    def block(self, steps):
        started = time.perf_counter()
        for _ in range(steps):
            k = self.step_index % 8
            self.step_index += 1
            self.optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(self.compiled(self.x[k]), self.y[k])
            loss.backward()
            self.optimizer.step()
            if self.recorder is not None:
                self.recorder.step(loss)
            else:
                loss.item()  # a plain loop logs its loss too; the recorder reads it every step
        return time.perf_counter() - started

    def compile_first_step(self):
        """The first step (Dynamo and inductor compiling): (seconds, graphs, breaks)."""
        from torch._dynamo.utils import counters
        counters.clear()
        seconds = self.block(1)
        return seconds, counters["stats"]["unique_graphs"], sum(counters["graph_break"].values())

    def close(self):
        if self.recorder is not None:
            self.recorder.close()


def measure(blocks, block_steps, problems):
    rows = []
    with tempfile.TemporaryDirectory(prefix="ampscope-compile-cost-") as workdir:
        for what, make_body, batch in WORKLOADS:
            run_dir = os.path.join(workdir, what.replace(" ", "-"))
            plain, recorded = Loop(make_body, batch, None), Loop(make_body, batch, run_dir)
            eager = Loop(make_body, batch, None, compiled=False)
            first = {"plain": plain.compile_first_step(), "recorded": recorded.compile_first_step()}
            for name, (_seconds, graphs, breaks) in first.items():
                if graphs < 1:
                    problems.append(f"{what}: the {name} model compiled no graph of its own")
            if first["recorded"][1:] != first["plain"][1:]:
                problems.append(f"{what}: graphs/breaks {first['plain'][1:]} without the "
                                f"recorder, {first['recorded'][1:]} with it")
            times = {"plain": [], "recorded": [], "eager": []}
            for b in range(blocks + 1):
                order = (("plain", plain), ("recorded", recorded), ("eager", eager))
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
            for name in ("plain", "recorded"):
                seconds, graphs, breaks = first[name]
                rows.append(row("recorder under torch.compile",
                                f"{what}: {name}: first step (compiling), graphs / breaks",
                                f"{seconds:.1f} s, {graphs} / {breaks}"))
            rows.append(row("recorder under torch.compile", f"{what}: eager plain step",
                            f"{median(times['eager']) * 1e3:.3f} ms"))
            rows.append(row("recorder under torch.compile", f"{what}: compiled plain step",
                            f"{median(times['plain']) * 1e3:.3f} ms",
                            f"{median(times['plain']) / median(times['eager']):.3f}x eager"))
            rows.append(row("recorder under torch.compile",
                            f"{what}: compiled recorded step (probes every 50)",
                            f"{median(times['recorded']) * 1e3:.3f} ms", f"{ratio:.3f}x"))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=8, help="timed blocks per loop")
    parser.add_argument("--block-steps", type=int, default=50, help="steps per block")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if not hasattr(getattr(torch, "compiler", None), "is_compiling"):
        sys.exit(f"recorder_compile_cost.py: torch {torch.__version__} has no torch.compile "
                 "the recorder supports (2.3 or later)")
    if args.smoke:
        args.blocks, args.block_steps = 1, 3
    torch.set_num_threads(args.threads)
    problems = []
    rows = measure(args.blocks, args.block_steps, problems)
    if len(rows) != 5 * len(WORKLOADS):
        problems.append(f"{len(rows)} rows for {len(WORKLOADS)} workloads")
    emit(rows, args.json,
         f"Recorder cost under torch.compile (inductor): {args.blocks} timed blocks of "
         f"{args.block_steps} steps per loop, plain and recorded taking turns, "
         f"{args.threads} threads, torch {torch.__version__}")
    for problem in problems:
        print(f"recorder_compile_cost.py: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
