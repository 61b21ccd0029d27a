"""Reading one step's captured tensors to the host: what the step's records need from
the devices (the loss, the scaler's state, the pending non-finite checks, and on probe
steps the histograms, fp16 classes, stats and update norms the hooks kept), by key, read
with one copy per device. The keys are those records.py looks up."""
import torch

from . import probes
from .nonfinite import local_tensor


def step_reads(state, loss_tensor, gradient_check, layers, scaler, traced):
    """Everything the step's records need from the devices, by key (still on them);
    traced: the checks a compiled model's forward and backward left (traced.py)."""
    if state.probe:
        state.frame_stats[(-1, "loss")] = (probes.stats_slots(loss_tensor), 1)
    reads = {}
    reads["loss"] = loss_tensor.reshape(1).to(torch.float64)
    if scaler is not None:
        reads["scale_after"] = scaler._scale.detach().reshape(1).to(torch.float64)
        reads["tracker"] = scaler._growth_tracker.detach().reshape(1).to(torch.float64)
        if state.scale_before is not None:
            reads["scale_before"] = state.scale_before.reshape(1).to(torch.float64)
        if state.found_inf is not None:
            reads["found_inf"] = state.found_inf.reshape(1)
    for n, check in enumerate(state.pending_checks):
        reads[("check", n)] = check[5]
    traced.reads(reads)
    if gradient_check is not None and gradient_check.device.type != "cpu":
        reads["gradients"] = gradient_check.reshape(1)
    if state.probe:
        _probe_reads(state, reads, layers, scaler)
    for key, (slots, _numel) in state.hit_stats.items():
        reads[("hit",) + key] = slots
    return reads


def _probe_reads(state, reads, layers, scaler):
    for layer in layers:
        i = layer.index
        scaled = state.scaled.get(i)
        if scaled:
            parts = list(scaled.values())
            reads[("scaled_hist", i)] = sum(p[0] for p in parts)
            reads[("scaled_classes", i)] = sum(p[1] for p in parts)
            if scaler is None:
                # Without a scaler the unscaled gradients are the scaled ones (scale 1).
                reads[("hist", i)] = reads[("scaled_hist", i)]
                reads[("what_if", i)] = sum(p[2] for p in parts).reshape(-1)
                reads[("squares", i)] = sum(p[3] for p in parts).reshape(1)
        unscaled = state.unscaled.get(i)
        if unscaled is not None:
            reads[("hist", i)] = unscaled[0]
            reads[("what_if", i)] = unscaled[1].reshape(-1)
            reads[("squares", i)] = unscaled[2].reshape(1)
        if i in state.activation_grad:
            reads[("act_grad", i)] = state.activation_grad[i]
        before = state.weights_before.get(i)
        if before and layer.params:
            reads[("update", i)] = torch.stack([
                sum(b.to(torch.float64).pow(2).sum() for b in before),
                sum((local_tensor(p).detach().to(torch.float64) - b.to(torch.float64)).pow(2).sum()
                    for p, b in zip(layer.params, before))])
    for key, (slots, _numel) in state.frame_stats.items():
        reads[("frame",) + key] = slots


def read_to_host(reads):
    """The reads as lists of Python floats, with one copy per device."""
    by_device = {}
    for key, tensor in reads.items():
        by_device.setdefault(tensor.device, []).append((key, tensor.reshape(-1)))
    host = {}
    for device, items in by_device.items():
        flat = torch.cat([t.to(torch.float64) for _, t in items]).cpu().tolist()
        offset = 0
        for key, tensor in items:
            n = tensor.numel()
            host[key] = flat[offset:offset + n]
            offset += n
    return host
