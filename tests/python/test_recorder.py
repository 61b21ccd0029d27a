"""The recorder on a small real training run (the spirals MLP, CPU, Debian's torch 1.13):
what it writes, checked against the training loop's own numbers and against values
computed here from the model's gradients and weights."""
import copy
import errno
import json
import math
import os
import unittest
from unittest import mock

import torch

import ampscope
from ampscope import probes, run_writer
from support import events, of_type, spiral_mlp, spirals, temp_dir, train

LAYERS = ["0", "2", "4"]
LAYER_NUMEL = {"0": 2 * 64 + 64, "2": 64 * 64 + 64, "4": 64 * 2 + 2}


def histogram_total(record):
    return sum(record["counts"]) + sum(record[k] for k in ("below", "above", "zero", "nan",
                                                           "pos_inf", "neg_inf"))


def class_total(record):
    return sum(record[k] for k in ("zero", "flushed", "subnormal", "normal", "overflow", "nan", "inf"))


class GradInjection(torch.autograd.Function):
    """Identity forward; backward puts +inf into the first element of the gradient."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone()
        grad.view(-1)[0] = math.inf
        return grad


class Fp32Run(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
        cls.run_dir = os.path.join(cls.folder.name, "fp32")
        cls.losses, _ = train(cls.run_dir, mode="fp32", steps=30, probe_every=10)
        cls.records = events(cls.run_dir)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_run_frame_and_source(self):
        self.assertEqual(self.records[0]["type"], "run_start")
        self.assertEqual(self.records[0]["schema_version"], 1)
        self.assertEqual(self.records[0]["source"], "pytorch_recorder")
        self.assertEqual(self.records[0]["ampscope_version"], ampscope.__version__)
        info = self.records[1]
        self.assertEqual(info["type"], "run_info")
        self.assertEqual(info["layers"], LAYERS)
        self.assertEqual(info["torch_version"], torch.__version__)
        self.assertEqual(info["precision"]["mode"], "fp32")
        self.assertFalse(info["precision"]["emulated"])
        self.assertTrue(info["precision"]["execution"].startswith("recorded from a PyTorch run"))
        self.assertEqual(info["parameters"], sum(LAYER_NUMEL.values()))
        self.assertEqual(self.records[-1]["type"], "run_end")
        self.assertEqual(self.records[-1]["status"], "finished")
        with open(os.path.join(self.run_dir, "summary.json")) as handle:
            summary = json.load(handle)
        self.assertEqual((summary["status"], summary["steps"], summary["source"]),
                         ("finished", 30, "pytorch_recorder"))
        self.assertAlmostEqual(summary["final_train_loss"], sum(self.losses) / 30, places=12)
        with open(os.path.join(self.run_dir, "config.json")) as handle:
            config = json.load(handle)
        self.assertEqual(config["schema_version"], 1)
        self.assertEqual(config["precision"]["mode"], "fp32")

    def test_every_step_records_the_loop_loss(self):
        steps = of_type(self.records, "step")
        self.assertEqual([s["step"] for s in steps], list(range(1, 31)))
        # The loss is the same float32 value the loop read with .item().
        self.assertEqual([s["loss"] for s in steps], self.losses)
        for s in steps:
            self.assertEqual((s["lr"], s["scale"], s["scale_after"], s["found_inf"],
                              s["step_skipped"], s["growth_tracker"]),
                             (0.05, 1.0, 1.0, False, False, 0))
            self.assertGreater(s["step_seconds"], 0)
            self.assertAlmostEqual(s["samples_per_second"], 64 / s["step_seconds"], delta=1e-6 * s["samples_per_second"])
            self.assertGreater(s["peak_memory_bytes"], 0)

    def test_probes_on_step_one_and_every_probe_every(self):
        histogram_steps = sorted({r["step"] for r in of_type(self.records, "histogram")})
        self.assertEqual(histogram_steps, [1, 10, 20, 30])
        for step in histogram_steps:
            for layer in LAYERS:
                scaled = of_type(self.records, "histogram", step=step, layer=layer, kind="param_grad_scaled")
                unscaled = of_type(self.records, "histogram", step=step, layer=layer, kind="param_grad")
                activation = of_type(self.records, "histogram", step=step, layer=layer, kind="activation_grad")
                self.assertEqual((len(scaled), len(unscaled), len(activation)), (1, 1, 1))
                self.assertEqual(histogram_total(scaled[0]), LAYER_NUMEL[layer])
                # Without a scaler the unscaled gradients are the scaled ones.
                self.assertEqual(scaled[0]["counts"], unscaled[0]["counts"])
                self.assertEqual(histogram_total(activation[0]), 64 * (2 if layer == "4" else 64))
                what_if = of_type(self.records, "underflow", step=step, layer=layer, kind="param_grad")
                self.assertEqual([u["multiplier"] for u in what_if], [0.5, 1.0, 2.0])
                for u in what_if:
                    self.assertEqual(class_total(u), LAYER_NUMEL[layer])
                    self.assertTrue(u["exact"])
                ratio = of_type(self.records, "update_ratio", step=step, layer=layer)
                self.assertEqual(len(ratio), 1)
                self.assertEqual(ratio[0]["numel"], LAYER_NUMEL[layer])
            memory = of_type(self.records, "memory", step=step)
            self.assertEqual(len(memory), 1)
            self.assertGreater(memory[0]["rss_bytes"], 0)
            self.assertEqual(memory[0]["activation_bytes"], {"float32": 4 * 64 * (64 + 64 + 2)})
        self.assertEqual(of_type(self.records, "nonfinite"), [])


class ProbeValues(unittest.TestCase):
    """One step, recomputed here on a copy of the model: the histograms are of the
    gradients backward produced, the update ratio is |w1 - w0| / |w0|."""

    def test_probe_step_values_match_the_gradients(self):
        run_dir = os.path.join(temp_dir(self), "one")
        model = spiral_mlp(seed=3)
        reference = copy.deepcopy(model)
        before = {n: p.detach().clone() for n, p in reference.named_parameters()}
        x, y = spirals(64, seed=1)
        torch.nn.functional.cross_entropy(reference(x), y).backward()
        losses, trained = train(run_dir, steps=1, probe_every=10, model=model)
        records = events(run_dir)
        step = of_type(records, "step")[0]
        grads = {n: p.grad for n, p in reference.named_parameters()}
        expected_norm = math.sqrt(sum(float(g.double().pow(2).sum()) for g in grads.values()))
        self.assertAlmostEqual(step["grad_norm"], expected_norm, delta=1e-12 * expected_norm)
        for layer in LAYERS:
            layer_grads = [grads[f"{layer}.weight"], grads[f"{layer}.bias"]]
            expected = sum(probes.histogram_slots(g) for g in layer_grads).tolist()
            record = of_type(records, "histogram", layer=layer, kind="param_grad")[0]
            self.assertEqual({k: record[k] for k in probes.histogram_fields(expected)},
                             probes.histogram_fields(expected))
            w0 = torch.cat([before[f"{layer}.weight"].flatten(), before[f"{layer}.bias"]]).double()
            w1 = torch.cat([dict(trained.named_parameters())[f"{layer}.weight"].detach().flatten(),
                            dict(trained.named_parameters())[f"{layer}.bias"].detach()]).double()
            ratio = of_type(records, "update_ratio", layer=layer)[0]
            self.assertAlmostEqual(ratio["weight_norm"], float(w0.norm()), delta=1e-12 * float(w0.norm()))
            self.assertAlmostEqual(ratio["update_norm"], float((w1 - w0).norm()), delta=1e-9)
            self.assertAlmostEqual(ratio["ratio"], float((w1 - w0).norm() / w0.norm()), delta=1e-9)


class Bf16AutocastRun(unittest.TestCase):
    def test_bf16_autocast_run(self):
        run_dir = os.path.join(temp_dir(self), "bf16")
        losses, _ = train(run_dir, mode="bf16", steps=20, probe_every=5)
        records = events(run_dir)
        self.assertEqual(records[1]["precision"]["mode"], "bf16")
        self.assertEqual([s["loss"] for s in of_type(records, "step")], losses)
        memory = of_type(records, "memory", step=5)[0]
        # Linear outputs under CPU autocast are bfloat16: 2 bytes per element.
        self.assertEqual(memory["activation_bytes"], {"bfloat16": 2 * 64 * (64 + 64 + 2)})
        activation = of_type(records, "histogram", step=5, layer="2", kind="activation_grad")[0]
        self.assertEqual(histogram_total(activation), 64 * 64)
        # A bfloat16 value has 8 exponent bits: every finite non-zero gradient sits in a bin.
        self.assertEqual(activation["below"] + activation["above"], 0)
        self.assertEqual(sorted({r["step"] for r in of_type(records, "histogram")}), [1, 5, 10, 15, 20])


class NonFiniteLocated(unittest.TestCase):
    def test_nan_in_a_submodule_output_is_located_by_name_step_and_phase(self):
        run_dir = os.path.join(temp_dir(self), "nan")
        model = spiral_mlp()
        current = {"step": 0}

        def inject(module, args, output):
            if current["step"] == 7:
                output = output.clone()
                output[0, 0] = math.nan
            return output

        # Installed before the recorder's own hook, so the recorder sees the NaN.
        model[2].register_forward_hook(inject)
        train(run_dir, steps=9, probe_every=5, model=model,
              before_step=lambda step, m: current.update(step=step))
        records = events(run_dir)
        found = of_type(records, "nonfinite")
        self.assertEqual(len(found), 1)
        event = found[0]
        self.assertEqual((event["step"], event["layer"], event["layer_index"], event["phase"],
                          event["tensor"]), (7, "2", 1, "forward", "activation"))
        self.assertEqual((event["nan"], event["pos_inf"], event["neg_inf"], event["numel"]),
                         (1, 0, 0, 64 * 64))
        self.assertEqual(event["located_by"], "check")
        # Frames: the probe steps before the event, then the event step's own.
        self.assertEqual([f["step"] for f in event["frames"]], [1, 5, 7])
        own = {l["layer"]: l for l in event["frames"][-1]["layers"]}
        self.assertEqual(own["2"]["activation"]["nan"], 1)
        self.assertEqual(own["2"]["activation"]["numel"], 4096)
        self.assertEqual(of_type(records, "step", step=7)[0]["first_nonfinite_layer"], "2")
        self.assertNotIn("first_nonfinite_layer", of_type(records, "step", step=6)[0])
        with open(os.path.join(run_dir, "summary.json")) as handle:
            self.assertEqual(json.load(handle)["first_nonfinite"]["layer"], "2")

    def test_inf_in_a_gradient_is_located_in_the_backward_phase(self):
        run_dir = os.path.join(temp_dir(self), "inf")
        model = spiral_mlp()
        current = {"step": 0}

        def inject(module, args):
            # The gradient that arrives at layer "2"'s output comes through here.
            if current["step"] == 4:
                return (GradInjection.apply(args[0]),)
            return None

        model[3].register_forward_pre_hook(inject)
        train(run_dir, steps=5, probe_every=10, model=model,
              before_step=lambda step, m: current.update(step=step))
        event = of_type(events(run_dir), "nonfinite")[0]
        self.assertEqual((event["step"], event["layer"], event["phase"], event["tensor"]),
                         (4, "2", "backward", "gradient"))
        self.assertEqual((event["nan"], event["pos_inf"], event["numel"]), (0, 1, 64 * 64))


class CpuGradScalerForTorch113(torch.cuda.amp.GradScaler):
    """torch 1.13's GradScaler refuses CPU tensors (scale() asserts CUDA, and its two
    fused kernels are CUDA-only). This subclass replaces exactly those three pieces with
    the documented semantics in plain torch ops, so the rest of the real GradScaler
    (unscale_/step's state machine, found_inf_per_device, update()'s bookkeeping) runs on
    the CPU. With torch >= 2.3 the suite uses torch.amp.GradScaler("cpu") instead."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000):
        import warnings
        from collections import defaultdict
        from torch.cuda.amp.grad_scaler import _refresh_per_optimizer_state
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "CUDA is not available. Disabling."
            super().__init__(enabled=False)
        # What the base class sets up when it is enabled.
        self._enabled = True
        self._init_scale = init_scale
        self._scale = None
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _lazy_init_scale_growth_tracker(self, dev):
        self._scale = torch.full((1,), self._init_scale, dtype=torch.float32, device=dev)
        self._growth_tracker = torch.full((1,), self._init_growth_tracker, dtype=torch.int32, device=dev)

    def scale(self, outputs):
        if self._scale is None:
            self._lazy_init_scale_growth_tracker(outputs.device)
        return outputs * self._scale.to(outputs.dtype)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is not None:
                    if not torch.isfinite(param.grad).all():
                        found_inf.fill_(1.0)
                    param.grad.mul_(inv_scale)
        return {found_inf.device: found_inf}

    def update(self, new_scale=None):
        found = sum(v for state in self._per_optimizer_states.values()
                    for v in state["found_inf_per_device"].values())
        if float(found) > 0:
            self._scale.mul_(self._backoff_factor)
            self._growth_tracker.fill_(0)
        else:
            self._growth_tracker.add_(1)
            if int(self._growth_tracker) == self._growth_interval:
                self._scale.mul_(self._growth_factor)
                self._growth_tracker.fill_(0)
        from collections import defaultdict
        from torch.cuda.amp.grad_scaler import _refresh_per_optimizer_state
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)


