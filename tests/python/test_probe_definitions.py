"""The recorder's probes (python/ampscope/probes.py) against the C++ core's on the same
fixed tensors: identical exponent-histogram counts and fp16 class counts, for edge
values (zero, fp16 subnormals, the flush boundary 2^-25, 65504, 65520, NaN, +-Inf), every
fp16 bit pattern and random wide-range values, under the loss-scale multipliers the
probes use (1, half and twice a scale, a static 1000, one beyond the fp32 range)."""
import json
import math
import os
import subprocess
import tempfile
import unittest

import torch

from ampscope import probes, schema
from support import PROBE_REFERENCE

MULTIPLIERS = [1.0, 0.5, 2.0, 65536.0, 2.0 ** -20, 1000.0, 3.0, 2.0 ** 128, 2.0 ** 127]


def edge_values():
    f16_min_sub = 2.0 ** -24
    values = [0.0, -0.0, 2.0 ** -25, -(2.0 ** -25), f16_min_sub, 2.0 ** -14, 2.0 ** -14 - 2.0 ** -25,
              65504.0, 65520.0, -65520.0, 65519.996, 65536.0, 1.0, -1.0, 1e-45, -1e-45,
              2.0 ** -126, 2.0 ** -64, 2.0 ** -65, 2.0 ** 32, 2.0 ** 33 - 1, 2.0 ** 33, 3.4e38,
              math.nan, math.inf, -math.inf, 1.5 * 2.0 ** -25, 0.75 * 2.0 ** -24]
    tensor = torch.tensor(values, dtype=torch.float32)
    # The float32 neighbours of every limit: where an off-by-one-ulp rule would show.
    limits = torch.tensor([2.0 ** -25, 2.0 ** -14 - 2.0 ** -25, 65520.0, 2.0 ** -64, 2.0 ** 33],
                          dtype=torch.float32)
    up = torch.nextafter(limits, torch.full_like(limits, math.inf))
    down = torch.nextafter(limits, torch.zeros_like(limits))
    return torch.cat([tensor, up, down, -up])


def every_fp16_pattern():
    return torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.float16).float()


def wide_random(count=20000, seed=7):
    generator = torch.Generator().manual_seed(seed)
    mantissa = torch.randn(count, generator=generator)
    exponent = torch.randint(-70, 40, (count,), generator=generator).float()
    return (mantissa * torch.pow(2.0, exponent)).float()


def core_probes(values, multipliers):
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as handle:
        handle.write(values.contiguous().numpy().astype("<f4").tobytes())
        path = handle.name
    try:
        result = subprocess.run([PROBE_REFERENCE, path, *[repr(m) for m in multipliers]],
                                capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)
    if result.returncode != 0:
        raise AssertionError(f"probe_reference failed: {result.stderr}")
    return json.loads(result.stdout)


def strip(record):
    return {k: v for k, v in record.items() if k not in ("type", "step", "layer", "kind")}


def python_histogram(values):
    return probes.histogram_fields(probes.histogram_slots(values).tolist())


def python_underflow(values, multiplier):
    fields = probes.class_fields(probes.fp16_class_slots(values, multiplier).tolist())
    probes.put_number(fields, "multiplier", multiplier)
    return fields


@unittest.skipUnless(PROBE_REFERENCE and os.path.exists(PROBE_REFERENCE),
                     "AMPSCOPE_PROBE_REFERENCE not set (run through ctest)")
class ProbesAgainstCore(unittest.TestCase):
    def assert_same_as_core(self, values, python_input=None):
        core = core_probes(values, MULTIPLIERS)
        python_input = values if python_input is None else python_input
        self.assertEqual(python_histogram(python_input), strip(core["histogram"]))
        self.assertEqual(strip(core["histogram"]), strip(core["histogram_torch_ops"]))
        self.assertEqual(len(core["underflow"]), len(MULTIPLIERS))
        for multiplier, expected in zip(MULTIPLIERS, core["underflow"]):
            with self.subTest(multiplier=multiplier):
                self.assertEqual(python_underflow(python_input, multiplier), strip(expected))

    def test_edge_values(self):
        self.assert_same_as_core(edge_values())

    def test_every_fp16_bit_pattern(self):
        self.assert_same_as_core(every_fp16_pattern())

    def test_wide_random_values(self):
        self.assert_same_as_core(wide_random())

    def test_half_and_bfloat16_inputs_widen_exactly(self):
        # The recorder reads float16/bfloat16 gradients as they are; the core widens them.
        half = wide_random(5000, seed=3).clamp(-65504, 65504).half()
        self.assert_same_as_core(half.float(), python_input=half)
        bf16 = wide_random(5000, seed=4).bfloat16()
        self.assert_same_as_core(bf16.float(), python_input=bf16)


