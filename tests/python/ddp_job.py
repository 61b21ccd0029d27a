"""A two-rank torch.distributed job recorded with the recorder, as the suites launch it:
two gloo processes on this CPU, DistributedDataParallel (or FSDP2's fully_shard: --wrap
fsdp2, torch 2.4 or later), bf16 autocast, the spirals MLP (body.0, body.2, head), each
rank writing FOLDER/ddp/rank-N.

One fault on rank 1 at a given step:
- "forward_nan": a NaN put into body.2's output (it reaches rank 0 only through the
  gradient all-reduce of that step);
- "weight_grad_inf": an Inf put into body.2's own weight gradient, as an fp16
  weight-gradient GEMM whose result passes 65504 gives, while every activation and
  activation gradient of the rank stays finite (a user's gradient hook on the parameter
  body.2 computes with, so the value is rank 1's own, before the all-reduce or the
  reduce-scatter). Under FSDP2 it is put into the last row, which is rank 1's shard.

Used by tests/python/test_recorder_distributed.py (start_job, finish_job), and run as a program by
the C++ suite that follows a job over SSH while it trains:

    python3 ddp_job.py FOLDER [--steps 18] [--fault-step 15] [--fault forward_nan]
                              [--wrap ddp] [--step-pause SECONDS] [--start-when FILE]

--start-when: each rank, its run directory written, waits for FILE before its first step
(so that a follower can connect first, however long torch took to import).

Only the standard library is imported here: the ranks import torch, the launcher does
not (a second torch import would cost the machine a core for a second or two).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
FAULTS = ("forward_nan", "weight_grad_inf")
WRAPS = ("ddp", "fsdp2")

RANK_SCRIPT = r"""
import os, sys, time, torch
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
if {wrap!r} == "ddp":
    model = torch.nn.parallel.DistributedDataParallel(net)
else:
    try:
        from torch.distributed.fsdp import fully_shard
    except ImportError:  # torch 2.4 and 2.5
        from torch.distributed._composable.fsdp import fully_shard
    from torch.distributed.device_mesh import init_device_mesh
    mesh = init_device_mesh("cpu", (2,))
    for layer in (net.body[0], net.body[2], net.head):
        fully_shard(layer, mesh=mesh)
    model = fully_shard(net, mesh=mesh)
current = {{"step": 0}}
def put_nan(module, args, output):
    if rank == 1 and current["step"] == {fault_step}:
        output = output.clone()
        output[0, 0] = float("nan")
    return output
def put_inf(grad):
    if rank == 1 and current["step"] == {fault_step}:
        grad = grad.clone()
        grad[-1 if {wrap!r} == "fsdp2" else 0, 0] = float("inf")
    return grad
hooked = set()
def hook_weight(module, args):
    # The weight body.2 computes with: the unsharded one FSDP2's pre-hook (always first)
    # put there, which autograd hands the gradient before the reduce-scatter.
    if id(module.weight) not in hooked:
        hooked.add(id(module.weight))
        module.weight.register_hook(put_inf)
# Registered before the recorder's hooks: they see the rank's own Inf.
if {fault!r} == "forward_nan":
    net.body[2].register_forward_hook(put_nan)
elif {wrap!r} == "ddp":
    net.body[2].weight.register_hook(put_inf)
else:
    net.body[2].register_forward_pre_hook(hook_weight)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = spirals(32 * {steps}, seed=10 + rank)
# The module DDP wraps, so the layers keep their own names (body.2, not module.body.2);
# fully_shard changes the module in place.
with ampscope.Recorder({run_dir!r}, net, optimizer=optimizer, mode="bf16", probe_every=5) as rec:
    waited = time.monotonic()
    while {start_when!r} and not os.path.exists({start_when!r}):
        if time.monotonic() - waited > 300:
            sys.exit("ddp_job.py: " + {start_when!r} + " did not appear in 300 s")
        time.sleep(0.02)
    for step in range(1, {steps} + 1):
        current["step"] = step
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(x[(step - 1) * 32:step * 32])
        loss = torch.nn.functional.cross_entropy(out.float(), y[(step - 1) * 32:step * 32])
        loss.backward()  # the gradient collective: rank 1's fault reaches rank 0
        optimizer.step()
        rec.step(loss)
        time.sleep({step_pause})
dist.destroy_process_group()
"""


def start_job(folder, steps=18, fault_step=15, fault="forward_nan", step_pause=0.0, start_when="",
              wrap="ddp"):
    """Starts both ranks; returns (the job folder FOLDER/ddp, the two processes)."""
    if fault not in FAULTS:
        raise ValueError(f"fault: one of {', '.join(FAULTS)} (got {fault!r})")
    if wrap not in WRAPS:
        raise ValueError(f"wrap: one of {', '.join(WRAPS)} (got {wrap!r})")
    run_dir = os.path.join(folder, "ddp")
    script = RANK_SCRIPT.format(python_dir=os.path.join(SOURCE_DIR, "python"), tests_dir=HERE,
                                rendezvous=os.path.join(folder, "rendezvous"), run_dir=run_dir,
                                fault_step=fault_step, fault=fault, steps=steps, wrap=wrap,
                                step_pause=float(step_pause), start_when=start_when)
    processes = [subprocess.Popen([sys.executable, "-c", script], cwd=folder,
                                  env=dict(os.environ, RANK=str(rank), WORLD_SIZE="2"),
                                  stderr=subprocess.PIPE, text=True)
                 for rank in range(2)]
    return run_dir, processes


def finish_job(processes, timeout=300):
    """Waits for both ranks; the error text of each that failed (empty when both ended 0)."""
    errors = [p.communicate(timeout=timeout)[1] for p in processes]
    return [f"rank {rank}: exit {p.returncode}: {error.strip()}"
            for rank, (p, error) in enumerate(zip(processes, errors)) if p.returncode != 0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--steps", type=int, default=18)
    parser.add_argument("--fault-step", type=int, default=15)
    parser.add_argument("--fault", choices=FAULTS, default="forward_nan")
    parser.add_argument("--wrap", choices=WRAPS, default="ddp")
    parser.add_argument("--step-pause", type=float, default=0.0,
                        help="seconds each rank sleeps after each step (to be followed while it trains)")
    parser.add_argument("--start-when", default="", metavar="FILE",
                        help="the ranks take their first step once FILE exists")
    args = parser.parse_args()
    _run_dir, processes = start_job(args.folder, args.steps, args.fault_step, args.fault,
                                    args.step_pause, args.start_when, args.wrap)
    failures = finish_job(processes)
    for failure in failures:
        print(f"ddp_job.py: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
