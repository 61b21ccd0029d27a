"""Recorder: records a user's own PyTorch training loop into an AmpScope run directory.

    rec = ampscope.Recorder("runs/my-run", model, optimizer=opt, scaler=scaler,
                            mode="fp16", probe_every=50)
    ... one training step ...; scaler.update()
    rec.step(loss)          # after update(): records the step
    rec.close()             # summary.json; or `with ampscope.Recorder(...) as rec:`

What is recorded, in the engine's records (core/run/EventSchema.md,
core/probes/ProbeRecords.md), each run_start/run_info/summary carrying
source = "pytorch_recorder":

- every step: a `step` record (loss, lr, loss scale before and after update(), growth
  tracker, found_inf from the scaler's own found-inf state, step_skipped, step time,
  samples/s, peak memory), a non-finite check of each probed module's forward output
  and of the gradient arriving at it, and one fused check of every parameter gradient
  after backward. The first hit of the run becomes the `nonfinite` record (module,
  phase, counts, the stats frames of the steps before); parameter gradients that are
  not finite while nothing before them was are the module's `param_grad`, and under
  torch.distributed they came from another rank through the gradient all-reduce
  (`via`: `gradient_allreduce`);
- on probe steps (step 1 and every probe_every-th): per module, histograms of the
  scaled and unscaled parameter gradients and of the activation gradient, the fp16
  classes of the scaled gradients and the what-ifs at half, once and twice the
  scale, update ratios, and a `memory` record. Everything is computed on the
  device and read to the host with one copy per device per step.

Where the gradients are taken: with a GradScaler, scaler.unscale_ is wrapped on the
instance (scaled gradients just before it, unscaled just after: before any clipping
the user does after unscale_), and scaler.update is wrapped to read found_inf before
update() forgets it. Without a scaler, the parameters' gradient hooks take them as
backward produces them (before clipping); the hooks exist on probe steps only.
close() removes every hook and wrapper.

Threads: one training thread owns a Recorder. torch.distributed: each rank writes its
own directory (RUN_DIR/rank-N, or RUN_DIR with "{rank}" replaced); the recorder makes
no collective call, so no rank waits for another because of it.
"""
import math
import os
import platform
import resource
import socket
import sys
import time
import weakref
from collections import deque

import torch

from . import probes, schema
from ._version import __version__
from .run_writer import RunWriteError, RunWriter


class RecorderWriteError(RunWriteError):
    """The run directory could not be written (disk full, I/O error). Raised once, by
    the step() or close() that met it; the recorder then records nothing more, and
    what it wrote before stays a readable run."""


def _first_floating_tensor(value):
    if isinstance(value, torch.Tensor):
        return value if value.is_floating_point() else None
    if isinstance(value, (list, tuple)):
        for item in value:
            found = _first_floating_tensor(item)
            if found is not None:
                return found
    if isinstance(value, dict):
        for item in value.values():
            found = _first_floating_tensor(item)
            if found is not None:
                return found
    return None


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def _cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _process_memory():
    """(resident bytes, peak resident bytes) from /proc/self/status (VmRSS, VmHWM)."""
    rss = peak = 0
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) * 1024
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return rss, peak


def _distributed_rank():
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except Exception:  # a torch without distributed support
        pass
    return None, 1


class _Layer:
    def __init__(self, index, name, module):
        self.index = index
        self.name = name
        self.module = module
        self.params = [p for p in module.parameters() if p.requires_grad]
        self.numel = sum(p.numel() for p in self.params)


class _StepState:
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


