#!/usr/bin/env python3
"""Mutation testing for AmpScope's C++ core: does a suite fail when the code is wrong?

Not part of CI: each mutation edits a source file in place, rebuilds the suites that
cover it and runs them. Run it from anywhere; it works on the checkout it lives in and
its build directory (--build, default build/).

    tests/tools/mutate.py --dry-run                 # list the mutations of the list file
    tests/tools/mutate.py --report tests/tools/mutation-report.md
    tests/tools/mutate.py --only 3f9a1c             # one mutation, by its ID
    tests/tools/mutate.py --sample 20 --seed 1 --files 'core/stats/*.cpp'

The list file (--list, default tests/tools/mutations.txt): one mutation a line, five
fields separated by " | " (a pipe with a space each side, so "||" inside a field is
fine); blank lines and lines starting with # are comments. Fields are stripped of
surrounding spaces; write "" for an empty FROM-replacement (TO).

    FILE | LINE | FROM | TO | SUITES

    FILE    source path relative to the repository root (core/stats/StudentT.cpp)
    LINE    a line number, or a piece of text that occurs on exactly one line of FILE
            (robust against edits above it)
    FROM    text that must occur exactly once on that line
    TO      what replaces it ("" for nothing)
    SUITES  CTest names, separated by spaces or commas (core/stats/test_stats); the build
            target of each is its base name (test_stats). Empty: the suites under
            tests/core and tests/app that include the file's header.

A mutation's ID is the first 6 hex digits of the SHA-1 of its FILE, LINE, FROM and TO
fields, so it stays the same when the list is reordered or grows.

Sampling (--sample N --files GLOB...): candidate mutations are generated from the lines
of the files (comments and preprocessor lines skipped): relational operator flips
(< <=, > >=, == !=), a clause after || or && dropped, an integer literal +1 / -1, an index
[i] -> [i + 1], a floating constant nudged by 0.1%, std::floor <-> std::ceil,
std::min <-> std::max, and a ternary with one branch in both places. N of them are drawn
with random.Random(--seed), then ordered by file and line.

Each mutation, one at a time: the file must have no uncommitted change (git diff --quiet)
and must still hold the bytes read at the start, else it is skipped; the mutated text is
written in place; the suites' targets are rebuilt with
`cmake --build BUILD --target T... -j JOBS` and run with
`ctest --test-dir BUILD -R '^(S...)$'` (a timeout per mutation, --timeout, default 300 s);
the original bytes are written back in a `finally` (SIGINT and SIGTERM end the run
through it too). The build directory is shared: the tool takes the lock that
`flock /tmp/ampscope-build.lock` takes before it writes the mutant and holds it through
the build and the run until the original is back, so no other build compiles a mutant;
it also reads the originals under that lock (another run's mutant is never taken for an
original), and at exit writes back only a mutant of its own. Results: killed (a suite failed),
survived (every suite passed), no-build (the mutant does not compile: not counted),
timeout (the suites ran past the timeout; counted as detected), skipped (a file being
edited, or a spec that does not match the file), interrupted. After the last mutation (or
an interruption) the targets are rebuilt once from the restored files.

Before the first mutation the targets are built and run unmutated (--no-baseline skips
this): a suite that fails there would "kill" every mutant, so the run stops.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import fcntl
import fnmatch
import glob
import hashlib
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCK = "/tmp/ampscope-build.lock"
SEPARATOR = " | "


@dataclass
class Mutation:
    file: str
    line_spec: str
    old: str
    new: str
    suites: list[str]
    origin: str = ""  # "list:LINE" or "sample"
    line_no: int = 0  # resolved
    error: str = ""  # why it cannot be applied
    result: str = ""
    seconds: float = 0.0
    detail: str = ""

    @property
    def id(self) -> str:
        key = "\x1f".join([self.file, self.line_spec, self.old, self.new])
        return hashlib.sha1(key.encode()).hexdigest()[:6]

    @property
    def change(self) -> str:
        return f"`{self.old}` -> `{self.new}`" if self.new else f"`{self.old}` -> (removed)"


# --- reading the list -------------------------------------------------------------------

def parse_list(path: Path) -> list[Mutation]:
    mutations = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split(SEPARATOR)
        if len(fields) == 4:
            fields.append("")
        if len(fields) != 5:
            sys.exit(f"{path}:{number}: expected FILE | LINE | FROM | TO | SUITES, got {len(fields)} fields")
        file, spec, old, new, suites = (f.strip() for f in fields)
        if new == '""':
            new = ""
        if not old:
            sys.exit(f"{path}:{number}: FROM is empty")
        mutations.append(Mutation(file, spec, old, new, split_suites(suites), origin=f"list:{number}"))
    return mutations


def split_suites(text: str) -> list[str]:
    return [s for s in re.split(r"[\s,]+", text) if s]


def covering_suites(file: str) -> list[str]:
    """Suites under tests/core and tests/app that include FILE's header ("dir/Base.h")."""
    source = Path(file)
    header = f"{source.parent.relative_to('core').as_posix()}/{source.stem}.h" if source.parts[0] == "core" else f"{source.stem}.h"
    suites = []
    for test in sorted(glob.glob(str(ROOT / "tests" / "**" / "test_*.cpp"), recursive=True)):
        rel = Path(test).relative_to(ROOT / "tests")
        if rel.parts[0] not in ("core", "app"):
            continue
        if f'"{header}"' in Path(test).read_text(errors="replace"):
            suites.append(rel.with_suffix("").as_posix())
    return suites


