#!/usr/bin/python3
"""Long run: a tiny MLP on the synthetic spirals set, default probes, for --steps
steps (default 10^6) with ampscope-cli run, then the finished run opened in the
window and in ampscope-cli report (and the two exports). Prints a Markdown table:

- the engine's resident memory (VmRSS of the ampscope-cli process, polled, paired
  with the step reached, read from the tail of events.jsonl) at steps/100,
  steps/10 and steps (10^4, 10^5, 10^6 by default), and its peak (VmHWM);
- events.jsonl bytes per 10^4 steps;
- wall time and peak RSS of `ampscope --open-run DIR --screenshot PNG` (offscreen;
  the window's own "opened in S s" too), of `ampscope-cli report DIR --out x.pdf`
  and `x.html`, and of export-csv / export-tfevents.

  long_run_bench.py --cli build/app/ampscope-cli --window build/app/ampscope
                    [--steps 1000000] [--mode fp32] [--keep DIR] [--smoke]
                    [--max-growth-mib N]

--smoke: a few thousand steps; checks that every row printed (CTest runs this; the
numbers mean little then). --max-growth-mib N: fail when the engine's RSS at
`steps` exceeds its RSS at steps/10 by more than N MiB (bounded memory), or the
window's peak RSS exceeds N MiB more than it had for a run a tenth as long (the
same run opened after its first tenth is not available, so the window is compared
with itself on a short run made for that). Memory can be measured on a loaded
machine; times cannot: run the full benchmark on an idle one.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MIB = 1024.0 * 1024.0
STEP_PATTERN = re.compile(rb'"step":(\d+)')


def fail(message):
    sys.exit(f"long_run_bench.py: {message}")


def config_for(steps, mode):
    # 32000 training samples at batch 32: 1000 steps an epoch, so a long run spends
    # little of its time in the per-epoch evaluation.
    return {
        "schema_version": 1,
        "name": "long-run-spirals-mlp",
        "seed": 1,
        "threads": 1,
        "device": "cpu",
        "data": {"dataset": "spirals", "synthetic_samples": 40000, "validation": "split",
                 "val_fraction": 0.2},
        "model": {"name": "mlp", "hidden": [16, 16]},
        "precision": {"mode": mode},
        "train": {"epochs": steps // 1000 + 1, "batch_size": 32, "max_steps": steps},
    }


def status_kib(pid, field):
    """VmRSS / VmHWM of a live process in KiB, None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def last_step(events_path):
    """The largest step number in the last ~64 KiB of events.jsonl (0 when none yet)."""
    try:
        with open(events_path, "rb") as events:
            events.seek(0, os.SEEK_END)
            size = events.tell()
            events.seek(max(0, size - 65536))
            tail = events.read()
    except OSError:
        return 0
    steps = [int(m) for m in STEP_PATTERN.findall(tail)]
    return max(steps) if steps else 0


