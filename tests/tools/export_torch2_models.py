#!/usr/bin/env python3
"""Writes the TorchScript files of tests/data/torch2-models/, as a torch 2.x user saves them.

    export_torch2_models.py OUT_DIR        # with torch 2.x (Debian 13's python3-torch 2.6)

They are committed, not written at test time: the point is files saved by a newer
PyTorch than the one a build may have (Debian 12's LibTorch 1.13), and that build's
Python cannot write them. Every model reads FashionMNIST's [N, 1, 28, 28] images and
gives 10 class scores, so each trains in the lab with the default dataset and loss.
Widths are tiny: the files are fixtures, a few tens of KB each. cnn_exported.pt2 is the
CNN saved by torch.export instead, for the refusal of a file that is not TorchScript.

The manifest (manifest.json) is written by hand from what each LibTorch did with the
files (loaded, or refused naming an op); this script only prints which torch saved
them, for its "saved_by".
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Cnn(nn.Module):
    """Plain convolutions: what a file from torch 2.x that an old LibTorch may still load looks like."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


class RmsNormMlp(nn.Module):
    """nn.RMSNorm came with torch 2.4 (aten::rms_norm)."""

    def __init__(self, width=16):
        super().__init__()
        self.embed = nn.Linear(784, width)
        self.norm = nn.RMSNorm(width)
        self.hidden = nn.Linear(width, width)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        x = self.norm(self.embed(x.flatten(1)))
        return self.head(F.gelu(self.hidden(x)))


class EncoderClassifier(nn.Module):
    """nn.TransformerEncoder (nn.MultiheadAttention inside) over 7x7 patches: 16 tokens."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.patches = nn.Conv2d(1, dim, kernel_size=7, stride=7)
        # dropout 0: the trace records dropout's training flag as a constant, and the
        # lab's fp32 runs are then deterministic.
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=2 * dim, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.head = nn.Linear(dim, 10)

    def forward(self, images):
        tokens = self.patches(images).flatten(2).transpose(1, 2)
        return self.head(self.encoder(tokens).mean(1))


class SdpaAttention(nn.Module):
    """Attention through F.scaled_dot_product_attention (torch 2.0)."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        out = F.scaled_dot_product_attention(q, k, v)
        return self.proj(out.transpose(1, 2).reshape(b, t, d))


class VitBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SdpaAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyVit(nn.Module):
    def __init__(self, dim=16, heads=2, depth=2):
        super().__init__()
        self.patches = nn.Conv2d(1, dim, kernel_size=7, stride=7)
        self.position = nn.Parameter(torch.zeros(1, 16, dim))
        self.blocks = nn.Sequential(*[VitBlock(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, 10)

    def forward(self, images):
        tokens = self.patches(images).flatten(2).transpose(1, 2) + self.position
        return self.head(self.norm(self.blocks(tokens)).mean(1))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[2].strip())
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    image = torch.zeros(2, 1, 28, 28)
    written = []

    def save(module, name):
        path = os.path.join(out, name)
        module.save(path)
        written.append((name, os.path.getsize(path)))

    # One seed per file: each file's weights stay the same when another model changes.
    torch.manual_seed(1)
    save(torch.jit.trace(Cnn(), image), "cnn_traced.pt")
    torch.manual_seed(1)
    save(torch.jit.script(Cnn()), "cnn_scripted.pt")
    torch.manual_seed(2)
    save(torch.jit.trace(RmsNormMlp(), image), "rmsnorm_mlp_traced.pt")
    torch.manual_seed(2)
    save(torch.jit.script(RmsNormMlp()), "rmsnorm_mlp_scripted.pt")
    torch.manual_seed(3)
    # The checks trace_module runs on a TransformerEncoder warn about its fast path;
    # the trace itself is the ordinary training-mode path.
    save(torch.jit.trace(EncoderClassifier(), image, check_trace=False), "transformer_encoder_traced.pt")
    torch.manual_seed(4)
    save(torch.jit.trace(TinyVit(), image), "vit_sdpa_traced.pt")
    # Not TorchScript: what torch.export (TorchScript's successor) saves, which the lab
    # must refuse with a line of its own.
    torch.manual_seed(1)
    path = os.path.join(out, "cnn_exported.pt2")
    torch.export.save(torch.export.export(Cnn(), (image,)), path)
    written.append(("cnn_exported.pt2", os.path.getsize(path)))
    print(f"torch {torch.__version__}")
    for name, size in written:
        print(f"{name}: {size} bytes")


if __name__ == "__main__":
    main()
