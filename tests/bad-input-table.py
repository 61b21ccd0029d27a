#!/usr/bin/env python3
"""Renders docs/bad-input.md from what test_cli_bad_input, test_cli_lessons, test_cli_lesson_files, test_cli_prescribe and test_app_damaged_runs saw.

    AMPSCOPE_BAD_INPUT_TABLE=/tmp/rows.tsv ctest --test-dir build -R 'test_cli_bad_input|test_cli_lessons|test_cli_lesson_files|test_cli_prescribe|test_app_damaged_runs'
    python3 tests/bad-input-table.py /tmp/rows.tsv > docs/bad-input.md

Each row of the TSV is "section<TAB>input<TAB>exit<TAB>line" as the test wrote
it: the exact stderr line of ampscope-cli (or readRunDirectory's error or
warnings; or the window's stderr line, or at exit 0 its status line), temporary
paths as $TMP.
"""
import sys

WINDOW_INTRO = (
    "`ampscope --open-run $TMP/<case> --screenshot $TMP/<case>.png` (offscreen), run by "
    "`tests/app/test_app_damaged_runs.cpp` on each case of the table above and a few more, every "
    "one made from a good run the suite records (spirals, 12 steps). The window always ends and "
    "always saves the picture of what it shows. A run that cannot be read at all (refused, or not "
    "one line of its events.jsonl a record) is exit 2 and the line below on stderr, also shown "
    "in the status bar; a readable one is exit 0, its steps all shown, and the line below is its "
    "status line (printed on stdout), whose warnings are in its tool tip. A run without "
    "summary.json is followed: shown as far as it was written, and said not to have ended."
    " Found while building this table, and fixed: a summary.json whose `status` was a number "
    "aborted the window (an exception escaping a hand-written read of the file), and a run "
    "without summary.json that was read in one go, or one of random bytes, kept the window "
    "from ever ending (the screenshot waited for a signal sent before it listened). At the "
    "offscreen platform's default screen (the window comes out 949 pixels wide) the status bar cuts "
    "a long line short in the picture; its tool tip, stderr and stdout hold it whole.")

