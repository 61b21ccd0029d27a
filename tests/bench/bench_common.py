"""Shared by the benchmark scripts: running ampscope-cli on a config with
overrides, reading its summary, medians, and the rows every benchmark reports
(benchmark, measurement, value, ratio, target, met) so that run_benchmarks.py
can print them all as one table."""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, with python3-torch

# --smoke: a small training set and a 600-sample validation split, so that a run takes
# about 3 s rather than 5 (evaluating the full test set was 3 s of each smoke run).
SMOKE_DATA_SETS = ["data.subset=2048", "data.validation=split", "data.val_fraction=0.01"]
_smoke_data_sets = []


def use_smoke_data():
    """Every later engine_summary run trains on the smoke-sized data."""
    _smoke_data_sets[:] = SMOKE_DATA_SETS


def fail(script, message):
    sys.exit(f"{script}: {message}")


def require_cli(script, cli):
    if not os.access(cli, os.X_OK):
        fail(script, f"{cli}: not an executable (build first or pass --cli)")


def engine_bench_parser(description, default_steps):
    """The options every engine benchmark takes: --cli, --steps, --rounds,
    --threads, --json, --smoke (3 steps, 1 round)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "ampscope-cli"))
    parser.add_argument("--steps", type=int, default=default_steps)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--smoke", action="store_true")
    return parser


def parse_engine_bench_args(script, parser):
    args = parser.parse_args()
    if args.smoke:
        args.steps, args.rounds = 3, 1
        use_smoke_data()
    require_cli(script, args.cli)
    return args


def engine_summary(script, cli, config, sets, out, env=None):
    """Runs `ampscope-cli run CONFIG --out OUT --set ...` and returns summary.json."""
    command = [cli, "run", config, "--out", out, "--quiet"]
    for s in sets + _smoke_data_sets:
        command += ["--set", s]
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run(command, capture_output=True, text=True, env=full_env)
    if done.returncode != 0:
        fail(script, f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()}")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    if summary.get("status") != "finished":
        fail(script, f"{out}: run ended {summary.get('status')}: {summary.get('error', '')}")
    return summary


def median(values):
    return statistics.median(values)


def row(benchmark, measurement, value, ratio="", target="", met=None):
    return {"benchmark": benchmark, "measurement": measurement, "value": value,
            "ratio": ratio, "target": target,
            "met": "" if met is None else ("yes" if met else "NO")}


def print_table(rows, out=sys.stdout):
    out.write("| benchmark | measurement | value | ratio | target | met |\n")
    out.write("|---|---|---|---|---|---|\n")
    for r in rows:
        out.write(f"| {r['benchmark']} | {r['measurement']} | {r['value']} | {r['ratio']} | "
                  f"{r['target']} | {r['met']} |\n")


def emit(rows, as_json, header):
    """A benchmark's output: its rows as JSON (for run_benchmarks.py) or a table."""
    if as_json:
        print(json.dumps(rows))
    else:
        print(header)
        print()
        print_table(rows)
