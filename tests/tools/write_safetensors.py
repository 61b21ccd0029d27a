#!/usr/bin/env python3
"""Writes a safetensors file from torch tensors, and what a reader must find in it.

    write_safetensors.py OUT.safetensors EXPECTED.json

Debian's python3-torch (1.13) has no safetensors package: the file is written by
save_file() of examples/your-data/make_batches.py (struct, json and the tensors'
numpy bytes, in the reference writer's layout), the writer the example hands users,
so test_safetensors checks that one too.

EXPECTED.json holds, per tensor: dtype, shape, the values (floats as Python floats,
exact for every f32/f16/bf16 value; inf and nan as strings, which JSON lacks) and,
for f16/bf16, the 16-bit patterns.
"""
import json
import math
import os
import sys

import torch

# No __pycache__ in examples/: the package installs that folder as it is.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "examples", "your-data"))
from make_batches import save_file  # noqa: E402

NAMES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
         torch.uint8: "U8", torch.int64: "I64", torch.int32: "I32"}


def tensors():
    generator = torch.Generator().manual_seed(1234)
    return {
        "inputs": torch.randn(6, 1, 2, 2, generator=generator),
        "labels": torch.tensor([0, 2, 1, 2, 0, 1], dtype=torch.int64),
        # fp16 specials: the smallest subnormal, the largest finite, a negative zero, inf.
        "half": torch.tensor([1.0, -2.0, 2.0 ** -24, 65504.0, -0.0, float("inf")],
                             dtype=torch.float16),
        "brain": (torch.randn(3, 4, generator=generator) * 1000).to(torch.bfloat16),
        "pixels": torch.randint(0, 256, (2, 3), generator=generator, dtype=torch.uint8),
        "counts": torch.tensor([[-7, 2147483647], [-2147483648, 0]], dtype=torch.int32),
        # A zero-size tensor: a range [x, x) in the data.
        "empty": torch.zeros(0, 3, dtype=torch.float32),
    }


def exact(value):
    """A float as JSON holds it exactly; inf and nan as strings."""
    if math.isfinite(value):
        return float(value)
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def main():
    out_path, expected_path = sys.argv[1], sys.argv[2]
    made = tensors()
    save_file(made, out_path, metadata={"format": "pt", "writer": "write_safetensors.py"})
    expected = {}
    for name, tensor in made.items():
        entry = {"dtype": NAMES[tensor.dtype], "shape": list(tensor.shape)}
        if tensor.is_floating_point():
            entry["values"] = [exact(v) for v in tensor.float().flatten().tolist()]
        else:
            entry["values"] = [int(v) for v in tensor.flatten().tolist()]
        if tensor.dtype in (torch.float16, torch.bfloat16):
            entry["bits"] = [int(v) & 0xFFFF for v in tensor.view(torch.int16).flatten().tolist()]
        expected[name] = entry
    with open(expected_path, "w", encoding="utf-8") as out:
        json.dump(expected, out, allow_nan=False)


if __name__ == "__main__":
    main()
