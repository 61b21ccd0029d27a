"""One definition, two writers: the same small model trained by the engine
(`ampscope-cli run`) and by a PyTorch loop under the recorder, with the same weights
and the same batches in fp32, gives the same loss on every step and the same
histograms and fp16 classes on the probe steps.

The PyTorch side rebuilds the engine's data and weights from their documented
definitions: the spirals set (core/data/SyntheticData.cpp), the seed streams
(core/data/SeedStreams.h: SplitMix64 of the run seed per stream), the 20% hold-out
(randperm of the split stream), the batch order of epoch 1 (randperm of the
batch-order stream, index 1), and the weights drawn from torch.manual_seed(seed) in
the engine's layer order (torch.nn.Linear's default initialisation in both)."""
import json
import math
import os
import unittest

import torch

import ampscope
from support import SOURCE_DIR, events, needs_cli, of_type, run_cli, temp_dir

MASK = (1 << 64) - 1
SEED, SAMPLES, STEPS, BATCH, PROBE_EVERY = 1, 3000, 12, 64, 5
LAYERS = ["fc1", "act1", "fc2", "act2", "out"]
STREAM_SPLIT, STREAM_SYNTHETIC, STREAM_BATCH_ORDER = 1, 3, 4


def mix_seed(value):
    value = (value + 0x9E3779B97F4A7C15) & MASK
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK
    return value ^ (value >> 31)


def generator(seed, stream, index=0):
    g = torch.Generator()
    g.manual_seed(mix_seed((mix_seed(seed ^ (stream << 56)) + index) & MASK))
    return g


def spirals_batches():
    g = generator(SEED, STREAM_SYNTHETIC)
    points, labels = [], []
    for k in range(3):
        n = SAMPLES // 3 + (1 if k < SAMPLES % 3 else 0)
        t = (torch.arange(n, dtype=torch.float64) + 0.5) / n
        noise = torch.randn(n, generator=g, dtype=torch.float64)
        angle = 2.0 * math.pi * k / 3 + 4.0 * t + 0.2 * noise
        points.append(torch.stack([t * torch.cos(angle), t * torch.sin(angle)], 1))
        labels.append(torch.full((n,), k, dtype=torch.int64))
    x, y = torch.cat(points).float().contiguous(), torch.cat(labels)
    order = torch.randperm(SAMPLES, generator=generator(SEED, STREAM_SPLIT))
    held = round(0.2 * SAMPLES)
    x, y = x.index_select(0, order[held:]), y.index_select(0, order[held:])
    batch_order = torch.randperm(x.shape[0], generator=generator(SEED, STREAM_BATCH_ORDER, 1))
    for step in range(STEPS):
        index = batch_order[step * BATCH:(step + 1) * BATCH]
        yield x.index_select(0, index), y.index_select(0, index)


@needs_cli
class EngineAndRecorderAgree(unittest.TestCase):
    def test_same_losses_and_probes(self):
        folder = temp_dir(self)
        engine_dir, recorded_dir = os.path.join(folder, "engine"), os.path.join(folder, "recorded")
        result = run_cli("run", os.path.join(SOURCE_DIR, "examples", "spirals-mlp-fp32.json"),
                         "--out", engine_dir, "--quiet", "--set", f"train.max_steps={STEPS}",
                         "--set", f"probes.every={PROBE_EVERY}", "--set", "threads=1")
        self.assertEqual(result.returncode, 0, result.stderr)

        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # as the engine ran: sums in the same order
        self.addCleanup(torch.set_num_threads, threads)
        torch.manual_seed(SEED)
        model = torch.nn.Sequential()
        for name, layer in zip(LAYERS, (torch.nn.Linear(2, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64),
                                        torch.nn.Tanh(), torch.nn.Linear(64, 3)), strict=True):
            model.add_module(name, layer)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.9, 0.999), eps=1e-8)
        with ampscope.Recorder(recorded_dir, model, optimizer=optimizer, probe_every=PROBE_EVERY,
                               modules=LAYERS) as rec:
            for x, y in spirals_batches():
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                rec.step(loss)

        engine, recorded = events(engine_dir), events(recorded_dir)
        engine_losses = [s["loss"] for s in of_type(engine, "step")]
        recorded_losses = [s["loss"] for s in of_type(recorded, "step")]
        self.assertEqual(len(engine_losses), STEPS)
        self.assertEqual(len(recorded_losses), STEPS)  # zip below stops at the shorter
        for step, (a, b) in enumerate(zip(engine_losses, recorded_losses), 1):
            self.assertAlmostEqual(a, b, delta=1e-6 * abs(a), msg=f"step {step}")

        def keyed(records, kind):
            return {(r["step"], r["layer"], r["kind"], r.get("multiplier")): r
                    for r in of_type(records, kind)}

        for kind, fields in (("histogram", ("counts", "below", "above", "zero", "nan", "pos_inf",
                                            "neg_inf")),
                             ("underflow", ("zero", "flushed", "subnormal", "normal", "overflow",
                                            "nan", "inf"))):
            a, b = keyed(engine, kind), keyed(recorded, kind)
            self.assertGreater(len(a), 0)
            self.assertEqual(sorted(a), sorted(b), kind)
            for key in a:
                self.assertEqual({f: a[key][f] for f in fields}, {f: b[key][f] for f in fields},
                                 f"{kind} {key}")
        engine_ratios, recorded_ratios = of_type(engine, "update_ratio"), of_type(recorded, "update_ratio")
        self.assertGreater(len(engine_ratios), 0)
        self.assertEqual(len(recorded_ratios), len(engine_ratios))
        for a, b in zip(engine_ratios, recorded_ratios):
            self.assertEqual((a["step"], a["layer"]), (b["step"], b["layer"]))
            self.assertAlmostEqual(a["ratio"], b["ratio"], delta=1e-5 * a["ratio"])


if __name__ == "__main__":
    unittest.main()
