"""torch.distributed with FSDP2 (fully_shard: two gloo ranks on this CPU, bf16 autocast, the
job of ddp_job.py with --wrap fsdp2): the parameters and their gradients are DTensors
holding each rank's shard (dimension 0 split in two), which the recorder measures without
a collective call of its own.

- A NaN put into rank 1's body.2 output at step 4: rank 1 records it there; rank 0's own
  forward and backward stay finite, and the reduce-scatter hands it NaN gradients, which
  it records at step 4 as arriving through the gradient collective.
- An Inf put into rank 1's own body.2 weight gradient (its last row, in rank 1's shard)
  before the reduce-scatter: rank 1 records its own gradient, which it can tell only by
  hooking the unsharded weight body.2 computes with (the sharded one never gets a gradient
  from autograd); rank 0's shard of the reduced gradient stays finite, and it meets the Inf
  when the next step's all-gather brings the updated weight back: body.2's output, step 5.

Skipped where this torch's FSDP2 cannot run on the CPU (torch 1.13 has no fully_shard;
torch 2.6's all-gather asks the CPU stream for record_event, which it lacks)."""
import json
import os
import tempfile
import unittest

import torch

from ddp_job import finish_job, start_job
from support import events, needs_cli, of_type, run_cli, temp_dir

FAULT_STEP = 4
STEPS = 6
# Each rank's shard of a layer's weight and bias: half the rows of each.
LOCAL_NUMEL = {"body.0": (64 * 2 + 64) // 2, "body.2": (64 * 64 + 64) // 2,
               "head": (2 * 64 + 2) // 2}


def fsdp2_unavailable():
    try:
        try:
            from torch.distributed.fsdp import fully_shard  # noqa: F401
        except ImportError:  # torch 2.4 and 2.5
            from torch.distributed._composable.fsdp import fully_shard  # noqa: F401
    except Exception:  # also torch 1.13's FSDP, which fails to import under Python 3.11
        return f"torch {torch.__version__} has no FSDP2 (fully_shard)"
    if not hasattr(torch.cpu.Stream, "record_event"):
        return (f"torch {torch.__version__}'s FSDP2 cannot run on the CPU (its all-gather "
                "needs torch.cpu.Stream.record_event)")
    return None


def record_job(test, fault):
    folder = tempfile.TemporaryDirectory(prefix="ampscope-py-")
    test.addClassCleanup(folder.cleanup)
    run_dir, processes = start_job(folder.name, steps=STEPS, fault_step=FAULT_STEP, fault=fault,
                                   wrap="fsdp2")
    failures = finish_job(processes)
    if failures:
        raise AssertionError("\n".join(failures))
    return run_dir


def first_nonfinite(run_dir, rank):
    records = events(os.path.join(run_dir, f"rank-{rank}"))
    found = of_type(records, "nonfinite")
    assert len(found) == 1, f"rank {rank}: {len(found)} nonfinite records"
    with open(os.path.join(run_dir, f"rank-{rank}", "summary.json")) as handle:
        return found[0], json.load(handle)


def where(event):
    return (event["step"], event["layer"], event["phase"], event["tensor"], event["nan"],
            event["pos_inf"] + event["neg_inf"], event["numel"], event.get("via"))


@unittest.skipIf(fsdp2_unavailable(), fsdp2_unavailable())
class Fsdp2ForwardNaN(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.run_dir = record_job(cls, "forward_nan")

    def test_rank_1_records_where_the_nan_appeared(self):
        event, summary = first_nonfinite(self.run_dir, 1)
        self.assertEqual(where(event), (FAULT_STEP, "body.2", "forward", "activation", 1, 0,
                                        32 * 64, None))
        self.assertEqual(summary["rank"], 1)

    def test_rank_0_records_it_arriving_through_the_reduce_scatter(self):
        event, summary = first_nonfinite(self.run_dir, 0)
        # Its shard of the first module's gradients: every element NaN after the average.
        numel = LOCAL_NUMEL["body.0"]
        self.assertEqual(where(event), (FAULT_STEP, "body.0", "backward", "param_grad", numel,
                                        0, numel, "gradient_allreduce"))
        self.assertEqual(summary["first_nonfinite"]["via"], "gradient_allreduce")

    def test_probes_measure_each_ranks_shard(self):
        for rank in (0, 1):
            records = events(os.path.join(self.run_dir, f"rank-{rank}"))
            self.assertEqual((records[0]["rank"], records[0]["world_size"]), (rank, 2))
            self.assertEqual(len(of_type(records, "step")), STEPS)
            for layer, numel in LOCAL_NUMEL.items():
                histogram = of_type(records, "histogram", step=1, layer=layer, kind="param_grad")[0]
                total = sum(histogram["counts"]) + sum(histogram[k] for k in (
                    "below", "above", "zero", "nan", "pos_inf", "neg_inf"))
                self.assertEqual(total, numel, f"rank {rank} {layer}")
                ratio = of_type(records, "update_ratio", step=1, layer=layer)[0]
                self.assertEqual(ratio["numel"], numel)
                self.assertGreater(ratio["ratio"], 0)

    @needs_cli
    def test_the_job_report_names_the_origin(self):
        out = os.path.join(temp_dir(self), "job.html")
        result = run_cli("report", self.run_dir, "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, encoding="utf-8") as handle:
            html = handle.read()
        self.assertIn(f"rank 1 went non-finite first, at step {FAULT_STEP} in body.2 (forward); "
                      f"rank 0 received it through the gradient all-reduce at step {FAULT_STEP}",
                      html)


@unittest.skipIf(fsdp2_unavailable(), fsdp2_unavailable())
class Fsdp2OwnWeightGradient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.run_dir = record_job(cls, "weight_grad_inf")

    def test_rank_1_records_its_own_weight_gradient(self):
        event, _ = first_nonfinite(self.run_dir, 1)
        self.assertEqual(where(event), (FAULT_STEP, "body.2", "backward", "param_grad", 0, 1,
                                        LOCAL_NUMEL["body.2"], None))

    def test_rank_0_meets_it_in_the_next_forward(self):
        event, _ = first_nonfinite(self.run_dir, 0)
        # Weight row 63 is Inf after the update: column 63 of body.2's output, every sample.
        self.assertEqual(where(event), (FAULT_STEP + 1, "body.2", "forward", "activation", 0, 32,
                                        32 * 64, None))


if __name__ == "__main__":
    unittest.main()