def cpu_grad_scaler(**kwargs):
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        try:
            return amp.GradScaler("cpu", **kwargs)
        except Exception:
            pass
    return CpuGradScalerForTorch113(**kwargs)


class GradScalerRun(unittest.TestCase):
    def test_scaler_state_skips_and_scaled_histograms(self):
        run_dir = os.path.join(temp_dir(self), "fp16")
        model = spiral_mlp()
        current = {"step": 0}

        def inject(module, args):
            if current["step"] == 5:
                return (GradInjection.apply(args[0]),)
            return None

        model[3].register_forward_pre_hook(inject)
        scaler = cpu_grad_scaler(init_scale=2.0 ** 16, growth_interval=3)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = spirals(64 * 8, seed=1)
        expected = []
        with ampscope.Recorder(run_dir, model, optimizer=optimizer, scaler=scaler, mode="fp16",
                               probe_every=5) as rec:
            for step in range(1, 9):
                current["step"] = step
                optimizer.zero_grad(set_to_none=True)
                scale = scaler.get_scale()
                loss = torch.nn.functional.cross_entropy(model(x[(step - 1) * 64:step * 64]),
                                                         y[(step - 1) * 64:step * 64])
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01))
                scaler.step(optimizer)
                scaler.update()
                expected.append((step, scale, scaler.get_scale(), norm))
                rec.step(loss)
            self.assertIn("unscale_", scaler.__dict__)  # wrapped while recording
        self.assertNotIn("unscale_", scaler.__dict__)  # and restored by close()
        self.assertNotIn("update", scaler.__dict__)
        records = events(run_dir)
        steps = {s["step"]: s for s in of_type(records, "step")}
        for step, scale, after, norm in expected:
            s = steps[step]
            self.assertEqual((s["scale"], s["scale_after"]), (scale, after), f"step {step}")
            self.assertEqual(s["found_inf"], step == 5)
            self.assertEqual(s["step_skipped"], step == 5)
        self.assertEqual(steps[5]["scale_change"], "backoff")
        self.assertEqual(steps[3]["scale_change"], "growth")   # growth_interval 3
        self.assertEqual(steps[3]["growth_tracker"], 0)
        self.assertEqual(steps[2]["growth_tracker"], 2)
        # grad_norm is taken after unscale_ and before the loop's clipping.
        self.assertAlmostEqual(steps[1]["grad_norm"], expected[0][3], delta=1e-5 * expected[0][3])
        # A power-of-two scale moves every gradient exactly 16 bins up.
        for layer in LAYERS:
            scaled = of_type(records, "histogram", step=1, layer=layer, kind="param_grad_scaled")[0]
            unscaled = of_type(records, "histogram", step=1, layer=layer, kind="param_grad")[0]
            self.assertEqual(scaled["counts"][16:], unscaled["counts"][:-16])
            self.assertEqual(histogram_total(scaled), LAYER_NUMEL[layer])
            what_if = of_type(records, "underflow", step=1, layer=layer, kind="param_grad")
            self.assertEqual([u["multiplier"] for u in what_if], [2.0 ** 15, 2.0 ** 16, 2.0 ** 17])
        self.assertEqual(of_type(records, "nonfinite")[0]["step"], 5)
        with open(os.path.join(run_dir, "summary.json")) as handle:
            summary = json.load(handle)
        self.assertEqual((summary["skipped_steps"], summary["scale_backoffs"]), (1, 1))