class Recorder:
    def __init__(self, run_dir, model, optimizer=None, scaler=None, mode="fp32",
                 probe_every=50, modules=None, rank=None, total_steps=0, description=None):
        if mode not in schema.PRECISION_MODES:
            raise ValueError(f"mode: must be one of {', '.join(schema.PRECISION_MODES)} "
                             f"(got {mode!r})")
        if not isinstance(probe_every, int) or probe_every < 0:
            raise ValueError(f"probe_every: must be an integer >= 0 (got {probe_every!r})")
        if not isinstance(model, torch.nn.Module):
            raise TypeError("model: a torch.nn.Module is needed")
        self.model = model
        self.optimizer = optimizer
        # A disabled scaler (enabled=False) scales nothing and never unscales: no scaler.
        self.scaler = scaler if scaler is not None and scaler.is_enabled() else None
        self.mode = mode
        self.probe_every = probe_every

        detected_rank, self.world_size = _distributed_rank()
        self.rank = rank if rank is not None else detected_rank
        self.directory = self._rank_directory(str(run_dir), self.rank, detected_rank is not None)
        self.layers = self._select_layers(modules)
        self._params = [p for p in model.parameters() if p.requires_grad]

        first = next(model.parameters(), None)
        self.device = first.device if first is not None else torch.device("cpu")
        self._versions = {
            "torch_version": torch.__version__,
            "cuda_version": torch.version.cuda,
            "python_version": platform.python_version(),
        }
        device_name = (torch.cuda.get_device_name(self.device) if self.device.type == "cuda"
                       else _cpu_name())
        self._device_text = f"{self.device.type}" + (f" ({device_name})" if device_name else "")
        execution = (f"{schema.RECORDED_EXECUTION}: PyTorch {torch.__version__}"
                     + (f", CUDA {torch.version.cuda}" if torch.version.cuda else "")
                     + f", {self._device_text}")
        self._precision = {"mode": mode, "emulated": False, "execution": execution,
                           schema.SOURCE_FIELD: schema.SOURCE_RECORDER}
        self._facts = {
            "device": self.device.type,
            "device_name": device_name,
            "threads": torch.get_num_threads(),
            "model": type(model).__name__,
            "parameters": sum(p.numel() for p in model.parameters()),
        }
        identity = {schema.SOURCE_FIELD: schema.SOURCE_RECORDER, "rank": self.rank,
                    "world_size": self.world_size, **self._versions}

        self._writer = RunWriter(self.directory, self._config(mode, probe_every),
                                 {"ampscope_version": __version__, **identity})
        self._writer.append({
            "type": schema.RUN_INFO,
            "total_steps": int(total_steps or 0),
            "description": description or (schema.RECORDED_EXECUTION + ": " +
                                           os.path.basename(sys.argv[0] or "python")),
            "git_revision": "",
            "precision": self._precision,
            "layers": [layer.name for layer in self.layers],
            "hostname": socket.gethostname(),
            **self._facts,
            **identity,
        })
        self._writer.flush()

        self._closed = False
        self._failed = False
        self._eval_forward = False
        self._state = None
        self._next_step = 1
        self._epoch = 1
        self._epoch_losses = []
        self._last_epoch_loss = math.nan
        self._val_loss = math.nan
        self._val_accuracy = math.nan
        self._frames = deque(maxlen=schema.FRAME_CAPACITY)
        self._first_event = None
        self._counts = {"skipped": 0, "backoffs": 0, "growths": 0, "nonfinite_losses": 0}
        self._underflow_sums = {}  # layer -> [flushed, subnormal, overflow fractions, steps]
        self._probe_seconds = 0.0
        self._train_seconds = 0.0
        self._samples = 0
        self._final_scale = 1.0
        self._started = time.monotonic()
        self._last_step_end = self._started
        self._hooks = []
        self._install_hooks()

    # ---- setup ---------------------------------------------------------------------

    @staticmethod
    def _rank_directory(run_dir, rank, distributed):
        if "{rank}" in run_dir:
            return run_dir.replace("{rank}", str(rank if rank is not None else 0))
        if rank is not None or distributed:
            return os.path.join(run_dir, f"rank-{rank if rank is not None else 0}")
        return run_dir

    def _select_layers(self, modules):
        named = dict(self.model.named_modules())
        if modules is None:
            names = [name for name, module in self.model.named_modules()
                     if name and not any(True for _ in module.children())
                     and any(p.requires_grad for p in module.parameters(recurse=False))]
        else:
            names = list(modules)
            for name in names:
                if name not in named:
                    raise ValueError(f"modules: the model has no submodule named {name!r} "
                                     "(names are those of model.named_modules())")
        return [_Layer(i, name, named[name]) for i, name in enumerate(names)]

    def _config(self, mode, probe_every):
        # Only keys the core's config schema knows (config/ConfigSchema.h), so the
        # window and reports load it; what the run really was lives in run_info.
        scaler = {"kind": "off"}
        if self.scaler is not None:
            scaler = {"kind": "dynamic",
                      "init_scale": float(self.scaler.get_scale()),
                      "growth_factor": float(self.scaler.get_growth_factor()),
                      "backoff_factor": float(self.scaler.get_backoff_factor()),
                      "growth_interval": int(self.scaler.get_growth_interval())}
        return {"schema_version": schema.CONFIG_SCHEMA_VERSION,
                "name": os.path.basename(os.path.normpath(self.directory)),
                "device": "cuda" if self.device.type == "cuda" else "cpu",
                "precision": {"mode": mode, "scaler": scaler},
                "probes": {"every": probe_every}}

    def _install_hooks(self):
        me = weakref.ref(self)  # hooks must not keep a forgotten recorder alive

        def pre_forward(module, args):
            rec = me()
            if rec is not None:
                rec._begin_forward(args)

        def post_forward(module, args, output):
            rec = me()
            if rec is not None:
                rec._eval_forward = False

        self._hooks.append(self.model.register_forward_pre_hook(pre_forward))
        self._hooks.append(self.model.register_forward_hook(post_forward))
        for layer in self.layers:
            def after_layer(module, args, output, index=layer.index):
                rec = me()
                if rec is not None:
                    rec._after_layer(index, output)
            self._hooks.append(layer.module.register_forward_hook(after_layer))
        if self.scaler is not None:
            self._wrap_scaler()

    def _wrap_scaler(self):
        scaler = self.scaler
        original_unscale = scaler.unscale_
        original_update = scaler.update
        me = weakref.ref(self)

        def unscale_(optimizer):
            rec = me()
            if rec is None or rec._state is None or rec._closed:
                return original_unscale(optimizer)
            rec._before_unscale()
            result = original_unscale(optimizer)
            rec._after_unscale()
            return result

        def update(*args, **kwargs):
            rec = me()
            if rec is not None and rec._state is not None and not rec._closed:
                rec._capture_found_inf()
            return original_update(*args, **kwargs)

        scaler.unscale_ = unscale_
        scaler.update = update
        self._scaler_restore = lambda: (scaler.__dict__.pop("unscale_", None),
                                        scaler.__dict__.pop("update", None))

    def _remove_hooks(self):
        for handle in self._hooks:
            handle.remove()
        self._hooks.clear()
        if self._state is not None:
            for handle in self._state.param_hooks:
                handle.remove()
            self._state.param_hooks.clear()
        restore = getattr(self, "_scaler_restore", None)
        if restore is not None:
            restore()
            self._scaler_restore = None

    def _is_probe_step(self, step):
        return self.probe_every > 0 and (step == 1 or step % self.probe_every == 0)

    # ---- hooks -----------------------------------------------------------------------

    def _begin_forward(self, args):
        # Evaluation passes (no_grad or eval mode) are not training steps.
        self._eval_forward = not torch.is_grad_enabled() or not self.model.training
        if self._eval_forward or self._closed:
            return
        state = self._state
        if state is None:
            began = time.perf_counter()
            state = self._state = _StepState(self._next_step, self._is_probe_step(self._next_step))
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
                self._probe_seconds += time.perf_counter() - began
        batch = _first_floating_tensor(args) if args else None
        if batch is None and args and isinstance(args[0], torch.Tensor):
            batch = args[0]
        if batch is not None and batch.dim() > 0:
            state.samples += int(batch.shape[0])

    def _register_param_hooks(self, state):
        me = weakref.ref(self)
        for layer in self.layers:
            for position, param in enumerate(layer.params):
                def on_grad(grad, index=layer.index, position=position, param=param):
                    rec = me()
                    if rec is not None and rec._state is not None:
                        rec._gradient_without_scaler(index, position, param, grad)
                    return None
                state.param_hooks.append(param.register_hook(on_grad))

    def _gradient_without_scaler(self, index, position, param, grad):
        # No scaler: the gradient as backward produced it, accumulated as .grad will
        # hold it (p.grad is the sum so far; the hook runs before accumulation).
        began = time.perf_counter()
        full = grad if param.grad is None else param.grad + grad
        per_param = self._state.scaled.setdefault(index, {})
        # Scale 1: the what-ifs are at 0.5, 1 and 2, and the classes "as they are" are
        # the what-if at 1.
        what_if = probes.fp16_class_slots_multi(full, (0.5, 1.0, 2.0))
        per_param[position] = (
            probes.histogram_slots(full),
            what_if[1],
            what_if,
            full.detach().to(torch.float64).pow(2).sum())
        self._probe_seconds += time.perf_counter() - began

    def _before_unscale(self):
        state = self._state
        if not state.probe or state.unscaled_done:
            return
        began = time.perf_counter()
        for layer in self.layers:
            grads = [p.grad for p in layer.params if p.grad is not None]
            if grads:
                state.scaled[layer.index] = {
                    k: (probes.histogram_slots(g), probes.fp16_class_slots(g, 1.0), None, None)
                    for k, g in enumerate(grads)}
        self._probe_seconds += time.perf_counter() - began

    def _after_unscale(self):
        state = self._state
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
        self._probe_seconds += time.perf_counter() - began

    def _capture_found_inf(self):
        found = [value for per_optimizer in self.scaler._per_optimizer_states.values()
                 for value in per_optimizer.get("found_inf_per_device", {}).values()]
        if found:
            self._state.found_inf = sum(v.detach().to(torch.float64).to(self.device)
                                        for v in found)

    def _after_layer(self, index, output):
        if self._eval_forward or self._closed or self._state is None:
            return
        tensor = _first_floating_tensor(output)
        if tensor is None:
            return
        state = self._state
        state.sequence += 1
        self._check(state, (0, state.sequence), index, "forward", "activation", tensor)
        if state.probe:
            began = time.perf_counter()
            state.frame_stats[(index, "activation")] = (probes.stats_slots(tensor), tensor.numel())
            name = _dtype_name(tensor.dtype)
            state.activation_bytes[name] = (state.activation_bytes.get(name, 0)
                                            + tensor.numel() * tensor.element_size())
            self._probe_seconds += time.perf_counter() - began
        if tensor.requires_grad:
            me = weakref.ref(self)

            def on_gradient(grad, index=index):
                rec = me()
                if rec is not None:
                    rec._gradient_arrived(index, grad)
                return None

            tensor.register_hook(on_gradient)

    def _gradient_arrived(self, index, grad):
        state = self._state
        if state is None or self._closed:
            return
        state.sequence += 1
        self._check(state, (2, state.sequence), index, "backward", "gradient", grad)
        if state.probe:
            began = time.perf_counter()
            slots = probes.histogram_slots(grad)
            previous = state.activation_grad.get(index)
            state.activation_grad[index] = slots if previous is None else previous + slots
            state.frame_stats[(index, "gradient")] = (probes.stats_slots(grad), grad.numel())
            self._probe_seconds += time.perf_counter() - began

    def _check(self, state, order, index, phase, kind, tensor):
        if tensor.device.type == "cpu":
            # On the CPU the reduction's result is looked at where it is made: no copy.
            if state.hit_mode and self._first_event is None:
                state.hit_stats[(index, kind)] = (probes.stats_slots(tensor), tensor.numel())
            # One pass, no temporary: a finite sum proves every element finite; only a
            # sum that is not (a NaN, an Inf, or finite values overflowing it) looks closer.
            if math.isfinite(tensor.detach().sum().item()) or bool(torch.isfinite(tensor).all()):
                return
            counts = probes.nonfinite_count_slots(tensor).tolist()
            state.hits.append((order, index, phase, kind, tensor.numel(), counts))
            if not state.hit_mode and self._first_event is None:
                state.hit_mode = True
                state.hit_stats[(index, kind)] = (probes.stats_slots(tensor), tensor.numel())
        else:
            # On a GPU the counts stay on the device until step() reads them all at once.
            state.pending_checks.append((order, index, phase, kind, tensor.numel(),
                                         probes.nonfinite_count_slots(tensor)))

    # ---- the step ----------------------------------------------------------------------

    def step(self, loss, batch_size=None):
        """Records one training step; call it after scaler.update() (or opt.step())."""
        if self._closed or self._failed:
            return
        now = time.monotonic()
        state = self._state or _StepState(self._next_step, False)
        self._state = None
        try:
            self._record_step(state, loss, batch_size, now)
        finally:
            for handle in state.param_hooks:
                handle.remove()
        self._next_step += 1
        self._last_step_end = time.monotonic()

    def _record_step(self, state, loss, batch_size, now):
        loss_tensor = loss.detach() if isinstance(loss, torch.Tensor) else torch.tensor(float(loss))
        if loss_tensor.numel() != 1:
            raise ValueError("rec.step(loss): loss must hold one value "
                             f"(got a tensor of {loss_tensor.numel()} elements)")
        self._check(state, (1, 0), -1, "forward", "loss", loss_tensor)
        gradient_check = self._gradient_check()
        began = time.perf_counter()
        if state.probe:
            state.frame_stats[(-1, "loss")] = (probes.stats_slots(loss_tensor), 1)

        # Everything the step needs from the devices, read with one copy per device.
        reads = {}
        reads["loss"] = loss_tensor.reshape(1).to(torch.float64)
        if self.scaler is not None:
            reads["scale_after"] = self.scaler._scale.detach().reshape(1).to(torch.float64)
            reads["tracker"] = self.scaler._growth_tracker.detach().reshape(1).to(torch.float64)
            if state.scale_before is not None:
                reads["scale_before"] = state.scale_before.reshape(1).to(torch.float64)
            if state.found_inf is not None:
                reads["found_inf"] = state.found_inf.reshape(1)
        for n, check in enumerate(state.pending_checks):
            reads[("check", n)] = check[5]
        if gradient_check is not None and gradient_check.device.type != "cpu":
            reads["gradients"] = gradient_check.reshape(1)
        if state.probe:
            self._probe_reads(state, reads)
        for key, (slots, _numel) in state.hit_stats.items():
            reads[("hit",) + key] = slots
        host = self._read_to_host(reads)

        loss_value = host["loss"][0]
        step = state.step
        record = {"type": schema.STEP, "step": step, "epoch": self._epoch}
        probes.put_number(record, "loss", loss_value)
        lr = self.optimizer.param_groups[0]["lr"] if self.optimizer is not None else 0.0
        record["lr"] = float(lr)
        grad_norm = math.nan
        if state.probe:
            squares = [host[("squares", layer.index)][0] for layer in self.layers
                       if ("squares", layer.index) in host]
            if squares:
                grad_norm = math.sqrt(sum(squares))
        if state.probe and not math.isnan(grad_norm):
            probes.put_number(record, "grad_norm", grad_norm)
        else:
            record["grad_norm"] = None  # measured on probe steps only
        seconds = max(now - self._last_step_end, 1e-9)
        samples = batch_size if batch_size is not None else state.samples
        record["step_seconds"] = seconds
        record["samples_per_second"] = samples / seconds
        scale = host["scale_before"][0] if "scale_before" in host else 1.0
        scale_after = host["scale_after"][0] if "scale_after" in host else scale
        found_inf = bool(host["found_inf"][0] > 0) if "found_inf" in host else False
        probes.put_number(record, "scale", scale)
        probes.put_number(record, "scale_after", scale_after)
        record["growth_tracker"] = int(host["tracker"][0]) if "tracker" in host else 0
        record["found_inf"] = found_inf
        # GradScaler.step() skips optimizer.step() exactly when it found an inf/NaN.
        record["step_skipped"] = found_inf and self.scaler is not None
        if scale_after < scale:
            record["scale_change"] = "backoff"
            self._counts["backoffs"] += 1
        elif scale_after > scale:
            record["scale_change"] = "growth"
            self._counts["growths"] += 1
        if record["step_skipped"]:
            self._counts["skipped"] += 1
        if not math.isfinite(loss_value):
            self._counts["nonfinite_losses"] += 1
        else:
            self._epoch_losses.append(loss_value)
        self._final_scale = scale_after

        for n, check in enumerate(state.pending_checks):
            counts = host[("check", n)]
            if sum(counts) > 0:
                state.hits.append(check[:5] + (counts,))
        if gradient_check is not None and not state.hits:
            total = host["gradients"][0] if "gradients" in host else gradient_check.item()
            if not math.isfinite(total):
                state.hits.append(self._gradient_hit(state))
        first_hit = min(state.hits, key=lambda hit: hit[0]) if state.hits else None
        if first_hit is not None:
            record["first_nonfinite_layer"] = self._hit_layer_name(state, first_hit)
        if self.device.type == "cuda":
            record["peak_memory_bytes"] = int(torch.cuda.max_memory_allocated(self.device))
        else:
            record["peak_memory_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        self._train_seconds += seconds
        self._samples += samples

        records = [record]
        if state.probe:
            records.extend(self._probe_records(state, host, scale))
        if first_hit is not None and self._first_event is None:
            records.append(self._nonfinite_record(state, host, first_hit))
        if state.probe:
            self._probe_seconds += time.perf_counter() - began
        self._append(records)

    def _probe_reads(self, state, reads):
        for layer in self.layers:
            i = layer.index
            scaled = state.scaled.get(i)
            if scaled:
                parts = list(scaled.values())
                reads[("scaled_hist", i)] = sum(p[0] for p in parts)
                reads[("scaled_classes", i)] = sum(p[1] for p in parts)
                if self.scaler is None:
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
                    sum((p.detach().to(torch.float64) - b.to(torch.float64)).pow(2).sum()
                        for p, b in zip(layer.params, before))])
        for key, (slots, _numel) in state.frame_stats.items():
            reads[("frame",) + key] = slots

    @staticmethod
    def _read_to_host(reads):
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

    def _layer_name(self, index):
        return "loss" if index < 0 else self.layers[index].name

    def _hit_layer_name(self, state, hit):
        return state.gradient_hit_layer if hit[3] == schema.NONFINITE_PARAM_GRAD else self._layer_name(hit[1])

    def _gradient_check(self):
        """One fused finiteness check of every parameter gradient, after backward (and
        after DistributedDataParallel's all-reduce): the sum of their norms, which is not
        finite when an element is not. On the CPU it is looked at where it is made; on a
        GPU it is read with the step's other values. Off once the run has its first NaN."""
        if self._first_event is not None:
            return None
        grads = [p.grad for p in self._params if p.grad is not None]
        if not grads:
            return None
        if (hasattr(torch, "_foreach_norm") and all(g.dtype == torch.float32 for g in grads)
                and len({g.device for g in grads}) == 1):
            norms = torch._foreach_norm(grads)
        else:  # half-precision gradients: a float32 norm, so that finite ones cannot overflow
            norms = [torch.linalg.vector_norm(g, dtype=torch.float32).to(grads[0].device)
                     for g in grads]
        return torch.stack(norms).sum()

    def _gradient_hit(self, state):
        """The first module (in named_modules order) whose parameter gradients are not
        finite, as a hit after everything else of the step. Looked for only on the step
        whose fused check failed while nothing else did: once per run."""
        owners = {}
        for name, module in self.model.named_modules():
            for param in module.parameters(recurse=False):
                owners.setdefault(id(param), name or "(model)")
        found = None
        for param in self._params:
            if param.grad is None:
                continue
            counts = probes.nonfinite_count_slots(param.grad).tolist()
            name = owners.get(id(param), "(model)")
            if found is None and sum(counts) > 0:
                found = [name, counts, param.numel()]
            elif found is not None and name == found[0]:
                found[1] = [a + b for a, b in zip(found[1], counts)]
                found[2] += param.numel()
        name, counts, numel = found if found is not None else ("(model)", [0.0, 0.0, 0.0], 0)
        state.gradient_hit_layer = name
        index = next((layer.index for layer in self.layers if layer.name == name), -1)
        return ((3, 0), index, "backward", schema.NONFINITE_PARAM_GRAD, numel, counts)

    def _probe_records(self, state, host, scale):
        step = state.step
        records = []
        multipliers = (scale / 2, scale, scale * 2)
        for layer in self.layers:
            i = layer.index
            base = {"step": step, "layer": layer.name}
            if ("scaled_hist", i) in host and ("hist", i) in host:
                records.append({"type": schema.HISTOGRAM, **base, "kind": schema.PARAM_GRAD_SCALED,
                                **probes.histogram_fields(host[("scaled_hist", i)])})
                records.append({"type": schema.HISTOGRAM, **base, "kind": schema.PARAM_GRAD,
                                **probes.histogram_fields(host[("hist", i)])})
                classes = probes.class_fields(host[("scaled_classes", i)])
                underflow = {"type": schema.UNDERFLOW, **base, "kind": schema.PARAM_GRAD_SCALED,
                             **classes}
                probes.put_number(underflow, "multiplier", 1.0)
                records.append(underflow)
                self._add_underflow_sums(layer.name, classes)
                what_if = host[("what_if", i)]
                for k, multiplier in enumerate(multipliers):
                    slots = what_if[k * schema.CLASS_SLOTS:(k + 1) * schema.CLASS_SLOTS]
                    entry = {"type": schema.UNDERFLOW, **base, "kind": schema.PARAM_GRAD,
                             **probes.class_fields(slots)}
                    probes.put_number(entry, "multiplier", multiplier)
                    records.append(entry)
            if ("act_grad", i) in host:
                fields = probes.histogram_fields(host[("act_grad", i)])
                if sum(fields["counts"]) + sum(fields[k] for k in
                                               ("below", "above", "zero", "nan", "pos_inf",
                                                "neg_inf")) > 0:
                    records.append({"type": schema.HISTOGRAM, **base,
                                    "kind": schema.ACTIVATION_GRAD, **fields})
            if ("update", i) in host:
                weight_sq, update_sq = host[("update", i)]
                weight_norm, update_norm = math.sqrt(weight_sq), math.sqrt(update_sq)
                if not (math.isfinite(update_norm) and math.isfinite(weight_norm)):
                    ratio = math.nan
                elif update_norm == 0.0:
                    ratio = 0.0
                elif weight_norm == 0.0:
                    ratio = math.inf
                else:
                    ratio = update_norm / weight_norm
                entry = {"type": schema.UPDATE_RATIO, "step": step, "layer": layer.name,
                         "layer_index": i, "numel": layer.numel}
                probes.put_number(entry, "ratio", ratio)
                probes.put_number(entry, "weight_norm", weight_norm)
                probes.put_number(entry, "update_norm", update_norm)
                records.append(entry)
        rss, peak = _process_memory()
        cuda_peak = (int(torch.cuda.max_memory_allocated(self.device))
                     if self.device.type == "cuda" else None)
        records.append({"type": schema.MEMORY, "step": step, "rss_bytes": rss,
                        "peak_rss_bytes": peak, "cuda_peak_allocated_bytes": cuda_peak,
                        "activation_bytes": dict(state.activation_bytes),
                        "activation_bytes_real": dict(state.activation_bytes)})
        frame = self._frame(step, state.frame_stats, host, "frame")
        if frame is not None:
            self._frames.append(frame)
        return records

    def _add_underflow_sums(self, layer, classes):
        total = sum(classes[k] for k in ("zero", "flushed", "subnormal", "normal", "overflow",
                                         "nan", "inf"))
        sums = self._underflow_sums.setdefault(layer, [0.0, 0.0, 0.0, 0])
        if total > 0:
            sums[0] += classes["flushed"] / total
            sums[1] += classes["subnormal"] / total
            sums[2] += classes["overflow"] / total
            sums[3] += 1

    def _frame(self, step, stats, host, prefix):
        """A StatsFrame (ProbeRecords.md) from the stats gathered in one step."""
        if not stats:
            return None
        layers = []
        for layer in self.layers:
            entry = {"layer": layer.name, "layer_index": layer.index}
            for kind, field in (("activation", "activation"), ("gradient", "gradient")):
                if (layer.index, kind) in stats:
                    entry[field] = probes.stats_fields(host[(prefix, layer.index, kind)],
                                                       stats[(layer.index, kind)][1])
            if len(entry) > 2:
                layers.append(entry)
        frame = {"step": step, "layers": layers}
        if (-1, "loss") in stats:
            frame["loss"] = probes.stats_fields(host[(prefix, -1, "loss")], stats[(-1, "loss")][1])
        return frame

    def _nonfinite_record(self, state, host, hit):
        _order, index, phase, kind, numel, counts = hit
        frames = list(self._frames)
        if not (state.probe and frames and frames[-1]["step"] == state.step):
            own = self._frame(state.step, state.hit_stats, host, "hit")
            if own is not None:
                frames.append(own)
        event = {"step": state.step, "layer": self._hit_layer_name(state, hit),
                 "layer_index": index, "phase": phase, "tensor": kind,
                 "nan": int(counts[0]), "pos_inf": int(counts[1]), "neg_inf": int(counts[2]),
                 "numel": int(numel)}
        if kind == schema.NONFINITE_PARAM_GRAD and self.world_size > 1:
            event["via"] = schema.VIA_GRADIENT_ALLREDUCE
        self._first_event = event
        return {"type": schema.NONFINITE, **event, "located_by": schema.LOCATED_BY_CHECK,
                "replay_missed_step": 0, "frames": frames}

    def _append(self, records):
        try:
            for record in records:
                self._writer.append(record)
            self._writer.flush_if_due()
        except RunWriteError as error:
            self._fail(error)

    def _fail(self, error):
        self._failed = True
        self._raised_write_error = True  # close() does not raise it a second time
        self._remove_hooks()
        raise RecorderWriteError(error.errno, f"ampscope: recording stopped: {error.strerror} "
                                              "(what was written before stays readable)")

    # ---- epochs and the end ------------------------------------------------------------

    def end_epoch(self, val_loss=None, val_accuracy=None):
        """Optional: writes an `epoch` record (mean of the epoch's finite step losses,
        and the validation numbers the user measured); the next steps count as the next
        epoch."""
        if self._closed or self._failed:
            return
        mean = (sum(self._epoch_losses) / len(self._epoch_losses)) if self._epoch_losses else math.nan
        record = {"type": schema.EPOCH, "epoch": self._epoch, "step": self._next_step - 1,
                  "seconds": time.monotonic() - self._started}
        probes.put_number(record, "train_loss", mean)
        self._put_measured(record, "val_loss", val_loss)
        self._put_measured(record, "val_accuracy", val_accuracy)
        self._last_epoch_loss = mean
        self._val_loss = math.nan if val_loss is None else float(val_loss)
        self._val_accuracy = math.nan if val_accuracy is None else float(val_accuracy)
        self._epoch += 1
        self._epoch_losses = []
        self._append([record])
        if not self._failed:
            try:
                self._writer.flush()
            except RunWriteError as error:
                self._fail(error)

    @staticmethod
    def _put_measured(record, key, value):
        # Not measured (no validation set): null without a "_nonfinite" tag (EventSchema.md).
        if value is None:
            record[key] = None
        else:
            probes.put_number(record, key, value)

    def close(self, status=schema.FINISHED, error=None):
        """Removes the hooks, writes run_end and summary.json. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._remove_hooks()
        steps = self._next_step - 1
        write_error = None
        if not self._failed:
            try:
                if error is not None:
                    self._writer.append({"type": schema.ERROR, "step": steps or None,
                                         "message": str(error).splitlines()[0] if str(error)
                                         else type(error).__name__, "input_error": False})
                self._writer.append({"type": schema.RUN_END, "status": status, "step": steps,
                                     "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
            except RunWriteError as failure:
                write_error = failure
                self._failed = True
        try:
            self._writer.write_summary(self._summary(status, steps, error))
        except RunWriteError as failure:
            write_error = write_error or failure
        finally:
            try:
                self._writer.close()
            except RunWriteError as failure:
                write_error = write_error or failure
        if write_error is not None and not getattr(self, "_raised_write_error", False):
            self._raised_write_error = True
            raise RecorderWriteError(write_error.errno,
                                     f"ampscope: recording stopped: {write_error.strerror} "
                                     "(what was written before stays readable)")

    def _summary(self, status, steps, error):
        losses = self._epoch_losses
        final = (sum(losses) / len(losses)) if losses else self._last_epoch_loss
        first = self._first_event
        summary = {
            "schema_version": schema.SUMMARY_SCHEMA_VERSION,
            "status": status,
            "ampscope_version": __version__,
            "precision": {k: v for k, v in self._precision.items()},
            "emulated": False,
            "dataset": "",
            "steps": steps,
            "epochs": self._epoch - 1 if not losses else self._epoch,
            "wall_seconds": time.monotonic() - self._started,
            "train_seconds": self._train_seconds,
            "samples_per_second": (self._samples / self._train_seconds
                                   if self._train_seconds > 0 else 0.0),
            "peak_memory_bytes": (int(torch.cuda.max_memory_allocated(self.device))
                                  if self.device.type == "cuda"
                                  else _process_memory()[1]),
            "skipped_steps": self._counts["skipped"],
            "scale_backoffs": self._counts["backoffs"],
            "scale_growths": self._counts["growths"],
            "nonfinite_losses": self._counts["nonfinite_losses"],
            "first_nonfinite": ({k: first[k] for k in ("step", "layer", "phase", "tensor", "nan",
                                                        "pos_inf", "neg_inf", "numel", "via")
                                 if k in first}
                                if first else None),
            "underflow": [{"layer": layer, "mean_flushed_fraction": s[0] / s[3],
                           "mean_subnormal_fraction": s[1] / s[3],
                           "mean_overflow_fraction": s[2] / s[3], "probe_steps": s[3],
                           "exact": True}
                          for layer, s in self._underflow_sums.items() if s[3] > 0],
            "probe_overhead": (self._probe_seconds / self._train_seconds
                               if self._train_seconds > 0 else 0.0),
            schema.SOURCE_FIELD: schema.SOURCE_RECORDER,
            "rank": self.rank,
            "world_size": self.world_size,
            **self._facts,
            **self._versions,
        }
        if error is not None:
            summary["error"] = str(error).splitlines()[0] if str(error) else type(error).__name__
        probes.put_number(summary, "final_train_loss", final)
        self._put_measured(summary, "val_loss", None if math.isnan(self._val_loss) else self._val_loss)
        self._put_measured(summary, "val_accuracy",
                           None if math.isnan(self._val_accuracy) else self._val_accuracy)
        probes.put_number(summary, "final_scale", self._final_scale)
        return summary

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()
        elif issubclass(kind, KeyboardInterrupt):
            self.close(status=schema.STOPPED)
        elif isinstance(value, RecorderWriteError):
            self.close(status=schema.STATUS_ERROR)
        else:
            self.close(status=schema.STATUS_ERROR, error=value)
        return False
