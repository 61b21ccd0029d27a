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
  the all-reduce brought in. Under FSDP2 the model's parameters are sharded DTensors
  that autograd never hands a gradient (the reduce-scatter sets it); the modules compute
  with unsharded parameters, which a module's forward hook finds on it and hooks the
  same way.

On probe steps they also keep histograms, fp16 classes and stats of those tensors. All
of it stays on the device until rec.step() reads what the step needs with one copy per
device (device_reads.py); the records are built from those values (records.py).

While torch.compile traces them, the hooks do only what traced.py does, so that the
user's graph stays whole; the step is then opened outside the model (open_ahead).
Where the parameter gradients are taken is gradients.py's; the checks and the step's
first hit are nonfinite.py's.
"""
import time
import weakref

import torch

from . import probes
from .gradients import GradientCapture
from .nonfinite import NonFiniteChecks, local_tensor
from .traced import TracedChecks, compiling

# torch.compile's wrapper keeps the user's module as this attribute: its name is no
# part of the names the user wrote.
COMPILE_WRAPPER_ATTRIBUTE = "_orig_mod"


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


def user_module(model):
    """The module torch.compile wrapped, or the model itself."""
    inner = getattr(model, COMPILE_WRAPPER_ATTRIBUTE, None)
    return inner if isinstance(inner, torch.nn.Module) else model


def user_named_modules(model):
    """named_modules() under the names the user wrote: a compiled submodule's wrapper is
    left out and its `_orig_mod` dropped from the names below it."""
    for name, module in model.named_modules():
        if user_module(module) is not module:
            continue
        parts = [part for part in name.split(".") if part != COMPILE_WRAPPER_ATTRIBUTE]
        yield ".".join(parts), module


class Layer:
    def __init__(self, index, name, module):
        self.index = index
        self.name = name
        self.module = module
        self.params = [p for p in module.parameters() if p.requires_grad]
        # Under FSDP2 the parameters are shards: what this rank holds and measures.
        self.numel = sum(local_tensor(p).numel() for p in self.params)


class StepState:
    """What one training step gathered between its first forward and rec.step()."""

    def __init__(self, step, probe):
        self.step = step
        self.probe = probe
        self.samples = 0
        self.forward_seen = False       # a training forward ran the eager hooks
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


class HookCapture(GradientCapture, NonFiniteChecks):
    """Owns the hooks and the step being captured. next_step is the number the next
    captured step gets; the recorder sets first_nonfinite_recorded once the run has its
    `nonfinite` record, after which the checks keep no stats for one.

    open_ahead: the model's forward runs traced (torch.compile), so no hook opens the
    step; rec.step() opens the next one when it ends (the weights are then as the next
    forward finds them). Known from the start when the recorder is given the compiled
    module, else from the first step whose checks ran traced."""

    def __init__(self, model, layers, scaler, device, probe_every, distributed=False,
                 open_ahead=False):
        self.model = model
        self.layers = layers
        self.scaler = scaler
        self.device = device
        self.probe_every = probe_every
        self.distributed = distributed
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.owners = {}
        for name, module in user_named_modules(model):
            for param in module.parameters(recurse=False):
                self.owners.setdefault(id(param), name or "(model)")
        self.state = None
        self.next_step = 1
        self.closed = False
        self.first_nonfinite_recorded = False
        self.probe_seconds = 0.0
        self.traced = TracedChecks(len(layers), device)
        self.open_ahead = open_ahead
        self._eval_forward = False
        self._hooks = []
        self._locally_hooked = set()
        self._scaler_restore = None
        self._install_hooks()
        if open_ahead:
            self.open_state()

    # ---- installing and removing -----------------------------------------------------

    def _install_hooks(self):
        me = weakref.ref(self)  # hooks must not keep a forgotten recorder's capture alive

        traced = self.traced  # the traced hooks reach only this, never the capture

        # Each hook first asks whether Dynamo is tracing it: then it leaves no Python work
        # in the user's graph (the model's own hooks: nothing at all, not even a graph of
        # their own when Dynamo compiles them as frames of their own).
        def pre_forward(module, args):
            if compiling():
                return
            capture = me()
            if capture is not None:
                capture._begin_forward(args)

        def post_forward(module, args, output):
            if compiling():
                return
            capture = me()
            if capture is not None:
                capture._eval_forward = False

        self._hooks.append(self.model.register_forward_pre_hook(pre_forward))
        self._hooks.append(self.model.register_forward_hook(post_forward))
        for layer in self.layers:
            def after_layer(module, args, output, index=layer.index):
                if compiling():
                    return traced.after_layer(index, module, output, first_floating_tensor)
                capture = me()
                if capture is not None:
                    capture._after_layer(index, module, output)
                return None
            self._hooks.append(layer.module.register_forward_hook(after_layer))
        if self.scaler is not None:
            self._wrap_scaler()
        if self.distributed:
            for param in self.params:
                self._hook_local_gradient(param, self.owners.get(id(param), "(model)"))
            for layer in self.layers:
                # The parameters a module computes with, as its forward begins: FSDP2's
                # unsharded ones (its own pre-hook, always first, put them there), which
                # autograd hands this rank's own gradient; DDP's are the model's, hooked.
                def before_layer(module, args, name=layer.name):
                    if compiling():
                        return
                    capture = me()
                    if capture is not None:
                        for param in module.parameters(recurse=False):
                            if param.requires_grad and local_tensor(param) is param:
                                capture._hook_local_gradient(param, name)
                self._hooks.append(layer.module.register_forward_pre_hook(before_layer))

    def _hook_local_gradient(self, param, owner):
        if id(param) in self._locally_hooked:
            return
        self._locally_hooked.add(id(param))
        me = weakref.ref(self)

        def local_gradient(grad):
            capture = me()
            if capture is not None:
                capture._local_gradient_arrived(owner, grad)
            return None
        self._hooks.append(param.register_hook(local_gradient))

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
        state = self.current_state() or StepState(self.next_step, False)
        self.state = None
        return state

    def current_state(self):
        """The open step; one is opened here when the model's forward ran traced, which
        no hook of the recorder saw."""
        if self.state is None and self.traced.ran and not self.closed:
            self.open_ahead = True
            self.open_state(before_forward=False)
        return self.state

    def open_state(self, before_forward=True):
        """Opens the next step: the loss scale it starts from, and on probe steps the
        weights before its update and (without a GradScaler) the parameters' gradient
        hooks. Opened after its forward (a compiled model's first step, seen only once
        it ran), a step has neither."""
        began = time.perf_counter()
        state = self.state = StepState(self.next_step, self._is_probe_step(self.next_step))
        if self.scaler is not None:
            # Before the first scale() the scaler holds no tensor yet: its initial scale.
            state.scale_before = (
                self.scaler._scale.detach().clone() if self.scaler._scale is not None
                else torch.tensor(float(self.scaler.get_scale()), dtype=torch.float64))
        if state.probe and before_forward:
            for layer in self.layers:
                state.weights_before[layer.index] = [local_tensor(p).detach().clone()
                                                     for p in layer.params]
            if self.scaler is None:
                self._register_param_hooks(state)
            self.probe_seconds += time.perf_counter() - began
        return state

    def _is_probe_step(self, step):
        return self.probe_every > 0 and (step == 1 or step % self.probe_every == 0)

    # ---- the hooks -------------------------------------------------------------------

    def _begin_forward(self, args):
        # Evaluation passes (no_grad or eval mode) are not training steps.
        self._eval_forward = not torch.is_grad_enabled() or not self.model.training
        if self._eval_forward or self.closed:
            return
        state = self.state or self.open_state()
        state.forward_seen = True
        batch = first_floating_tensor(args) if args else None
        if batch is None and args and isinstance(args[0], torch.Tensor):
            batch = args[0]
        if batch is not None and batch.dim() > 0:
            state.samples += int(batch.shape[0])

    def _local_gradient_arrived(self, owner, grad):
        # The sum is not finite when an element is not; finite elements overflow a float32
        # sum only near 10^34, where the rank's own gradient is the trouble anyway. (A
        # float64 sum would be exact, but converting every element costs ten times more
        # on the CPU.) A GPU's sum stays there until it is needed.
        state = self.state
        if state is None or self.closed or self.first_nonfinite_recorded:
            return
        state.local_gradients.append((owner, grad.detach().sum(dtype=torch.float32)))

    def _after_layer(self, index, module, output):
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
