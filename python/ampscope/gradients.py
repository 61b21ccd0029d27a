"""Where the recorder takes the parameter gradients: the part of HookCapture (capture.py)
that holds the GradScaler's wrappers and the parameters' gradient hooks.

With a GradScaler, scaler.unscale_ is wrapped on the instance (the scaled gradients just
before it, the unscaled ones just after: before any clipping the user does after
unscale_) and scaler.update is wrapped to read found_inf before update() forgets it.
Without one, on probe steps, the parameters' gradient hooks take the gradients as
backward produces them (before clipping); a parameter whose hook saw none (FSDP2's
sharded parameters get theirs from the reduce-scatter, not from autograd) is taken as
rec.step() finds it. These run outside a compiled model: the scaler is the user loop's,
and a leaf's gradient hook runs in autograd's engine, not in a compiled graph.

All of it on probe steps only, except found_inf; each result stays on the device.
"""
import time
import weakref

import torch

from . import probes
from .nonfinite import local_tensor


class GradientCapture:
    """Mixed into HookCapture: it provides state, current_state(), layers, scaler,
    device, closed, probe_seconds and _scaler_restore."""

    def _wrap_scaler(self):
        scaler = self.scaler
        original_unscale = scaler.unscale_
        original_update = scaler.update
        me = weakref.ref(self)

        def unscale_(optimizer):
            capture = me()
            if capture is None or capture.current_state() is None or capture.closed:
                return original_unscale(optimizer)
            capture._before_unscale()
            result = original_unscale(optimizer)
            capture._after_unscale()
            return result

        def update(*args, **kwargs):
            capture = me()
            if capture is not None and capture.current_state() is not None and not capture.closed:
                capture._capture_found_inf()
            return original_update(*args, **kwargs)

        scaler.unscale_ = unscale_
        scaler.update = update
        self._scaler_restore = lambda: (scaler.__dict__.pop("unscale_", None),
                                        scaler.__dict__.pop("update", None))

    def _register_param_hooks(self, state):
        me = weakref.ref(self)
        for layer in self.layers:
            for position, param in enumerate(layer.params):
                def on_grad(grad, index=layer.index, position=position, param=param):
                    capture = me()
                    if capture is not None and capture.state is not None:
                        capture._gradient_without_scaler(index, position, param, grad)
                    return None
                state.param_hooks.append(param.register_hook(on_grad))

    def _gradient_without_scaler(self, index, position, param, grad):
        # No scaler: the gradient as backward produced it, accumulated as .grad will
        # hold it (p.grad is the sum so far; the hook runs before accumulation).
        full = grad if param.grad is None else param.grad + grad
        self._keep_unscaled_gradient(self.state, index, position, full)

    def gradients_hooks_missed(self, state):
        """Without a GradScaler, on a probe step: the gradients of the parameters whose
        hooks saw none, as the step leaves them (FSDP2 sets a sharded parameter's gradient
        from its reduce-scatter, never through autograd)."""
        if not state.probe or self.scaler is not None:
            return
        for layer in self.layers:
            seen = state.scaled.get(layer.index, {})
            for position, param in enumerate(layer.params):
                if position not in seen and param.grad is not None:
                    self._keep_unscaled_gradient(state, layer.index, position,
                                                 local_tensor(param.grad))

    def _keep_unscaled_gradient(self, state, index, position, full):
        began = time.perf_counter()
        per_param = state.scaled.setdefault(index, {})
        # Scale 1: the what-ifs are at 0.5, 1 and 2, and the classes "as they are" are
        # the what-if at 1.
        what_if = probes.fp16_class_slots_multi(full, (0.5, 1.0, 2.0))
        per_param[position] = (
            probes.histogram_slots(full),
            what_if[1],
            what_if,
            full.detach().to(torch.float64).pow(2).sum())
        self.probe_seconds += time.perf_counter() - began

    def _before_unscale(self):
        state = self.state
        if not state.probe or state.unscaled_done:
            return
        began = time.perf_counter()
        for layer in self.layers:
            grads = [local_tensor(p.grad) for p in layer.params if p.grad is not None]
            if grads:
                state.scaled[layer.index] = {
                    k: (probes.histogram_slots(g), probes.fp16_class_slots(g, 1.0), None, None)
                    for k, g in enumerate(grads)}
        self.probe_seconds += time.perf_counter() - began

    def _after_unscale(self):
        state = self.state
        if not state.probe or state.unscaled_done:
            return
        began = time.perf_counter()
        state.unscaled_done = True
        scale = float(state.scale_before) if state.scale_before is not None else 1.0
        multipliers = (scale / 2, scale, scale * 2)
        for layer in self.layers:
            grads = [local_tensor(p.grad) for p in layer.params if p.grad is not None]
            if not grads:
                continue
            histogram = sum(probes.histogram_slots(g) for g in grads)
            what_if = sum(probes.fp16_class_slots_multi(g, multipliers) for g in grads)
            squares = sum(g.detach().to(torch.float64).pow(2).sum() for g in grads)
            state.unscaled[layer.index] = (histogram, what_if, squares, multipliers)
        self.probe_seconds += time.perf_counter() - began

    def _capture_found_inf(self):
        found = [value for per_optimizer in self.scaler._per_optimizer_states.values()
                 for value in per_optimizer.get("found_inf_per_device", {}).values()]
        if found:
            self.state.found_inf = sum(v.detach().to(torch.float64).to(self.device)
                                       for v in found)
