#!/usr/bin/env python3
"""Runs CTest tests as another user, for the cases root cannot check (root reads and writes
whatever a file's mode says): each test's command, environment and working directory as
CTest registered them (ctest --show-only=json-v1), run through runuser. CTest itself
cannot run there, as it writes its log into the build directory.

Fails when a named test is not registered, fails, or skips (its SKIP_REGULAR_EXPRESSION
matches or it exits with its SKIP_RETURN_CODE): run as a user, these cases must run.

Usage (as root): ctest_as_user.py BUILD_DIR USER TEST_NAME...
"""
import json
import re
import subprocess
import sys


def registered_tests(build_dir):
    listing = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                             check=True, capture_output=True, text=True).stdout
    return {test["name"]: test for test in json.loads(listing)["tests"]}


def properties_of(test):
    return {p["name"]: p["value"] for p in test.get("properties", [])}


def run_as(user, name, test):
    props = properties_of(test)
    command = test.get("command")
    if not command:
        return f"{name}: not built (no command)"
    environment = [f"{entry}" for entry in props.get("ENVIRONMENT", [])]
    argv = ["runuser", "-u", user, "--", "env", *environment, *command]
    print(f"== {name} as {user}", flush=True)
    try:
        done = subprocess.run(argv, cwd=props.get("WORKING_DIRECTORY"), capture_output=True,
                              text=True, timeout=props.get("TIMEOUT", 600))
    except subprocess.TimeoutExpired:
        return f"{name}: timed out"
    output = done.stdout + done.stderr
    print(output, end="", flush=True)
    skip_codes = {props["SKIP_RETURN_CODE"]} if "SKIP_RETURN_CODE" in props else set()
    skip_patterns = props.get("SKIP_REGULAR_EXPRESSION", [])
    if isinstance(skip_patterns, str):
        skip_patterns = [skip_patterns]
    if done.returncode in skip_codes or any(re.search(p, output) for p in skip_patterns):
        return f"{name}: skipped as {user}"
    if done.returncode != 0:
        return f"{name}: failed as {user} (exit {done.returncode})"
    return None


def main():
    build_dir, user, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    tests = registered_tests(build_dir)
    problems = []
    for name in names:
        if name not in tests:
            problems.append(f"{name}: no such CTest test in {build_dir}")
            continue
        problem = run_as(user, name, tests[name])
        if problem:
            problems.append(problem)
    for problem in problems:
        print(f"ctest_as_user: {problem}", file=sys.stderr)
    if not problems:
        print(f"ctest_as_user: {len(names)} tests passed as {user}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
