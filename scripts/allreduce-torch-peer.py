#!/usr/bin/env python3
"""NCCL's all-reduce through torch.distributed (one process per GPU), at the sizes `kernel-lab allreduce`
times: the peer of issue 52's table. Each size: 7 rounds, each the mean per call over K back-to-back
calls (CUDA events on rank 0, after a barrier), the median round reported with its algorithm and bus
bandwidth. NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and the torch/NVSHMEM switches, set before
the workers start).

usage: allreduce-torch-peer.py [--gpus N] [--sizes 8K,64K,...] [--dtype bf16|f16|f32] [--out FILE]"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_common import import_torch, write_lines  # noqa: E402

DEFAULT_SIZES = "8K,16K,32K,64K,128K,256K,512K,1M,4M,16M,64M,256M,1G"
for k, v in {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}.items():
    os.environ[k] = v


def parse_bytes(s):
    s = s.strip()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1].upper(), 1)
    return int(s[:-1] if mult > 1 else s) * mult


def worker(rank, world, sizes, dtype_name, port, out):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dtype_name]
    esize = torch.tensor([], dtype=dtype).element_size()
    lines = [f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, {world} x {torch.cuda.get_device_name(rank)}, {dtype_name}",
             "", "| bytes | torch NCCL µs | algbw GB/s | busbw GB/s | rounds µs |", "|---|---|---|---|---|"]
    if rank == 0:
        print(lines[0], file=sys.stderr, flush=True)
    for size in sizes:
        n = size // esize
        x = torch.full((n,), float(rank + 1), dtype=dtype, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        # Exact check once: the sum of 1..world (small integers, exact in every type here).
        y = torch.full((n,), float(rank + 1), dtype=dtype, device="cuda")
        dist.all_reduce(y)
        want = world * (world + 1) / 2
        ok = bool((y == want).all().item())
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        dist.barrier()
        s.record()
        dist.all_reduce(x)
        e.record()
        torch.cuda.synchronize()
        # Every rank must make the same number of calls: the slowest rank's probe sets K for all.
        probe = torch.tensor([s.elapsed_time(e)], device="cuda")
        dist.all_reduce(probe, op=dist.ReduceOp.MAX)
        k = max(3, min(200, int(5.0 / max(probe.item(), 1e-3))))
        rounds = []
        for _ in range(7):
            dist.barrier()
            torch.cuda.synchronize()
            s.record()
            for _ in range(k):
                dist.all_reduce(x)
            e.record()
            torch.cuda.synchronize()
            rounds.append(s.elapsed_time(e) / k)
        # The slowest rank's rounds (as kernel-lab takes the slowest rank).
        t = torch.tensor(rounds, device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        rounds = t.tolist()
        ms = statistics.median(rounds)
        algbw = size / (ms * 1e6)
        busbw = algbw * 2 * (world - 1) / world
        if rank == 0:
            print(f"  {size} bytes: {ms * 1e3:.1f} µs", file=sys.stderr, flush=True)
            lines.append(f"| {size} | {ms * 1e3:.1f} | {algbw:.1f} | {busbw:.1f} | {' '.join(f'{r * 1e3:.1f}' for r in rounds)} |"
                         + ("" if ok else " WRONG SUM"))
    if rank == 0:
        print("\n".join(lines))
        write_lines(out, lines)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpus", type=int)
    ap.add_argument("--sizes", default=DEFAULT_SIZES)
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "f16", "f32"])
    ap.add_argument("--port", type=int, default=29533)
    ap.add_argument("--out")
    a = ap.parse_args()
    got = import_torch()
    if got is None:
        return 2
    torch, _ = got
    world = a.gpus or torch.cuda.device_count()
    if world < 2:
        print(f"note: {world} GPU: NCCL's all-reduce over one rank is a copy, not a link measurement", file=sys.stderr)
    sizes = [parse_bytes(s) for s in a.sizes.split(",")]
    torch.multiprocessing.spawn(worker, args=(world, sizes, a.dtype, a.port, a.out), nprocs=world, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
