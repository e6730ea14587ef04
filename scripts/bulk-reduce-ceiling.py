#!/usr/bin/env python3
"""The L2's f32 reduce rate, measured (issue 50: what b4's dQ reduction can reach).

b4 adds each tile's dQ (64 x D f32, 32 KiB at D = 128 a CTA and tile) into an accumulator with the TMA's bulk
reduce. This measures how fast an H100/H200 takes such reduces when nothing else runs: every program adds a
64 x 128 f32 block of ones into an L2-resident accumulator, `ITERS` blocks one after another, through a
tensor descriptor (`cp.reduce.async.bulk.tensor ... .add.f32`, Triton's `desc.atomic_add`), and for
comparison through `tl.atomic_add` (`red.global.add.f32`). The accumulator is checked afterwards (every
element must equal the number of adds it got). Reported: bytes reduced per second (4 bytes an f32 add),
median of `--reps` timings.

    python3 scripts/bulk-reduce-ceiling.py [--out FILE.md]
"""
import argparse
import statistics

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

ROWS, COLS = 64, 128


@triton.jit
def bulk_add(desc, n_tiles, iters, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.full([ROWS, COLS], 1.0, tl.float32)
    for i in range(iters):
        t = (pid * stride + i) % n_tiles
        desc.atomic_add([t * ROWS, 0], x)


@triton.jit
def red_add(acc, n_tiles, iters, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.full([ROWS, COLS], 1.0, tl.float32)
    r = tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    for i in range(iters):
        t = (pid * stride + i) % n_tiles
        tl.atomic_add(acc + (t * ROWS + r) * COLS + c, x, sem="relaxed")


def expected(n_tiles, programs, iters, stride):
    counts = torch.zeros(n_tiles, dtype=torch.float64)
    for p in range(programs):
        for i in range(iters):
            counts[(p * stride + i) % n_tiles] += 1
    return counts


def run(kind, n_tiles, programs, iters, warps, reps):
    acc = torch.empty(n_tiles * ROWS, COLS, device="cuda", dtype=torch.float32)
    stride = 7 if n_tiles > 7 else 1
    desc = TensorDescriptor.from_tensor(acc, block_shape=[ROWS, COLS])

    def launch():
        if kind == "bulk":
            bulk_add[(programs,)](desc, n_tiles, iters, stride, ROWS, COLS, num_warps=warps)
        else:
            red_add[(programs,)](acc, n_tiles, iters, stride, ROWS, COLS, num_warps=warps)

    acc.zero_()
    launch()
    torch.cuda.synchronize()
    want = expected(n_tiles, programs, iters, stride).to(acc.device, torch.float32)
    got = acc.view(n_tiles, ROWS * COLS)
    ok = bool(torch.equal(got, want[:, None].expand_as(got)))
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        launch()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1e-3)
    t = statistics.median(times)
    return ok, programs * iters * ROWS * COLS * 4 / t / 1e12, t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    lines = [f"# f32 reduces into the L2 ({torch.cuda.get_device_name(0)}, {sms} SMs, triton {triton.__version__})", "",
             "| form | accumulator | programs | warps | iters | ok | TB/s | ms |", "|---|---|---|---|---|---|---|---|"]
    for kind in ("bulk", "red"):
        for n_tiles in (512, 64):
            for per_sm in (1, 2, 4):
                for warps in (4,):
                    programs = sms * per_sm
                    iters = 256 // per_sm
                    ok, tbs, t = run(kind, n_tiles, programs, iters, warps, a.reps)
                    row = f"| {kind} | {n_tiles} tiles ({n_tiles * ROWS * COLS * 4 >> 20} MiB) | {programs} | {warps} | {iters} | {ok} | {tbs:.2f} | {t * 1e3:.3f} |"
                    print(row, flush=True)
                    lines.append(row)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
