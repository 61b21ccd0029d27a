#!/usr/bin/env python3
"""Emulated fp8 against real fp8: the same e4m3 x e4m3 GEMMs through the GPU's fp8 tensor
cores (torch._scaled_mm, with and without cuBLAS's fast accumulation) and through the
lab's emulation (quantize, then multiply the dequantized values in fp32), against an
fp64 product of the same quantized operands, over reduction lengths K = 256 .. 16384.

The DeepSeek-V3 technical report says Hopper's fp8 tensor cores keep only about 14 bits
when they accumulate; if so, the hardware's error grows with K while an fp32 accumulation
stays near fp32's rounding. The script also runs accumulator models (the product summed
exactly within chunks of 32 along K, the running sum cut to m fraction bits after each
chunk, m = 10 .. 14, truncated toward zero or rounded to nearest) and says which model
lies closest to each hardware path, so that the emulation option that models it
(precision.fp8.accumulation) can be checked against the machine.

Two operand distributions: standard normal (signs cancel, the sum grows like sqrt(K))
and uniform [0, 1) (all products positive, the sum grows like K: accumulator error shows
most plainly there).

  fp8_accumulation.py [--m 1024] [--n 1024] [--ks 256,1024,4096,16384] [--seeds 3]
  fp8_accumulation.py --smoke        # CPU, small sizes: no hardware column; checks the rest

It checks its own rows and exits non-zero when a check fails: the fp32 emulation must be
within 1e-5 of fp64 at every K, and the script's own e4m3 rounding must equal torch's
float8 cast bit for bit where torch has one.
"""
import argparse
import math
import sys

import torch

E4M3_MAX = 448.0
E4M3_MIN_NORMAL_EXPONENT = -6
E4M3_FRACTION_BITS = 3
CHUNK = 32  # the K of one fp8 WGMMA instruction on Hopper
MODEL_BITS = (10, 11, 12, 13, 14)


def quantize_e4m3(x):
    """x rounded to the nearest e4m3 value (ties to even), saturating at 448, as the OCP
    8-bit floating point specification defines the format (no infinities)."""
    magnitude = x.abs().clamp(min=2.0 ** -30)
    exponent = torch.floor(torch.log2(magnitude)).clamp(min=E4M3_MIN_NORMAL_EXPONENT)
    spacing = torch.pow(2.0, exponent - E4M3_FRACTION_BITS)
    rounded = torch.round(x / spacing) * spacing  # torch.round: ties to even
    return rounded.clamp(-E4M3_MAX, E4M3_MAX)


def per_tensor_scale(x):
    """Current scaling as Transformer Engine's recipe: the tensor's amax onto e4m3's max."""
    amax = float(x.abs().max())
    return E4M3_MAX / amax if amax > 0 else 1.0


def cut_fraction(x, bits, mode):
    """x (float64) kept to `bits` fraction bits: truncated toward zero or rounded to nearest."""
    mantissa, exponent = torch.frexp(x)  # mantissa in [0.5, 1)
    scaled = mantissa * 2.0 ** (bits + 1)
    scaled = torch.trunc(scaled) if mode == "trunc" else torch.round(scaled)
    return torch.ldexp(scaled / 2.0 ** (bits + 1), exponent)


def chunked_accumulation(a, b, bits, mode):
    """A @ B with each chunk of CHUNK products summed exactly (fp64) and the running sum
    kept to `bits` fraction bits after each chunk is added."""
    total = torch.zeros(a.shape[0], b.shape[1], dtype=torch.float64, device=a.device)
    for k in range(0, a.shape[1], CHUNK):
        total = cut_fraction(total + a[:, k:k + CHUNK] @ b[k:k + CHUNK, :], bits, mode)
    return total


def relative_error(x, reference):
    return float((x.double() - reference).norm() / reference.norm())


def hardware_product(qa, qb, scale_a, scale_b, fast):
    """torch._scaled_mm on e4m3 codes: A row-major, B column-major, fp32 output,
    dequantized by the inverse scales inside the GEMM."""
    a8 = (qa * scale_a).to(torch.float8_e4m3fn)
    b8 = (qb * scale_b).t().contiguous().to(torch.float8_e4m3fn).t()
    inverse_a = torch.tensor(1.0 / scale_a, device=qa.device)
    inverse_b = torch.tensor(1.0 / scale_b, device=qa.device)
    return torch._scaled_mm(a8, b8, scale_a=inverse_a, scale_b=inverse_b,
                            out_dtype=torch.float32, use_fast_accum=fast)