def run_engine(cli, config_path, out, poll_seconds):
    """Runs ampscope-cli run, sampling (step, rss KiB, hwm KiB); returns the samples."""
    events = os.path.join(out, "events.jsonl")
    process = subprocess.Popen([cli, "run", config_path, "--out", out, "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    samples = []
    while process.poll() is None:
        rss = status_kib(process.pid, "VmRSS")
        hwm = status_kib(process.pid, "VmHWM")
        if rss is not None:
            samples.append((last_step(events), rss, hwm or rss))
        time.sleep(poll_seconds)
    stdout, stderr = process.communicate()
    if process.returncode != 0:
        fail(f"ampscope-cli run: exit {process.returncode}: {stderr.decode().strip()}")
    return samples


def rss_at(samples, step):
    """The first sample taken at or after `step` (the last one if none reached it)."""
    for sample in samples:
        if sample[0] >= step:
            return sample
    return samples[-1] if samples else None


def timed(command, env=None):
    """Runs command; returns (seconds, peak RSS in KiB, stdout) or fails."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    stdout = process.stdout.read().decode()
    stderr = process.stderr.read().decode()
    process.stdout.close()
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        fail(f"{' '.join(command)}: exit {process.returncode}: {stderr.strip()}")
    return seconds, usage.ru_maxrss, stdout


def mib(kib):
    return f"{kib * 1024.0 / MIB:.1f} MiB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "ampscope-cli"))
    parser.add_argument("--window", default=os.path.join(ROOT, "build", "app", "ampscope"),
                        help="the ampscope binary ('' to leave the window out)")
    parser.add_argument("--steps", type=int, default=1000000)
    parser.add_argument("--mode", default="fp32")
    parser.add_argument("--keep", help="record the run here (kept) instead of a temp dir")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--max-growth-mib", type=float)
    parser.add_argument("--json", action="store_true",
                        help="print the rows as JSON (the form run_benchmarks.py collects)")
    args = parser.parse_args()
    if args.smoke:
        args.steps = 3000
    if args.steps < 100:
        fail("--steps: at least 100")
    for name, path in (("--cli", args.cli), ("--window", args.window)):
        if path and not os.access(path, os.X_OK):
            fail(f"{name}: {path}: not an executable")

    workdir = tempfile.mkdtemp(prefix="ampscope-long-run-")
    try:
        rows = []
        config_path = os.path.join(workdir, "config.json")
        with open(config_path, "w") as f:
            json.dump(config_for(args.steps, args.mode), f, indent=2)
        out = args.keep or os.path.join(workdir, "run")
        if os.path.exists(out):
            fail(f"--keep: {out} already exists")
        poll = 0.02 if args.steps <= 20000 else 0.25
        samples = run_engine(args.cli, config_path, out, poll)
        if not samples:
            fail("the engine ended before its memory could be sampled")
        checkpoints = [args.steps // 100, args.steps // 10, args.steps]
        for target in checkpoints:
            step, rss, hwm = rss_at(samples, target)
            rows.append((f"engine RSS at step {target}",
                         f"{mib(rss)} (sampled at step {step}; peak so far {mib(hwm)})"))
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        steps_done = summary.get("steps", 0)
        if steps_done != args.steps:
            fail(f"the run did {steps_done} steps, not {args.steps}")
        events_bytes = os.path.getsize(os.path.join(out, "events.jsonl"))
        rows.append(("events.jsonl size", f"{events_bytes / MIB:.1f} MiB"))
        rows.append(("events.jsonl bytes per 10^4 steps",
                     f"{events_bytes * 10000 / args.steps / MIB:.2f} MiB"))
        rows.append(("engine samples/s (summary.json)",
                     f"{summary.get('samples_per_second', 0):.0f}"))

        window_kib = None
        if args.window:
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
            seconds, peak, stdout = timed(
                [args.window, "--open-run", out, "--screenshot",
                 os.path.join(workdir, "window.png")], env)
            window_kib = peak
            shown = re.search(r"opened .*: (\d+) steps shown in ([0-9.]+) s", stdout)
            if not shown:
                fail(f"ampscope --open-run did not say it opened the run: {stdout.strip()}")
            rows.append(("window: open the run (offscreen, process wall time)",
                         f"{seconds:.2f} s, peak RSS {mib(peak)}"))
            rows.append(("window: open the run (its own timer)",
                         f"{float(shown.group(2)):.2f} s, {shown.group(1)} steps shown"))
        for suffix in ("pdf", "html"):
            target = os.path.join(workdir, f"report.{suffix}")
            seconds, peak, _ = timed([args.cli, "report", out, "--out", target, "--quiet"])
            if os.path.getsize(target) == 0:
                fail(f"report.{suffix} is empty")
            rows.append((f"ampscope-cli report --out x.{suffix}",
                         f"{seconds:.2f} s, peak RSS {mib(peak)}"))
        for command in ("export-csv", "export-tfevents"):
            seconds, peak, _ = timed([args.cli, command, out, "--out",
                                      os.path.join(workdir, command), "--quiet"])
            rows.append((f"ampscope-cli {command}", f"{seconds:.2f} s, peak RSS {mib(peak)}"))

        if args.json:
            print(json.dumps([{"benchmark": "long run", "measurement": name, "value": value,
                               "ratio": "", "target": "", "met": ""} for name, value in rows]))
            return
        print(f"Long run: spirals MLP, mode {args.mode}, {args.steps} steps, default probes "
              f"({len(samples)} memory samples)\n")
        print("| measure | value |")
        print("|---|---|")
        for name, value in rows:
            print(f"| {name} | {value} |")

        if args.max_growth_mib is not None:
            early = rss_at(samples, args.steps // 10)[1]
            late = rss_at(samples, args.steps)[1]
            growth = (late - early) * 1024.0 / MIB
            print(f"\nengine RSS growth from step {args.steps // 10} to {args.steps}: "
                  f"{growth:.1f} MiB (bound {args.max_growth_mib} MiB)")
            if growth > args.max_growth_mib:
                fail(f"the engine grew by {growth:.1f} MiB over the last 90% of the run")
            if window_kib is not None:
                short_out = os.path.join(workdir, "short-run")
                short_config = os.path.join(workdir, "short-config.json")
                with open(short_config, "w") as f:
                    json.dump(config_for(args.steps // 10, args.mode), f)
                run_engine(args.cli, short_config, short_out, 0.25)
                _, short_kib, _ = timed([args.window, "--open-run", short_out, "--screenshot",
                                         os.path.join(workdir, "short.png")], env)
                window_growth = (window_kib - short_kib) * 1024.0 / MIB
                print(f"window peak RSS: {mib(short_kib)} for {args.steps // 10} steps, "
                      f"{mib(window_kib)} for {args.steps} ({window_growth:.1f} MiB more)")
                if window_growth > args.max_growth_mib:
                    fail(f"the window grew by {window_growth:.1f} MiB for 10x the steps")
        if args.smoke and len(rows) != 3 + 3 + (2 if args.window else 0) + 4:
            fail(f"expected every row, printed {len(rows)}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