SECTIONS = [
    ("config file", "Config files", "`ampscope-cli run $TMP/config.json --out $TMP/run` with the file holding the bad part."),
    ("command line", "Command-line arguments", "`$CONFIG` is a valid config, `$OUT` a fresh directory."),
    ("lesson", "Lesson folders", "`ampscope-cli check-lesson $TMP/lesson` and `ampscope-cli run --lesson $TMP/lesson --out $TMP/out`, run by `tests/app/test_cli_lessons.cpp` on the three-run lesson it writes by hand (the example of [Writing your own lessons](guide/lessons.md)) with the bad part. check-lesson prints every problem, one per line, as `FILE:LINE: what` (no line where the whole file is at fault); run --lesson prints the first, after the folder, and runs nothing."),
    ("lesson file", "Lesson files", "`ampscope-cli check-lesson $TMP/hostile.ampscope-lesson` and `ampscope-cli run --lesson $TMP/hostile.ampscope-lesson --out $TMP/out`, run by `tests/app/test_cli_lesson_files.cpp` on the same lesson zipped by Python's zipfile (`tests/tools/write_lesson_zip.py`, which says how each hostile file is made). Each is refused on the zip's directory before anything is unpacked or run, in one line naming the file; the limits are in [Writing your own lessons](guide/lessons.md#limits)."),
    ("sensitivity and prescribe", "Sensitivity and prescription", "`ampscope-cli sensitivity $TMP/tiny.json --out $TMP/sens` and `ampscope-cli prescribe $TMP/tiny.json --out $TMP/rx` with the options the row names, run by `tests/app/test_cli_prescribe.cpp` on a tiny spirals MLP ([Sensitivity and prescription](guide/sensitivity-and-prescription.md)). Nothing is trained and no folder is made."),
    ("IDX file", "IDX files", "`data.dataset` `mnist_idx`, `data.path` a directory of crafted files (40 images of 4x4, `validation` `split` unless the row says `test`). The engine has opened the run directory when data fails, so each error is also its `error` record and `summary.json` says `status: error`."),
    ("safetensors file", "Safetensors files", "`data.dataset` `tensors`, `data.path` a crafted file holding `x` (F32 [40, 4]) and `y` (I64 [40]), `validation` `split`. The engine has opened the run directory when data fails, so each error is also its `error` record and `summary.json` says `status: error`. The reader's own checks, one row per kind of bad file with its exact line, are in `tests/core/data/test_safetensors.cpp`."),
    ("TorchScript model file", "TorchScript model files", "`model.name` `torchscript`, `model.path` one of the files `tests/tools/export_script_models.py` writes (`$FIX`) or one saved by torch 2.6 in `tests/data/torch2-models` (`$DATA`, rows run where the build's LibTorch refuses the file, as the folder's `manifest.json` records), on 64 FashionMNIST samples, with the config part the row names. A file that is not a usable model is refused before any step; each line names the file or the field."),
    ("output directory", "Output directory and disk", "`--out` that cannot be written, and a disk that fills while training."),
    ("kill -9", "kill -9 mid-run", "ampscope-cli on spirals (100000 epochs) killed with SIGKILL at a random moment after `run_start` reached the disk; the directory then read with `readRunDirectory`: every step 1..N present, no unreadable line, no `summary.json`."),
    ("remote run", "Runs on another machine (ssh://)", "`ampscope-cli report ssh://ampscope-test$RUN --out $TMP/report.html`, `$RUN` a folder in `$TMP`, through a real sshd on 127.0.0.1 that the test starts (`tests/support/SshServer.h`) and an ssh_config of its own (`AMPSCOPE_SSH_CONFIG`): `ampscope-test` is that server with the test's key, `ampscope-test-wrong-key` offers a key it does not accept, `ampscope-test-unknown-key` checks its host key against an empty known_hosts. `$PORT` is a port of 127.0.0.1. export-csv and export-tfevents copy the run the same way and print the same lines. The row that needs a user other than root was run as one."),
    ("run directory", "Run directories", "`readRunDirectory($TMP/run)` (core/run/RunReader.h; no CLI command reads run directories yet). Refused: an `InputError` whose text starts with the path. Loaded: the warnings, one line each, naming the file."),
    ("window", "Run directories in the window", WINDOW_INTRO),
]

def cell(text):
    return text.replace("|", "\\|")

