#!/usr/bin/env python3
"""Writes batches.safetensors: your own samples for AmpScope's "tensors" data set.

    python3 make_batches.py                # writes batches.safetensors here
    ampscope-cli run blobs-mlp-fp16.json --out runs/blobs

Replace make_blobs() with your data: any torch tensors whose first dimension counts
the samples. Inputs: F32, F16, BF16 (used as they are) or U8 (divided by 255 and,
with data.normalize, standardised like images). Targets: I64 or I32 class ids, or
F32/F16/BF16 values for a regression. Then name them in the config's data section
(inputs, targets, and val_inputs/val_targets for validation "test").

save_file() writes the format without the safetensors package (Debian's python3-torch
has none): an 8-byte little-endian header length, the JSON header padded with spaces
to a multiple of 8 bytes as the reference writer pads it, then the tensors back to
back, the largest elements first so that each stays aligned. Where the package is
installed, safetensors.torch.save_file(tensors, path) writes a file AmpScope reads too.
"""
import json
import struct
import sys

import torch

_DTYPES = {
    torch.float64: ("F64", 8), torch.float32: ("F32", 4), torch.float16: ("F16", 2),
    torch.bfloat16: ("BF16", 2), torch.int64: ("I64", 8), torch.int32: ("I32", 4),
    torch.int16: ("I16", 2), torch.int8: ("I8", 1), torch.uint8: ("U8", 1),
    torch.bool: ("BOOL", 1),
}


def save_file(tensors, path, metadata=None):
    """tensors: {name: torch.Tensor}; metadata: {str: str} or None."""
    order = sorted(tensors.items(), key=lambda item: (-_DTYPES[item[1].dtype][1], item[0]))
    header = {"__metadata__": dict(metadata)} if metadata else {}
    chunks, offset = [], 0
    for name, tensor in order:
        tensor = tensor.detach().cpu().contiguous()
        # numpy has no bfloat16: the same 16 bits, as int16.
        raw = (tensor.view(torch.int16) if tensor.dtype == torch.bfloat16 else tensor).numpy().tobytes()
        header[name] = {"dtype": _DTYPES[tensor.dtype][0], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for raw in chunks:
            out.write(raw)


def make_blobs(samples, generator):
    """Three Gaussian blobs in 2-D, one class each."""
    centres = torch.tensor([[0.0, 2.0], [-1.8, -1.0], [1.8, -1.0]])
    labels = torch.randint(0, 3, (samples,), generator=generator)
    points = centres[labels] + 1.0 * torch.randn(samples, 2, generator=generator)
    return points.to(torch.float32), labels.to(torch.int64)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "batches.safetensors"
    generator = torch.Generator().manual_seed(7)
    x, y = make_blobs(1500, generator)
    x_val, y_val = make_blobs(300, generator)
    save_file({"x": x, "y": y, "x_val": x_val, "y_val": y_val}, path,
              metadata={"about": "three 2-D blobs, make_batches.py"})
    print(f"{path}: x {list(x.shape)} F32, y {list(y.shape)} I64, "
          f"x_val {list(x_val.shape)}, y_val {list(y_val.shape)}")


if __name__ == "__main__":
    main()
