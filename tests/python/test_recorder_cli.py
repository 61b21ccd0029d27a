"""A recorded run opened as a user would: `ampscope-cli report` (HTML) and `export-csv`
on it, a recording killed mid-way (kill -9) that still opens, and the window's
screenshot of a recorded run."""
import csv
import json
import os
import signal
import subprocess
import sys
import time
import unittest

from support import CLI, GUI, SOURCE_DIR, events, needs_cli, of_type, png_pixels, run_cli, temp_dir, train


@needs_cli
class ReportAndExport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
        cls.run_dir = os.path.join(cls.folder.name, "recorded")
        cls.losses, _ = train(cls.run_dir, mode="bf16", steps=25, probe_every=5)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_report_says_recorded_from_pytorch(self):
        out = os.path.join(self.folder.name, "report.html")
        result = run_cli("report", self.run_dir, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as handle:
            html = handle.read()
        self.assertIn("recorded from a PyTorch run", html)
        import torch
        self.assertIn(f"PyTorch {torch.__version__}", html)
        self.assertTrue("(real)" not in html and "(emulated)" not in html,
                        "a recorded run is labelled neither real nor emulated")
        self.assertIn("bf16", html)

    def test_export_csv_has_every_step_and_probe(self):
        out = os.path.join(self.folder.name, "csv")
        result = run_cli("export-csv", self.run_dir, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "steps.csv"), newline="") as handle:
            rows = list(csv.DictReader(handle))
        self.assertEqual([int(r["step"]) for r in rows], list(range(1, 26)))
        self.assertAlmostEqual(float(rows[0]["loss"]), self.losses[0], places=6)
        with open(os.path.join(out, "histograms.csv"), newline="") as handle:
            histogram_rows = list(csv.DictReader(handle))
        recorded = of_type(events(self.run_dir), "histogram")
        self.assertGreater(len(recorded), 0)
        self.assertEqual({int(r["step"]) for r in histogram_rows}, {1, 5, 10, 15, 20, 25})


KILLED_SCRIPT = r"""
import sys, time, torch
sys.path.insert(0, {python_dir!r})
import ampscope
from support import spiral_mlp, spirals
model = spiral_mlp()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = spirals(64, seed=1)
rec = ampscope.Recorder({run_dir!r}, model, optimizer=opt, probe_every=10)
while True:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    rec.step(loss)
    time.sleep(0.002)
"""


@needs_cli
class KilledMidway(unittest.TestCase):
    def test_a_run_killed_midway_still_opens(self):
        folder = temp_dir(self)
        run_dir = os.path.join(folder, "killed")
        script = KILLED_SCRIPT.format(python_dir=os.path.join(SOURCE_DIR, "python"), run_dir=run_dir)
        process = subprocess.Popen([sys.executable, "-c", script],
                                   cwd=os.path.dirname(os.path.abspath(__file__)))
        try:
            deadline = time.monotonic() + 120
            steps = 0
            while steps < 60 and time.monotonic() < deadline:
                time.sleep(0.1)
                path = os.path.join(run_dir, "events.jsonl")
                if os.path.exists(path):
                    with open(path, encoding="utf-8") as handle:
                        steps = sum(1 for line in handle if '"type":"step"' in line)
            self.assertGreaterEqual(steps, 60, "the training process did not get going")
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        self.assertFalse(os.path.exists(os.path.join(run_dir, "summary.json")))
        with open(os.path.join(run_dir, "events.jsonl"), encoding="utf-8") as handle:
            text = handle.read()
        self.assertTrue(text.endswith("\n"))  # whole lines only
        records = [json.loads(line) for line in text.splitlines()]
        step_numbers = [r["step"] for r in records if r["type"] == "step"]
        self.assertEqual(step_numbers, list(range(1, len(step_numbers) + 1)))
        out = os.path.join(folder, "killed.html")
        result = run_cli("report", run_dir, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as handle:
            self.assertIn("INCOMPLETE", handle.read())


@unittest.skipUnless(GUI and os.path.exists(GUI), "the window (AMPSCOPE_GUI) is not built")
class WindowScreenshot(unittest.TestCase):
    def test_window_opens_a_recorded_run(self):
        folder = temp_dir(self)
        run_dir = os.path.join(folder, "run")
        train(run_dir, steps=12, probe_every=4)
        shot = os.path.join(folder, "window.png")
        result = subprocess.run([GUI, "--open-run", run_dir, "--screenshot", shot],
                                capture_output=True, text=True, timeout=300,
                                env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        self.assertEqual(result.returncode, 0, result.stderr)
        # A window, not an empty or one-colour image: its size, and the many colours of
        # plots, text and widgets with no single colour covering nearly all of it.
        width, height, pixels = png_pixels(shot)
        self.assertGreaterEqual(width, 640)
        self.assertGreaterEqual(height, 400)
        self.assertGreater(len(pixels), 200, "distinct colours")
        self.assertLess(pixels.most_common(1)[0][1], 0.9 * width * height, "one colour covers the picture")


if __name__ == "__main__":
    unittest.main()