def operands(distribution, m, k, n, generator, device):
    if distribution == "normal":
        a = torch.randn(m, k, generator=generator, device=device)
        b = torch.randn(k, n, generator=generator, device=device)
    else:
        a = torch.rand(m, k, generator=generator, device=device)
        b = torch.rand(k, n, generator=generator, device=device)
    # Quantized values, dequantized: e4m3 codes times 1/scale. Both paths see these.
    scale_a, scale_b = per_tensor_scale(a), per_tensor_scale(b)
    qa = quantize_e4m3(a * scale_a) / scale_a
    qb = quantize_e4m3(b * scale_b) / scale_b
    return qa, qb, scale_a, scale_b


def check_quantizer(device, failures):
    """The script's e4m3 rounding against torch's own float8 cast, bit for bit."""
    if not hasattr(torch, "float8_e4m3fn"):
        return "torch has no float8 dtype: quantizer checked against the format's rules only"
    values = torch.randn(1 << 20, device=device) * 100.0
    values[:4] = torch.tensor([448.0, 464.0, 2.0 ** -9, 2.0 ** -10 * 1.5], device=device)
    ours = quantize_e4m3(values)
    theirs = values.clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn).float()
    differ = int((ours != theirs).sum())
    if differ:
        failures.append(f"e4m3 rounding differs from torch's float8 cast in {differ} elements")
    return f"e4m3 rounding equal to torch's float8 cast on 2^20 values: {differ == 0}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=1024)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--ks", default="256,512,1024,2048,4096,8192,16384")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.m, args.n, args.ks, args.seeds = 64, 64, "256,1024", 1
    device = "cuda" if torch.cuda.is_available() and not args.smoke else "cpu"
    hardware = device == "cuda" and hasattr(torch, "_scaled_mm")
    torch.backends.cuda.matmul.allow_tf32 = False
    failures = []
    what = torch.cuda.get_device_name(0) if device == "cuda" else "CPU"
    print(f"fp8 e4m3 GEMM accumulation: {what}, torch {torch.__version__}, "
          f"M = {args.m}, N = {args.n}, {args.seeds} seeds, median relative error vs fp64")
    print(check_quantizer(device, failures))
    models = [(bits, mode) for bits in MODEL_BITS for mode in ("trunc", "round")]
    header = ["distribution", "K", "emulated (fp32 accumulate)"]
    if hardware:
        header += ["H/W _scaled_mm", "H/W fast accumulation"]
    header += [f"model {b} bits {m}" for b, m in models]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    closest = {}
    for distribution in ("normal", "uniform"):
        for k in (int(v) for v in args.ks.split(",")):
            columns = {}
            for seed in range(args.seeds):
                generator = torch.Generator(device=device).manual_seed(seed)
                qa, qb, scale_a, scale_b = operands(distribution, args.m, k, args.n, generator, device)
                reference = qa.double() @ qb.double()
                samples = {"emulated": relative_error(qa @ qb, reference)}
                if hardware:
                    samples["hw"] = relative_error(hardware_product(qa, qb, scale_a, scale_b, False), reference)
                    samples["hw fast"] = relative_error(hardware_product(qa, qb, scale_a, scale_b, True), reference)
                for bits, mode in models:
                    samples[(bits, mode)] = relative_error(
                        chunked_accumulation(qa.double(), qb.double(), bits, mode), reference)
                for key, value in samples.items():
                    columns.setdefault(key, []).append(value)
            median = {key: sorted(v)[len(v) // 2] for key, v in columns.items()}
            if median["emulated"] > 1e-5:
                failures.append(f"{distribution} K={k}: fp32 emulation off fp64 by {median['emulated']:.2e}")
            row = [distribution, str(k), f"{median['emulated']:.2e}"]
            if hardware:
                row += [f"{median['hw']:.2e}", f"{median['hw fast']:.2e}"]
                for path in ("hw", "hw fast"):
                    # Distance on a log scale: the model whose error is the same order.
                    best = min(models, key=lambda key: abs(math.log(median[key] / max(median[path], 1e-30))))
                    closest.setdefault(path, []).append((distribution, k, best))
            row += [f"{median[key]:.2e}" for key in models]
            print("| " + " | ".join(row) + " |")
    for path, picks in closest.items():
        print(f"closest accumulator model to {path}: " +
              ", ".join(f"{d} K={k}: {b} bits {m}" for d, k, (b, m) in picks))
    if failures:
        for failure in failures:
            print(f"FAILED: {failure}")
        sys.exit(1)
    print("checks passed")


if __name__ == "__main__":
    main()
