"""The recorder on a model wrapped in torch.compile (torch 2.x; skipped under 1.13).

A small MLP (fc1, fc2, fc3) trains compiled: once without the recorder, once with the
recorder given the compiled module, once given the module itself while the loop calls
the compiled one, and once compiled in place (nn.Module.compile(), which traces the
model's own hooks too). Dynamo's own counters (torch._dynamo.utils.counters) count the
graphs and graph breaks of each: the recorder must add neither. Faults are tensors the
model reads (a NaN or an Inf written into a buffer at a known step), so they cost no
recompilation; the recorder must name them by module, step and phase, with the names as
written in the model (no `_orig_mod.` anywhere in the run directory).

The backend is aot_eager: Dynamo and AOTAutograd as inductor gets them (the graph count
is Dynamo's, whatever the backend), without inductor's C++ build, which costs tens of
seconds a graph on a small machine; AMPSCOPE_COMPILE_BACKEND=inductor runs the suite with
inductor. tests/bench/recorder_compile_cost.py measures the compiled step's cost with it.
"""
import json
import math
import os
import tempfile
import unittest
import warnings

import torch

import ampscope
from support import events, needs_cli, of_type, run_cli, temp_dir

FAULT_STEP = 6
STEPS = 8
BATCH = 32
LAYERS = ["fc1", "fc2", "fc3"]
LAYER_NUMEL = {"fc1": 8 * 16 + 16, "fc2": 16 * 16 + 16, "fc3": 16 * 2 + 2}
BACKEND = os.environ.get("AMPSCOPE_COMPILE_BACKEND", "aot_eager")


def compile_unavailable():
    compiler = getattr(torch, "compiler", None)
    if not hasattr(torch, "compile") or not hasattr(compiler, "is_compiling"):
        return f"torch.compile needs torch 2.3 or later (this is torch {torch.__version__})"
    return None


class GradientFault(torch.autograd.Function):
    """Identity forward; backward adds `fault` (0 or +inf) to the gradient."""

    @staticmethod
    def forward(ctx, x, fault):
        ctx.save_for_backward(fault)
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        (fault,) = ctx.saved_tensors
        return grad + fault, None


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 16)
        self.fc3 = torch.nn.Linear(16, 2)
        self.register_buffer("forward_fault", torch.zeros(()))
        self.register_buffer("gradient_fault", torch.zeros(()))
        # In fc2's own output, before the recorder's hook (registered later) sees it.
        self.fc2.register_forward_hook(lambda module, args, output: output + self.forward_fault)

    def forward(self, x):
        h = self.fc2(torch.tanh(self.fc1(x)))
        # The Inf enters the gradient that arrives at fc2's output (not fc3's).
        return self.fc3(torch.tanh(GradientFault.apply(h, self.gradient_fault)))


def train_compiled(run_dir, how, fault=None, steps=STEPS, probe_every=3):
    """Trains Net compiled, the recorder (none when run_dir is None) given what `how`
    says: "wrapper": torch.compile(net), which the loop calls; "plain": net, while the
    loop calls torch.compile(net); "in_place": net after net.compile(). Returns (graphs,
    graph breaks, the losses the loop read)."""
    import torch._dynamo
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    net = Net()
    if how == "in_place":
        net.compile(backend=BACKEND)
        called = given = net
    else:
        called = torch.compile(net, backend=BACKEND)
        given = called if how == "wrapper" else net
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(steps, BATCH, 8, generator=generator)
    y = torch.randint(0, 2, (steps, BATCH), generator=generator)
    rec = (ampscope.Recorder(run_dir, given, optimizer=optimizer, probe_every=probe_every)
           if run_dir else None)
    losses = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _train_steps(net, called, rec, optimizer, x, y, fault, losses)
    said = [str(w.message) for w in caught if str(w.message).startswith("ampscope:")]
    if said:
        raise AssertionError(f"the recorder warned: {said}")
    return (counters["stats"]["unique_graphs"], sum(counters["graph_break"].values()), losses)


def _train_steps(net, called, rec, optimizer, x, y, fault, losses):
    for step in range(1, len(x) + 1):
        if fault is not None:
            bad = math.nan if fault == "forward_fault" else math.inf
            getattr(net, fault).fill_(bad if step == FAULT_STEP else 0.0)
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(called(x[step - 1]), y[step - 1])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if rec is not None:
            rec.step(loss)
        with torch.no_grad():  # an evaluation pass: a graph of its own, without checks
            called(x[0])
    if rec is not None:
        rec.close()


