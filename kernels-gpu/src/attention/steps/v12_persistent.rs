#![cfg(lab_sm90)]
//! Attention step a12 (Hopper): a9's body as a **persistent kernel**, one CTA per SM walking many
//! query tiles, its K/V ring running on from one query tile into the next.
//!
//! a6–a10 launch one CTA per 128-row query tile, and at 224 KiB of shared memory (D = 128) an SM
//! holds one: every tile pays a CTA's whole start and end with the tensor cores idle — launch,
//! barrier set-up, the first Q and K/V loads from memory, the first S and softmax with nothing to
//! overlap, the epilogue's stores. Session 11 measured what that costs: the same a9 ran at 0.92× its
//! L = 16384 speed at L = 4096 (32 key tiles per query tile instead of 128), about 3.8 key tiles'
//! time per query tile.
//!
//! a12 launches one CTA per SM (`layout::attention::a12_grid`). A CTA walks units `b, b + grid, …`; a
//! unit is a pair of query tiles of one head, the longest with the shortest (`qtiles − 1 − p`, then
//! `p`), so with the causal mask every unit is the same work and a static round-robin is balanced
//! (`hopper.rs`, `Walk`); with no more tiles than SMs, one CTA per tile as before. The
//! producer loads the next query tile's K/V into the ring as soon as stages free up — during the
//! current tile's last key tiles — and its Q as soon as every consumer warp released Q on a new
//! empty barrier, right after the tile's last S = QKᵀ retired; the consumers go from one tile's
//! epilogue straight to the next tile's S. One more kernel parameter, the heads (the walk needs it).
//!
//! Diff from a9 (in `attention/hopper.rs`): the `PERSISTENT` branch (`Walk`, the ring index
//! `it0 + j`, Q's empty barrier); the host launches the persistent grid (`Step::persistent`).
//!
//! Prediction (before the run): the per-tile overhead drops from ~3.8 to ~1.5–2 key tiles (the first
//! S and softmax of each tile and the epilogue stay exposed); at L = 4096 that is **1.04–1.07× a10
//! non-causal and 1.05–1.10× causal** (16.5 key tiles per query tile on average), at L = 16384
//! 1.00–1.02×. The static walk may lose at the tail where a10's hardware scheduler did not: the
//! 1024 units of the four shapes over 132 CTAs are 7.76 per CTA, so the last round is 76% full.
//!
//! Measured (H100, `results/2026-11-23-h100-session12/`, calls 1–3, each against a10 in the same call):
//! **L = 4096: D = 64 1.05–1.07× a10, causal 1.12–1.16×; D = 128 0.98–1.04×, causal 1.06–1.12×**;
//! L = 16384: D = 64 1.01–1.10×, D = 128 0.94–1.03× (a toss-up from call to call). The prediction held
//! for the causal shapes and D = 64 (better than predicted there), not for D = 128 without the mask,
//! where a9/a10 had already run at 0.96× their L = 16384 speed in these calls: little overhead to take.
//! Correct (tests: a12 equals a9 bit for bit on four shapes with 1–4 units per CTA, odd tile counts and
//! ragged lengths; `--check`; compute-sanitizer 0/0/0 on shapes with several units per CTA); ptxas: no
//! spill, no C75xx. Best Hopper step at 12 of the 16 shapes and types of call 3 (not at 16384×128); the default
//! on Hopper. What the next tile's first S could still gain was tried as a13 (README: slower).
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a12's choices: a9's, persistent (one CTA per SM walking query tiles).
const A12: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: false, persistent: true, cluster: 1, varlen: false };

hopper_entry!(attn_a12_d64_f16, F16, 64, A12, persistent);
hopper_entry!(attn_a12_d128_f16, F16, 128, A12, persistent);
hopper_entry!(attn_a12_d64_bf16, Bf16, 64, A12, persistent);
hopper_entry!(attn_a12_d128_bf16, Bf16, 128, A12, persistent);
