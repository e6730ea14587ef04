#!/usr/bin/env python3
"""Times torch.nn.functional.scaled_dot_product_attention (forward): the PyTorch peer of the lab's attention kernels.

usage: python3 scripts/attention-torch-peer.py [--shapes 4x16x4096x64,1x16x16384x128] [--causal both|0|1]
                                               [--dtype f16|bf16|both] [--warmup 5] [--reps 20] [--sustain-ms 0]
                                               [--backends flash,cudnn,efficient] [--dist normal|uniform] [--idle-ms 0]
                                               [--out peer.md]

Shapes are BxHxLxD (batch, heads, sequence length, head dim). q, k, v are torch.randn(B, H, L, D) on the GPU,
contiguous, the layout of the Rust side's [B*H][L][D]; self-attention, so L is both the query and the key length.
With --dist uniform they are uniform in [-1, 1) instead, as the Rust side's device RNG draws them (a kernel's power
draw, and so its clock under the power limit, can depend on the operands' bits). --backends picks backends.
--idle-ms N sleeps N ms before each backend's timing: with the default short timing, a burst from an idle card
(the Rust suite's --attn-solo --attn-idle-ms N does the same for its steps).
For every shape x causal x dtype, SDPA is timed under each backend on its own, forced with
torch.nn.attention.sdpa_kernel: FLASH_ATTENTION, then CUDNN_ATTENTION, then EFFICIENT_ATTENTION. A backend that
raises (not built in, not supported for the shape/dtype/GPU, out of memory, ...) gets the first line of the
exception in its row's note, and the script goes on.
Timing: CUDA events around each call, --warmup untimed calls, then --reps timed ones; the median is reported,
with TFLOP/s = 4 B H L^2 D / time, halved when causal (the FlashAttention convention). With --sustain-ms S > 0
the warm-up lasts at least S/2 ms of calls and the timed calls at least S ms (at least --reps of them), as the
Rust suite's timing does (a settle block, then about a second per measurement): a short burst runs at the
clock an idle card boosts to, a sustained one at the clock the power limit allows. The SM clock read after
the timed calls (pynvml, when installed) goes in the row's note. Needs only torch and a
CUDA GPU; exits 2 if either is missing, 0 otherwise.
"""
import argparse
import datetime
import sys
import time
import traceback
import warnings

from peer_common import median_ms

DEFAULT_SHAPES = "4x16x4096x64,4x16x4096x128,1x16x16384x64,1x16x16384x128"
BACKEND_NAMES = ("FLASH_ATTENTION", "CUDNN_ATTENTION", "EFFICIENT_ATTENTION")


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        item = item.strip().lower().replace("×", "x")
        if not item:
            continue
        parts = item.split("x")
        if len(parts) != 4 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise SystemExit(f"bad shape {item!r}: expected BxHxLxD with positive integers, e.g. 4x16x4096x64")
        shapes.append(tuple(int(p) for p in parts))
    if not shapes:
        raise SystemExit("no shapes given")
    return shapes


def cell(text, limit=300):
    """One line of text for a Markdown table cell."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_line(e):
    """'Type: first line of the message' of an exception."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__


def time_ms(torch, fn, warmup, reps, sustain_ms=0.0):
    """Median milliseconds of fn() over reps calls, each between two CUDA events, after warmup calls; with
    sustain_ms > 0, warm-up and timed calls stretched to at least sustain_ms / 2 and sustain_ms
    (`peer_common.median_ms`)."""
    return median_ms(torch, fn, reps, warmup, sustain_ms)


