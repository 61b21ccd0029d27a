"""torch.distributed (gloo, two CPU processes, DistributedDataParallel): each rank
writes its own run directory, and the rank that went non-finite first is visible from
the two runs' NaN records."""
import json
import os
import subprocess
import sys
import unittest

from support import SOURCE_DIR, events, of_type, temp_dir

RANK_SCRIPT = r"""
import os, sys, torch
import torch.distributed as dist
sys.path.insert(0, {python_dir!r})
sys.path.insert(0, {tests_dir!r})
import ampscope
from support import spiral_mlp, spirals
rank = int(os.environ["RANK"])
dist.init_process_group("gloo", init_method="file://" + {rendezvous!r}, rank=rank, world_size=2)
model = torch.nn.parallel.DistributedDataParallel(spiral_mlp())
current = {{"step": 0}}
def put_nan(module, args, output):
    # Only rank 1's layer "2" goes non-finite, at step 4.
    if rank == 1 and current["step"] == 4:
        output = output.clone()
        output[0, 0] = float("nan")
    return output
model.module[2].register_forward_hook(put_nan)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = spirals(64 * 6, seed=10 + rank)
with ampscope.Recorder({run_dir!r}, model, optimizer=optimizer, probe_every=2) as rec:
    for step in range(1, 7):
        current["step"] = step
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x[(step - 1) * 64:step * 64]),
                                                 y[(step - 1) * 64:step * 64])
        loss.backward()  # DDP all-reduces the gradients: rank 1's NaN reaches rank 0
        optimizer.step()
        rec.step(loss)
dist.destroy_process_group()
"""


class TwoRanks(unittest.TestCase):
    def test_each_rank_writes_its_run_and_the_first_nonfinite_rank_shows(self):
        folder = temp_dir(self)
        run_dir = os.path.join(folder, "ddp")
        here = os.path.dirname(os.path.abspath(__file__))
        script = RANK_SCRIPT.format(python_dir=os.path.join(SOURCE_DIR, "python"), tests_dir=here,
                                    rendezvous=os.path.join(folder, "rendezvous"), run_dir=run_dir)
        processes = [subprocess.Popen([sys.executable, "-c", script], cwd=folder,
                                      env=dict(os.environ, RANK=str(rank), WORLD_SIZE="2"),
                                      stderr=subprocess.PIPE, text=True)
                     for rank in range(2)]
        errors = [p.communicate(timeout=300)[1] for p in processes]
        for p, error in zip(processes, errors):
            self.assertEqual(p.returncode, 0, error)
        self.assertEqual(sorted(os.listdir(run_dir)), ["rank-0", "rank-1"])
        first = {}
        for rank in range(2):
            records = events(os.path.join(run_dir, f"rank-{rank}"))
            self.assertEqual((records[0]["rank"], records[0]["world_size"]), (rank, 2))
            self.assertEqual(records[1]["layers"], ["module.0", "module.2", "module.4"])
            self.assertEqual(len(of_type(records, "step")), 6)
            found = of_type(records, "nonfinite")
            self.assertEqual(len(found), 1, f"rank {rank}")
            first[rank] = found[0]
            with open(os.path.join(run_dir, f"rank-{rank}", "summary.json")) as handle:
                self.assertEqual(json.load(handle)["rank"], rank)
        # Rank 1 put the NaN into its layer "2" at step 4; rank 0 received it through the
        # gradient all-reduce, stepped its weights to NaN and saw it at step 5's forward.
        self.assertEqual((first[1]["step"], first[1]["layer"], first[1]["phase"]),
                         (4, "module.2", "forward"))
        self.assertEqual((first[0]["step"], first[0]["layer"], first[0]["phase"]),
                         (5, "module.0", "forward"))


if __name__ == "__main__":
    unittest.main()
