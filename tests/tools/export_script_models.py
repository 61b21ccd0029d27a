#!/usr/bin/env python3
"""Writes the TorchScript archives the model suites load (run by CTest before them).

    export_script_models.py OUT_DIR

simple_cnn.pt mirrors the zoo's simple_cnn module for module (conv1, pool1, relu1,
conv2, pool2, relu2, flatten, fc), so the engine can train both from the same weights
and compare them step by step. The others cover what a user brings: a scripted model
whose blocks share one module type, a model that returns its own loss, and the files
a user might pass by mistake.
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class SimpleCnn(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 64, 3, padding=1)
        self.pool1 = nn.MaxPool2d(2)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(64, 128, 3, padding=1)
        self.pool2 = nn.MaxPool2d(2)
        self.relu2 = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(128 * 7 * 7, classes)

    def forward(self, x):
        x = self.relu1(self.pool1(self.conv1(x)))
        x = self.relu2(self.pool2(self.conv2(x)))
        return self.fc(self.flatten(x))


class Block(nn.Module):
    """A pre-norm residual MLP block: two instances share one TorchScript type."""

    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 2 * width)
        self.fc2 = nn.Linear(2 * width, width)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class ResidualMlp(nn.Module):
    def __init__(self, inputs=784, width=32, classes=10):
        super().__init__()
        self.embed = nn.Linear(inputs, width)
        self.blocks = nn.ModuleList([Block(width), Block(width)])
        self.gain = nn.Parameter(torch.ones(width))  # a parameter of the model itself
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = self.embed(x.flatten(1))
        for block in self.blocks:
            x = block(x)
        return self.head(x * self.gain)


class OwnLoss(nn.Module):
    """forward(inputs, targets) -> the scalar loss (train.loss "model")."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, 32), nn.ReLU(), nn.Linear(32, 10))

    def forward(self, x, y):
        return F.cross_entropy(self.net(x), y)


class FiveClasses(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 5)

    def forward(self, x):
        return self.fc(x.flatten(1))


class WantsCuda(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return self.fc(x.flatten(1)) + torch.zeros(10, device=torch.device("cuda"))


class Log(nn.Module):
    def forward(self, x):
        return torch.log(x)


class Sqrt(nn.Module):
    def forward(self, x):
        return torch.sqrt(x)


class NonFiniteHead(nn.Module):
    """fc -> act: log (NaN in forward for a negative value) or sqrt (an infinite
    gradient in backward at 0), in a submodule without parameters of its own."""

    def __init__(self, act):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.act = act

    def forward(self, x):
        return self.act(self.fc(x))


class NoForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    @torch.jit.export
    def predict(self, x):
        return self.fc(x)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    image = torch.zeros(2, 1, 28, 28)
    torch.jit.trace(SimpleCnn(), image).save(os.path.join(out, "simple_cnn.pt"))
    torch.jit.script(ResidualMlp()).save(os.path.join(out, "residual_mlp.pt"))
    torch.jit.script(OwnLoss()).save(os.path.join(out, "own_loss.pt"))
    torch.jit.trace(FiveClasses(), image).save(os.path.join(out, "five_classes.pt"))
    torch.jit.script(WantsCuda()).save(os.path.join(out, "wants_cuda.pt"))
    torch.jit.script(NoForward()).save(os.path.join(out, "no_forward.pt"))
    torch.jit.script(NonFiniteHead(Log())).save(os.path.join(out, "log_head.pt"))
    torch.jit.script(NonFiniteHead(Sqrt())).save(os.path.join(out, "sqrt_head.pt"))
    torch.save(SimpleCnn(), os.path.join(out, "pickled_module.pt"))
    torch.save(SimpleCnn(), os.path.join(out, "legacy_pickle.pt"), _use_new_zipfile_serialization=False)
    with open(os.path.join(out, "not_a_model.pt"), "w") as f:
        f.write("this is a text file\n")


if __name__ == "__main__":
    main()