def sm_clock(torch):
    """'SM <MHz> MHz' read now through pynvml (torch.cuda.clock_rate), or '' where that is unavailable."""
    try:
        return f"SM {torch.cuda.clock_rate()} MHz"
    except Exception:  # noqa: BLE001 -- pynvml missing or unsupported: no note
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default=DEFAULT_SHAPES, help=f"comma-separated BxHxLxD (default {DEFAULT_SHAPES})")
    ap.add_argument("--causal", choices=("both", "0", "1"), default="both", help="non-causal (0), causal (1) or both")
    ap.add_argument("--dtype", choices=("f16", "bf16", "both"), default="f16")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--sustain-ms", type=float, default=0.0, help="stretch warm-up and timing to this many ms (0: off)")
    ap.add_argument("--idle-ms", type=float, default=0.0, help="leave the GPU idle this long before each backend's timing (0: off)")
    ap.add_argument("--backends", default="flash,cudnn,efficient", help="comma-separated: flash, cudnn, efficient")
    ap.add_argument("--dist", choices=("normal", "uniform"), default="normal", help="q, k, v: torch.randn or uniform in [-1, 1)")
    ap.add_argument("--out", help="also write the Markdown to this file")
    args = ap.parse_args()
    shapes = parse_shapes(args.shapes)
    if args.warmup < 0 or args.reps < 1 or not args.sustain_ms >= 0:
        raise SystemExit("--warmup and --sustain-ms must be >= 0 and --reps >= 1")
    causals = {"both": (False, True), "0": (False,), "1": (True,)}[args.causal]
    short = {"flash": "FLASH_ATTENTION", "cudnn": "CUDNN_ATTENTION", "efficient": "EFFICIENT_ATTENTION"}
    wanted = [short.get(b.strip().lower()) for b in args.backends.split(",") if b.strip()]
    if not wanted or None in wanted:
        raise SystemExit(f"--backends {args.backends!r}: expected a comma-separated list of flash, cudnn, efficient")

    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001 -- no torch: say so, exit 2
        print(f"error: cannot import torch ({first_line(e)}); this script needs PyTorch with CUDA", file=sys.stderr)
        sys.exit(2)
    try:
        cuda_ok = torch.cuda.is_available() and torch.cuda.device_count() > 0
    except Exception:  # noqa: BLE001
        cuda_ok = False
    if not cuda_ok:
        print(f"error: torch {torch.__version__} sees no CUDA device (torch.version.cuda = {torch.version.cuda})",
              file=sys.stderr)
        sys.exit(2)

    dtypes = {"f16": [("f16", torch.float16)], "bf16": [("bf16", torch.bfloat16)],
              "both": [("f16", torch.float16), ("bf16", torch.bfloat16)]}[args.dtype]

    # Backends: (name, SDPBackend member or None, why not).
    sdpa_kernel = None
    import_err = None
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception as e:  # noqa: BLE001 -- old torch: every row says so
        import_err = f"torch.nn.attention.sdpa_kernel unavailable: {first_line(e)}"
        SDPBackend = None
    backends = []
    for name in [n for n in BACKEND_NAMES if n in wanted]:
        member = getattr(SDPBackend, name, None) if SDPBackend is not None else None
        why = import_err if SDPBackend is None else (None if member is not None else f"SDPBackend.{name} not in this torch")
        backends.append((name, member, why))

    dev = torch.device("cuda")
    try:
        props = torch.cuda.get_device_properties(dev)
        gpu = f"{props.name}, sm_{props.major}{props.minor}, {props.multi_processor_count} SMs, " \
              f"{props.total_memory / 2**30:.0f} GiB"
    except Exception as e:  # noqa: BLE001
        gpu = f"unknown ({first_line(e)})"
    try:
        cudnn = torch.backends.cudnn.version()
    except Exception as e:  # noqa: BLE001
        cudnn = f"unknown ({first_line(e)})"

    lines = [
        "# torch scaled_dot_product_attention forward peer",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- GPU: {gpu}",
        f"- torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {cudnn}",
        f"- timing: {args.warmup} warm-up calls, median of {args.reps} timed calls (CUDA events around each)"
        + (f", both stretched to at least {args.sustain_ms / 2:.0f} / {args.sustain_ms:.0f} ms (sustained)" if args.sustain_ms > 0 else "")
        + "; TFLOP/s = 4·B·H·L²·D / time, halved when causal",
        f"- q, k, v: {'torch.randn' if args.dist == 'normal' else 'uniform in [-1, 1)'} (B, H, L, D) contiguous ([B·H][L][D]); "
        "F.scaled_dot_product_attention(q, k, v, is_causal=causal) under sdpa_kernel(<one backend>)",
        "",
        "| B×H×L×D | causal | dtype | backend | median ms | TFLOP/s | note |",
        "|---|---|---|---|---:|---:|---|",
    ]
    print("\n".join(lines), flush=True)

    def row(shape, causal, dname, backend, ms=None, note=""):
        b, h, l, d = shape
        label = f"{b}x{h}x{l}x{d}"
        c = 1 if causal else 0
        if ms is None:
            r = f"| {label} | {c} | {dname} | {backend} | - | - | {cell(note)} |"
        else:
            flops = 4.0 * b * h * l * l * d / (2.0 if causal else 1.0)
            tflops = flops / (ms * 1e-3) / 1e12
            r = f"| {label} | {c} | {dname} | {backend} | {ms:.4f} | {tflops:.1f} | {cell(note)} |"
        lines.append(r)
        print(r, flush=True)

    def settle():
        """After a failure: let pending work finish (errors ignored) and give cached memory back."""
        try:
            torch.cuda.synchronize()
        except Exception:  # noqa: BLE001
            pass
        try:
            torch.cuda.empty_cache()
        except Exception:  # noqa: BLE001
            pass

    for shape in shapes:
        b, h, l, d = shape
        for causal in causals:
            for dname, dtype in dtypes:
                q = k = v = None
                try:
                    torch.manual_seed(0)
                    draw = (lambda: torch.randn(b, h, l, d, device=dev, dtype=dtype)) if args.dist == "normal" else \
                        (lambda: torch.rand(b, h, l, d, device=dev, dtype=torch.float32).mul_(2).sub_(1).to(dtype))
                    q, k, v = draw(), draw(), draw()
                except Exception as e:  # noqa: BLE001 -- one failed shape does not stop the others
                    q = k = v = None
                    settle()
                    for name, _, _ in backends:
                        row(shape, causal, dname, name, note=f"allocating q, k, v failed: {first_line(e)}")
                    continue

                for name, member, why in backends:
                    if member is None:
                        row(shape, causal, dname, name, note=why)
                        continue

                    def call(member=member, causal=causal):
                        with sdpa_kernel(member):
                            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        try:
                            if args.idle_ms > 0:
                                torch.cuda.synchronize()
                                time.sleep(args.idle_ms / 1000)
                            ms = time_ms(torch, call, args.warmup, args.reps, args.sustain_ms)
                            row(shape, causal, dname, name, ms, note=sm_clock(torch))
                        except Exception as e:  # noqa: BLE001 -- the reason goes in the note
                            note = first_line(e)
                            # "No available kernel" comes with UserWarnings that say why; keep the first one.
                            reasons = [first_line(w.message).split(": ", 1)[-1] for w in caught
                                       if str(w.message).strip()]
                            if reasons:
                                note += f" (warning: {reasons[0]})"
                            row(shape, causal, dname, name, note=note)
                            settle()
                del q, k, v
                torch.cuda.empty_cache()

    if args.out:
        try:
            with open(args.out, "w") as f:
                f.write("\n".join(lines) + "\n")
        except OSError as e:
            print(f"warning: could not write {args.out}: {first_line(e)}", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception:  # noqa: BLE001 -- an unexpected failure still says where
        traceback.print_exc()
        sys.exit(1)