@unittest.skipIf(compile_unavailable(), compile_unavailable())
class CompiledModel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
        cls.addClassCleanup(folder.cleanup)
        cls.runs = {}
        for how in ("wrapper", "plain", "in_place"):
            cls.runs[how] = train_compiled(os.path.join(folder.name, how), how,
                                           fault="forward_fault")
        cls.unrecorded = {how: train_compiled(None, how, fault="forward_fault")
                          for how in ("wrapper", "in_place")}
        cls.folder = folder.name

    def run_dir(self, how):
        return os.path.join(self.folder, how)

    def test_the_recorder_adds_no_graph_and_no_break(self):
        graphs, breaks, _ = self.unrecorded["wrapper"]
        # The training graph and the evaluation graph, whole.
        self.assertEqual((graphs, breaks), (2, 0))
        for how in ("wrapper", "plain"):
            self.assertEqual(self.runs[how][:2], (graphs, breaks), how)
        # Compiled in place, Dynamo traces the model's own hooks as well.
        self.assertEqual(self.runs["in_place"][:2], self.unrecorded["in_place"][:2])
        print(f"\n  torch {torch.__version__}, {BACKEND}: graphs/breaks without the recorder "
              f"{graphs}/{breaks}, with it given the compiled module "
              f"{self.runs['wrapper'][0]}/{self.runs['wrapper'][1]}, given the module "
              f"{self.runs['plain'][0]}/{self.runs['plain'][1]}, compiled in place "
              f"{self.unrecorded['in_place'][0]}/{self.unrecorded['in_place'][1]} and "
              f"{self.runs['in_place'][0]}/{self.runs['in_place'][1]}")

    def test_modules_keep_the_names_the_user_wrote(self):
        for how in self.runs:
            records = events(self.run_dir(how))
            self.assertEqual(records[1]["layers"], LAYERS, how)
            self.assertEqual(records[1]["model"], "Net", how)
            for name in os.listdir(self.run_dir(how)):
                with open(os.path.join(self.run_dir(how), name), encoding="utf-8") as handle:
                    self.assertNotIn("_orig_mod", handle.read(), f"{how}: {name}")

    def test_the_nan_is_located_by_module_step_and_phase(self):
        for how in self.runs:
            records = events(self.run_dir(how))
            found = of_type(records, "nonfinite")
            self.assertEqual(len(found), 1, how)
            event = found[0]
            self.assertEqual((event["step"], event["layer"], event["layer_index"],
                              event["phase"], event["tensor"]),
                             (FAULT_STEP, "fc2", 1, "forward", "activation"), how)
            self.assertEqual((event["nan"], event["pos_inf"], event["numel"]),
                             (BATCH * 16, 0, BATCH * 16), how)
            steps = {s["step"]: s for s in of_type(records, "step")}
            self.assertEqual(steps[FAULT_STEP]["first_nonfinite_layer"], "fc2", how)
            self.assertNotIn("first_nonfinite_layer", steps[FAULT_STEP - 1], how)
            with open(os.path.join(self.run_dir(how), "summary.json")) as handle:
                self.assertEqual(json.load(handle)["first_nonfinite"]["layer"], "fc2")

    def test_steps_and_probes_are_recorded(self):
        for how in self.runs:
            records = events(self.run_dir(how))
            steps = of_type(records, "step")
            self.assertEqual([s["step"] for s in steps], list(range(1, STEPS + 1)), how)
            losses = self.runs[how][2]
            self.assertEqual([s["loss"] for s in steps[:FAULT_STEP - 1]],
                             losses[:FAULT_STEP - 1], how)
            # The samples are the compiled forward's batch, counted on the device.
            self.assertAlmostEqual(steps[0]["samples_per_second"] * steps[0]["step_seconds"],
                                   BATCH, places=6)
            for step in (3, 6):  # probe steps after the first
                for layer in LAYERS:
                    histogram = of_type(records, "histogram", step=step, layer=layer,
                                        kind="param_grad")
                    self.assertEqual(len(histogram), 1, f"{how} {step} {layer}")
                    record = histogram[0]
                    total = sum(record["counts"]) + sum(record[k] for k in (
                        "below", "above", "zero", "nan", "pos_inf", "neg_inf"))
                    self.assertEqual(total, LAYER_NUMEL[layer])
            ratios = of_type(records, "update_ratio", step=3)
            self.assertEqual([r["layer"] for r in ratios], LAYERS, how)
            self.assertTrue(all(r["ratio"] > 0 for r in ratios), how)

    @needs_cli
    def test_the_report_names_the_module(self):
        out = os.path.join(temp_dir(self), "compiled.html")
        result = run_cli("report", self.run_dir("wrapper"), "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as handle:
            html = handle.read()
        self.assertIn(f"<b>First non-finite value at step {FAULT_STEP}</b>: layer <b>fc2</b>, "
                      f"forward pass, activation ({BATCH * 16} NaN", html)
        self.assertIn(f"PyTorch {torch.__version__}", html)
        self.assertNotIn("_orig_mod", html)


@unittest.skipIf(compile_unavailable(), compile_unavailable())
class CompiledBackward(unittest.TestCase):
    def test_an_inf_in_a_gradient_is_located_in_the_backward_phase(self):
        run_dir = os.path.join(temp_dir(self), "backward")
        graphs, breaks, _ = train_compiled(run_dir, "wrapper", fault="gradient_fault", steps=7)
        self.assertEqual((graphs, breaks), (2, 0))
        event = of_type(events(run_dir), "nonfinite")[0]
        # fc3's gradient stays finite; fc2's is the first to arrive with the Inf (and fc1's
        # after it).
        self.assertEqual((event["step"], event["layer"], event["phase"], event["tensor"]),
                         (FAULT_STEP, "fc2", "backward", "gradient"))
        self.assertEqual((event["nan"], event["pos_inf"], event["numel"]),
                         (0, BATCH * 16, BATCH * 16))

    def test_an_in_place_op_after_a_probed_module_compiles(self):
        # ReLU(inplace=True) writes into the probed Linear's output as the recorder hands
        # it on: autograd refuses that on a view a custom Function returned.
        import torch._dynamo
        from torch._dynamo.utils import counters
        torch._dynamo.reset()
        counters.clear()
        net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(inplace=True),
                                  torch.nn.Linear(16, 2))
        compiled = torch.compile(net, backend=BACKEND)
        run_dir = os.path.join(temp_dir(self), "in-place")
        with ampscope.Recorder(run_dir, compiled, probe_every=1) as rec:
            for _ in range(2):
                net.zero_grad(set_to_none=True)
                loss = compiled(torch.randn(4, 8)).pow(2).mean()
                loss.backward()
                rec.step(loss)
        self.assertEqual((counters["stats"]["unique_graphs"],
                          sum(counters["graph_break"].values())), (1, 0))
        self.assertEqual([s["step"] for s in of_type(events(run_dir), "step")], [1, 2])


