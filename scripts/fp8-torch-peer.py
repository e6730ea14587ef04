#!/usr/bin/env python3
"""Times torch._scaled_mm on FP8 e4m3 inputs: the PyTorch peer of the lab's cuBLASLt FP8 baseline.

usage: python3 scripts/fp8-torch-peer.py [--shapes 4096x4096x4096,8192x8192x8192] [--warmup 10] [--reps 50]
                                         [--no-block] [--out peer.md]

Shapes are MxNxK, as in the Rust suite: A is M x K e4m3 (row-major), B is stored N x K e4m3 (K-major,
"weights as N x K") and handed to torch as b.t(), the column-major K x N operand torch._scaled_mm wants;
D = A . B^T is M x N bf16. For every shape:
  - per-tensor scaling (one f32 scale per matrix, = 1), use_fast_accum False and True;
  - unless --no-block: DeepGEMM-style block scaling (A: one f32 per 1 x 128 segment along K, B: one per
    128 x 128 block), if this torch accepts it (torch >= 2.8 on sm_90 with cuBLAS >= 12.9): tried with
    B's scales K-block-major as is, then padded to a multiple of 4 K blocks (two shapes older torch took);
    the table shows the timing or the exception text.
Timing: CUDA events around each call, --warmup untimed calls, then --reps timed ones; the median is
reported, with TFLOP/s = 2 M N K / time. A failing shape or mode prints its error in the table and the
script goes on. Needs only torch and a CUDA GPU.
"""
import argparse
import ctypes
import datetime
import glob
import math
import os
import statistics
import sys
import traceback

DEFAULT_SHAPES = "4096x4096x4096,8192x8192x8192,2048x8192x8192,4096x4096x11008,4096x28672x8192,8192x8192x28672"


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        parts = item.split("x")
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise SystemExit(f"bad shape {item!r}: expected MxNxK with positive integers, e.g. 4096x4096x4096")
        shapes.append(tuple(int(p) for p in parts))
    return shapes


