"""Hook capture: what the recorder's hooks collect during one training step.

The hooks gather into a StepState, between a step's first forward and rec.step():

- the model's forward pre-hook opens the step (on probe steps it clones the weights, for
  the update ratios, and, without a GradScaler, hooks the parameters' gradients);
- each probed module's forward hook checks its output for non-finite values and hooks
  the gradient that will arrive at that output (checked the same way);
- the GradScaler's unscale_ and update, wrapped on the instance, give the scaled and
  unscaled parameter gradients and found_inf before update() forgets it;
- under torch.distributed, each parameter's gradient hook takes a float32 sum of the
  gradient as this rank's backward made it, before DistributedDataParallel's all-reduce
  (its hooks run after the gradient is accumulated): kept on the device and read only on
  the step whose fused check fails, to tell the rank's own non-finite gradient from one
  the all-reduce brought in.

On probe steps they also keep histograms, fp16 classes and stats of those tensors. All
of it stays on the device until rec.step() reads what the step needs with one copy per
device (device_reads.py); the records are built from those values (records.py).
"""
import math
import time
import weakref

import torch

from . import probes, schema


def first_floating_tensor(value):
    if isinstance(value, torch.Tensor):
        return value if value.is_floating_point() else None
    if isinstance(value, (list, tuple)):
        for item in value:
            found = first_floating_tensor(item)
            if found is not None:
                return found
    if isinstance(value, dict):
        for item in value.values():
            found = first_floating_tensor(item)
            if found is not None:
                return found
    return None


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


class Layer:
    def __init__(self, index, name, module):
        self.index = index
        self.name = name
        self.module = module
        self.params = [p for p in module.parameters() if p.requires_grad]
        self.numel = sum(p.numel() for p in self.params)


class StepState:
    """What one training step gathered between its first forward and rec.step()."""

    def __init__(self, step, probe):
        self.step = step
        self.probe = probe
        self.samples = 0
        self.sequence = 0
        self.scale_before = None        # device tensor, snapshot at the first forward
        self.pending_checks = []        # (order, layer index, phase, tensor kind, numel, counts)
        self.hits = []                  # (order, layer index, phase, tensor kind, numel, counts list)
        self.hit_mode = False           # CPU: a hit seen; later checks keep stats for its frame
        self.hit_stats = {}             # (layer index, "activation"/"gradient") -> (slots, numel)
        self.frame_stats = {}           # probe step: the same, for every check
        self.activation_grad = {}       # layer index -> histogram slots
        self.scaled = {}                # layer index -> (histogram, classes at 1)
        self.unscaled = {}              # layer index -> (histogram, what-if classes, sum of squares)
        self.weights_before = {}        # layer index -> [clones]
        self.activation_bytes = {}
        self.param_hooks = []
        self.found_inf = None
        self.unscaled_done = False
        self.gradient_hit_layer = None  # name of the module whose parameter gradients were hit
        self.gradient_hit_via = None    # how they became non-finite when not on this rank
        self.local_gradients = []       # distributed: (parameter position, float32 sum) per arrival

    def remove_param_hooks(self):
        for handle in self.param_hooks:
            handle.remove()
        self.param_hooks.clear()


