#!/usr/bin/python3
"""Every AmpScope benchmark in one run, one table: engine vs a plain PyTorch
loop, the cost of each precision mode, probe cadence, the emulated formats' cost and memory, the 10^6-step long run,
the GUI's replot and stall times, a run set of recorded runs opened and drawn beside a live one,
a job of 512 ranks opened and drawn as one band, and following a run over SSH. Prints the machine, then the table.

  tests/bench/run_benchmarks.py [--build build] [--quick] [--smoke]
                                [--long-run-steps 1000000] [--skip long-run,gui,...]

Run it on an otherwise idle machine: the ratios are measured side by side in
one run, but absolute numbers belong to the machine printed above the table.
--quick: fewer steps and rounds (about 10 minutes instead of 35).
--smoke: every benchmark at tiny sizes (seconds each): CTest runs this to prove
each still runs and prints its rows; the numbers mean nothing then.
Every run checks the rows (EXPECTED_ROWS): one missing, or a row without a number,
exits 1 naming it. --expect-gui: the window is built, so gui_replot_bench and run_set_bench
must be too.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys

from bench_common import HERE, ROOT, fail, print_table, row

SCRIPT = "run_benchmarks.py"
SECTIONS = ["engine-vs-peer", "mode-cost", "own-model", "probe-cadence", "replay-cost", "map-cost", "sensitivity-cost",
            "emulation-cost", "long-run", "gui", "run-set", "job-band", "remote-follow"]

# The rows each section must print, as regular expressions on "benchmark | measurement":
# a section that ran without one of them, or a row without a number, fails the run (exit 1),
# so that a benchmark that drops a row cannot pass (CTest runs --smoke on its exit code).
EXPECTED_ROWS = {
    "engine-vs-peer": [r"^engine vs PyTorch loop \| simple_cnn fp32, batch", r"\| simple_cnn bf16",
                       r"\| small MLP", r"\| simple_cnn fp32, engine without its block cache"],
    "mode-cost": [rf"^mode cost \| {mode}\b" for mode in
                  ("fp32", "bf16", "fp16", "tf32", "fp16 pure", "bf16 pure", "fp8", "mxfp8", "mxfp4", "nvfp4")],
    "own-model": [r"^own model \| simple_cnn fp32", r"^own model \| simple_cnn bf16"],
    "probe-cadence": [r"^probe cadence \| simple_cnn fp32: off", r"^probe cadence \| simple_cnn fp32: default",
                      r"^probe cadence \| simple_cnn fp32: every step", r"^probe cadence \| mlp fp32: every step"],
    "replay-cost": [r"^replay cost \| simple_cnn fp32", r"^replay cost \| simple_cnn bf16"],
    "map-cost": [r"^map cost \| simple_cnn fp32", r"^map cost \| simple_cnn bf16", r"^map cost \| simple_cnn mxfp8"],
    "sensitivity-cost": [r"^sensitivity cost \| simple_cnn fp32"],
    "emulation-cost": [rf"^cost \| {mode}\b" for mode in ("fp32", "fp8", "mxfp8", "mxfp4", "nvfp4", "nvfp4 stochastic")]
                      + [rf"^memory \| {mode}, batch 128, {probes}" for mode in ("fp32", "nvfp4 stochastic")
                         for probes in ("default probes", "probes off")]
                      + [r"^memory parts \| fp32, batch", r"^memory parts \| nvfp4-sr, batch",
                         r"^probes \| simple_cnn fp32, batch 128: default", r"^probes \| simple_cnn bf16, batch 128: default",
                         r"^sweep \| simple_cnn fp32"],
    "long-run": [r"^long run \| "],
    "gui": [r"^GUI \| (loss plot|gui_replot_bench)", r"^GUI \| (UI gaps|gui_replot_bench)"],
    "run-set": [r"^run set \| (open \d+ runs of \d+ steps|run_set_bench)",
                r"^run set \| (memory per run at \d+ steps|run_set_bench)",
                r"^run set \| (frame with a live run, median|run_set_bench)",
                r"^run set \| (frame with a live run, worst|run_set_bench)"],
    "job-band": [r"^job band \| (open a job of \d+ ranks|job_band_bench)",
                 r"^job band \| (frame: Loss, Loss scale, Throughput replot, median|job_band_bench)",
                 r"^job band \| (peak memory|job_band_bench)"],
    "remote-follow": [r"^remote follow \| finished run", r"^remote follow \| delay from write to view, local",
                      r"^remote follow \| delay from write to view, SSH"],
}


def missing_rows(rows, sections):
    """What the sections that ran should have printed and did not, one line each."""
    keys = [f"{r['benchmark']} | {r['measurement']}" for r in rows]
    problems = [f"no row matches {pattern!r} ({section})"
                for section in sections for pattern in EXPECTED_ROWS[section]
                if not any(re.search(pattern, key) for key in keys)]
    problems += [f"{key}: no number in {r['value']!r}" for key, r in zip(keys, rows)
                 if not re.search(r"[0-9]", str(r["value"])) and "not built" not in str(r["value"])]
    return problems


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def json_rows(command, what, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run(command, capture_output=True, text=True, env=full_env)
    if done.returncode != 0:
        fail(SCRIPT, f"{what}: exit {done.returncode}: {(done.stderr or done.stdout).strip()[-2000:]}")
    last = [line for line in done.stdout.splitlines() if line.startswith("[")]
    if not last:
        fail(SCRIPT, f"{what}: printed no JSON rows")
    return json.loads(last[-1])


def gui_rows(binary, smoke):
    """gui_replot_bench prints a Markdown table: | what | median | p95 | worst | n | note."""
    command = [binary] + (["--smoke"] if smoke else [])
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        fail(SCRIPT, f"gui_replot_bench: exit {done.returncode}: {done.stderr.strip()[-2000:]}")
    rows = []
    for line in done.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or not line.startswith("|") or cells[0].startswith("measurement") \
                or cells[0].startswith("-"):
            continue
        what, med, p95, worst = cells[0], float(cells[1]), float(cells[2]), float(cells[3])
        value = f"median {med:.1f} / p95 {p95:.1f} / worst {worst:.1f} ms"
        if what.startswith("UI gaps"):
            rows.append(row("GUI", what, value, "", "no UI stall > 50 ms", worst <= 50.0))
        else:
            rows.append(row("GUI", what, value, "", "median < 16 ms", med < 16.0))
    if not rows:
        fail(SCRIPT, "gui_replot_bench: printed no table rows")
    return rows


# run_set_bench's goals (docs/guide/performance.md, "A run set"), for its full size only:
# 8 runs of 10^6 steps.
RUN_SET_GOALS = {"open": ("wall < 10 s", lambda v: v < 10.0),
                 "frame with a live run, median": ("< 16 ms", lambda v: v < 16.0),
                 "frame with a live run, worst": ("< 50 ms", lambda v: v < 50.0)}


def run_set_rows(binary, size):
    """run_set_bench prints a Markdown table: | what | value |, and checks it itself (a
    missing row or a run that did not open exits 1)."""
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    done = subprocess.run([binary, *size], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        fail(SCRIPT, f"run_set_bench: exit {done.returncode}: {(done.stderr or done.stdout).strip()[-2000:]}")
    rows = []
    for line in done.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 2 or cells[0] == "what":
            continue
        goal = None if size else next((g for key, g in RUN_SET_GOALS.items()
                                       if cells[0].startswith(key)), None)
        rows.append(row("run set", cells[0], cells[1], "", goal[0] if goal else "",
                        goal[1](float(cells[1])) if goal else None))
    if not rows:
        fail(SCRIPT, "run_set_bench: printed no table rows")
    return rows


# job_band_bench's goals (docs/guide/performance.md, "A job of many ranks"), for its full
# size only: 512 ranks x 10^4 steps.
JOB_BAND_GOALS = {"open a job": ("wall < 10 s", lambda v: v < 10.0),
                  "frame: Loss, Loss scale, Throughput replot, median": ("< 16 ms", lambda v: v < 16.0),
                  "peak memory": ("< 2048 MiB", lambda v: v < 2048.0)}


def job_band_rows(binary, size):
    """job_band_bench prints a Markdown table: | what | value |, and checks it itself."""
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    done = subprocess.run([binary, *size], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        fail(SCRIPT, f"job_band_bench: exit {done.returncode}: {(done.stderr or done.stdout).strip()[-2000:]}")
    rows = []
    for line in done.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 2 or cells[0] == "what":
            continue
        goal = None if size else next((g for key, g in JOB_BAND_GOALS.items() if cells[0].startswith(key)), None)
        rows.append(row("job band", cells[0], cells[1], "", goal[0] if goal else "",
                        goal[1](float(cells[1])) if goal else None))
    if not rows:
        fail(SCRIPT, "job_band_bench: printed no table rows")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build folder")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--long-run-steps", type=int, default=1000000)
    parser.add_argument("--skip", default="", help="comma-separated: " + ",".join(SECTIONS))
    parser.add_argument("--expect-gui", action="store_true",
                        help="fail when gui_replot_bench is not built (a build with the window)")
    args = parser.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    for s in skip:
        if s not in SECTIONS:
            fail(SCRIPT, f"--skip: unknown benchmark {s!r} (known: {', '.join(SECTIONS)})")
    cli = os.path.join(args.build, "app", "ampscope-cli")
    if not os.access(cli, os.X_OK):
        fail(SCRIPT, f"{cli}: not built (build first, or pass --build)")
    python = sys.executable
    size = ["--smoke"] if args.smoke else (["--steps", "100", "--rounds", "2"] if args.quick else [])
    threads = ["--threads", str(args.threads)]

    started = datetime.datetime.now()
    rows = []
    if "engine-vs-peer" not in skip:
        rows += json_rows([python, os.path.join(HERE, "engine_vs_peer.py"), "--cli", cli, "--json",
                           *threads, *size], "engine_vs_peer.py")
    if "mode-cost" not in skip:
        rows += json_rows([python, os.path.join(HERE, "mode_cost.py"), "--cli", cli, "--json",
                           *threads, *size], "mode_cost.py")
    if "own-model" not in skip:
        rows += json_rows([python, os.path.join(HERE, "own_model_cost.py"), "--cli", cli, "--json",
                           *threads, *size], "own_model_cost.py")
    if "probe-cadence" not in skip:
        rows += json_rows([python, os.path.join(HERE, "probe_cadence.py"), "--cli", cli, "--json",
                           *threads, *size], "probe_cadence.py")
    if "replay-cost" not in skip:
        rows += json_rows([python, os.path.join(HERE, "replay_cost.py"), "--cli", cli, "--json",
                           *threads, *size], "replay_cost.py")
    if "map-cost" not in skip:
        rows += json_rows([python, os.path.join(HERE, "map_cost.py"), "--cli", cli, "--json",
                           *threads, *size], "map_cost.py")
    if "sensitivity-cost" not in skip:
        rows += json_rows([python, os.path.join(HERE, "sensitivity_cost.py"), "--cli", cli, "--json",
                           *threads, *size], "sensitivity_cost.py")
    if "emulation-cost" not in skip:
        emulation_size = ["--smoke"] if args.smoke else (["--steps", "100", "--rounds", "2"] if args.quick else [])
        rows += json_rows([python, os.path.join(HERE, "emulation_cost.py"), "--build", args.build, "--json",
                           *threads, *emulation_size], "emulation_cost.py")
    if "long-run" not in skip:
        steps = 3000 if args.smoke else (100000 if args.quick else args.long_run_steps)
        window = os.path.join(args.build, "app", "ampscope")
        rows += json_rows([python, os.path.join(HERE, "long_run_bench.py"), "--cli", cli,
                           "--window", window if os.access(window, os.X_OK) else "",
                           "--steps", str(steps), "--json"]
                          + (["--smoke"] if args.smoke else []), "long_run_bench.py")
    if "gui" not in skip:
        gui_bench = os.path.join(args.build, "tests", "bench", "gui_replot_bench")
        if os.access(gui_bench, os.X_OK):
            rows += gui_rows(gui_bench, args.smoke or args.quick)
        elif args.expect_gui:
            fail(SCRIPT, f"{gui_bench}: not built, in a build with the window")
        else:
            rows.append(row("GUI", "gui_replot_bench", "not built (GUI off)"))

    if "run-set" not in skip:
        run_set_bench = os.path.join(args.build, "tests", "bench", "run_set_bench")
        if os.access(run_set_bench, os.X_OK):
            run_set_size = ["--smoke"] if args.smoke else (["--steps", "100000"] if args.quick else [])
            rows += run_set_rows(run_set_bench, run_set_size)
        elif args.expect_gui:
            fail(SCRIPT, f"{run_set_bench}: not built, in a build with the window")
        else:
            rows.append(row("run set", "run_set_bench", "not built (GUI off)"))

    if "job-band" not in skip:
        job_band_bench = os.path.join(args.build, "tests", "bench", "job_band_bench")
        if os.access(job_band_bench, os.X_OK):
            job_band_size = ["--smoke"] if args.smoke else (["--ranks", "128"] if args.quick else [])
            rows += job_band_rows(job_band_bench, job_band_size)
        elif args.expect_gui:
            fail(SCRIPT, f"{job_band_bench}: not built, in a build with the window")
        else:
            rows.append(row("job band", "job_band_bench", "not built (GUI off)"))

    if "remote-follow" not in skip:
        follow_bench = os.path.join(args.build, "tests", "bench", "remote_follow_bench")
        if os.access(follow_bench, os.X_OK):
            follow_size = ["--smoke"] if args.smoke else (["--records", "50000", "--seconds", "10"]
                                                          if args.quick else [])
            rows += json_rows([follow_bench, "--json", *follow_size], "remote_follow_bench")
        else:
            rows.append(row("remote follow", "remote_follow_bench", "not built"))

    minutes = (datetime.datetime.now() - started).total_seconds() / 60
    print(f"AmpScope benchmarks{' (smoke: numbers mean nothing)' if args.smoke else ''}: "
          f"{cpu_name()}, {os.cpu_count()} CPUs, {args.threads} threads, "
          f"{started:%Y-%m-%d %H:%M}, {minutes:.1f} min")
    print()
    print_table(rows)
    problems = missing_rows(rows, [s for s in SECTIONS if s not in skip])
    if problems:
        print()
        for problem in problems:
            print(f"{SCRIPT}: {problem}", file=sys.stderr)
        sys.exit(1)
    missed = [r for r in rows if r["met"] == "NO"]
    if missed and not args.smoke:
        print()
        print(f"{len(missed)} target(s) not met: " + "; ".join(r["measurement"] for r in missed))


if __name__ == "__main__":
    main()
