"""The probe definitions of the C++ core, in torch ops that run on the tensor's device.

Results stay on the device as float64 "slot" vectors (exact counts up to 2^53), so a
probe step concatenates every module's slots and reads them to the host with one copy.

- histogram_slots(): the exponent histogram of core/probes/HistogramProbe.h: the bin of
  a value is its fp32 biased exponent, read from the bit pattern (never from log2), so
  a value just below a power of two stays in the lower bin; float16/bfloat16 widen to
  fp32 exactly, float64 rounds to fp32 first (beyond its range: +-inf).
- fp16_class_slots(): the fp16 classes of probe_rules::fp16Class under a multiplier,
  with the same plan (planFp16): a power-of-two multiplier whose moved limits are
  exact floats moves the limits; any other is applied as one fp32 multiply.
- stats_slots(): TensorStats (finite min/max/mean, largest finite magnitude, NaN/+Inf/
  -Inf counts) for the NaN inspector's frames.
"""
import math

import torch

from . import schema

_MAGNITUDE_MASK = 0x7FFFFFFF
_INF_BITS = 0x7F800000
_NEG_INF_BITS = -8388608  # 0xFF800000 as a signed 32-bit integer
_LOWEST_BIASED = 127 + schema.MIN_EXPONENT


def _as_float32(values):
    if values.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        return values.detach().reshape(-1).to(torch.float32)
    raise TypeError(f"probe: floating-point tensor expected, got {values.dtype}")


def histogram_slots(values):
    """Histogram slots (HISTOGRAM_SLOTS float64 counts) of one tensor, on its device."""
    if values.device.type == "cpu":
        return _histogram_slots_on_cpu(values)
    return _histogram_slots_with_torch_ops(_as_float32(values))


def _histogram_slots_on_cpu(values):
    # A few passes instead of a dozen: count the 256 biased exponents with bincount (on
    # the CPU it needs no device sync), then split the two exponents that hold more than
    # one slot (0: zeros and fp32 subnormals; 255: +-inf and NaN) only when they occur.
    flat = values.detach().reshape(-1)
    if flat.dtype == torch.bfloat16:
        # bfloat16 is the top half of the fp32 pattern: the same 8 exponent bits, read
        # without widening.
        exponents = (flat.view(torch.int16) >> 7) & 0xFF
    else:
        flat = _as_float32(flat)
        exponents = (flat.view(torch.int32) >> 23) & 0xFF
    biased = torch.bincount(exponents, minlength=256).tolist()
    slots = [0] * schema.HISTOGRAM_SLOTS
    slots[:schema.EXPONENT_BINS] = biased[_LOWEST_BIASED:_LOWEST_BIASED + schema.EXPONENT_BINS]
    # count_nonzero counts -0.0 as zero and NaN as non-zero, as the slots do.
    zero = flat.numel() - int(torch.count_nonzero(flat)) if biased[0] else 0
    slots[schema.SLOT_ZERO] = zero
    slots[schema.SLOT_BELOW] = biased[0] - zero + sum(biased[1:_LOWEST_BIASED])
    slots[schema.SLOT_ABOVE] = sum(biased[_LOWEST_BIASED + schema.EXPONENT_BINS:255])
    if biased[255]:
        slots[schema.SLOT_POS_INF] = int(torch.isposinf(flat).sum())
        slots[schema.SLOT_NEG_INF] = int(torch.isneginf(flat).sum())
        slots[schema.SLOT_NAN] = biased[255] - slots[schema.SLOT_POS_INF] - slots[schema.SLOT_NEG_INF]
    return torch.tensor(slots, dtype=torch.float64)


def _histogram_slots_with_torch_ops(x):
    # Every step on the device, no host synchronisation (as the core's non-CPU path).
    bits = x.view(torch.int32)
    magnitude = bits & _MAGNITUDE_MASK
    slot = (magnitude >> 23).to(torch.int64) - _LOWEST_BIASED
    slot.clamp_(-1, schema.EXPONENT_BINS)
    slot.masked_fill_(slot == schema.EXPONENT_BINS, schema.SLOT_ABOVE)
    slot.masked_fill_(slot == -1, schema.SLOT_BELOW)
    slot.masked_fill_(magnitude == 0, schema.SLOT_ZERO)
    slot.masked_fill_(magnitude > _INF_BITS, schema.SLOT_NAN)
    slot.masked_fill_(bits == _INF_BITS, schema.SLOT_POS_INF)
    slot.masked_fill_(bits == _NEG_INF_BITS, schema.SLOT_NEG_INF)
    counts = torch.zeros(schema.HISTOGRAM_SLOTS, dtype=torch.float64, device=x.device)
    # index_add_ counts on the device; bincount would read its maximum to the host.
    return counts.index_add_(0, slot, torch.ones(1, dtype=torch.float64, device=x.device)
                             .expand(slot.numel()))


def _to_float32(value):
    # Round a Python float (a double) to the nearest float32, as static_cast<float> does.
    return torch.tensor(value, dtype=torch.float64).to(torch.float32).item()