class Lifecycle(unittest.TestCase):
    def test_close_removes_every_hook(self):
        model = spiral_mlp()
        counts = lambda: sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())
        before = counts()
        rec = ampscope.Recorder(os.path.join(temp_dir(self), "hooks"), model)
        self.assertGreater(counts(), before)
        rec.close()
        self.assertEqual(counts(), before)
        rec.close()  # idempotent

    def test_bad_arguments_name_what_is_wrong(self):
        model = spiral_mlp()
        folder = temp_dir(self)
        with self.assertRaisesRegex(ValueError, "mode: must be one of"):
            ampscope.Recorder(os.path.join(folder, "a"), model, mode="int8")
        # The low-precision formats are modes a user's run may have trained in.
        ampscope.Recorder(os.path.join(folder, "a2"), model, mode="nvfp4").close()
        with self.assertRaisesRegex(ValueError, "no submodule named 'body.9'"):
            ampscope.Recorder(os.path.join(folder, "b"), model, modules=["body.9"])
        with self.assertRaisesRegex(ValueError, "probe_every"):
            ampscope.Recorder(os.path.join(folder, "c"), model, probe_every=-1)
        ampscope.Recorder(os.path.join(folder, "d"), model).close()
        with self.assertRaisesRegex(ValueError, "already holds a run"):
            ampscope.Recorder(os.path.join(folder, "d"), model)
        with open(os.path.join(folder, "file"), "w") as handle:
            handle.write("x")
        with self.assertRaisesRegex(ValueError, "exists and is not a directory"):
            ampscope.Recorder(os.path.join(folder, "file"), model)

    def test_user_listed_modules_and_rank_directories(self):
        folder = temp_dir(self)
        train(os.path.join(folder, "run"), steps=2, probe_every=1, modules=["2", "4"], rank=3)
        records = events(os.path.join(folder, "run", "rank-3"))
        self.assertEqual(records[1]["layers"], ["2", "4"])
        self.assertEqual(records[0]["rank"], 3)
        train(os.path.join(folder, "named-{rank}"), steps=1, rank=1)
        self.assertTrue(os.path.exists(os.path.join(folder, "named-1", "events.jsonl")))

    def test_version_is_the_projects(self):
        expected = os.environ.get("AMPSCOPE_PROJECT_VERSION")
        if not expected:
            self.skipTest("AMPSCOPE_PROJECT_VERSION not set (run through ctest)")
        self.assertEqual(ampscope.__version__, expected)