class HookCapture:
    """Owns the hooks and the step being captured. next_step is the number the next
    captured step gets; the recorder sets first_nonfinite_recorded once the run has its
    `nonfinite` record, after which the checks keep no stats for one."""

    def __init__(self, model, layers, scaler, device, probe_every, distributed=False):
        self.model = model
        self.layers = layers
        self.scaler = scaler
        self.device = device
        self.probe_every = probe_every
        self.distributed = distributed
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.state = None
        self.next_step = 1
        self.closed = False
        self.first_nonfinite_recorded = False
        self.probe_seconds = 0.0
        self._eval_forward = False
        self._hooks = []
        self._scaler_restore = None
        self._install_hooks()

    # ---- installing and removing -----------------------------------------------------

    def _install_hooks(self):
        me = weakref.ref(self)  # hooks must not keep a forgotten recorder's capture alive

        def pre_forward(module, args):
            capture = me()
            if capture is not None:
                capture._begin_forward(args)

        def post_forward(module, args, output):
            capture = me()
            if capture is not None:
                capture._eval_forward = False

        self._hooks.append(self.model.register_forward_pre_hook(pre_forward))
        self._hooks.append(self.model.register_forward_hook(post_forward))
        for layer in self.layers:
            def after_layer(module, args, output, index=layer.index):
                capture = me()
                if capture is not None:
                    capture._after_layer(index, output)
            self._hooks.append(layer.module.register_forward_hook(after_layer))
        if self.scaler is not None:
            self._wrap_scaler()
        if self.distributed:
            for position, param in enumerate(self.params):
                def local_gradient(grad, position=position):
                    capture = me()
                    if capture is not None:
                        capture._local_gradient_arrived(position, grad)
                    return None
                self._hooks.append(param.register_hook(local_gradient))

    def _wrap_scaler(self):
        scaler = self.scaler
        original_unscale = scaler.unscale_
        original_update = scaler.update
        me = weakref.ref(self)

        def unscale_(optimizer):
            capture = me()
            if capture is None or capture.state is None or capture.closed:
                return original_unscale(optimizer)
            capture._before_unscale()
            result = original_unscale(optimizer)
            capture._after_unscale()
            return result

        def update(*args, **kwargs):
            capture = me()
            if capture is not None and capture.state is not None and not capture.closed:
                capture._capture_found_inf()
            return original_update(*args, **kwargs)

        scaler.unscale_ = unscale_
        scaler.update = update
        self._scaler_restore = lambda: (scaler.__dict__.pop("unscale_", None),
                                        scaler.__dict__.pop("update", None))

    def remove_hooks(self):
        for handle in self._hooks:
            handle.remove()
        self._hooks.clear()
        if self.state is not None:
            self.state.remove_param_hooks()
        if self._scaler_restore is not None:
            self._scaler_restore()
            self._scaler_restore = None

    def close(self):
        self.closed = True
        self.remove_hooks()

    def take_state(self):
        """The step's state (an empty one when no training forward ran); the next
        forward opens a new one."""
        state = self.state or StepState(self.next_step, False)
        self.state = None
        return state

    def _is_probe_step(self, step):
        return self.probe_every > 0 and (step == 1 or step % self.probe_every == 0)

    # ---- the hooks -------------------------------------------------------------------

    def _begin_forward(self, args):
        # Evaluation passes (no_grad or eval mode) are not training steps.
        self._eval_forward = not torch.is_grad_enabled() or not self.model.training
        if self._eval_forward or self.closed:
            return
        state = self.state
        if state is None:
            began = time.perf_counter()
            state = self.state = StepState(self.next_step, self._is_probe_step(self.next_step))
            if self.scaler is not None:
                # Before the first scale() the scaler holds no tensor yet: its initial scale.
                state.scale_before = (
                    self.scaler._scale.detach().clone() if self.scaler._scale is not None
                    else torch.tensor(float(self.scaler.get_scale()), dtype=torch.float64))
            if state.probe:
                for layer in self.layers:
                    state.weights_before[layer.index] = [p.detach().clone() for p in layer.params]
                if self.scaler is None:
                    self._register_param_hooks(state)
                self.probe_seconds += time.perf_counter() - began
        batch = first_floating_tensor(args) if args else None
        if batch is None and args and isinstance(args[0], torch.Tensor):
            batch = args[0]
        if batch is not None and batch.dim() > 0:
            state.samples += int(batch.shape[0])

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
        began = time.perf_counter()
        full = grad if param.grad is None else param.grad + grad
        per_param = self.state.scaled.setdefault(index, {})
        # Scale 1: the what-ifs are at 0.5, 1 and 2, and the classes "as they are" are
        # the what-if at 1.
        what_if = probes.fp16_class_slots_multi(full, (0.5, 1.0, 2.0))
        per_param[position] = (
            probes.histogram_slots(full),
            what_if[1],
            what_if,
            full.detach().to(torch.float64).pow(2).sum())
        self.probe_seconds += time.perf_counter() - began

    def _local_gradient_arrived(self, position, grad):
        # The sum is not finite when an element is not; finite elements overflow a float32
        # sum only near 10^34, where the rank's own gradient is the trouble anyway. (A
        # float64 sum would be exact, but converting every element costs ten times more
        # on the CPU.) A GPU's sum stays there until it is needed.
        state = self.state
        if state is None or self.closed or self.first_nonfinite_recorded:
            return
        state.local_gradients.append((position, grad.detach().sum(dtype=torch.float32)))

    def _before_unscale(self):
        state = self.state
        if not state.probe or state.unscaled_done:
            return
        began = time.perf_counter()
        for layer in self.layers:
            grads = [p.grad for p in layer.params if p.grad is not None]
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
            grads = [p.grad for p in layer.params if p.grad is not None]
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

    def _after_layer(self, index, output):
        if self._eval_forward or self.closed or self.state is None:
            return
        tensor = first_floating_tensor(output)
        if tensor is None:
            return
        state = self.state
        state.sequence += 1
        self.check(state, (0, state.sequence), index, "forward", "activation", tensor)
        if state.probe:
            began = time.perf_counter()
            state.frame_stats[(index, "activation")] = (probes.stats_slots(tensor), tensor.numel())
            name = _dtype_name(tensor.dtype)
            state.activation_bytes[name] = (state.activation_bytes.get(name, 0)
                                            + tensor.numel() * tensor.element_size())
            self.probe_seconds += time.perf_counter() - began
        if tensor.requires_grad:
            me = weakref.ref(self)

            def on_gradient(grad, index=index):
                capture = me()
                if capture is not None:
                    capture._gradient_arrived(index, grad)
                return None

            tensor.register_hook(on_gradient)

    def _gradient_arrived(self, index, grad):
        state = self.state
        if state is None or self.closed:
            return
        state.sequence += 1
        self.check(state, (2, state.sequence), index, "backward", "gradient", grad)
        if state.probe:
            began = time.perf_counter()
            slots = probes.histogram_slots(grad)
            previous = state.activation_grad.get(index)
            state.activation_grad[index] = slots if previous is None else previous + slots
            state.frame_stats[(index, "gradient")] = (probes.stats_slots(grad), grad.numel())
            self.probe_seconds += time.perf_counter() - began

    # ---- non-finite checks -------------------------------------------------------------

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
        after DistributedDataParallel's all-reduce): the sum of their norms, which is not
        finite when an element is not. On the CPU it is looked at where it is made; on a
        GPU it is read with the step's other values. Off once the run has its first NaN."""
        if self.first_nonfinite_recorded:
            return None
        grads = [p.grad for p in self.params if p.grad is not None]
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
        if gradient_check is not None and not state.hits:
            total = host["gradients"][0] if "gradients" in host else gradient_check.item()
            if not math.isfinite(total):
                state.hits.append(self._gradient_hit(state))
        return min(state.hits, key=lambda hit: hit[0]) if state.hits else None

    def _gradient_hit(self, state):
        """The module whose parameter gradients are not finite, as a hit after everything
        else of the step; its counts are of the gradients as the step left them. Looked
        for only on the step whose fused check failed while nothing else did: once per run.

        Under torch.distributed the gradients the check saw are the all-reduced ones. When
        one that this rank's backward made was already non-finite, the value is the rank's
        own (an overflow in a weight-gradient GEMM, say): the module is that gradient's,
        the first to arrive so. Otherwise it came from another rank through the all-reduce
        (gradient_hit_via), and the module is the first in named_modules order whose
        gradients are not finite."""
        owners = {}
        for name, module in self.model.named_modules():
            for param in module.parameters(recurse=False):
                owners.setdefault(id(param), name or "(model)")
        own = self._first_local_nonfinite(state)
        found = None
        for param in self.params:
            if param.grad is None:
                continue
            name = owners.get(id(param), "(model)")
            if own is not None and name != owners.get(id(own), "(model)"):
                continue
            counts = probes.nonfinite_count_slots(param.grad).tolist()
            if found is None and (own is not None or sum(counts) > 0):
                found = [name, counts, param.numel()]
            elif found is not None and name == found[0]:
                found[1] = [a + b for a, b in zip(found[1], counts)]
                found[2] += param.numel()
        name, counts, numel = found if found is not None else ("(model)", [0.0, 0.0, 0.0], 0)
        state.gradient_hit_layer = name
        if self.distributed and own is None:
            state.gradient_hit_via = schema.VIA_GRADIENT_ALLREDUCE
        index = next((layer.index for layer in self.layers if layer.name == name), -1)
        return ((3, 0), index, "backward", schema.NONFINITE_PARAM_GRAD, numel, counts)

    def _first_local_nonfinite(self, state):
        """The first parameter whose gradient, as this rank's backward made it, was not
        finite (in the order they arrived), or None: read here, once per run. A parameter
        whose hook saw nothing (unused in the forward: DistributedDataParallel reduces
        zeros for it) had no value of this rank's own."""
        if not state.local_gradients:
            return None
        sums = torch.stack([total for _, total in state.local_gradients]).tolist()
        for (position, _), total in zip(state.local_gradients, sums):
            if not math.isfinite(total):
                return self.params[position]
        return None
