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
import tempfile
import unittest

from ddp_job import finish_job, start_job
from support import GUI, events, needs_cli, of_type, run_cli, temp_dir

NAN_STEP = 15
STEPS = 18


def record_job(test, folder, **job):
    run_dir, processes = start_job(folder, **job)
    failures = finish_job(processes)
    test.assertEqual(failures, [])
    return run_dir


class TwoRanks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
        cls.addClassCleanup(folder.cleanup)
        cls.run_dir = record_job(cls(), folder.name, steps=STEPS, fault_step=NAN_STEP)

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
        # came from (that this rank is the focused one is ui/feed/test_gui_remote_run's case).
        shot = os.path.join(temp_dir(self), "job.png")
        result = subprocess.run([GUI, "--open-run", self.run_dir, "--screenshot", shot],
                                capture_output=True, text=True, timeout=300,
                                env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"Opened 2 runs of {self.run_dir} · rank 1 went "
                      "non-finite first, at step 15 in body.2 (forward); rank 0 received it "
                      "through the gradient all-reduce at step 15", result.stdout)
        self.assertIn(f"{STEPS} steps shown", result.stdout)

class ARanksOwnWeightGradient(unittest.TestCase):
    """Rank 1's own weight gradient of body.2 gets an Inf at step 4, as an fp16
    weight-gradient GEMM that overflows would give, while its activations and activation
    gradients stay finite. The fused check after backward fails on both ranks (the
    all-reduce spread it), but only rank 0 received it: rank 1's gradient was non-finite
    before the all-reduce, which the recorder sees in the gradients as backward hands
    them to the parameters."""
    FAULT_STEP, STEPS = 4, 6

    @classmethod
    def setUpClass(cls):
        folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
        cls.addClassCleanup(folder.cleanup)
        cls.run_dir = record_job(cls(), folder.name, steps=cls.STEPS, fault_step=cls.FAULT_STEP,
                                 fault="weight_grad_inf")

    def first_nonfinite(self, rank):
        found = of_type(events(os.path.join(self.run_dir, f"rank-{rank}")), "nonfinite")
        self.assertEqual(len(found), 1, f"rank {rank}")
        with open(os.path.join(self.run_dir, f"rank-{rank}", "summary.json")) as handle:
            return found[0], json.load(handle)

    def where(self, event):
        return (event["step"], event["layer"], event["layer_index"], event["phase"],
                event["tensor"], event["nan"], event["pos_inf"], event["neg_inf"], event["numel"])

    def test_rank_1_records_its_own_weight_gradient(self):
        event, summary = self.first_nonfinite(1)
        # body.2's weight and bias, the one Inf of the weight still Inf after the average.
        self.assertEqual(self.where(event),
                         (self.FAULT_STEP, "body.2", 1, "backward", "param_grad", 0, 1, 0, 64 * 64 + 64))
        self.assertNotIn("via", event)
        self.assertNotIn("via", summary["first_nonfinite"])

    def test_rank_0_records_it_arriving_through_the_all_reduce(self):
        event, summary = self.first_nonfinite(0)
        self.assertEqual(self.where(event),
                         (self.FAULT_STEP, "body.2", 1, "backward", "param_grad", 0, 1, 0, 64 * 64 + 64))
        self.assertEqual(event["via"], "gradient_allreduce")
        self.assertEqual(summary["first_nonfinite"]["via"], "gradient_allreduce")

    @needs_cli
    def test_the_job_report_names_rank_1_as_the_origin(self):
        out = os.path.join(temp_dir(self), "job.html")
        result = run_cli("report", self.run_dir, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as handle:
            html = handle.read()
        self.assertIn("rank 1 went non-finite first, at step 4 in body.2 (backward); "
                      "rank 0 received it through the gradient all-reduce at step 4", html)


if __name__ == "__main__":
    unittest.main()