def resolve(m: Mutation, text: str) -> None:
    lines = text.split("\n")
    if m.line_spec.isdigit():
        m.line_no = int(m.line_spec)
        if not 1 <= m.line_no <= len(lines):
            m.error = f"line {m.line_no} is past the end ({len(lines)} lines)"
            return
    else:
        hits = [i + 1 for i, line in enumerate(lines) if m.line_spec in line]
        if len(hits) != 1:
            m.error = f"LINE text occurs on {len(hits)} lines, not 1"
            return
        m.line_no = hits[0]
    count = lines[m.line_no - 1].count(m.old)
    if count != 1:
        m.error = f"FROM occurs {count} times on line {m.line_no}, not once"
    if not m.suites:
        m.error = m.error or "no suite covers this file (name SUITES)"


def mutated_text(m: Mutation, text: str) -> str:
    lines = text.split("\n")
    lines[m.line_no - 1] = lines[m.line_no - 1].replace(m.old, m.new, 1)
    return "\n".join(lines)


# --- sampling ---------------------------------------------------------------------------

def code_lines(text: str):
    """(line number, line) of lines with code: comments, preprocessor and string-only lines out."""
    in_block = False
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if in_block:
            if "*/" in stripped:
                in_block = False
            continue
        if stripped.startswith("/*"):
            in_block = "*/" not in stripped
            continue
        if not stripped or stripped.startswith(("//", "#", '"')):
            continue
        yield number, line


def outside_strings(line: str, start: int) -> bool:
    before = line[:start]
    comment = before.find("//")
    if comment >= 0:
        return False
    return before.count('"') % 2 == 0 and before.count("'") % 2 == 0