class DiskFull(unittest.TestCase):
    def test_a_full_disk_raises_once_and_leaves_a_readable_run(self):
        run_dir = os.path.join(temp_dir(self), "full")
        model = spiral_mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = spirals(64, seed=1)
        real_write_all = run_writer._write_all
        calls = {"n": 0}

        def fill_up(fd, data):
            # The third buffered write is cut in the middle of a line, then ENOSPC.
            calls["n"] += 1
            if calls["n"] >= 3:
                real_write_all(fd, data[:len(data) // 2])
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real_write_all(fd, data)

        raised = []
        with mock.patch.object(run_writer.schema, "FLUSH_INTERVAL_SECONDS", 0.0):
            rec = ampscope.Recorder(run_dir, model, optimizer=optimizer, probe_every=0)
            with mock.patch.object(run_writer, "_write_all", fill_up):
                for _ in range(10):
                    optimizer.zero_grad()
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                    loss.backward()
                    optimizer.step()
                    try:
                        rec.step(loss)
                    except ampscope.RecorderWriteError as error:
                        raised.append(str(error))
                rec.close()  # does not raise the same failure again
        self.assertEqual(len(raised), 1)
        self.assertIn("No space left on device", raised[0])
        self.assertIn("stays readable", raised[0])
        with open(os.path.join(run_dir, "events.jsonl"), "rb") as handle:
            text = handle.read().decode()
        self.assertTrue(text.endswith("\n"))  # the half line was cut away
        lines = [json.loads(line) for line in text.splitlines()]
        self.assertEqual([r["type"] for r in lines[:2]], ["run_start", "run_info"])
        self.assertEqual([r["step"] for r in lines if r["type"] == "step"], [1, 2, 3][:len(lines) - 2])
        self.assertGreaterEqual(len(lines), 3)


if __name__ == "__main__":
    unittest.main()
