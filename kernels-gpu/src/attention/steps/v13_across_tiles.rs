#![cfg(lab_sm90)]
//! Attention step a13 (Hopper): a12 with **one pipeline across the query tiles** of a CTA.
//!
//! In a12 each query tile still starts and ends like a CTA of its own, minus the launch: the last key
//! tile's P·V runs alone on the tensor cores, then the epilogue, then the next tile's first S = QKᵀ
//! runs alone and its softmax has nothing to hide under — about one key tile's time per query tile
//! in which the tensor cores work half the time or not at all.
//!
//! a13 treats the CTA's key tiles as one sequence. The step that issues P·V of a query tile's last
//! key tile also issues S of the *next* query tile's first (its Q arrived on the first stage's
//! barrier: the producer loaded it as soon as every consumer warp released the old Q, right after
//! the last S that read it), and that S's softmax runs — from a fresh running max and sum — while
//! the P·V is on the tensor cores; the epilogue of the finished tile follows the wait, and the next
//! step issues S and P·V of the new tile at once. The P register sets keep alternating across the
//! boundary. Nothing else changes: the same walk, ring and Q barrier as a12, the same arithmetic on
//! every tile (the GPU test compares a13 with a9 bit for bit).
//!
//! Diff from a12 (in `attention/hopper.rs`): the `ACROSS` branch of the consumer (`across_step!`).
//!
//! Prediction (before the run): one key tile of ~half-idle tensor cores saved per query tile: at
//! L = 4096 (32 key tiles per query tile; causal 16.5 on average) **1.02–1.04× a12 non-causal,
//! 1.03–1.06× causal**; at L = 16384 1.00–1.01×. Cost: the epilogue's code twice (the loop runs two
//! key tiles per turn) and a few registers for the next tile's coordinates.
//!
//! Measured: not yet.
use super::v6_hopper_wgmma::hopper_entry;
use crate::hgemm::elem::{Bf16, F16};

hopper_entry!(attn_a13_d64_f16, F16, 64, persistent, true);
hopper_entry!(attn_a13_d128_f16, F16, 128, persistent, true);
hopper_entry!(attn_a13_d64_bf16, Bf16, 64, persistent, true);
hopper_entry!(attn_a13_d128_bf16, Bf16, 128, persistent, true);