def cell(text, limit=300):
    """One line of text for a Markdown table cell."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cublaslt_version(torch):
    """cublasLtGetVersion() of the libcublasLt torch loaded (best effort), as 'major.minor.patch (raw)'."""
    candidates = ["libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", "libcublasLt.so"]
    for base in sys.path + [os.path.dirname(torch.__file__)]:
        candidates += sorted(glob.glob(os.path.join(base, "nvidia", "cu*", "lib", "libcublasLt.so*")))
        candidates += sorted(glob.glob(os.path.join(base, "nvidia", "cublas", "lib", "libcublasLt.so*")))
        candidates += sorted(glob.glob(os.path.join(base, "lib", "libcublasLt.so*")))
    errors = []
    for name in candidates:
        try:
            lib = ctypes.CDLL(name)
            fn = lib.cublasLtGetVersion
            fn.restype = ctypes.c_size_t
            v = int(fn())
            return f"{v // 10000}.{v // 100 % 100}.{v % 100} ({v}, {name})"
        except (OSError, AttributeError) as e:
            errors.append(str(e))
    return f"unknown (no libcublasLt found: {errors[-1] if errors else 'no candidates'})"


def time_ms(torch, fn, warmup, reps):
    """Median milliseconds of fn() over reps calls, each between two CUDA events, after warmup calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default=DEFAULT_SHAPES, help=f"comma-separated MxNxK (default {DEFAULT_SHAPES})")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--no-block", action="store_true", help="skip the block-scaled attempts")
    ap.add_argument("--out", help="also write the Markdown to this file")
    args = ap.parse_args()
    shapes = parse_shapes(args.shapes)

    import torch

    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device visible to torch")
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    e4m3 = torch.float8_e4m3fn

    # One small call first, so torch has loaded libcublasLt before its version is read.
    try:
        x = torch.zeros(16, 16, device=dev).to(e4m3)
        one = torch.ones((), device=dev, dtype=torch.float32)
        torch._scaled_mm(x, x.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        torch.cuda.synchronize()
        warm_err = None
    except Exception as e:  # noqa: BLE001 -- reported in the header
        warm_err = cell(f"{type(e).__name__}: {e}")

    lines = [
        "# torch._scaled_mm FP8 e4m3 peer",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- GPU: {props.name}, sm_{props.major}{props.minor}, {props.multi_processor_count} SMs",
        f"- torch {torch.__version__}, CUDA {torch.version.cuda}, cuBLASLt {cublaslt_version(torch)}",
        f"- timing: {args.warmup} warm-up calls, median of {args.reps} timed calls (CUDA events around each); "
        "TFLOP/s = 2·M·N·K / time",
        "- A: M×K e4m3 row-major; B: N×K e4m3 row-major passed as b.t() (column-major K×N); out bf16",
    ]
    if warm_err:
        lines.append(f"- warm-up call (16×16×16 per-tensor) failed: {warm_err}")
    lines += ["", "| M×N×K | scaling | fast_accum | median ms | TFLOP/s | note |", "|---|---|---|---:|---:|---|"]
    print("\n".join(lines), flush=True)

    def row(shape, scaling, fast, ms=None, note=""):
        m, n, k = shape
        if ms is None:
            r = f"| {m}x{n}x{k} | {scaling} | {fast} | - | - | {cell(note)} |"
        else:
            tflops = 2.0 * m * n * k / (ms * 1e-3) / 1e12
            r = f"| {m}x{n}x{k} | {scaling} | {fast} | {ms:.4f} | {tflops:.1f} | {cell(note)} |"
        lines.append(r)
        print(r, flush=True)

    for shape in shapes:
        m, n, k = shape
        a = b = None
        try:
            torch.manual_seed(0)
            # Values within e4m3's range (|x| <= 448); random signs, so the sums do not overflow bf16.
            a = torch.randn(m, k, device=dev, dtype=torch.bfloat16).to(e4m3)
            b = torch.randn(n, k, device=dev, dtype=torch.bfloat16).to(e4m3)
        except Exception as e:  # noqa: BLE001 -- one failed shape does not stop the others
            row(shape, "-", "-", note=f"allocating the inputs failed: {type(e).__name__}: {e}")
            a = b = None
            torch.cuda.empty_cache()
            continue

        one = torch.ones((), device=dev, dtype=torch.float32)
        for fast in (False, True):
            try:
                ms = time_ms(torch, lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                                             use_fast_accum=fast), args.warmup, args.reps)
                row(shape, "per-tensor", fast, ms)
            except Exception as e:  # noqa: BLE001
                row(shape, "per-tensor", fast, note=f"{type(e).__name__}: {e}")

        if not args.no_block:
            kb = math.ceil(k / 128)
            nb = math.ceil(n / 128)
            kb4 = (kb + 3) // 4 * 4
            # A's 1x128 scales: shape (M, ceil(K/128)), "outer-dim-major" (stride (1, M)).
            sa = torch.ones(kb, m, device=dev, dtype=torch.float32).t()
            # B's 128x128 scales, for torch's mat2 = b.t() (K x N): shape (L, ceil(N/128)) with L = ceil(K/128),
            # each N block's K blocks contiguous (what torch 2.9+ checks); older torch wanted the K blocks padded
            # to L4 = round_up(L, 4) (cuBLAS's layout), as a strided (L, N/128) view or the full (L4, N/128).
            variants = [("unpadded", torch.ones(nb, kb, device=dev, dtype=torch.float32).t())]
            if kb4 != kb:
                padded = torch.ones(nb, kb4, device=dev, dtype=torch.float32)
                variants.append(("K blocks padded to 4, shape (L, N/128)", padded[:, :kb].t()))
                variants.append(("K blocks padded to 4, shape (L4, N/128)", padded.t()))
            for fast in (False, True):
                errors = []
                for label, sb in variants:
                    try:
                        ms = time_ms(torch, lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                                                                     use_fast_accum=fast), args.warmup, args.reps)
                        row(shape, "block 1x128 / 128x128", fast, ms, note=f"B's scales {label}")
                        break
                    except Exception as e:  # noqa: BLE001
                        errors.append(f"[{label}] {type(e).__name__}: {e}")
                else:
                    row(shape, "block 1x128 / 128x128", fast, note="; ".join(errors))
        a = b = None
        torch.cuda.empty_cache()

    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception:  # noqa: BLE001 -- an unexpected failure still says where
        traceback.print_exc()
        sys.exit(1)
