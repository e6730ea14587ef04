"""What the torch peer scripts share: importing torch (and transformers) with a GPU or saying why not, and
timing a callable with CUDA events."""
import statistics
import sys


def import_torch(transformers=False):
    """(torch, transformers or None), or None after printing why (no torch, no transformers, no GPU)."""
    try:
        import torch
        tf = __import__("transformers") if transformers else None
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print("error: no CUDA GPU", file=sys.stderr)
        return None
    return torch, tf


def median_ms(torch, fn, reps, warmup=3):
    """The median of `reps` CUDA-event times of `fn()` in ms, after `warmup` untimed calls."""
    for _ in range(warmup):
        fn()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for s, e in ev:
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in ev)


def sdpa_backends():
    """torch.nn.attention's sdpa_kernel and its backends by the names the peer scripts take (cudnn, flash,
    efficient)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    return sdpa_kernel, {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION}


def write_lines(path, lines):
    """The table's lines to `path`, one per line; nothing when `path` is None."""
    if path:
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
