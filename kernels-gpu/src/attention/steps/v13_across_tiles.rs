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
//! Diff from a12 (in `attention/hopper.rs`, `ACROSS`): the last key tile's step of a query tile
//! (`cross` in `lazy_step!`) issues the next tile's first S and runs its softmax; that tile's own
//! first S and softmax (the a9 prologue) are skipped; the running max, sum and P carry over.
//!
//! **D = 64 only.** At D = 128 a12 already uses 230 of the consumer warpgroups' 232 registers (O 64,
//! S 64, P 32, the 24 `wgmma` descriptors 48); the next tile's coordinates and the finished tile's
//! max and sum on top spilled 48–176 bytes in the four arrangements tried (the next tile looked up at
//! the start or at the last step, Q's descriptors rebuilt per step or hoisted), and ptxas's spills
//! sit in the loop.
//!
//! Prediction (before the first run): one key tile of ~half-idle tensor cores saved per query
//! tile: at L = 4096 (32 key tiles per query tile; causal 16.5 on average) **1.02–1.04× a12
//! non-causal, 1.03–1.06× causal**; at L = 16384 1.00–1.01×.
//!
//! Measured, first form (`results/2026-11-23-h100-session12/call2-a11-a13`, its consumer kept there
//! as `a13-first-form-consumer.rs`: a separate loop over every key tile of the CTA, with the query
//! tile's coordinates, the lookup of the next one and the choice between them in every step):
//! **0.89–0.98× a12**, slower even at L = 16384 where a boundary comes once in 128 key tiles — the
//! per-step bookkeeping cost more than the boundary saved (D = 64 is issue-bound: MUFU and ALU).
//! The form here keeps a12's step and adds only the `cross` branch, taken at a query tile's last
//! key tile. Measured: see the README.
use super::v6_hopper_wgmma::hopper_entry;
use crate::hgemm::elem::{Bf16, F16};

hopper_entry!(attn_a13_d64_f16, F16, 64, persistent, true);
hopper_entry!(attn_a13_d64_bf16, Bf16, 64, persistent, true);
