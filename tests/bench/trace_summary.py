#!/usr/bin/python3
"""Where a traced step's time went: reads the Chrome traces that
`ampscope-cli run ... --trace-steps N,M` writes (trace-step-N.json) and prints, per
step, the step's wall time, the probes' share (their named spans), the operator calls
on the host, and on a GPU the kernels: count, summed time, the device's busy share of
the step and the kernels that took longest.

  trace_summary.py RUN_DIR/trace-step-50.json RUN_DIR/trace-step-51.json [--top 8]
"""
import argparse
import collections
import json
import sys


def summarize(path, top):
    try:
        with open(path) as f:
            trace = json.load(f)
        events = trace["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"trace_summary.py: {path}: not a step trace ({e})")
    step = trace.get("otherData", {}).get("step", "?")
    spans = [e for e in events if e["name"].startswith("ampscope::step")]
    step_us = max((e["dur"] for e in spans), default=0.0)
    # Probe spans can nest inside one another's work: count only the outermost ones.
    probes = sorted((e for e in events if e["name"].startswith("probes: ")), key=lambda e: e["ts"])
    probe_us, probe_parts, reach = 0.0, collections.Counter(), -1.0
    for e in probes:
        if e["ts"] >= reach:
            probe_us += e["dur"]
            probe_parts[e["name"]] += e["dur"]
            reach = e["ts"] + e["dur"]
    host_ops = [e for e in events if e["cat"] == "host" and e["name"].startswith("aten::")]
    device = [e for e in events if e["cat"] == "device"]
    print(f"step {step} ({path})")
    print(f"  step wall time      {step_us / 1000:.2f} ms")
    share = f" ({100 * probe_us / step_us:.0f} %)" if step_us else ""
    print(f"  probes              {probe_us / 1000:.2f} ms{share}")
    for name, us in probe_parts.most_common(top):
        print(f"    {name[len('probes: '):]:<34} {us / 1000:.2f} ms")
    print(f"  host operator calls {len(host_ops)}")
    if device:
        busy = sum(e["dur"] for e in device)
        print(f"  device events       {len(device)}, {busy / 1000:.2f} ms summed"
              + (f" ({100 * busy / step_us:.0f} % of the step)" if step_us else ""))
        by_name = collections.Counter()
        for e in device:
            by_name[e["name"][:80]] += e["dur"]
        for name, us in by_name.most_common(top):
            print(f"    {name:<80} {us / 1000:.2f} ms")
    else:
        print("  device events       none (a CPU run, or a LibTorch without Kineto)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="+")
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args()
    for path in args.traces:
        summarize(path, args.top)


if __name__ == "__main__":
    main()
