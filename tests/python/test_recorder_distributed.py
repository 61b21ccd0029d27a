"""torch.distributed (gloo, two CPU processes, DistributedDataParallel, bf16 autocast): each
rank writes its own run directory, and the NaN's origin is told apart from its arrival.

A NaN is put into rank 1's `body.2` output at step 15. Rank 1 records it there (forward).
Rank 0's own forward and backward stay finite, but the gradient all-reduce of step 15
hands it NaN gradients: its fused check of the parameter gradients records that, at step
15, as arriving through the all-reduce (without it, rank 0's first NaN would be at step
16, in `body.0`'s forward after the poisoned update: the wrong step and the wrong cause).
The report of the job names the origin."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from support import GUI, SOURCE_DIR, events, needs_cli, of_type, run_cli, temp_dir

NAN_STEP = 15
STEPS = 18

RANK_SCRIPT = r"""
import os, sys, torch
import torch.distributed as dist
sys.path.insert(0, {python_dir!r})
sys.path.insert(0, {tests_dir!r})
import ampscope
from support import spirals

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(2, 64), torch.nn.Tanh(),
                                        torch.nn.Linear(64, 64), torch.nn.Tanh())
        self.head = torch.nn.Linear(64, 2)

    def forward(self, x):
        return self.head(self.body(x))

rank = int(os.environ["RANK"])
torch.manual_seed(0)
torch.set_num_threads(1)
dist.init_process_group("gloo", init_method="file://" + {rendezvous!r}, rank=rank, world_size=2)
net = Net()
model = torch.nn.parallel.DistributedDataParallel(net)
current = {{"step": 0}}
def put_nan(module, args, output):
    if rank == 1 and current["step"] == {nan_step}:
        output = output.clone()
        output[0, 0] = float("nan")
    return output
net.body[2].register_forward_hook(put_nan)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = spirals(32 * {steps}, seed=10 + rank)
# The module DDP wraps, so the layers keep their own names (body.2, not module.body.2).
with ampscope.Recorder({run_dir!r}, net, optimizer=optimizer, mode="bf16", probe_every=5) as rec:
    for step in range(1, {steps} + 1):
        current["step"] = step
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(x[(step - 1) * 32:step * 32])
        loss = torch.nn.functional.cross_entropy(out.float(), y[(step - 1) * 32:step * 32])
        loss.backward()  # DDP all-reduces the gradients: rank 1's NaN reaches rank 0
        optimizer.step()
        rec.step(loss)
dist.destroy_process_group()
"""


def record_job(test, folder):
    run_dir = os.path.join(folder, "ddp")
    here = os.path.dirname(os.path.abspath(__file__))
    script = RANK_SCRIPT.format(python_dir=os.path.join(SOURCE_DIR, "python"), tests_dir=here,
                                rendezvous=os.path.join(folder, "rendezvous"), run_dir=run_dir,
                                nan_step=NAN_STEP, steps=STEPS)
    processes = [subprocess.Popen([sys.executable, "-c", script], cwd=folder,
                                  env=dict(os.environ, RANK=str(rank), WORLD_SIZE="2"),
                                  stderr=subprocess.PIPE, text=True)
                 for rank in range(2)]
    errors = [p.communicate(timeout=300)[1] for p in processes]
    for p, error in zip(processes, errors):
        test.assertEqual(p.returncode, 0, error)
    return run_dir


class TwoRanks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
        cls.addClassCleanup(folder.cleanup)
        cls.run_dir = record_job(cls(), folder.name)

    def first_nonfinite(self, rank):
        records = events(os.path.join(self.run_dir, f"rank-{rank}"))
        self.assertEqual((records[0]["rank"], records[0]["world_size"]), (rank, 2))
        self.assertEqual(records[1]["layers"], ["body.0", "body.2", "head"])
        self.assertEqual(len(of_type(records, "step")), STEPS)
        found = of_type(records, "nonfinite")
        self.assertEqual(len(found), 1, f"rank {rank}")
        with open(os.path.join(self.run_dir, f"rank-{rank}", "summary.json")) as handle:
            summary = json.load(handle)
        self.assertEqual(summary["rank"], rank)
        return found[0], summary

    def test_each_rank_writes_its_own_run(self):
        self.assertEqual(sorted(os.listdir(self.run_dir)), ["rank-0", "rank-1"])

    def test_rank_1_records_where_the_nan_appeared(self):
        event, summary = self.first_nonfinite(1)
        self.assertEqual((event["step"], event["layer"], event["phase"], event["tensor"]),
                         (NAN_STEP, "body.2", "forward", "activation"))
        self.assertNotIn("via", event)
        self.assertEqual(event["nan"], 1)
        self.assertNotIn("via", summary["first_nonfinite"])

    def test_rank_0_records_the_nan_arriving_through_the_all_reduce(self):
        event, summary = self.first_nonfinite(0)
        # At the step it arrived, as the parameter gradients of the first module that holds
        # some (every gradient is NaN after the all-reduce averaged rank 1's in).
        self.assertEqual((event["step"], event["layer"], event["layer_index"], event["phase"],
                          event["tensor"], event["via"]),
                         (NAN_STEP, "body.0", 0, "backward", "param_grad", "gradient_allreduce"))
        self.assertEqual(event["nan"], 64 * 2 + 64)  # body.0's weight and bias, all NaN
        self.assertEqual(event["numel"], 64 * 2 + 64)
        self.assertEqual(summary["first_nonfinite"]["via"], "gradient_allreduce")
        step = [r for r in of_type(events(os.path.join(self.run_dir, "rank-0")), "step")
                if r["step"] == NAN_STEP][0]
        self.assertEqual(step["first_nonfinite_layer"], "body.0")

    @needs_cli
    def test_the_job_report_names_the_origin(self):
        out = os.path.join(temp_dir(self), "job.html")
        result = run_cli("report", self.run_dir, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as handle:
            html = handle.read()
        self.assertIn("rank 1 went non-finite first, at step 15 in body.2 (forward); "
                      "rank 0 received it through the gradient all-reduce at step 15", html)

    @unittest.skipUnless(GUI and os.path.exists(GUI), "the window (AMPSCOPE_GUI) is not built")
    def test_the_window_opens_the_job_and_names_the_origin(self):
        # The job opens as a set of its ranks, and the status line names the rank the NaN
        # came from (that this rank is the focused one is ui/test_gui_remote_run's case).
        shot = os.path.join(temp_dir(self), "job.png")
        result = subprocess.run([GUI, "--open-run", self.run_dir, "--screenshot", shot],
                                capture_output=True, text=True, timeout=300,
                                env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"Opened 2 runs of {self.run_dir} · rank 1 went "
                      "non-finite first, at step 15 in body.2 (forward); rank 0 received it "
                      "through the gradient all-reduce at step 15", result.stdout)
        self.assertIn(f"{STEPS} steps shown", result.stdout)

if __name__ == "__main__":
    unittest.main()
