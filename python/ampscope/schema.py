"""The run-directory vocabulary the recorder writes, as the C++ core defines it.

Each name here mirrors one definition of the core, so a reader of either side finds
the other: core/run/EventSchema.h (file names, record types, schema version, the
`source` values), core/run/RunWriter.h (flush cadence), core/probes/ProbeRecords.h
(probe record types and kinds), core/kernels/ProbeElementRules.h (histogram range and
slot layout, fp16 class slots), core/precision/Fp16Limits.h (fp16 limits).
tests/python/test_schema_mirror.py checks every name here, and the keys of the records
the recorder writes, against the core's own definitions (tests/tools/record_vocabulary.cpp
prints them); tests/python/test_probe_definitions.py checks the probe rules against the
core on the same tensors.
"""

EVENTS_SCHEMA_VERSION = 1   # kEventsSchemaVersion
CONFIG_SCHEMA_VERSION = 1   # kConfigSchemaVersion
SUMMARY_SCHEMA_VERSION = 1  # kSummarySchemaVersion

CONFIG_FILE = "config.json"
EVENTS_FILE = "events.jsonl"
SUMMARY_FILE = "summary.json"

# RunWriter::kFlushBytes and kFlushInterval: the buffer goes to the file when it holds
# this many bytes, or when this much time passed since the last write (checked after
# every step), so a killed job loses at most the last 200 ms of records.
FLUSH_BYTES = 64 * 1024
FLUSH_INTERVAL_SECONDS = 0.200

# The "source" field (EventSchema.h, record_source): who produced the records.
SOURCE_FIELD = "source"
SOURCE_RECORDER = "pytorch_recorder"
# What viewers say instead of REAL/EMULATED for such a run (the window's badge reads
# run_info.precision.execution; RunFacts.h recognises this opening).
RECORDED_EXECUTION = "recorded from a PyTorch run"

# Record types (event_type and probe_record_type).
RUN_START = "run_start"
RUN_INFO = "run_info"
STEP = "step"
EPOCH = "epoch"
ERROR = "error"
RUN_END = "run_end"
HISTOGRAM = "histogram"
UNDERFLOW = "underflow"
NONFINITE = "nonfinite"
UPDATE_RATIO = "update_ratio"
MEMORY = "memory"

# Histogram / underflow kinds (probe_kind).
PARAM_GRAD = "param_grad"
PARAM_GRAD_SCALED = "param_grad_scaled"
ACTIVATION_GRAD = "activation_grad"

# run_end statuses (run_status).
FINISHED = "finished"
STOPPED = "stopped"
STATUS_ERROR = "error"

# nonfinite.located_by: the recorder's own per-step checks found it.
LOCATED_BY_CHECK = "check"
# nonfinite.tensor for a layer's parameter gradients (nonfinite_tensor::kParamGrad), and
# nonfinite.via when they were the first non-finite values of a torch.distributed rank,
# none of its own activations or activation gradients being so: they arrived through the
# gradient all-reduce (nonfinite_via::kGradientAllReduce).
NONFINITE_PARAM_GRAD = "param_grad"
VIA_GRADIENT_ALLREDUCE = "gradient_allreduce"

# Exponent histogram (probe_rules): floor(log2|x|) bins MIN..MAX, then below, above,
# zero, NaN, +Inf, -Inf: 103 slots, the layout of the core's histogram_slot.
MIN_EXPONENT = -64
MAX_EXPONENT = 32
EXPONENT_BINS = MAX_EXPONENT - MIN_EXPONENT + 1  # 97
SLOT_BELOW = EXPONENT_BINS
SLOT_ABOVE = EXPONENT_BINS + 1
SLOT_ZERO = EXPONENT_BINS + 2
SLOT_NAN = EXPONENT_BINS + 3
SLOT_POS_INF = EXPONENT_BINS + 4
SLOT_NEG_INF = EXPONENT_BINS + 5
HISTOGRAM_SLOTS = EXPONENT_BINS + 6  # 103

# fp16 limits (core/precision/Fp16Limits.h): round-to-nearest-even into binary16.
FP16_FLUSH_BOUND = 2.0 ** -25                   # |x| <= this rounds to 0 (the tie goes to even)
FP16_NORMAL_BOUND = 2.0 ** -14 - 2.0 ** -25     # |x| >= this rounds to a normal
FP16_OVERFLOW_BOUND = 65520.0                   # |x| >= this rounds to inf
# Class slots, in the order of probe_rules' kClass*: +Inf and -Inf apart, added up
# into the record's "inf".
CLASS_ZERO, CLASS_FLUSHED, CLASS_SUBNORMAL, CLASS_NORMAL, CLASS_OVERFLOW = range(5)
CLASS_NAN, CLASS_POS_INF, CLASS_NEG_INF = 5, 6, 7
CLASS_SLOTS = 8

# Stats frames kept for the first-NaN record: as many as the engine keeps with the
# default config (probes.ring_steps).
FRAME_CAPACITY = 16

# What the user's run trained in, as the lab names it (PrecisionMode.h): the low-precision
# formats are for runs made with Transformer Engine, torchao or the like.
PRECISION_MODES = ("fp32", "tf32", "fp16", "bf16", "fp16-pure", "bf16-pure", "fp8", "mxfp8", "mxfp4", "nvfp4")

# Keys only a recorded run carries, beyond the core's field lists (EventSchema.md: who
# recorded it, and on what). The core's readers skip them; test_schema_mirror refuses
# any other key the core does not list.
RECORDED_RUN_KEYS = {
    RUN_START: ("torch_version", "cuda_version", "python_version", "rank", "world_size"),
    RUN_INFO: ("python_version", "rank", "world_size", "hostname"),
    RUN_INFO + ".precision": (SOURCE_FIELD,),
    STEP: ("peak_memory_bytes",),
    SUMMARY_FILE: (SOURCE_FIELD, "cuda_version", "python_version", "rank", "world_size"),
    SUMMARY_FILE + ".precision": (SOURCE_FIELD,),
}
