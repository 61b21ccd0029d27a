"""The non-finite checks of one step and the step's first hit: the part of HookCapture
(capture.py) that decides where a step's first NaN or Inf was.

The eager hooks check each probed module's output and the gradient arriving at it
(check()), the traced ones leave their counts on the device (traced.py); after backward
one fused check covers every parameter gradient (gradient_check()). first_hit() orders
what they found as the step met it (forward, loss, backward, parameter gradients) and,
when only the parameter gradients were hit, tells the rank's own non-finite gradient from
one that another rank's gradient brought in through the gradient collective.

Under FSDP2 parameters and gradients are DTensors holding this rank's shard: every
reduction here is of local_tensor() (the shard), since reducing a DTensor makes a
collective call and the recorder makes none.
"""
import math

import torch

from . import probes, schema


def local_tensor(tensor):
    """This rank's part of a DTensor (FSDP2's sharded parameters and their gradients),
    detached; any other tensor as it is."""
    to_local = getattr(tensor, "to_local", None)
    return tensor.detach().to_local() if to_local is not None else tensor


class NonFiniteChecks:
    """Mixed into HookCapture: it provides state, params, layers, owners (parameter id ->
    module name), traced, distributed and first_nonfinite_recorded."""

    def check(self, state, order, index, phase, kind, tensor):
        if tensor.device.type == "cpu":
            # On the CPU the reduction's result is looked at where it is made: no copy.
            if state.hit_mode and not self.first_nonfinite_recorded:
                state.hit_stats[(index, kind)] = (probes.stats_slots(tensor), tensor.numel())
            # One pass, no temporary: a finite sum proves every element finite; only a
            # sum that is not (a NaN, an Inf, or finite values overflowing it) looks closer.
            if math.isfinite(tensor.detach().sum().item()) or bool(torch.isfinite(tensor).all()):
                return
            counts = probes.nonfinite_count_slots(tensor).tolist()
            state.hits.append((order, index, phase, kind, tensor.numel(), counts))
            if not state.hit_mode and not self.first_nonfinite_recorded:
                state.hit_mode = True
                state.hit_stats[(index, kind)] = (probes.stats_slots(tensor), tensor.numel())
        else:
            # On a GPU the counts stay on the device until step() reads them all at once.
            state.pending_checks.append((order, index, phase, kind, tensor.numel(),
                                         probes.nonfinite_count_slots(tensor)))

    def gradient_check(self):
        """One fused finiteness check of every parameter gradient, after backward (and
        after the gradient all-reduce or reduce-scatter): the sum of their norms, which is
        not finite when an element is not. On the CPU it is looked at where it is made; on
        a GPU it is read with the step's other values. Off once the run has its first NaN."""
        if self.first_nonfinite_recorded:
            return None
        grads = [local_tensor(p.grad) for p in self.params if p.grad is not None]
        if not grads:
            return None
        if (hasattr(torch, "_foreach_norm") and all(g.dtype == torch.float32 for g in grads)
                and len({g.device for g in grads}) == 1):
            norms = torch._foreach_norm(grads)
        else:  # half-precision gradients: a float32 norm, so that finite ones cannot overflow
            norms = [torch.linalg.vector_norm(g, dtype=torch.float32).to(grads[0].device)
                     for g in grads]
        return torch.stack(norms).sum()

    def first_hit(self, state, host, gradient_check):
        """The step's first non-finite tensor in the order the step met them (forward,
        loss, backward, then parameter gradients), or None."""
        for n, check in enumerate(state.pending_checks):
            counts = host[("check", n)]
            if sum(counts) > 0:
                state.hits.append(check[:5] + (counts,))
        state.hits.extend(self.traced.hits(host))
        if gradient_check is not None and not state.hits:
            total = host["gradients"][0] if "gradients" in host else gradient_check.item()
            if not math.isfinite(total):
                state.hits.append(self._gradient_hit(state))
        return min(state.hits, key=lambda hit: hit[0]) if state.hits else None

    def _gradient_hit(self, state):
        """The module whose parameter gradients are not finite, as a hit after everything
        else of the step; its counts are of the gradients as the step left them. Looked
        for only on the step whose fused check failed while nothing else did: once per run.

        Under torch.distributed the gradients the check saw are the reduced ones. When
        one that this rank's backward made was already non-finite, the value is the rank's
        own (an overflow in a weight-gradient GEMM, say): the module is that gradient's,
        the first to arrive so. Otherwise it came from another rank through the gradient
        collective (gradient_hit_via), and the module is the first in named_modules order
        whose gradients are not finite."""
        own = self._first_local_nonfinite(state)
        found = None
        for param in self.params:
            if param.grad is None:
                continue
            name = self.owners.get(id(param), "(model)")
            if own is not None and name != own:
                continue
            grad = local_tensor(param.grad)
            counts = probes.nonfinite_count_slots(grad).tolist()
            if found is None and (own is not None or sum(counts) > 0):
                found = [name, counts, grad.numel()]
            elif found is not None and name == found[0]:
                found[1] = [a + b for a, b in zip(found[1], counts)]
                found[2] += grad.numel()
        name, counts, numel = found if found is not None else ("(model)", [0.0, 0.0, 0.0], 0)
        state.gradient_hit_layer = name
        if self.distributed and own is None:
            state.gradient_hit_via = schema.VIA_GRADIENT_ALLREDUCE
        index = next((layer.index for layer in self.layers if layer.name == name), -1)
        return ((3, 0), index, "backward", schema.NONFINITE_PARAM_GRAD, numel, counts)

    def _first_local_nonfinite(self, state):
        """The module of the first parameter whose gradient, as this rank's backward made
        it, was not finite (in the order they arrived), or None: read here, once per run. A
        parameter whose hook saw nothing (unused in the forward: DistributedDataParallel
        reduces zeros for it) had no value of this rank's own."""
        if not state.local_gradients:
            return None
        sums = torch.stack([total for _, total in state.local_gradients]).tolist()
        for (owner, _), total in zip(state.local_gradients, sums):
            if not math.isfinite(total):
                return owner
        return None
