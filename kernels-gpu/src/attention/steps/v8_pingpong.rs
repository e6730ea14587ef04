#![cfg(lab_sm90)]
//! Attention step a8 (Hopper): a7 with the two consumer warpgroups **taking turns** at the tensor cores
//! (FlashAttention-3's "ping-pong" scheduling).
//!
//! In a7 each warpgroup overlaps its own softmax with its own `wgmma`s, but the two warpgroups issue
//! whenever they are ready, so both often wait for the tensor cores at once and then both
//! exponentiate at once. a8 orders them with two named barriers: a warpgroup waits for its turn
//! (`bar.sync`) before issuing a tile's `wgmma`s (S of the next tile and P·V of this one) and hands the
//! turn over (`bar.arrive`) right after, so one warpgroup's softmax runs under the other's GEMMs:
//!
//! ```text
//! wg 0:  [GEMMs j] softmax ........ [GEMMs j+1] softmax ........
//! wg 1:            [GEMMs j] softmax ........ [GEMMs j+1] softmax
//! ```
//!
//! Diff from a7 (one `PINGPONG` branch in `attention/hopper.rs`): barriers 1 and 2 of 256 threads;
//! warpgroup 1 opens warpgroup 0's first turn and skips its own last hand-over, so every barrier phase
//! has 128 waiting and 128 arriving threads. New primitive: `nvptx_std::sync::arrive_named`.
//!
//! Prediction (before the run): a7's tensor pipe was active ~40% of cycles with 0.43 eligible warps per
//! scheduler; FA3 reports ping-pong worth ~10% on top of the intra-warpgroup overlap at D = 128. Expect
//! 1.05–1.15× a7 at D = 128, about 1.0–1.1× at D = 64.
//!
//! Measured (H100, `results/2026-11-23-h100-session7/attention-a8`): **0.98–1.00× a7** at every shape —
//! prediction wrong. Verified (tests, `--check`, compute-sanitizer synccheck and racecheck clean). With
//! a7's overlap inside each warpgroup there was no idle tensor time left that taking turns recovers;
//! `wgmma` issue is asynchronous, so the barriers order the issuing, not when the tensor cores run.
//! a7 stays the library's default. After the body's FFMA softmax (`attention-ffma`), with less ALU work
//! per tile, a8 is 1.05–1.06× a7 at 4×16×4096×128 (527 TFLOP/s, 0.80× cuDNN) and 0.94–1.0× elsewhere.
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a8's choices: a7's, with the consumer warpgroups taking turns at the tensor cores.
const A8: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: true, lazy: false, heavy_first: false, persistent: false, cluster: 1, varlen: false };

hopper_entry!(attn_a8_d64_f16, F16, 64, A8);
hopper_entry!(attn_a8_d128_f16, F16, 128, A8);
hopper_entry!(attn_a8_d64_bf16, Bf16, 64, A8);
hopper_entry!(attn_a8_d128_bf16, Bf16, 128, A8);
