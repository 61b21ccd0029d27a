"""Shared pieces of the recorder suites: paths from CTest's environment, a small real
training loop on the two-spirals set, and readers for what the recorder wrote."""
import collections
import json
import math
import os
import struct
import subprocess
import tempfile
import unittest
import zlib

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


def png_pixels(path):
    """(width, height, a Counter of pixel values) of an 8-bit, non-interlaced PNG, decoded
    here with zlib (Debian's python3 has no imaging library): what a screenshot shows."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, header, idat = 8, None, []
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise ValueError(f"{path}: chunk {kind!r} fails its CRC")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None:
        raise ValueError(f"{path}: no IHDR chunk")
    width, height, depth, color, _, _, interlace = header
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    if depth != 8 or interlace:
        raise ValueError(f"{path}: bit depth {depth}, interlace {interlace}: not read here")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        raise ValueError(f"{path}: {len(raw)} bytes of pixels for {width} x {height}")
    previous = bytearray(stride)
    pixels = collections.Counter()
    for y in range(height):  # undo each row's filter (PNG specification, section 9)
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 2:  # up: no dependence along the row
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        for i in range(stride) if kind in (1, 3, 4) else ():
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            if kind == 1:
                predicted = left
            elif kind == 2:
                predicted = up
            elif kind == 3:
                predicted = (left + up) >> 1
            else:
                upper_left = previous[i - channels] if i >= channels else 0
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predicted = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
            line[i] = (line[i] + predicted) & 0xFF
        pixels.update(bytes(line[i:i + channels]) for i in range(0, stride, channels))
        previous = line
    return width, height, pixels
