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


def median_ms(torch, fn, reps, warmup=3, sustain_ms=0.0):
    """The median of `reps` CUDA-event times of `fn()` in ms, after `warmup` untimed calls; with
    sustain_ms > 0, the warm-up and the timed calls stretched to at least sustain_ms / 2 and sustain_ms, so
    the card runs at the clock its power limit allows (the Rust side's interleaved timing) rather than an
    idle card's boost."""
    if sustain_ms > 0:
        # The probe that sizes the loops times 5 calls after 3 untimed ones: a backend's first call builds
        # its plan (cuDNN: tens of ms), and a probe of that call alone sized the "sustained" loops to a few
        # dozen calls — a short burst at an idle card's clock (sessions 12–21; found in session 22 from
        # the power log: ~130 W during cuDNN's "sustained" timing, 690 W during ours).
        for _ in range(3):
            fn()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            fn()
        end.record()
        torch.cuda.synchronize()
        probe = max(start.elapsed_time(end) / 5, 1e-3)
        warmup = max(warmup, int(sustain_ms / 2 / probe) + 1)
        reps = max(reps, int(sustain_ms / probe) + 1)
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
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