def _next_float32(value, toward):
    return torch.nextafter(torch.tensor(value, dtype=torch.float32),
                           torch.tensor(toward, dtype=torch.float32)).item()


class Fp16Plan:
    """probe_rules::Fp16Plan: how one multiplier is applied (limits moved, or multiply)."""

    def __init__(self, multiplier):
        if not math.isfinite(multiplier) or not multiplier > 0.0:
            raise ValueError(
                f"fp16 classification: multiplier must be finite and > 0, got {multiplier}")
        power_of_two = math.frexp(multiplier)[0] == 0.5
        flush = schema.FP16_FLUSH_BOUND / multiplier
        normal = schema.FP16_NORMAL_BOUND / multiplier
        overflow = schema.FP16_OVERFLOW_BOUND / multiplier

        def exact_float(v):
            f = _to_float32(v)
            return math.isfinite(f) and f > 0.0 and f == v

        self.multiply = False
        self.factor = 1.0
        if power_of_two and not math.isfinite(_to_float32(multiplier)):
            # Beyond fp32's range (twice a scale of 2^127): classify the exact product by
            # the moved limits rounded outward, down for "<=" and up for "<".
            def floor_float(v):
                f = _to_float32(v)
                return _next_float32(f, 0.0) if f > v else f

            def ceil_float(v):
                f = _to_float32(v)
                return _next_float32(f, math.inf) if f < v else f

            self.flush_bound = floor_float(flush)
            self.normal_bound = ceil_float(normal)
            self.overflow_bound = ceil_float(overflow)
        elif power_of_two and exact_float(flush) and exact_float(normal) and exact_float(overflow):
            self.flush_bound = _to_float32(flush)
            self.normal_bound = _to_float32(normal)
            self.overflow_bound = _to_float32(overflow)
        else:
            self.multiply = True
            self.factor = _to_float32(multiplier)
            if not math.isfinite(self.factor) or self.factor == 0.0:
                raise ValueError(f"fp16 classification: multiplier {multiplier} is outside "
                                 "the fp32 range")
            self.flush_bound = _to_float32(schema.FP16_FLUSH_BOUND)
            self.normal_bound = _to_float32(schema.FP16_NORMAL_BOUND)
            self.overflow_bound = _to_float32(schema.FP16_OVERFLOW_BOUND)


def fp16_class_slots(values, multiplier=1.0):
    """CLASS_SLOTS float64 counts of values * multiplier rounded to fp16, on the device."""
    return fp16_class_slots_multi(values, (multiplier,))[0]


def fp16_class_slots_multi(values, multipliers):
    """[len(multipliers), CLASS_SLOTS] float64 counts, one row per multiplier."""
    plans = [Fp16Plan(m) for m in multipliers]
    x = _as_float32(values)
    if x.device.type == "cpu" and x.numel() > 0 and math.isfinite(x.sum(dtype=torch.float64).item()):
        return _fp16_classes_of_finite_on_cpu(x, plans)
    return torch.stack([_fp16_class_slots_with_torch_ops(x, plan) for plan in plans])


def _fp16_classes_of_finite_on_cpu(x, plans):
    # Every element finite (a finite sum proves it): per multiplier one product, one
    # bucketize against the moved limits and one bincount, instead of eight masks. The
    # bounds make bucketize's "<=" give the rules' mixed limits: |y| <= flush, then
    # |y| < normal (<= the float below it), then |y| < overflow.
    zero = x.numel() - int(torch.count_nonzero(x))
    rows = []
    for plan in plans:
        scaled = (x * plan.factor if plan.multiply else x).abs()
        bounds = torch.tensor([plan.flush_bound, _next_float32(plan.normal_bound, 0.0),
                               _next_float32(plan.overflow_bound, 0.0)], dtype=torch.float32)
        counts = torch.bincount(torch.bucketize(scaled, bounds), minlength=4).tolist()
        rows.append([zero, counts[0] - zero, counts[1], counts[2], counts[3], 0, 0, 0])
    return torch.tensor(rows, dtype=torch.float64)


def _fp16_class_slots_with_torch_ops(x, plan):
    # Any values, any device, no host synchronisation.
    bits = x.view(torch.int32)
    magnitude = bits & _MAGNITUDE_MASK
    finite_nonzero = (magnitude != 0) & (magnitude < _INF_BITS)
    # One fp32 multiply, round to nearest even, as a scaled fp32 gradient would be.
    scaled = (x * plan.factor if plan.multiply else x).abs()
    flushed = finite_nonzero & (scaled <= plan.flush_bound)
    below_normal = finite_nonzero & (scaled < plan.normal_bound)
    below_overflow = finite_nonzero & (scaled < plan.overflow_bound)
    parts = [
        magnitude == 0,
        flushed,
        below_normal & ~flushed,
        below_overflow & ~below_normal,
        finite_nonzero & ~below_overflow,
        magnitude > _INF_BITS,
        bits == _INF_BITS,
        bits == _NEG_INF_BITS,
    ]
    return torch.stack([p.sum() for p in parts]).to(torch.float64)


