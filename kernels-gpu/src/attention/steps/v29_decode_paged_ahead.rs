//! Decode step ad2p (issue 49): ad2 on a paged cache with each tile's table entry read one tile ahead.
//!
//! ad2's key loop, paged, reads tile i's page from the block table and then issues the tile's copies: the
//! copies wait for that read. ad2p (`decode_body.rs`, `AHEAD`) reads tile i + stages' entry while tile i
//! computes and hands it to the copy one iteration later. Its own entry: session 71 made it a run-time
//! branch in the shared loop, and the contiguous one-split loops ran 5–6% slower (commit 8902db2); as a
//! const generic ad1–ad3 compile as before (their PTX is unchanged but for label numbers). The library runs
//! it for paged caches where it would run ad2 (or ad1 with one split) after the previous grid
//! (`CacheReady::AfterPrevious`) and a split walks more than `DECODE_LANES_MAX_KEYS` (2048) keys (session 78's
//! ad5 takes the shorter walks; from session 71 to 78 ad2p ran from 2048 keys on).
//!
//! Measured before it was its own entry (session 71, call 6, the branch in every step): paged
//! 16x16x8x8192x256 264.1 → 243.3 µs (0.921×), 16x32x8x4096x64 0.979×, 32x32x8x4096x128 0.991×; batch 1–2
//! 1.002–1.023× (no gain there). Prediction for this entry: the same paged figures, contiguous unchanged.
//! Measured (call 7, 3 processes, for every paged split): 16x16x8x8192x256 263.6 → 245.0 µs (0.929×; paged
//! now 0.980× contiguous), 16x32x8x4096x64 0.979× (0.956×), 1x32x8x4096x128 1.010× (a 256-key split: below
//! the threshold, ad2 there); contiguous 0.997–1.002×.
use super::decode_body::{decode, fused_decode_entries};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::{DecodeCache as Cache, DecodeDims as Dims};

fused_decode_entries! { "ad2p", "As ad2's entry (`attn_decode2_d*`).", false, true, false;
    attn_decode2p_d64_f16, F16, 64;
    attn_decode2p_d96_f16, F16, 96;
    attn_decode2p_d128_f16, F16, 128;
    attn_decode2p_d256_f16, F16, 256;
    attn_decode2p_d64_bf16, Bf16, 64;
    attn_decode2p_d96_bf16, Bf16, 96;
    attn_decode2p_d128_bf16, Bf16, 128;
    attn_decode2p_d256_bf16, Bf16, 256;
}