def main():
    rows = {}
    seen = set()
    for raw in open(sys.argv[1], encoding="utf-8"):
        parts = raw.rstrip("\n").split("\t")
        if len(parts) != 4:
            continue
        section, what, exit_code, line = parts
        if (section, what) in seen:  # a rerun appends again: keep the first
            continue
        seen.add((section, what))
        rows.setdefault(section, []).append((what, exit_code, line))

    out = sys.stdout
    out.write("# Bad input: what each gets\n\n")
    out.write("Every row below was run by `tests/app/test_cli_bad_input.cpp` (through the real\n"
              "`ampscope-cli`, or `readRunDirectory` for run directories), for lesson folders by\n"
              "`tests/app/test_cli_lessons.cpp`, for lesson files by `tests/app/test_cli_lesson_files.cpp`,\n"
              "for sensitivity and prescribe by\n"
              "`tests/app/test_cli_prescribe.cpp`, or, for the window,\n"
              "`tests/app/test_app_damaged_runs.cpp`; the message column\n"
              "is the exact line that run printed, with the test's temporary directory written\n"
              "as `$TMP`. Regenerate with `tests/bad-input-table.py` (see its header).\n\n"
              "Exit codes (DESIGN.md): 2 bad input (usage, config, data, output directory),\n"
              "1 internal error (a write that fails mid-run, an allocation that fails), 0 done.\n"
              "Every message is one line on stderr, `ampscope-cli: ` then the file or field,\n"
              "then the problem.\n")
    for key, title, intro in SECTIONS:
        if key not in rows:
            continue
        out.write(f"\n## {title}\n\n{intro}\n\n")
        if key == "run directory":
            out.write("| input | result | message or warnings |\n|---|---|---|\n")
        elif key == "window":
            out.write("| input | exit | line (stderr at exit 2; the status line at exit 0) |\n|---|---|---|\n")
        elif key == "kill -9":
            out.write("| attempt | process | what loaded |\n|---|---|---|\n")
        else:
            out.write("| input | exit | message (stderr) |\n|---|---|---|\n")
        for what, exit_code, line in rows[key]:
            out.write(f"| {cell(what)} | {cell(exit_code)} | `{cell(line)}` |\n")
    out.write("""
## Known gaps

- **Memory the validation does not foresee.** `model.*` sizes are refused above
  2e9 parameters (`model.hidden: about 8.64e+09 parameters would need 32.2 GiB`),
  but the guard counts weights only: activations (`train.batch_size` x layer width)
  and optimizer state are not estimated. `hidden [65536]` with `batch_size 65536`
  passes validation and asks LibTorch for 16 GiB in the first step. Under an
  address-space limit the run ends with LibTorch's allocator message and exit 1
  (row above); without one, on Linux's default overcommit, the kernel may kill
  the process instead. An estimate of activation memory in validation (exit 2
  naming `train.batch_size`) would close this.
- **Disk full.** The run stops at the failed write (exit 1, the line names
  `events.jsonl`); every line written before stays readable and the partial
  line is cut away. The engine appends `run_end` before `summary.json`, so on a
  full disk no summary is written (the run reads as incomplete), although
  RunWriter could still write one.
- **`--set` messages quote the whole assignment**, so a 100 KB value gives a
  100 KB line (still one line).

## Parser bugs found while building this table (fixed, with regression tests)

- JSON nested ~100000 levels deep (a 200 KB config file of `[`, or such a
  `--set` value) crashed ampscope-cli with a stack overflow: nlohmann parses
  and frees any depth iteratively, but copying a value and `dump()` recurse.
  Config files, `--set` values, `config.json`, each `events.jsonl` line and
  `summary.json` of a run directory are now refused (or the line skipped)
  beyond 64 levels (core/common/JsonNesting.h).
- `readRunDirectory` let nlohmann's `out_of_range` escape (not an
  `InputError`) for a number beyond double in `config.json`; found by
  `fuzz_run_reader` after 265845 executions.
- A key holding a control character made the "unknown key" message span
  lines (and a NUL cut it short); such keys are now quoted as JSON strings.
- `schema_version` values beyond `int` wrapped: 4294967298 in `run_start` read
  as 2, and 2^64-1 in `config.json` as -1.
- A .gz IDX file whose header announces a large payload made the reader
  allocate (and zero) 64 MiB before the first byte arrived; it now starts at
  1 MiB and doubles as data arrives.

## Sanitizers and fuzzing

- `cmake -DAMPSCOPE_SANITIZE=address,undefined` (or `thread`) instruments every
  target; `.ci/run` (through `tests/sanitizers/run-sanitizers.sh`) runs the core,
  engine and CLI suites (this table's included) under ASan + UBSan, and `test_engine` and
  `test_metric_stream` under TSan.
  Options and suppressions: `tests/sanitizers/`.
- `tests/fuzz/run-fuzzers.sh SECONDS` builds the libFuzzer targets with clang
  (config files, `--set`, IDX raw and gzip, safetensors headers and ranges,
  run directories with a live follower cross-checked against the reader) and
  runs each for SECONDS; CI
  runs 60 s each. A finding goes to `tests/fuzz/regressions/TARGET/`, which
  `test_fuzz_replay` replays in every build.
""")

main()
