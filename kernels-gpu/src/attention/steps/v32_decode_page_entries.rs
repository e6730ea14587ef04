//! Decode step ad5 (issue 49): ad2 on a paged cache with each warp's table entries read once, one a lane,
//! together with the sequence's length.
//!
//! ad2's paged key loop reads tile i's page from the block table just before the tile's copies, so at the
//! start three round trips run one after the other — the length (which sets the warp's tile count), the
//! first tiles' table entries, their rows — and every later copy waits for its own entry. A split's keys
//! start at a fixed key (`split · chunk`), so the pages of a warp's tiles do not depend on the length:
//! ad5 (`decode_body.rs`, `LANES`) has lane l read the entry of the warp's tile l right after the PDL wait,
//! beside the length, and the copies take it by a shuffle. Its own entry, as ad2p's read-ahead is: a
//! run-time branch in the shared key loop cost the contiguous loops 5–6% (session 71). The library runs it
//! for paged caches where it would run ad2 (or ad1 with one split) after the previous grid
//! (`CacheReady::AfterPrevious`) and a split walks at most `DECODE_LANES_MAX_KEYS` (2048) keys (a warp at most
//! 32 tiles); ad2p keeps the longer walks.
//!
//! Why (session 71, bf16, `kernel-lab decode`, 3 processes): paged-16 against contiguous took 1.063–1.077×
//! the time at 1x32x8x4096x128 (16 splits of 256 keys), 1.112× at 1x32x8x32768x128 (32 of 1024), 1.10× at
//! D = 64, batch 1–2 (splits of 512): issue 49 asks ≥ 0.95× contiguous's speed. ad2p's read-ahead gained
//! nothing there (1.002–1.023×): it hides the entries of tiles after the first `stages − 1`, not the
//! start's chain, and each warp walks only 4–16 tiles.
//!
//! Prediction (before any run), H200, bf16, paged-16 against contiguous in the same process: 1x32x8x4096x128
//! 1.07 → ~1.01×, 1x32x8x32768x128 1.11 → ~1.03×, 1x32x8x8192x64 and 2x32x8x4096x64 1.10 → ~1.02×;
//! contiguous and the big-batch one-split shapes unchanged (ad1–ad3's PTX unchanged).
//!
//! Measured (H200, bf16, `results/2026-12-01-h200-session78` call 2, 3 processes alternating with the build
//! before, paged-16 against contiguous in the same process): **1x32x8x4096x128 1.055 → 1.011×** the time
//! (ad5 / ad2 0.960), **1x32x8x8192x64 1.102 → 1.047×** (0.955), **2x32x8x4096x64 1.098 → 1.042×** (0.952),
//! 1x32x8x2048x128 1.016 → 1.015×, 1x32x8x32768x128 only 1.106 → 1.092× (0.987); f16 1.00× / 1.04× at the
//! 4k shapes; contiguous and the ad2p shapes 1.000–1.005×. The D = 64 and 32k figures came out at half the
//! predicted gain or less: what is left there is not the lookups but the reads themselves — a 16-token page
//! holds a K/V head's rows as 2–4 KiB pieces 8 heads apart, where a contiguous cache streams each head's
//! rows end to end (at 32k, 82% of copy, the difference shows in full). GPU tests clean; memcheck, racecheck and
//! synccheck of ad5's launches clean (calls 2 and 6).
//! Calls 3–5: that 32k figure was the split, not the reads — with its lookups gone a paged CTA streams at
//! 0.98 of a contiguous one's rate (16 splits at 32k: 39.5 against 38.8 µs), where the paged split's cost still
//! took ad2's 0.87 and chose 32 splits. With ad5's own rate (`DECODE_PAGED_LANES_RATE`; 2048-key splits are
//! ad5's too) paged / contiguous is **1.005× at 16k and 1.024× at 32k** (was 1.122 and 1.106).
use super::decode_body::{decode, fused_decode_entries};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::{DecodeCache as Cache, DecodeDims as Dims};

fused_decode_entries! { "ad5", "As ad2's entry (`attn_decode2_d*`).", false, false, true;
    attn_decode5_d64_f16, F16, 64;
    attn_decode5_d96_f16, F16, 96;
    attn_decode5_d128_f16, F16, 128;
    attn_decode5_d256_f16, F16, 256;
    attn_decode5_d64_bf16, Bf16, 64;
    attn_decode5_d96_bf16, Bf16, 96;
    attn_decode5_d128_bf16, Bf16, 128;
    attn_decode5_d256_bf16, Bf16, 256;
}
