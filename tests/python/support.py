"""Shared pieces of the recorder suites: paths from CTest's environment, a small real
training loop on the two-spirals set, and readers for what the recorder wrote."""
import json
import math
import os
import subprocess
import tempfile
import unittest

import torch

import ampscope

CLI = os.environ.get("AMPSCOPE_CLI", "")
GUI = os.environ.get("AMPSCOPE_GUI", "")
PROBE_REFERENCE = os.environ.get("AMPSCOPE_PROBE_REFERENCE", "")
SOURCE_DIR = os.environ.get("AMPSCOPE_SOURCE_DIR",
                            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

needs_cli = unittest.skipUnless(CLI and os.path.exists(CLI), "AMPSCOPE_CLI not set (run through ctest)")


def temp_dir(test):
    folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
    test.addCleanup(folder.cleanup)
    return folder.name


def spirals(samples, seed):
    """The two-spirals set: two interleaved arms, label = arm (a classic hard 2-D set)."""
    generator = torch.Generator().manual_seed(seed)
    t = torch.rand(samples, generator=generator) * 3 * math.pi + 0.5
    arm = torch.randint(0, 2, (samples,), generator=generator)
    sign = 1.0 - 2.0 * arm.float()
    x = torch.stack([sign * t * torch.cos(t), sign * t * torch.sin(t)], dim=1) / 10.0
    x += 0.02 * torch.randn(samples, 2, generator=generator)
    return x, arm


def spiral_mlp(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(2, 64), torch.nn.Tanh(),
                               torch.nn.Linear(64, 64), torch.nn.Tanh(),
                               torch.nn.Linear(64, 2))


def train(run_dir, mode="fp32", steps=30, probe_every=10, batch=64, model=None,
          before_step=None, scaler=None, lr=0.05, after_step=None, **recorder_options):
    """Trains the spirals MLP for `steps` steps with the recorder; returns (losses, model).
    before_step(step, model) may install a fault for that step (1-based); after_step(step,
    rec) runs after the recorder took the step (to end an epoch, say)."""
    model = model or spiral_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    x, y = spirals(batch * steps, seed=1)
    losses = []
    with ampscope.Recorder(run_dir, model, optimizer=optimizer, scaler=scaler, mode=mode,
                           probe_every=probe_every, **recorder_options) as rec:
        for step in range(1, steps + 1):
            if before_step:
                before_step(step, model)
            xb, yb = x[(step - 1) * batch:step * batch], y[(step - 1) * batch:step * batch]
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "bf16"):
                loss = torch.nn.functional.cross_entropy(model(xb).float(), yb)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
            losses.append(loss.item())
            rec.step(loss)
            if after_step:
                after_step(step, rec)
    return losses, model


def events(run_dir):
    with open(os.path.join(run_dir, "events.jsonl"), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def of_type(records, record_type, **fields):
    return [r for r in records if r["type"] == record_type
            and all(r.get(k) == v for k, v in fields.items())]


def run_cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)
