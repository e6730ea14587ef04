#![cfg(lab_sm90)]
//! Attention step a9 (Hopper): a7 with **the exponentials no longer waiting for the row max, and O
//! rescaled only when the max moves** (FlashAttention-4's lazy rescaling, on Hopper).
//!
//! In a7 every tile's softmax is a chain: row max (64 FMNMX, two quad shuffles) → correction →
//! 64 exponentials → P packed after P·V of the previous tile retired → O × correction (64 FMUL at
//! D = 128). A diagnostic build (results `call4-diag-no-softmax`) measured what the chain costs: a7
//! with the max removed (exponentials against a constant) ran in 0.93× the time at D = 128 and
//! 0.84× at D = 64; with no softmax at all the tensor pipe was 88% busy instead of 68%.
//!
//! a9 breaks the chain. Each tile is exponentiated against the running max as it stands; the new
//! tile's max is computed beside the exponentials, not before them. Only if a row's max exceeds the
//! running one by more than 8 (base 2: P ≤ 256, inside f16's range) does the warp move the max for
//! those rows and exponentiate that tile again from the raw scores (the first tiles, rarely after).
//! Otherwise the correction is exactly 1 and O is not touched. The result is the same softmax: the
//! running max is only the reference point of the exponentials, and O and the sums share it.
//!
//! Diff from a7 (a `LAZY` branch in `attention/hopper.rs`): `Softmax::tile_lazy` (exponentials and
//! packing in one pass that leaves S intact, a warp vote on the rare jump), P packed during the
//! softmax into a second register set — P·V of the previous tile still reads the first, so the loop
//! runs two tiles per turn and swaps them — and O rescaled behind a branch. New primitive:
//! `nvptx_std::warp::vote_any`.
//!
//! Prediction (before the run, from the diagnostic): **1.05–1.10× a7 at D = 128, 1.10–1.18× at
//! D = 64** — less than removing the max entirely, since the FMNMX still issue.
//!
//! Measured (H100, `results/2026-11-23-h100-session11/call5-a9`): **1.02–1.04× a7 at D = 128** (610
//! TFLOP/s at 1×16×16384×128, 0.97× cuDNN) and **0.98–1.00× at D = 64** — short at D = 128, wrong at
//! D = 64, where the 64 exponentials per tile and warp (MUFU, 8 cycles each per warp) last as long as
//! the GEMMs that hide them, whatever waits for the max. The loop lost the rescale's FMULs (68 → 4 per
//! tile and warp). Verified: tests (with a planted late jump of the max, past f32's exponential range),
//! `--check`, compute-sanitizer 0/0/0, no spills, no C75xx. After the S accumulators stopped being
//! zeroed each tile (`call7`) a9 measured 1.01–1.06× a7 at D = 64 as well; a10 builds on it.
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a9's choices: a7's, with the lazy rescaling softmax.
const A9: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: false, persistent: false, cluster: 1, varlen: false };

hopper_entry!(attn_a9_d64_f16, F16, 64, A9);
hopper_entry!(attn_a9_d128_f16, F16, 128, A9);
hopper_entry!(attn_a9_d64_bf16, Bf16, 64, A9);
hopper_entry!(attn_a9_d128_bf16, Bf16, 128, A9);