@unittest.skipIf(compile_unavailable(), compile_unavailable())
class CompiledBeforeTheRecorder(unittest.TestCase):
    def test_the_recorder_says_its_hooks_were_not_run(self):
        # Dynamo does not guard on the hooks of a module that had none when it compiled:
        # the graph compiled before the recorder's hooks existed runs without them, and
        # nothing but this warning would tell.
        import torch._dynamo
        torch._dynamo.reset()
        net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
        compiled = torch.compile(net, backend=BACKEND)
        compiled(torch.randn(4, 8)).sum().backward()
        with ampscope.Recorder(os.path.join(temp_dir(self), "late"), compiled) as rec:
            for step in (1, 2):
                net.zero_grad(set_to_none=True)
                loss = compiled(torch.randn(4, 8)).pow(2).mean()
                loss.backward()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    rec.step(loss)
                said = [str(w.message) for w in caught if str(w.message).startswith("ampscope:")]
                if step == 1:
                    self.assertEqual(len(said), 1)
                    self.assertIn("step 1: no training forward of the model reached the "
                                  "recorder's hooks", said[0])
                    self.assertIn("make the Recorder before the first compiled call", said[0])
                else:
                    self.assertEqual(said, [])  # once a run


if __name__ == "__main__":
    unittest.main()
