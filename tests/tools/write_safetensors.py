#!/usr/bin/env python3
"""Writes a safetensors file the way the reference writer lays it out, from torch tensors.

    write_safetensors.py OUT.safetensors EXPECTED.json

Debian's python3-torch (1.13) has no safetensors package, so the file is written
here with struct, json and the tensors' own bytes (numpy), following
huggingface/safetensors' serialize(): tensors sorted by dtype alignment (largest
first), then by name; data_offsets back to back from 0; the JSON header padded
with spaces to a multiple of 8 bytes; an 8-byte little-endian header length.

EXPECTED.json holds, per tensor, what a reader must find: dtype, shape, the values
(floats as Python floats, exact for every f32/f16/bf16 value) and, for f16/bf16,
the 16-bit patterns. test_safetensors compares the C++ reader against it.
"""
import json
import math
import struct
import sys

import torch

# safetensors dtype name, element size (the reference's order: larger first wins).
DTYPES = {
    torch.float32: ("F32", 4),
    torch.float16: ("F16", 2),
    torch.bfloat16: ("BF16", 2),
    torch.uint8: ("U8", 1),
    torch.int64: ("I64", 8),
    torch.int32: ("I32", 4),
}


def tensors():
    generator = torch.Generator().manual_seed(1234)
    wide = torch.randn(3, 4, generator=generator) * 1000
    return {
        "inputs": torch.randn(6, 1, 2, 2, generator=generator),
        "labels": torch.tensor([0, 2, 1, 2, 0, 1], dtype=torch.int64),
        # fp16 specials: the smallest subnormal, the largest finite, a negative zero, inf.
        "half": torch.tensor([1.0, -2.0, 2.0 ** -24, 65504.0, -0.0, float("inf")],
                             dtype=torch.float16),
        "brain": wide.to(torch.bfloat16),
        "pixels": torch.randint(0, 256, (2, 3), generator=generator, dtype=torch.uint8),
        "counts": torch.tensor([[-7, 2147483647], [-2147483648, 0]], dtype=torch.int32),
        # A zero-size tensor: a range [x, x) in the data.
        "empty": torch.zeros(0, 3, dtype=torch.float32),
    }


def exact(value):
    """A float as JSON holds it exactly; inf and nan (not JSON) as strings."""
    if math.isfinite(value):
        return float(value)
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def raw_bytes(tensor):
    if tensor.dtype == torch.bfloat16:  # numpy has no bfloat16: the same 16 bits as int16
        return tensor.contiguous().view(torch.int16).numpy().tobytes()
    return tensor.contiguous().numpy().tobytes()


def main():
    out_path, expected_path = sys.argv[1], sys.argv[2]
    items = sorted(tensors().items(), key=lambda kv: (-DTYPES[kv[1].dtype][1], kv[0]))
    header = {"__metadata__": {"format": "pt", "writer": "write_safetensors.py"}}
    data = bytearray()
    expected = {}
    for name, tensor in items:
        dtype, _ = DTYPES[tensor.dtype]
        payload = raw_bytes(tensor)
        header[name] = {"dtype": dtype, "shape": list(tensor.shape),
                        "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
        entry = {"dtype": dtype, "shape": list(tensor.shape)}
        if tensor.is_floating_point():
            entry["values"] = [exact(v) for v in tensor.float().flatten().tolist()]
        else:
            entry["values"] = [int(v) for v in tensor.flatten().tolist()]
        if tensor.dtype in (torch.float16, torch.bfloat16):
            entry["bits"] = [int(v) & 0xFFFF for v in tensor.view(torch.int16).flatten().tolist()]
        expected[name] = entry
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(out_path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        out.write(bytes(data))
    with open(expected_path, "w", encoding="utf-8") as out:
        json.dump(expected, out, allow_nan=False)


if __name__ == "__main__":
    main()
