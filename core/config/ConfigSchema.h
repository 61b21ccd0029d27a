#pragma once
// The one list of config.json's keys. Each visit function names the fields of one
// section in RunConfig's order; the JSON writer, the strict reader and the list of
// allowed keys all walk these lists, so a field added here is saved, loaded and
// accepted as a key at once. Internal to core/config.
//
// A visitor V provides:
//   v.field(key, value)              a leaf or a list (value: T& or const T&)
//   v.section(key, value, visit)     a nested object; visit(V2&, value) lists its fields
#include "config/RunConfig.h"

namespace ampscope::config_schema {

template <class V, class Data>
void visitData(V& v, Data& data) {
    v.field("dataset", data.dataset);
    v.field("path", data.path);
    v.field("validation", data.validation);
    v.field("val_fraction", data.val_fraction);
    v.field("subset", data.subset);
    v.field("normalize", data.normalize);
    v.field("synthetic_samples", data.synthetic_samples);
    v.field("inputs", data.inputs);
    v.field("targets", data.targets);
    v.field("val_inputs", data.val_inputs);
    v.field("val_targets", data.val_targets);
}

template <class V, class Model>
void visitModel(V& v, Model& model) {
    v.field("name", model.name);
    v.field("hidden", model.hidden);
    v.field("activation", model.activation);
    v.field("norm", model.norm);
    v.field("blocks", model.blocks);
    v.field("patch", model.patch);
    v.field("dim", model.dim);
    v.field("heads", model.heads);
    v.field("depth", model.depth);
    v.field("mlp_ratio", model.mlp_ratio);
    v.field("path", model.path);
    v.field("file_bytes", model.file_bytes);
    v.field("sha256", model.sha256);
    v.field("probe_modules", model.probe_modules);
    v.field("probe_depth", model.probe_depth);
}

template <class V, class Scaler>
void visitScaler(V& v, Scaler& scaler) {
    v.field("kind", scaler.kind);
    v.field("init_scale", scaler.init_scale);
    v.field("growth_factor", scaler.growth_factor);
    v.field("backoff_factor", scaler.backoff_factor);
    v.field("growth_interval", scaler.growth_interval);
}

template <class V, class Fp8>
void visitFp8(V& v, Fp8& fp8) {
    v.field("format", fp8.format);
    v.field("recipe", fp8.recipe);
    v.field("amax_history_len", fp8.amax_history_len);
    v.field("amax_compute", fp8.amax_compute);
    v.field("margin", fp8.margin);
}

template <class V, class Precision>
void visitPrecision(V& v, Precision& precision) {
    v.field("mode", precision.mode);
    v.section("scaler", precision.scaler, [](auto& sub, auto& s) { visitScaler(sub, s); });
    v.field("keep_fp32", precision.keep_fp32);
    v.field("emulate", precision.emulate);
    v.section("fp8", precision.fp8, [](auto& sub, auto& s) { visitFp8(sub, s); });
    v.section("mx", precision.mx, [](auto& sub, auto& s) { sub.field("scale_rule", s.scale_rule); });
    v.section("nvfp4", precision.nvfp4,
              [](auto& sub, auto& s) { sub.field("stochastic_gradients", s.stochastic_gradients); });
}

template <class V, class Optim>
void visitOptim(V& v, Optim& optim) {
    v.field("name", optim.name);
    v.field("lr", optim.lr);
    v.field("momentum", optim.momentum);
    v.field("weight_decay", optim.weight_decay);
    v.field("beta1", optim.beta1);
    v.field("beta2", optim.beta2);
    v.field("eps", optim.eps);
    v.field("clip_norm", optim.clip_norm);
    v.field("clip_after_unscale", optim.clip_after_unscale);
}

template <class V, class Train>
void visitTrain(V& v, Train& train) {
    v.field("epochs", train.epochs);
    v.field("max_steps", train.max_steps);
    v.field("batch_size", train.batch_size);
    v.field("eval_batch_size", train.eval_batch_size);
    v.field("loss", train.loss);
}

template <class V, class Probes>
void visitProbes(V& v, Probes& probes) {
    v.field("every", probes.every);
    v.field("shadow_every", probes.shadow_every);
    v.field("format_sweep_every", probes.format_sweep_every);
    v.field("sensitivity_every", probes.sensitivity_every);
    v.field("sensitivity_formats", probes.sensitivity_formats);
    v.field("ring_steps", probes.ring_steps);
    v.field("precision_map_steps", probes.precision_map_steps);
    v.field("precision_map_reference", probes.precision_map_reference);
    v.field("locate_nonfinite", probes.locate_nonfinite);
    v.field("pause_on_nonfinite", probes.pause_on_nonfinite);
    v.field("pause_overflow_above", probes.pause_overflow_above);
    v.field("pause_scale_below", probes.pause_scale_below);
}

template <class V, class Lockstep>
void visitLockstep(V& v, Lockstep& lockstep) {
    v.field("mode", lockstep.mode);
}

// One element of "faults" (a list of objects, so it has its own key list).
template <class V, class Fault>
void visitFault(V& v, Fault& fault) {
    v.field("step", fault.step);
    v.field("kind", fault.kind);
    v.field("layer", fault.layer);
    v.field("factor", fault.factor);
}

template <class V, class Run>
void visitRun(V& v, Run& run) {
    v.field("schema_version", run.schema_version);
    v.field("name", run.name);
    v.field("seed", run.seed);
    v.field("device", run.device);
    v.field("threads", run.threads);
    v.section("data", run.data, [](auto& sub, auto& s) { visitData(sub, s); });
    v.section("model", run.model, [](auto& sub, auto& s) { visitModel(sub, s); });
    v.section("precision", run.precision, [](auto& sub, auto& s) { visitPrecision(sub, s); });
    v.section("optim", run.optim, [](auto& sub, auto& s) { visitOptim(sub, s); });
    v.section("train", run.train, [](auto& sub, auto& s) { visitTrain(sub, s); });
    v.section("probes", run.probes, [](auto& sub, auto& s) { visitProbes(sub, s); });
    v.section("lockstep", run.lockstep, [](auto& sub, auto& s) { visitLockstep(sub, s); });
    v.field("faults", run.faults);
}

}  // namespace ampscope::config_schema
