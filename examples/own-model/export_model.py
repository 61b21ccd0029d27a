#!/usr/bin/env python3
"""Export a model of your own for AmpScope: a small vision transformer, traced to
TorchScript, and FashionMNIST as a safetensors file of samples.

    python3 export_model.py            # writes tinyvit.pt and fashion.safetensors here
    ampscope-cli run --config tinyvit.json --out runs/tinyvit
    ampscope --open-run runs/tinyvit

Replace TinyVit with the network you train: anything torch.jit.trace (or
torch.jit.script) accepts. AmpScope probes its submodules by the names
named_modules() gives them ("blocks.1.attn.qkv"), in every precision mode.

Runs with Debian's python3-torch (1.13) and numpy; reads FashionMNIST from Debian's
dataset-fashion-mnist package (or the folder given with --mnist).
"""
import argparse
import gzip
import json
import os
import struct

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        scores = q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5
        out = F.softmax(scores, dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyVit(nn.Module):
    """7x7 patches of a 28x28 image -> 16 tokens -> two pre-norm blocks -> 10 classes."""

    def __init__(self, dim=64, heads=4, depth=2, classes=10):
        super().__init__()
        self.patches = nn.Conv2d(1, dim, kernel_size=7, stride=7)
        self.position = nn.Parameter(torch.zeros(1, 16, dim))
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, images):
        tokens = self.patches(images).flatten(2).transpose(1, 2) + self.position
        return self.head(self.norm(self.blocks(tokens)).mean(1))


def read_idx(path):
    """An IDX file (the MNIST format), gzipped or not, as a numpy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def find(folder, stem):
    for name in (stem + ".gz", stem):
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    raise SystemExit(f"{folder}: no {stem}(.gz): install dataset-fashion-mnist or pass --mnist")


def save_safetensors(path, tensors):
    """The safetensors format: u64 little-endian header length, a JSON header of
    name -> dtype, shape, data_offsets, then the raw little-endian bytes."""
    dtypes = {np.dtype(np.uint8): "U8", np.dtype(np.int64): "I64", np.dtype(np.float32): "F32"}
    header, offset, blobs = {}, 0, []
    for name, array in tensors.items():
        array = np.ascontiguousarray(array)
        blob = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtypes[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)  # the header is padded to 8 bytes
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for blob in blobs:
            f.write(blob)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mnist", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--train", type=int, default=12000, help="training samples to write")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    model = TinyVit()
    # Load your own weights here if you have them: model.load_state_dict(torch.load(...))
    traced = torch.jit.trace(model, torch.zeros(2, 1, 28, 28))
    traced.save(os.path.join(args.out, "tinyvit.pt"))

    images = read_idx(find(args.mnist, "train-images-idx3-ubyte"))[:args.train]
    labels = read_idx(find(args.mnist, "train-labels-idx1-ubyte"))[:args.train]
    val_images = read_idx(find(args.mnist, "t10k-images-idx3-ubyte"))[:2000]
    val_labels = read_idx(find(args.mnist, "t10k-labels-idx1-ubyte"))[:2000]
    save_safetensors(os.path.join(args.out, "fashion.safetensors"), {
        "x": images[:, None, :, :], "y": labels.astype(np.int64),
        "xv": val_images[:, None, :, :], "yv": val_labels.astype(np.int64)})
    print(f"wrote tinyvit.pt ({sum(p.numel() for p in model.parameters())} parameters) and "
          f"fashion.safetensors ({len(images)} + {len(val_images)} samples) to {args.out}")


if __name__ == "__main__":
    main()
