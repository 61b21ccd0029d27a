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
  not finite while nothing before them was are the module's `param_grad`; under
  torch.distributed, when every gradient this rank's backward made was finite (each
  parameter's gradient hook sums it, before the all-reduce), they came from another rank
  through the gradient all-reduce (`via`: `gradient_allreduce`), else they are the
  rank's own;
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

torch.compile: the recorder may be given the compiled module (it hooks the one it wraps,
under the names the user wrote) or the module; while Dynamo traces them the hooks leave
only tensor ops in the graph (traced.py), so the model compiles to the graphs it has
without them; the records lack only what probe steps measure of the activations
(statistics, activation-gradient histograms, activation bytes).

Threads: one training thread owns a Recorder. torch.distributed: each rank writes its
own directory (RUN_DIR/rank-N, or RUN_DIR with "{rank}" replaced); the recorder makes
no collective call, so no rank waits for another because of it.

This module holds the public Recorder and the step's order of work; the hooks and what
they gather are capture.py's, reading it to the host device_reads.py's, and the records
built from it records.py's.
"""
import os
import time
import warnings

import torch

from . import schema
from .capture import HookCapture, Layer, user_module, user_named_modules
from .device_reads import read_to_host, step_reads
from .records import RecordBuilder
from .run_writer import RunWriteError, RunWriter


class RecorderWriteError(RunWriteError):
    """The run directory could not be written (disk full, I/O error). Raised once, by
    the step() or close() that met it; the recorder then records nothing more, and
    what it wrote before stays a readable run."""


def _distributed_rank():
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
    except Exception:  # a torch without distributed support
        pass
    return None, 1


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
        # Given torch.compile's wrapper, the recorder hooks the module it wraps, under the
        # names the user wrote; either compiled form runs the hooks traced.
        self.model = user_module(model)
        compiled = (self.model is not model
                    or getattr(model, "_compiled_call_impl", None) is not None)
        self.optimizer = optimizer
        # A disabled scaler (enabled=False) scales nothing and never unscales: no scaler.
        self.scaler = scaler if scaler is not None and scaler.is_enabled() else None
        self.mode = mode
        self.probe_every = probe_every

        detected_rank, self.world_size = _distributed_rank()
        self.rank = rank if rank is not None else detected_rank
        self.directory = self._rank_directory(str(run_dir), self.rank, detected_rank is not None)
        self.layers = self._select_layers(modules)
        first = next(self.model.parameters(), None)
        self.device = first.device if first is not None else torch.device("cpu")

        self._records = RecordBuilder(self.model, self.layers, self.device, mode, self.rank,
                                      self.world_size, has_scaler=self.scaler is not None)
        self._writer = RunWriter(self.directory,
                                 self._records.config(self.directory, mode, probe_every,
                                                      self.scaler),
                                 self._records.run_start_fields())
        self._writer.append(self._records.run_info(total_steps, description))
        self._writer.flush()

        self._closed = False
        self._failed = False
        self._warned_unseen = False
        self._started = time.monotonic()
        self._last_step_end = self._started
        self._capture = HookCapture(self.model, self.layers, self.scaler, self.device,
                                    probe_every, distributed=self.world_size > 1,
                                    open_ahead=compiled)

    @staticmethod
    def _rank_directory(run_dir, rank, distributed):
        if "{rank}" in run_dir:
            return run_dir.replace("{rank}", str(rank if rank is not None else 0))
        if rank is not None or distributed:
            return os.path.join(run_dir, f"rank-{rank if rank is not None else 0}")
        return run_dir

    def _select_layers(self, modules):
        named = dict(user_named_modules(self.model))
        if modules is None:
            names = [name for name, module in named.items()
                     if name and not any(True for _ in module.children())
                     and any(p.requires_grad for p in module.parameters(recurse=False))]
        else:
            # A name as named_modules() spells it under a compiled submodule (with its
            # `_orig_mod`) is taken too, and recorded as the user wrote it.
            spelled = {id(module): name for name, module in named.items()}
            raw = {name: spelled[id(module)] for name, module in self.model.named_modules()
                   if id(module) in spelled}
            names = []
            for name in modules:
                if name not in named and name not in raw:
                    raise ValueError(f"modules: the model has no submodule named {name!r} "
                                     "(names are those of model.named_modules())")
                names.append(name if name in named else raw[name])
        return [Layer(i, name, named[name]) for i, name in enumerate(names)]

    # ---- the step ----------------------------------------------------------------------

    def step(self, loss, batch_size=None):
        """Records one training step; call it after scaler.update() (or opt.step())."""
        if self._closed or self._failed:
            return
        now = time.monotonic()
        state = self._capture.take_state()
        try:
            self._record_step(state, loss, batch_size, now)
        finally:
            state.remove_param_hooks()
        self._capture.next_step += 1
        if self._capture.open_ahead and not self._failed:
            self._capture.open_state()
        self._last_step_end = time.monotonic()

    def _record_step(self, state, loss, batch_size, now):
        capture = self._capture
        loss_tensor = loss.detach() if isinstance(loss, torch.Tensor) else torch.tensor(float(loss))
        if loss_tensor.numel() != 1:
            raise ValueError("rec.step(loss): loss must hold one value "
                             f"(got a tensor of {loss_tensor.numel()} elements)")
        if not (state.forward_seen or capture.traced.ran or self._warned_unseen):
            self._warned_unseen = True
            warnings.warn(
                f"ampscope: step {state.step}: no training forward of the model reached the "
                "recorder's hooks, so its modules' outputs and gradients went unchecked. A "
                "model torch.compile compiled before the Recorder was made runs without "
                "them (Dynamo does not notice hooks added later): make the Recorder before "
                "the first compiled call, or call torch._dynamo.reset().", RuntimeWarning,
                stacklevel=3)
        capture.check(state, (1, 0), -1, "forward", "loss", loss_tensor)
        gradient_check = capture.gradient_check()
        began = time.perf_counter()
        capture.gradients_hooks_missed(state)
        # Everything the step needs from the devices, read with one copy per device.
        host = read_to_host(step_reads(state, loss_tensor, gradient_check, self.layers,
                                       self.scaler, capture.traced))
        capture.traced.reset()
        first_hit = capture.first_hit(state, host, gradient_check)
        lr = self.optimizer.param_groups[0]["lr"] if self.optimizer is not None else 0.0
        seconds = max(now - self._last_step_end, 1e-9)
        samples = (batch_size if batch_size is not None
                   else state.samples or capture.traced.samples(host))
        records = self._records.step_records(state, host, first_hit, lr, seconds, samples)
        capture.first_nonfinite_recorded = self._records.first_event is not None
        if state.probe:
            capture.probe_seconds += time.perf_counter() - began
        self._append(records)

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
        self._capture.remove_hooks()
        raise RecorderWriteError(error.errno, f"ampscope: recording stopped: {error.strerror} "
                                              "(what was written before stays readable)")

    # ---- epochs and the end ------------------------------------------------------------

    def end_epoch(self, val_loss=None, val_accuracy=None):
        """Optional: writes an `epoch` record (mean of the epoch's finite step losses,
        and the validation numbers the user measured); the next steps count as the next
        epoch."""
        if self._closed or self._failed:
            return
        record = self._records.epoch_record(self._capture.next_step - 1,
                                            time.monotonic() - self._started,
                                            val_loss, val_accuracy)
        self._append([record])
        if not self._failed:
            try:
                self._writer.flush()
            except RunWriteError as error:
                self._fail(error)

    def close(self, status=schema.FINISHED, error=None):
        """Removes the hooks, writes run_end and summary.json. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._capture.close()
        steps = self._capture.next_step - 1
        write_error = None
        if not self._failed:
            try:
                for record in self._records.end_records(status, steps, error):
                    self._writer.append(record)
            except RunWriteError as failure:
                write_error = failure
                self._failed = True
        try:
            self._writer.write_summary(self._records.summary(
                status, steps, error, time.monotonic() - self._started,
                self._capture.probe_seconds))
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
