"""The three commands for a model of your own (docs/guide/own-model-and-data.md), as a
user runs them: the example exports a small vision transformer to TorchScript and
FashionMNIST to a safetensors file, and ampscope-cli trains it from the example's config
(here for a few steps), probing its submodules by their qualified names."""
import os
import shutil
import subprocess
import sys
import unittest

from support import SOURCE_DIR, events, needs_cli, of_type, run_cli, temp_dir

EXAMPLE = os.path.join(SOURCE_DIR, "examples", "own-model")
FASHION = "/usr/share/datasets/fashion-mnist"


@needs_cli
@unittest.skipUnless(os.path.isdir(FASHION), "dataset-fashion-mnist is not installed")
class OwnModelExample(unittest.TestCase):
    def test_export_run_and_records(self):
        folder = temp_dir(self)
        exported = subprocess.run([sys.executable, os.path.join(EXAMPLE, "export_model.py"),
                                   "--out", folder, "--train", "512"],
                                  capture_output=True, text=True)
        self.assertEqual(exported.returncode, 0, exported.stderr)
        self.assertIn("wrote tinyvit.pt", exported.stdout)
        # The config sits beside the files it names (relative paths).
        shutil.copy(os.path.join(EXAMPLE, "tinyvit.json"), folder)
        run_dir = os.path.join(folder, "runs", "tinyvit")
        result = run_cli("run", os.path.join(folder, "tinyvit.json"), "--out", run_dir,
                         "--set", "train.max_steps=4", "--set", "probes.every=2",
                         "--set", "train.batch_size=32")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("torchscript (71946 parameters)", result.stdout)
        records = events(run_dir)
        tree = of_type(records, "model_modules")
        self.assertEqual(len(tree), 1)
        probed = {m["name"] for m in tree[0]["modules"] if m["probed"]}
        self.assertIn("blocks.1.attn.qkv", probed)
        root = tree[0]["modules"][0]
        self.assertEqual((root["name"], root["type"], root["parameters"]), ("", "TinyVit", 16 * 64))
        layers = {r["layer"] for r in of_type(records, "histogram")}
        # The position embedding is the model's own parameter: the model itself is a layer.
        self.assertTrue({"(model)", "patches", "blocks.0.mlp.0", "head"} <= layers, layers)
        steps = of_type(records, "step")
        self.assertEqual(len(steps), 4)


if __name__ == "__main__":
    unittest.main()
