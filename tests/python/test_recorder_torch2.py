"""The recorder under torch 2.x's CPU mixed precision: fp16 autocast with
torch.amp.GradScaler("cpu"), and bf16 autocast around a compiled model. torch 1.13 has
neither (its CPU autocast is bf16 only and its GradScaler is CUDA's): there these cases
skip, and test_recorder.py's bf16 and GradScaler cases cover what 1.13 has."""
import json
import math
import os
import unittest

import torch

import ampscope
from support import events, needs_cli, of_type, run_cli, spiral_mlp, spirals, temp_dir
from test_recorder import GradInjection, LAYER_NUMEL, LAYERS, histogram_total
from test_recorder_compile import BATCH, FAULT_STEP, compile_unavailable, train_compiled


def cpu_fp16_unavailable():
    amp = getattr(torch, "amp", None)
    if amp is None or not hasattr(amp, "GradScaler"):
        return f"torch.amp.GradScaler needs torch 2.3 or later (this is torch {torch.__version__})"
    with torch.autocast("cpu", dtype=torch.float16):
        produced = torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype
    if produced != torch.float16:
        return f"torch {torch.__version__}'s CPU autocast has no float16"
    return None


@unittest.skipIf(cpu_fp16_unavailable(), cpu_fp16_unavailable())
class Fp16AutocastWithCpuGradScaler(unittest.TestCase):
    """Eight steps of the spirals MLP in fp16 autocast, the GradScaler's own state read by
    the loop as the truth; an Inf put into the gradient arriving at layer 2's output at
    step 5 makes the scaler skip that step and back off."""
    STEPS, INF_STEP = 8, 5

    @classmethod
    def setUpClass(cls):
        import tempfile
        folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
        cls.addClassCleanup(folder.cleanup)
        cls.run_dir = os.path.join(folder.name, "fp16")
        model = spiral_mlp()
        current = {"step": 0}

        def inject(module, args):
            if current["step"] == cls.INF_STEP:
                return (GradInjection.apply(args[0]),)
            return None

        model[3].register_forward_pre_hook(inject)
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16, growth_interval=3)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = spirals(64 * cls.STEPS, seed=1)
        cls.expected = []
        with ampscope.Recorder(cls.run_dir, model, optimizer=optimizer, scaler=scaler,
                               mode="fp16", probe_every=4) as rec:
            for step in range(1, cls.STEPS + 1):
                current["step"] = step
                optimizer.zero_grad(set_to_none=True)
                scale = scaler.get_scale()
                with torch.autocast("cpu", dtype=torch.float16):
                    out = model(x[(step - 1) * 64:step * 64])
                loss = torch.nn.functional.cross_entropy(out.float(), y[(step - 1) * 64:step * 64])
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                scaler.step(optimizer)
                scaler.update()
                cls.expected.append((step, scale, scaler.get_scale(), loss.item()))
                rec.step(loss)
        cls.records = events(cls.run_dir)

    def test_the_scaler_state_is_the_loops(self):
        self.assertEqual(self.records[1]["precision"]["mode"], "fp16")
        steps = {s["step"]: s for s in of_type(self.records, "step")}
        for step, scale, after, loss in self.expected:
            s = steps[step]
            self.assertEqual((s["scale"], s["scale_after"], s["loss"]), (scale, after, loss),
                             f"step {step}")
            self.assertEqual((s["found_inf"], s["step_skipped"]),
                             (step == self.INF_STEP, step == self.INF_STEP))
        self.assertEqual(steps[3]["scale_change"], "growth")   # growth_interval 3
        self.assertEqual(steps[self.INF_STEP]["scale_change"], "backoff")
        with open(os.path.join(self.run_dir, "summary.json")) as handle:
            summary = json.load(handle)
        self.assertEqual((summary["skipped_steps"], summary["scale_backoffs"]), (1, 1))

    def test_activations_are_half_precision(self):
        memory = of_type(self.records, "memory", step=4)[0]
        # Linear outputs under CPU fp16 autocast: 2 bytes per element.
        self.assertEqual(memory["activation_bytes"], {"float16": 2 * 64 * (64 + 64 + 2)})
        activation = of_type(self.records, "histogram", step=4, layer="2",
                             kind="activation_grad")[0]
        self.assertEqual(histogram_total(activation), 64 * 64)

    def test_scaled_gradients_sit_sixteen_bins_up(self):
        # Step 1's scale is 2^16, a power of two: every scaled gradient exactly 16 bins up.
        for layer in LAYERS:
            scaled = of_type(self.records, "histogram", step=1, layer=layer,
                             kind="param_grad_scaled")[0]
            unscaled = of_type(self.records, "histogram", step=1, layer=layer,
                               kind="param_grad")[0]
            self.assertEqual(scaled["counts"][16:], unscaled["counts"][:-16])
            self.assertEqual(histogram_total(scaled), LAYER_NUMEL[layer])
            what_if = of_type(self.records, "underflow", step=1, layer=layer, kind="param_grad")
            self.assertEqual([u["multiplier"] for u in what_if], [2.0 ** 15, 2.0 ** 16, 2.0 ** 17])

    def test_the_inf_is_located(self):
        event = of_type(self.records, "nonfinite")[0]
        self.assertEqual((event["step"], event["layer"], event["phase"], event["tensor"],
                          event["pos_inf"]), (self.INF_STEP, "2", "backward", "gradient", 1))

    @needs_cli
    def test_the_report_opens_the_run(self):
        out = os.path.join(temp_dir(self), "fp16.html")
        result = run_cli("report", self.run_dir, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as handle:
            html = handle.read()
        self.assertIn(f"PyTorch {torch.__version__}", html)
        self.assertIn(f"<b>First non-finite value at step {self.INF_STEP}</b>: layer <b>2</b>, "
                      "backward pass, gradient (0 NaN, 1 +Inf", html)


@unittest.skipIf(compile_unavailable(), compile_unavailable())
class Bf16AutocastCompiled(unittest.TestCase):
    def test_a_compiled_bf16_run_locates_its_nan(self):
        run_dir = os.path.join(temp_dir(self), "bf16")
        with torch.autocast("cpu", dtype=torch.bfloat16):
            graphs, breaks, losses = train_compiled(run_dir, "wrapper", fault="forward_fault")
        self.assertEqual((graphs, breaks), (2, 0))
        records = events(run_dir)
        self.assertEqual([s["loss"] for s in of_type(records, "step")][:FAULT_STEP - 1],
                         losses[:FAULT_STEP - 1])
        event = of_type(records, "nonfinite")[0]
        self.assertEqual((event["step"], event["layer"], event["phase"], event["nan"]),
                         (FAULT_STEP, "fc2", "forward", BATCH * 16))
        self.assertTrue(all(math.isfinite(loss) for loss in losses[:FAULT_STEP - 1]))


if __name__ == "__main__":
    unittest.main()