def clause_after(line: str, start: int) -> str:
    """The operand that starts at `start`, up to a top-level ), ;, comma, || or &&."""
    depth = 0
    i = start
    while i < len(line):
        c = line[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (c in ";,?" or line.startswith((" || ", " && "), i)):
            break
        i += 1
    return line[start:i].rstrip()


RELATIONAL = {" < ": " <= ", " <= ": " < ", " > ": " >= ", " >= ": " > ", " == ": " != ", " != ": " == "}
SWAPS = {"std::floor": "std::ceil", "std::ceil": "std::floor", "std::min": "std::max", "std::max": "std::min"}
INTEGER = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
FLOATING = re.compile(r"(?<![\w.])(\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+)(f?)(?![\w.])")
INDEX = re.compile(r"\[([A-Za-z_]\w*)\]")


def candidates(file: str, text: str, suites: list[str]) -> list[Mutation]:
    found: list[Mutation] = []

    def add(number: int, line: str, old: str, new: str) -> None:
        if line.count(old) == 1 and old != new:
            found.append(Mutation(file, str(number), old, new, suites, origin="sample"))

    for number, line in code_lines(text):
        for old, new in RELATIONAL.items():
            for match in re.finditer(re.escape(old), line):
                if outside_strings(line, match.start()):
                    # widen to a unique piece of the line: the operator and its right operand
                    right = clause_after(line, match.end())
                    add(number, line, old + right, new + right)
        for op in (" || ", " && "):
            for match in re.finditer(re.escape(op), line):
                if outside_strings(line, match.start()):
                    right = clause_after(line, match.end())
                    if right:
                        add(number, line, op + right, "")
        for old, new in SWAPS.items():
            if old + "(" in line and outside_strings(line, line.find(old)):
                add(number, line, old + "(", new + "(")
        for match in FLOATING.finditer(line):
            if outside_strings(line, match.start()):
                value = float(match.group(1))
                nudged = repr(value * 1.001) if value != 0.0 else "1e-9"
                add(number, line, match.group(0), nudged + match.group(2))
        for match in INTEGER.finditer(line):
            if not outside_strings(line, match.start()):
                continue
            before = line[max(0, match.start() - 1):match.start()]
            if before in ("e", "E", "-") or line[match.end():match.end() + 1] in ("e", "."):
                continue
            value = int(match.group(1))
            context = line[max(0, match.start() - 8):match.end() + 8]
            if context.count(match.group(0)) and line.count(context) == 1:
                add(number, line, context, context.replace(match.group(0), str(value + 1), 1))
                if value > 0:
                    add(number, line, context, context.replace(match.group(0), str(value - 1), 1))
        for match in INDEX.finditer(line):
            if outside_strings(line, match.start()):
                add(number, line, match.group(0), f"[{match.group(1)} + 1]")
        question = line.find(" ? ")
        colon = line.find(" : ", question + 3) if question >= 0 else -1
        if question >= 0 and colon > 0 and outside_strings(line, question):
            left = line[question + 3:colon]
            right = clause_after(line, colon + 3)
            if left and right and "?" not in left:
                whole = f" ? {left} : {right}"
                add(number, line, whole, f" ? {right} : {right}")
                add(number, line, whole, f" ? {left} : {left}")
    # the same FROM twice on a line from two rules: keep the first
    unique, seen = [], set()
    for m in found:
        if (m.line_spec, m.old, m.new) not in seen:
            seen.add((m.line_spec, m.old, m.new))
            unique.append(m)
    return unique


def sample(patterns: list[str], count: int, seed: int, suites: list[str]) -> list[Mutation]:
    pool: list[Mutation] = []
    files = sorted({os.path.relpath(p, ROOT) for pat in patterns for p in glob.glob(str(ROOT / pat))})
    if not files:
        sys.exit(f"--files {' '.join(patterns)}: no file matches")
    for file in files:
        pool += candidates(file, (ROOT / file).read_text(), suites or covering_suites(file))
    chosen = random.Random(seed).sample(pool, min(count, len(pool)))
    return sorted(chosen, key=lambda m: (m.file, int(m.line_spec), m.old))


# --- running ----------------------------------------------------------------------------

TOUCHED: set[str] = set()  # targets that may hold a mutant


class Interrupted(Exception):
    pass


def on_signal(signum, _frame):
    raise Interrupted(signal.Signals(signum).name)


def run(command: list[str], timeout: float) -> tuple[int | None, str]:
    """Run in a process group of its own; None as the code when it ran past the timeout."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
        return process.returncode, output
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return None, output
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise


def targets_of(suites: list[str]) -> list[str]:
    return sorted({Path(s).name for s in suites})


class BuildLock:
    """The shared build directory's lock, as `flock /tmp/ampscope-build.lock` takes it, held
    from before a mutant is written until the original is back: no other build sees a mutant."""

    def __enter__(self):
        self.fd = os.open(LOCK, os.O_RDONLY | os.O_CREAT, 0o666)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)  # releases the lock


def build(build_dir: Path, targets: list[str], jobs: int, timeout: float) -> tuple[int | None, str]:
    """Call with the BuildLock held."""
    return run(["cmake", "--build", str(build_dir), "--target", *targets, "-j", str(jobs)], timeout)


def test(build_dir: Path, suites: list[str], timeout: float) -> tuple[int | None, str]:
    """Call with the BuildLock held."""
    regex = "^(" + "|".join(re.escape(s) for s in suites) + ")$"
    return run(["ctest", "--test-dir", str(build_dir), "-R", regex, "--no-tests=error",
                "--timeout", str(int(timeout)), "--output-on-failure"], timeout + 30)


def failed_tests(output: str) -> str:
    names = re.findall(r"^\s*\d+ - (\S+) \(([^)]*)\)", output, re.M)
    return ", ".join(f"{n} ({why})" for n, why in names)


def git_clean(file: str) -> bool:
    return subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "--", file]).returncode == 0


# The last mutant written into each file, so that the final restore recognises its own.
WRITTEN_MUTANTS: dict[str, bytes] = {}


def try_one(m: Mutation, original: bytes, args) -> None:
    with BuildLock():
        try_one_locked(m, original, args)


def try_one_locked(m: Mutation, original: bytes, args) -> None:
    path = ROOT / m.file
    if not git_clean(m.file):
        m.result, m.detail = "skipped", "file has uncommitted changes"
        return
    if path.read_bytes() != original:
        m.result, m.detail = "skipped", "file changed since the run started"
        return
    start = time.monotonic()
    try:
        TOUCHED.update(targets_of(m.suites))  # rebuilt at the end, even after an interruption
        m.result = "interrupted"
        mutant = mutated_text(m, original.decode()).encode()
        WRITTEN_MUTANTS[m.file] = mutant
        path.write_bytes(mutant)
        code, output = build(args.build, targets_of(m.suites), args.jobs, args.build_timeout)
        if code != 0:
            m.result = "no-build"
            errors = [l for l in output.splitlines() if "error" in l]
            m.detail = (errors[0] if errors else output.strip().splitlines()[-1:] or [""])[0][-160:]
            return
        code, output = test(args.build, m.suites, args.timeout)
        if code is None or re.search(r"\*\*\*Timeout|Timeout\)", output):
            m.result, m.detail = "timeout", failed_tests(output)
        elif code != 0:
            m.result, m.detail = "killed", failed_tests(output)
        else:
            m.result = "survived"
    finally:
        path.write_bytes(original)
        m.seconds = time.monotonic() - start


# --- reporting --------------------------------------------------------------------------

def reproduce(m: Mutation, args) -> str:
    command = ["tests/tools/mutate.py"]
    if m.origin == "sample":
        command += ["--sample", str(args.sample), "--seed", str(args.seed), "--files", *args.files]
    elif args.list != ROOT / "tests/tools/mutations.txt":
        command += ["--list", os.path.relpath(args.list, ROOT)]
    command += ["--only", m.id]
    return shlex.join(command)


def summary(mutations: list[Mutation]) -> dict[str, int]:
    counts = {k: 0 for k in ("killed", "survived", "timeout", "no-build", "skipped", "interrupted", "not run")}
    for m in mutations:
        counts[m.result or "not run"] += 1
    return counts


def table(mutations: list[Mutation], markdown: bool) -> str:
    rows = [(m.id, f"{m.file}:{m.line_no or m.line_spec}", m.change, m.result or "not run",
             " ".join(m.suites), m.detail) for m in mutations]
    head = ("id", "where", "change", "result", "suites", "detail")
    if markdown:
        esc = lambda s: s.replace("|", "\\|")
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
        return "\n".join(out)
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r[:5], widths)).rstrip()
    return "\n".join([fmt(head)] + [fmt(r) for r in rows])


def summary_text(mutations: list[Mutation]) -> str:
    c = summary(mutations)
    tried = sum(c[k] for k in ("killed", "survived", "timeout", "no-build"))
    built = c["killed"] + c["survived"] + c["timeout"]
    share = f"{100.0 * (c['killed'] + c['timeout']) / built:.0f}%" if built else "n/a"
    text = (f"tried {tried}: killed {c['killed']}, survived {c['survived']}, timed out {c['timeout']}, "
            f"didn't build {c['no-build']}; killed (timeouts included) {share} of the {built} that built")
    if c["skipped"] or c["not run"] or c["interrupted"]:
        text += f"; skipped {c['skipped']}, interrupted {c['interrupted']}, not run {c['not run']}"
    return text


def write_report(path: Path, mutations: list[Mutation], args) -> None:
    survivors = [m for m in mutations if m.result == "survived"]
    lines = [f"# Mutation run, {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC", "",
             summary_text(mutations) + ".", "", table(mutations, markdown=True), ""]
    if survivors:
        lines += ["## Survivors", ""] + [f"- `{m.id}` {m.file}:{m.line_no} {m.change}: `{reproduce(m, args)}`"
                                         for m in survivors] + [""]
    path.write_text("\n".join(lines))


# --- main -------------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", type=Path, default=ROOT / "tests/tools/mutations.txt")
    parser.add_argument("--sample", type=int, default=0, metavar="N", help="sample N mutations from --files")
    parser.add_argument("--files", nargs="+", default=[], metavar="GLOB", help="files to sample from (repo-relative)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--suites", default="", help="suites for sampled mutations (default: by header)")
    parser.add_argument("--only", nargs="+", default=[], metavar="ID", help="run these IDs only")
    parser.add_argument("--match", default="", metavar="GLOB", help="run mutations whose FILE matches")
    parser.add_argument("--dry-run", action="store_true", help="list the mutations, build nothing")
    parser.add_argument("--report", type=Path, help="write the table and summary as Markdown")
    parser.add_argument("--build", type=Path, default=ROOT / "build")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300, help="seconds for a mutation's suites")
    parser.add_argument("--build-timeout", type=float, default=1800)
    parser.add_argument("--stop-at", metavar="HH:MM", help="start no mutation after this UTC time")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated build and run")
    args = parser.parse_args()
    args.build = args.build.resolve()

    if args.sample:
        mutations = sample(args.files, args.sample, args.seed, split_suites(args.suites))
    else:
        mutations = parse_list(args.list)
    if args.match:
        mutations = [m for m in mutations if fnmatch.fnmatch(m.file, args.match)]
    if args.only:
        mutations = [m for m in mutations if m.id in args.only]
        if not mutations:
            sys.exit(f"--only {' '.join(args.only)}: no such mutation")

    # Read under the build lock: another run of this tool may have a mutant of the same
    # file in place, and bytes read then would be "restored" as the original.
    originals: dict[str, bytes] = {}
    with contextlib.nullcontext() if args.dry_run else BuildLock():
        for m in mutations:
            path = ROOT / m.file
            if m.file not in originals and path.is_file():
                originals[m.file] = path.read_bytes()
    for m in mutations:
        if m.file not in originals:
            m.error = "no such file"
            continue
        if not m.suites:
            m.suites = covering_suites(m.file)
        resolve(m, originals[m.file].decode())
        if m.error:
            m.result, m.detail = "skipped", m.error

    ids = [m.id for m in mutations]
    if len(ids) != len(set(ids)):
        sys.exit("two mutations have the same ID (the same FILE, LINE, FROM and TO)")

    if args.dry_run:
        for m in mutations:
            print(f"{m.id}  {m.file}:{m.line_no or m.line_spec}  {m.change}  [{' '.join(m.suites)}]"
                  + (f"  SKIP: {m.error}" if m.error else ""))
        print(f"{len(mutations)} mutations, {sum(1 for m in mutations if m.error)} that cannot be applied")
        return 1 if any(m.error for m in mutations) else 0

    runnable = [m for m in mutations if not m.error]
    all_targets = targets_of([s for m in runnable for s in m.suites])
    all_suites = sorted({s for m in runnable for s in m.suites})
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    stop_at = None
    if args.stop_at:
        hour, minute = map(int, args.stop_at.split(":"))
        now = dt.datetime.now(dt.timezone.utc)
        stop_at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)

    interrupted = ""
    try:
        if runnable and not args.no_baseline:
            print(f"baseline: building {' '.join(all_targets)}", flush=True)
            with BuildLock():
                code, output = build(args.build, all_targets, args.jobs, args.build_timeout)
                if code != 0:
                    print(output[-3000:])
                    sys.exit("baseline: the unmutated targets do not build")
                code, output = test(args.build, all_suites, args.timeout)
            if code != 0:
                print(output[-3000:])
                sys.exit("baseline: a suite fails without any mutation")
        for index, m in enumerate(runnable, 1):
            if stop_at and dt.datetime.now(dt.timezone.utc) >= stop_at:
                print(f"--stop-at {args.stop_at}: {len(runnable) - index + 1} mutations not run", flush=True)
                break
            try_one(m, originals[m.file], args)
            print(f"[{index}/{len(runnable)}] {m.id} {m.file}:{m.line_no} {m.change}: {m.result} "
                  f"({m.seconds:.0f} s){' ' + m.detail if m.detail else ''}", flush=True)
            if args.report:
                write_report(args.report, mutations, args)
    except Interrupted as signame:
        interrupted = str(signame)
        print(f"\n{interrupted}: stopping", flush=True)
    finally:
        for file, data in originals.items():
            if (ROOT / file).read_bytes() != data:
                (ROOT / file).write_bytes(data)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if TOUCHED:
            print(f"restored; rebuilding {' '.join(sorted(TOUCHED))}", flush=True)
            with BuildLock():
                code, output = build(args.build, sorted(TOUCHED), args.jobs, args.build_timeout)
            if code != 0:
                print(output[-3000:])
                print("warning: the restored targets did not build", file=sys.stderr)

    print()
    print(table(mutations, markdown=False))
    print()
    print(summary_text(mutations))
    survivors = [m for m in mutations if m.result == "survived"]
    if survivors:
        print("\nsurvivors, each reproduced by:")
        for m in survivors:
            print(f"  {reproduce(m, args)}    # {m.file}:{m.line_no} {m.change}")
    if args.report:
        write_report(args.report, mutations, args)
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