# stats_slots layout
STATS_MIN, STATS_MAX, STATS_SUM, STATS_FINITE, STATS_ABS_MAX = range(5)
STATS_NAN, STATS_POS_INF, STATS_NEG_INF = 5, 6, 7
STATS_SLOTS = 8


def nonfinite_count_slots(values):
    """[nan, +inf, -inf] counts of one tensor, float64 on its device."""
    x = values.detach()
    return torch.stack([torch.isnan(x).sum(), torch.isposinf(x).sum(),
                        torch.isneginf(x).sum()]).to(torch.float64)


def stats_slots(values):
    """TensorStats of one tensor as STATS_SLOTS float64 numbers on its device."""
    flat = values.detach().reshape(-1)
    if flat.device.type == "cpu" and flat.numel() > 0:
        # A finite sum proves every element finite: then min, max and a float64 sum are
        # all there is to compute (the common case, three passes).
        total = flat.sum(dtype=torch.float64)
        if math.isfinite(total.item()):
            low, high = flat.min().double(), flat.max().double()
            return torch.stack([low, high, total,
                                torch.tensor(float(flat.numel()), dtype=torch.float64),
                                torch.maximum(low.abs(), high.abs()),
                                torch.zeros((), dtype=torch.float64),
                                torch.zeros((), dtype=torch.float64),
                                torch.zeros((), dtype=torch.float64)])
    return _stats_slots_general(flat)


def _stats_slots_general(flat):
    # Any device, any values, no host synchronisation.
    x = flat.to(torch.float64)
    finite = torch.isfinite(x)
    count = finite.sum()
    inf = torch.tensor(math.inf, dtype=torch.float64, device=x.device)
    zero = torch.zeros((), dtype=torch.float64, device=x.device)
    if x.numel() == 0:
        low = high = absolute = inf * 0  # NaN: no finite element
    else:
        low = torch.where(finite, x, inf).min()
        high = torch.where(finite, x, -inf).max()
        absolute = torch.where(finite, x.abs(), -inf).max()
    total = torch.where(finite, x, zero).sum()
    return torch.stack([low, high, total, count.to(torch.float64), absolute,
                        torch.isnan(x).sum().to(torch.float64),
                        torch.isposinf(x).sum().to(torch.float64),
                        torch.isneginf(x).sum().to(torch.float64)])


# ---- host side: slots (a list of floats) to the record fields --------------------

def histogram_fields(slots):
    """The histogram record's count fields (ProbeRecords.cpp toJson(HistogramRecord))."""
    as_int = [int(round(v)) for v in slots]
    return {
        "min_exponent": schema.MIN_EXPONENT,
        "counts": as_int[:schema.EXPONENT_BINS],
        "below": as_int[schema.SLOT_BELOW],
        "above": as_int[schema.SLOT_ABOVE],
        "zero": as_int[schema.SLOT_ZERO],
        "nan": as_int[schema.SLOT_NAN],
        "pos_inf": as_int[schema.SLOT_POS_INF],
        "neg_inf": as_int[schema.SLOT_NEG_INF],
    }


def class_fields(slots):
    """The underflow record's class fields; exact: counted on the values themselves."""
    c = [int(round(v)) for v in slots]
    return {
        "zero": c[schema.CLASS_ZERO],
        "flushed": c[schema.CLASS_FLUSHED],
        "subnormal": c[schema.CLASS_SUBNORMAL],
        "normal": c[schema.CLASS_NORMAL],
        "overflow": c[schema.CLASS_OVERFLOW],
        "nan": c[schema.CLASS_NAN],
        "inf": c[schema.CLASS_POS_INF] + c[schema.CLASS_NEG_INF],
        "exact": True,
    }


def put_number(record, key, value):
    """JSON has no NaN/Inf: null plus "<key>_nonfinite" (RecordFields.h putNumber)."""
    value = float(value)
    if math.isfinite(value):
        record[key] = value
    else:
        record[key] = None
        record[key + "_nonfinite"] = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def stats_fields(slots, numel):
    """A TensorStats object (ProbeRecords.cpp tensorStatsToJson)."""
    finite = int(round(slots[STATS_FINITE]))
    nan = math.nan
    out = {}
    put_number(out, "min", slots[STATS_MIN] if finite else nan)
    put_number(out, "max", slots[STATS_MAX] if finite else nan)
    put_number(out, "mean", slots[STATS_SUM] / finite if finite else nan)
    put_number(out, "abs_max", slots[STATS_ABS_MAX] if finite else nan)
    out["nan"] = int(round(slots[STATS_NAN]))
    out["pos_inf"] = int(round(slots[STATS_POS_INF]))
    out["neg_inf"] = int(round(slots[STATS_NEG_INF]))
    out["numel"] = int(numel)
    return out
