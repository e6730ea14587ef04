#![cfg(lab_sm90)]
//! Attention step a26 (Hopper): a19 made **persistent** — one CTA per SM walks the host's list of
//! (sequence, query tile, head) units, as a25 does at head dim 256 (`attention/units.rs`).
//!
//! Diff from a19 (the `VARLEN` and `PERSISTENT` branches of `attention/hopper.rs`, entry
//! `prefill_persistent`):
//! * The grid is `min(units, SMs)` CTAs; each takes the host's units (`prefill::persistent_units`: sorted
//!   by the key tiles they walk, most first) in snake rounds (`layout::attention::a25_unit`), and per unit
//!   its sequence's offsets, K/V head and causal offset (`UnitWalk`).
//! * a12's persistent machinery: the K/V ring runs on across units (the producer streams the next unit's
//!   first tiles while the consumers finish this one), Q behind its empty barrier; a12's smem.
//! * The epilogue takes the unit's sequence from the walk (a19 reads block z again).
//!
//! Prediction (before any run), H200, bf16, 32/8 heads, D = 128, against a19 in the same process: a19
//! ran 0.93–0.97× the persistent fixed-length a12/a15 without the mask and 0.89–0.95× with it; a25 gained
//! 1.01–1.06× over a24 without the mask and 0.98–1.08× causal (1.41× where a24 left a second wave). So
//! **1.02–1.06× a19 without the mask, 1.03–1.10× causal at L ≥ 4096; 1.1–1.3× at 1×32×8×2048 causal**
//! (256 CTAs of unequal work); ~0.90–0.95× cuDNN.
//!
//! Measured (H200, bf16, `results/2026-11-30-h200-session63` call 6, median of 3 processes, a19 interleaved
//! in the same process, cuDNN by torch sustained for 1 s a shape after each): **1.016–1.034× a19 without the
//! mask, 1.060–1.231× causal** (1.068–1.118× at L ≥ 4096, 1.231× at 1×32×8×2048); against cuDNN 0.995× /
//! 1.015× without the mask and **1.106× / 1.099× causal** at 1×32×8×4096 / 8192 × 128, 0.91–0.94× without the
//! mask at 2048 tokens and at D = 64, 0.95–1.10× causal there. The causal gain is a19's tail: its grid ran
//! each sequence's tiles longest first but head after head, so the last heads' long tiles started late.
//! ptxas: 8 bytes of spill at D = 128, 4 at D = 64 (`bench/tests/ptxas.rs` says why); a19 has none.
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a26's choices: a19's (a9 pipelined, lazy rescaling), persistent over the host's units.
const A26: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: false, persistent: true, cluster: 1, varlen: true };

hopper_entry!(attn_a26_d64_f16, F16, 64, A26, varlen_persistent);
hopper_entry!(attn_a26_d128_f16, F16, 128, A26, varlen_persistent);
hopper_entry!(attn_a26_d64_bf16, Bf16, 64, A26, varlen_persistent);
hopper_entry!(attn_a26_d128_bf16, Bf16, 128, A26, varlen_persistent);