class DevicePathsAgree(unittest.TestCase):
    """On the CPU the recorder takes shortcuts (bincount, a finite sum); a GPU takes the
    torch-ops paths that never synchronise. Both must count alike."""

    def test_histogram_paths(self):
        for values in (edge_values(), every_fp16_pattern(), wide_random(), torch.zeros(5),
                       torch.tensor([math.nan, math.inf, -0.0])):
            for dtype in (torch.float32, torch.bfloat16, torch.float64):
                typed = values.to(dtype)
                self.assertEqual(probes._histogram_slots_on_cpu(typed).tolist(),
                                 probes._histogram_slots_with_torch_ops(typed.float()).tolist(),
                                 str(dtype))

    def test_fp16_class_paths(self):
        # The CPU shortcut (finite values only) against the device path, every multiplier.
        for values in (edge_values()[torch.isfinite(edge_values())], every_fp16_pattern().nan_to_num(0.0, 0.0, 0.0),
                       wide_random()):
            fast = probes.fp16_class_slots_multi(values, MULTIPLIERS).tolist()
            self.assertEqual(len(fast), len(MULTIPLIERS))
            for multiplier, row in zip(MULTIPLIERS, fast):
                plan = probes.Fp16Plan(multiplier)
                self.assertEqual(row, probes._fp16_class_slots_with_torch_ops(values, plan).tolist(),
                                 str(multiplier))

    def test_stats_paths(self):
        values = wide_random(1000).clamp(-1e30, 1e30)
        fast, general = probes.stats_slots(values).tolist(), probes._stats_slots_general(values).tolist()
        self.assertEqual(fast[:2] + fast[3:], general[:2] + general[3:])
        self.assertAlmostEqual(fast[2], general[2], delta=1e-9 * abs(general[2]) + 1e-300)
        with_nan = torch.tensor([1.0, math.nan, -2.0, math.inf])
        self.assertEqual(probes.stats_slots(with_nan).tolist(), [-2.0, 1.0, -1.0, 2.0, 2.0, 1.0, 1.0, 0.0])


class ProbesAgainstTheSpec(unittest.TestCase):
    """Hand-computed from IEEE 754 binary16 (round to nearest, ties to even) and the
    histogram's definition (ProbeRecords.md), independent of the core."""

    def classes(self, value, multiplier=1.0):
        return python_underflow(torch.tensor([value], dtype=torch.float32), multiplier)

    def only(self, value, name, multiplier=1.0):
        fields = self.classes(value, multiplier)
        counted = {k: fields[k] for k in ("zero", "flushed", "subnormal", "normal", "overflow",
                                          "nan", "inf")}
        self.assertEqual(counted, {k: int(k == name) for k in counted}, f"{value} x {multiplier}")

    def test_fp16_limits(self):
        self.only(0.0, "zero")
        self.only(2.0 ** -25, "flushed")          # the tie between 0 and 2^-24 goes to 0
        self.only(1.5 * 2.0 ** -25, "subnormal")  # rounds up to 2^-24
        self.only(2.0 ** -24, "subnormal")
        self.only(2.0 ** -14 - 2.0 ** -25, "normal")  # rounds up to the smallest normal
        self.only(2.0 ** -14 - 2.0 ** -24, "subnormal")
        self.only(65504.0, "normal")
        self.only(65519.99609375, "normal")       # the float below 65520 rounds to 65504
        self.only(65520.0, "overflow")
        self.only(math.nan, "nan")
        self.only(-math.inf, "inf")

    def test_multiplier_moves_the_limits(self):
        self.only(2.0 ** -40, "flushed")
        self.only(2.0 ** -40, "normal", multiplier=2.0 ** 30)   # 2^-10
        self.only(1.0, "overflow", multiplier=2.0 ** 17)
        self.only(1.0, "normal", multiplier=2.0 ** 15)

    def test_histogram_bins(self):
        values = torch.tensor([65504.0, 2.0 ** -25, 1.0, 0.99999994, 1e-45, 2.0 ** 33, 0.0,
                               math.nan, math.inf, -math.inf, -3.0], dtype=torch.float32)
        h = python_histogram(values)
        def count(exponent):
            return h["counts"][exponent - schema.MIN_EXPONENT]
        self.assertEqual(h["min_exponent"], -64)
        self.assertEqual(len(h["counts"]), 97)
        self.assertEqual(count(15), 1)   # 65504 = 1.999 * 2^15
        self.assertEqual(count(-25), 1)
        self.assertEqual(count(0), 1)    # 1.0
        self.assertEqual(count(-1), 1)   # the float just below 1.0 stays in the lower bin
        self.assertEqual(count(1), 1)    # -3.0: both signs share a bin
        self.assertEqual((h["below"], h["above"], h["zero"]), (1, 1, 1))
        self.assertEqual((h["nan"], h["pos_inf"], h["neg_inf"]), (1, 1, 1))

    def test_float64_rounds_to_float32_first(self):
        h = python_histogram(torch.tensor([1e300, 1.0], dtype=torch.float64))
        self.assertEqual((h["pos_inf"], h["counts"][64]), (1, 1))


if __name__ == "__main__":
    unittest.main()
