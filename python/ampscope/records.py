"""Record building: what the recorder captured, turned into the records and documents a
run directory holds (core/run/EventSchema.md, core/probes/ProbeRecords.md), in the
vocabulary of schema.py: config.json, run_info, and per step the `step` record, on probe
steps the `histogram`, `underflow`, `update_ratio` and `memory` records, the run's one
`nonfinite` record, `epoch`, `error`, `run_end` and summary.json.

RecordBuilder also keeps what the summary reports over the whole run (counts of skipped
steps and scale changes, underflow fractions, epoch losses, the stats frames of the last
probe steps that a `nonfinite` record carries). It reads only host values: the `host`
dictionaries that device_reads.read_to_host() returns, keyed as device_reads.py reads.
"""
import math
import os
import platform
import resource
import socket
import sys
import time
from collections import deque

import torch

from . import probes, schema
from ._version import __version__


def _cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def process_memory():
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


def _put_measured(record, key, value):
    # Not measured (no validation set): null without a "_nonfinite" tag (EventSchema.md).
    if value is None:
        record[key] = None
    else:
        probes.put_number(record, key, value)


def _first_line(error):
    return str(error).splitlines()[0] if str(error) else type(error).__name__


class RecordBuilder:
    def __init__(self, model, layers, device, mode, rank, world_size, has_scaler):
        self.layers = layers
        self.device = device
        self.world_size = world_size
        self.has_scaler = has_scaler
        self._rank = rank
        self._versions = {
            "torch_version": torch.__version__,
            "cuda_version": torch.version.cuda,
            "python_version": platform.python_version(),
        }
        device_name = (torch.cuda.get_device_name(device) if device.type == "cuda"
                       else _cpu_name())
        device_text = f"{device.type}" + (f" ({device_name})" if device_name else "")
        execution = (f"{schema.RECORDED_EXECUTION}: PyTorch {torch.__version__}"
                     + (f", CUDA {torch.version.cuda}" if torch.version.cuda else "")
                     + f", {device_text}")
        self._precision = {"mode": mode, "emulated": False, "execution": execution,
                           schema.SOURCE_FIELD: schema.SOURCE_RECORDER}
        self._facts = {
            "device": device.type,
            "device_name": device_name,
            "threads": torch.get_num_threads(),
            "model": type(model).__name__,
            "parameters": sum(p.numel() for p in model.parameters()),
        }
        self._identity = {schema.SOURCE_FIELD: schema.SOURCE_RECORDER, "rank": rank,
                          "world_size": world_size, **self._versions}

        self.epoch = 1
        self.epoch_losses = []
        self._last_epoch_loss = math.nan
        self._val_loss = math.nan
        self._val_accuracy = math.nan
        self._frames = deque(maxlen=schema.FRAME_CAPACITY)
        self.first_event = None
        self._counts = {"skipped": 0, "backoffs": 0, "growths": 0, "nonfinite_losses": 0}
        self._underflow_sums = {}  # layer -> [flushed, subnormal, overflow fractions, steps]
        self.train_seconds = 0.0
        self._samples = 0
        self._final_scale = 1.0

    # ---- the run's start and end -------------------------------------------------------

    def run_start_fields(self):
        return {"ampscope_version": __version__, **self._identity}

    def config(self, directory, mode, probe_every, scaler):
        # Only keys the core's config schema knows (config/ConfigSchema.h), so the
        # window and reports load it; what the run really was lives in run_info.
        scaler_config = {"kind": "off"}
        if scaler is not None:
            scaler_config = {"kind": "dynamic",
                             "init_scale": float(scaler.get_scale()),
                             "growth_factor": float(scaler.get_growth_factor()),
                             "backoff_factor": float(scaler.get_backoff_factor()),
                             "growth_interval": int(scaler.get_growth_interval())}
        return {"schema_version": schema.CONFIG_SCHEMA_VERSION,
                "name": os.path.basename(os.path.normpath(directory)),
                "device": "cuda" if self.device.type == "cuda" else "cpu",
                "precision": {"mode": mode, "scaler": scaler_config},
                "probes": {"every": probe_every}}

    def run_info(self, total_steps, description):
        return {
            "type": schema.RUN_INFO,
            "total_steps": int(total_steps or 0),
            "description": description or (schema.RECORDED_EXECUTION + ": " +
                                           os.path.basename(sys.argv[0] or "python")),
            "git_revision": "",
            "precision": self._precision,
            "layers": [layer.name for layer in self.layers],
            "hostname": socket.gethostname(),
            **self._facts,
            **self._identity,
        }

    @staticmethod
    def end_records(status, steps, error):
        records = []
        if error is not None:
            records.append({"type": schema.ERROR, "step": steps or None,
                            "message": _first_line(error), "input_error": False})
        records.append({"type": schema.RUN_END, "status": status, "step": steps,
                        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        return records

    def epoch_record(self, step, seconds, val_loss, val_accuracy):
        """The `epoch` record of the epoch that ends here (mean of its finite step
        losses); the steps after it count as the next epoch."""
        losses = self.epoch_losses
        mean = (sum(losses) / len(losses)) if losses else math.nan
        record = {"type": schema.EPOCH, "epoch": self.epoch, "step": step, "seconds": seconds}
        probes.put_number(record, "train_loss", mean)
        _put_measured(record, "val_loss", val_loss)
        _put_measured(record, "val_accuracy", val_accuracy)
        self._last_epoch_loss = mean
        self._val_loss = math.nan if val_loss is None else float(val_loss)
        self._val_accuracy = math.nan if val_accuracy is None else float(val_accuracy)
        self.epoch += 1
        self.epoch_losses = []
        return record

    # ---- one step ----------------------------------------------------------------------

    def step_records(self, state, host, first_hit, lr, seconds, samples):
        """The step's records: `step`, on probe steps the probes', and the run's
        `nonfinite` record when this step has its first non-finite tensor."""
        record, scale = self._step_record(state, host, first_hit, lr, seconds, samples)
        records = [record]
        if state.probe:
            records.extend(self._probe_records(state, host, scale))
        if first_hit is not None and self.first_event is None:
            records.append(self._nonfinite_record(state, host, first_hit))
        return records

    def _step_record(self, state, host, first_hit, lr, seconds, samples):
        loss_value = host["loss"][0]
        record = {"type": schema.STEP, "step": state.step, "epoch": self.epoch}
        probes.put_number(record, "loss", loss_value)
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
        record["step_skipped"] = found_inf and self.has_scaler
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
            self.epoch_losses.append(loss_value)
        self._final_scale = scale_after
        if first_hit is not None:
            record["first_nonfinite_layer"] = self._hit_layer_name(state, first_hit)
        if self.device.type == "cuda":
            record["peak_memory_bytes"] = int(torch.cuda.max_memory_allocated(self.device))
        else:
            record["peak_memory_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        self.train_seconds += seconds
        self._samples += samples
        return record, scale

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
                records.append(self._update_ratio_record(step, layer, *host[("update", i)]))
        rss, peak = process_memory()
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

    @staticmethod
    def _update_ratio_record(step, layer, weight_sq, update_sq):
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
                 "layer_index": layer.index, "numel": layer.numel}
        probes.put_number(entry, "ratio", ratio)
        probes.put_number(entry, "weight_norm", weight_norm)
        probes.put_number(entry, "update_norm", update_norm)
        return entry

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

    def _layer_name(self, index):
        return "loss" if index < 0 else self.layers[index].name

    def _hit_layer_name(self, state, hit):
        return (state.gradient_hit_layer if hit[3] == schema.NONFINITE_PARAM_GRAD
                else self._layer_name(hit[1]))

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
        if kind == schema.NONFINITE_PARAM_GRAD and state.gradient_hit_via is not None:
            event["via"] = state.gradient_hit_via
        self.first_event = event
        return {"type": schema.NONFINITE, **event, "located_by": schema.LOCATED_BY_CHECK,
                "replay_missed_step": 0, "frames": frames}

    # ---- summary.json ------------------------------------------------------------------

    def summary(self, status, steps, error, wall_seconds, probe_seconds):
        losses = self.epoch_losses
        final = (sum(losses) / len(losses)) if losses else self._last_epoch_loss
        first = self.first_event
        summary = {
            "schema_version": schema.SUMMARY_SCHEMA_VERSION,
            "status": status,
            "ampscope_version": __version__,
            "precision": {k: v for k, v in self._precision.items()},
            "emulated": False,
            "dataset": "",
            "steps": steps,
            "epochs": self.epoch - 1 if not losses else self.epoch,
            "wall_seconds": wall_seconds,
            "train_seconds": self.train_seconds,
            "samples_per_second": (self._samples / self.train_seconds
                                   if self.train_seconds > 0 else 0.0),
            "peak_memory_bytes": (int(torch.cuda.max_memory_allocated(self.device))
                                  if self.device.type == "cuda"
                                  else process_memory()[1]),
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
            "probe_overhead": (probe_seconds / self.train_seconds
                               if self.train_seconds > 0 else 0.0),
            schema.SOURCE_FIELD: schema.SOURCE_RECORDER,
            "rank": self._rank,
            "world_size": self.world_size,
            **self._facts,
            **self._versions,
        }
        if error is not None:
            summary["error"] = _first_line(error)
        probes.put_number(summary, "final_train_loss", final)
        _put_measured(summary, "val_loss", None if math.isnan(self._val_loss) else self._val_loss)
        _put_measured(summary, "val_accuracy",
                      None if math.isnan(self._val_accuracy) else self._val_accuracy)
        probes.put_number(summary, "final_scale", self._final_scale)
        return summary
