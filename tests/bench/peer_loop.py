#!/usr/bin/python3
"""The peer AmpScope is measured against: a plain PyTorch training loop, written the
way a user would write it, on the same data, model, optimizer, batch and threads.

Reads FashionMNIST from Debian's dataset-fashion-mnist files (gzip IDX; --data names
another folder holding them), normalises with the training set's mean and std, and
trains with Adam for --steps steps of --batch samples, reshuffling each epoch:
  simple_cnn  conv 1->64 3x3 pad 1, maxpool 2, relu; conv 64->128, maxpool 2,
              relu; linear 128*7*7 -> 10 (AmpScope's simple_cnn)
  mlp         flatten, linear 784 -> --hidden, relu, linear -> 10 (AmpScope's mlp
              with model.hidden=[H])
  deep_cnn    14 conv blocks (conv, BatchNorm, ReLU), global average pool,
              three linears 1024->1000->1000->10 (AmpScope's deep_cnn)

Modes, as torch.amp users write them:
  fp32   plain fp32 (on CUDA with the TF32 switches off)
  tf32   fp32 with torch.backends.cuda.matmul.allow_tf32 and cudnn.allow_tf32 on (CUDA only)
  fp16   torch.autocast(float16) around forward and loss + torch.amp.GradScaler (CUDA only:
         CPU autocast in this torch has no fp16)
  bf16   torch.autocast(bfloat16) around forward and loss, no scaler

Prints one JSON object: samples/s over the timed steps, where the time of a step is
forward + backward + optimizer step (what AmpScope's samples_per_second counts; on
CUDA the step is closed with torch.cuda.synchronize() so the time is the GPU's), the
loop's samples/s including taking the batch (--warmup steps are not timed), the final
loss, and on CUDA the allocator's peak (torch.cuda.max_memory_allocated, what
AmpScope's summary.json peak_memory_bytes reads there).

  peer_loop.py --steps 200 --batch 128 --threads 2 --mode fp32
  peer_loop.py --device cuda --model deep_cnn --batch 1024 --mode fp16
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


# deep_cnn's blocks, [in, out, kernel, stride, pad] (core/models/DeepCnnBlocks.h).
DEEP_CNN_BLOCKS = [
    (1, 32, 3, 1, 1), (32, 64, 3, 1, 1), (64, 64, 2, 2, 0), (64, 128, 3, 1, 1),
    (128, 128, 3, 1, 1), (128, 128, 3, 1, 1), (128, 128, 2, 2, 0), (128, 256, 3, 1, 1),
    (256, 256, 2, 1, 0), (256, 512, 3, 1, 1), (512, 512, 3, 1, 1), (512, 512, 3, 1, 1),
    (512, 512, 2, 2, 0), (512, 1024, 3, 1, 1)]


class DeepCNN(nn.Module):
    def __init__(self):
        super().__init__()
        layers = []
        for cin, cout, k, stride, pad in DEEP_CNN_BLOCKS:
            layers += [nn.Conv2d(cin, cout, k, stride=stride, padding=pad), nn.BatchNorm2d(cout),
                       nn.ReLU()]
        self.features = nn.Sequential(*layers)
        # deep_cnn's classifier: three linears, no activation between them.
        self.fc1 = nn.Linear(1024, 1000)
        self.fc2 = nn.Linear(1000, 1000)
        self.fc3 = nn.Linear(1000, 10)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1).flatten(1)
        return self.fc3(self.fc2(self.fc1(x)))


MODELS = {"simple_cnn": SimpleCNN, "deep_cnn": DeepCNN, "mlp": SmallMLP}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--mode", choices=["fp32", "tf32", "fp16", "bf16"], default="fp32")
    parser.add_argument("--model", choices=sorted(MODELS), default="simple_cnn")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--hidden", type=int, default=128, help="mlp hidden width")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=DATA)
    args = parser.parse_args()
    cuda = args.device == "cuda"
    if cuda and not torch.cuda.is_available():
        sys.exit("peer_loop.py: --device cuda: this torch sees no CUDA device")
    if not cuda and args.mode in ("tf32", "fp16"):
        sys.exit(f"peer_loop.py: --mode {args.mode} needs --device cuda (CPU has no TF32 units, "
                 "and this torch's CPU autocast has no float16)")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = args.mode == "tf32"
        torch.backends.cudnn.allow_tf32 = args.mode == "tf32"
    images_path = os.path.join(args.data, "train-images-idx3-ubyte.gz")
    labels_path = os.path.join(args.data, "train-labels-idx1-ubyte.gz")
    for path in (images_path, labels_path):
        if not os.path.exists(path):
            sys.exit(f"peer_loop.py: {path}: missing (install dataset-fashion-mnist)")
    images = torch.from_numpy(read_idx(images_path).astype(np.float32) / 255.0)
    labels = torch.from_numpy(read_idx(labels_path).astype(np.int64))
    images = ((images - images.mean()) / images.std()).unsqueeze(1).contiguous()
    device = torch.device(args.device)

    model = (SmallMLP(args.hidden) if args.model == "mlp" else MODELS[args.model]()).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    autocast_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(args.mode)
    scaler = torch.amp.GradScaler("cuda") if args.mode == "fp16" else None
    if cuda:
        torch.cuda.reset_peak_memory_stats(device)
    n = images.shape[0]
    order = torch.randperm(n)
    position = 0
    step_seconds = 0.0
    loop_start = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            if cuda:
                torch.cuda.synchronize(device)
            loop_start = time.perf_counter()
            step_seconds = 0.0
        if position + args.batch > n:
            order = torch.randperm(n)
            position = 0
        index = order[position:position + args.batch]
        position += args.batch
        x, y = images.index_select(0, index), labels.index_select(0, index)
        t0 = time.perf_counter()
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        if autocast_dtype is not None:
            with torch.autocast(args.device, dtype=autocast_dtype):
                loss = F.cross_entropy(model(x), y)
        else:
            loss = F.cross_entropy(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        if cuda:
            torch.cuda.synchronize(device)
        step_seconds += time.perf_counter() - t0
    loop_seconds = time.perf_counter() - loop_start
    samples = args.steps * args.batch
    result = {
        "peer": "pytorch", "torch_version": torch.__version__, "mode": args.mode,
        "model": args.model, "device": args.device,
        "threads": args.threads, "batch": args.batch, "steps": args.steps,
        "samples_per_second": samples / step_seconds,
        "loop_samples_per_second": samples / loop_seconds,
        "final_loss": float(loss.item()),
    }
    if cuda:
        result["peak_memory_bytes"] = torch.cuda.max_memory_allocated(device)
    if scaler is not None:
        result["final_scale"] = float(scaler.get_scale())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
