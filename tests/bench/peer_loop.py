#!/usr/bin/python3
"""The peer AmpScope is measured against: a plain PyTorch training loop, written the
way a user would write it, on the same data, model, optimizer, batch and threads.

Reads FashionMNIST from Debian's dataset-fashion-mnist files (gzip IDX), normalises
with the training set's mean and std, and trains --model with Adam for --steps
steps of --batch samples, reshuffling each epoch:
  simple_cnn  seed 000's SimpleCNN: conv 1->64 3x3 pad 1, maxpool 2, relu; conv
              64->128, maxpool 2, relu; linear 128*7*7 -> 10
  mlp         flatten, linear 784 -> --hidden, relu, linear -> 10 (AmpScope's mlp
              with model.hidden=[H])

Modes: fp32; bf16 (torch.autocast on CPU, bfloat16, forward and loss inside it).
Prints one JSON object: samples/s over the timed steps, where the time of a step is
forward + backward + optimizer step (what AmpScope's samples_per_second counts), and
the loop's samples/s including taking the batch (--warmup steps are not timed).

  peer_loop.py --steps 200 --batch 128 --threads 2 --mode fp32
"""
import argparse
import gzip
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 64, 3, padding=1)
        self.conv2 = nn.Conv2d(64, 128, 3, padding=1)
        self.fc = nn.Linear(128 * 7 * 7, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        return self.fc(torch.flatten(x, 1))


class SmallMLP(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, hidden)
        self.out = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.out(F.relu(self.fc1(torch.flatten(x, 1))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--mode", choices=["fp32", "bf16"], default="fp32")
    parser.add_argument("--model", choices=["simple_cnn", "mlp"], default="simple_cnn")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=DATA)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    images_path = os.path.join(args.data, "train-images-idx3-ubyte.gz")
    labels_path = os.path.join(args.data, "train-labels-idx1-ubyte.gz")
    for path in (images_path, labels_path):
        if not os.path.exists(path):
            sys.exit(f"peer_loop.py: {path}: missing (install dataset-fashion-mnist)")
    images = torch.from_numpy(read_idx(images_path).astype(np.float32) / 255.0)
    labels = torch.from_numpy(read_idx(labels_path).astype(np.int64))
    images = ((images - images.mean()) / images.std()).unsqueeze(1).contiguous()

    model = SimpleCNN() if args.model == "simple_cnn" else SmallMLP(args.hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    n = images.shape[0]
    order = torch.randperm(n)
    position = 0
    step_seconds = 0.0
    loop_start = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            loop_start = time.perf_counter()
            step_seconds = 0.0
        if position + args.batch > n:
            order = torch.randperm(n)
            position = 0
        index = order[position:position + args.batch]
        position += args.batch
        x, y = images.index_select(0, index), labels.index_select(0, index)
        t0 = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        if args.mode == "bf16":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(x), y)
        else:
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        step_seconds += time.perf_counter() - t0
    loop_seconds = time.perf_counter() - loop_start
    samples = args.steps * args.batch
    print(json.dumps({
        "peer": "pytorch", "torch_version": torch.__version__, "mode": args.mode,
        "model": args.model,
        "threads": args.threads, "batch": args.batch, "steps": args.steps,
        "samples_per_second": samples / step_seconds,
        "loop_samples_per_second": samples / loop_seconds,
        "final_loss": float(loss.item()),
    }))


if __name__ == "__main__":
    main()
