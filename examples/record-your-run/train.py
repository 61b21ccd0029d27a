"""A complete small training script recorded with AmpScope.

The three lines marked "AmpScope" are all a training loop needs; the rest is an
ordinary PyTorch script (an MLP on the two-spirals set, made up here so the example
needs no download). It runs on the CPU in bf16 autocast, and on a CUDA GPU in fp16
autocast with a GradScaler, unchanged:

    python3 train.py                       # writes runs/spirals-recorded
    ampscope --open-run runs/spirals-recorded
    ampscope-cli report runs/spirals-recorded --out report.html

Options: --steps N, --out DIR, --probe-every N, --nan-at STEP (puts a NaN into the
second layer's output at that step, to see the recorder locate it), --precision fp16|bf16
(default: fp16 on a GPU, bf16 on the CPU; fp16 on the CPU needs a PyTorch with CPU fp16
autocast, 2.x).
"""
import argparse
import math

import torch

import ampscope  # AmpScope (1/3)


def spirals(samples, generator):
    """Two interleaved spiral arms in the plane; the label is the arm."""
    t = torch.rand(samples, generator=generator) * 3 * math.pi + 0.5
    arm = torch.randint(0, 2, (samples,), generator=generator)
    sign = 1.0 - 2.0 * arm.float()
    x = torch.stack([sign * t * torch.cos(t), sign * t * torch.sin(t)], dim=1) / 10.0
    return x + 0.02 * torch.randn(samples, 2, generator=generator), arm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--out", default="runs/spirals-recorded")
    parser.add_argument("--probe-every", type=int, default=50)
    parser.add_argument("--nan-at", type=int, default=0)
    parser.add_argument("--precision", choices=["auto", "fp16", "bf16"], default="auto")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    # fp16 needs a loss scaler; bf16 has fp32's range and does without one.
    if args.precision == "auto":
        args.precision = "fp16" if device == "cuda" else "bf16"
    dtype = torch.float16 if args.precision == "fp16" else torch.bfloat16
    mode = args.precision
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)

    model = torch.nn.Sequential(
        torch.nn.Linear(2, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 2)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    # torch 2.x names the scaler torch.amp.GradScaler(device); 1.13 has torch.cuda.amp's.
    if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
        scaler = torch.amp.GradScaler(device, enabled=(mode == "fp16"))
    else:
        scaler = torch.cuda.amp.GradScaler(enabled=(mode == "fp16"))
    loss_fn = torch.nn.CrossEntropyLoss()

    if args.nan_at:
        step_now = {"step": 0}

        def put_nan(module, inputs, output):
            if step_now["step"] == args.nan_at:
                output = output.clone()
                output[0, 0] = float("nan")
            return output

        model[2].register_forward_hook(put_nan)

    rec = ampscope.Recorder(args.out, model, optimizer=optimizer, scaler=scaler,  # AmpScope (2/3)
                            mode=mode, probe_every=args.probe_every)
    for step in range(1, args.steps + 1):
        if args.nan_at:
            step_now["step"] = step
        x, y = spirals(args.batch, generator)
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device, dtype=dtype):
            loss = loss_fn(model(x).float(), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        rec.step(loss)  # AmpScope (3/3): after update(); rec.close() at the end
        if step % 100 == 0:
            print(f"step {step}: loss {loss.item():.4f}")
    rec.close()
    print(f"recorded to {rec.directory}; open it with: ampscope --open-run {rec.directory}")


if __name__ == "__main__":
    main()
