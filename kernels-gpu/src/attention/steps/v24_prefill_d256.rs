#![cfg(lab_sm90)]
//! Attention step a24 (Hopper): a19's prefill — packed sequences of different lengths, grouped-query
//! heads, the causal mask bottom-right — at **head dim 256** (Gemma-2, Gemma-3), in its own body
//! (`attention/hopper_wide.rs`: why it is not a branch of a19's is in its module docs).
//!
//! Diff from a19:
//! * **64-key tiles.** O is 64 rows × 256 columns a warpgroup, 128 f32 registers a thread. S over 128
//!   keys (64 more) with a second P set would not fit the consumers' 232 registers, so a key tile is
//!   64 keys: S = Q·Kᵀ by 16 `wgmma.m64n64k16` (one per 16 head dims, both operands in shared memory),
//!   O += P·V by 4 `wgmma.m64n256k16` with P from registers.
//! * **K and V as separate ring entries** of 32 KiB (four of them, Q's 64 KiB beside: 193 KiB). K of
//!   key tile `j` is released when S retired and V when P·V did, so the loads of the tile after next
//!   start a whole iteration before they are needed. One entry of K and V together would leave room for
//!   two stages only, and a7's two-stage run showed what that costs (0.70–0.86× a6).
//! * K/V tensor maps with boxes of 64 × 1 × 64 (Q's stay 64 × 1 × 128).
//!
//! Prediction (before any run), H200, bf16, 16/8 heads, L = 4096: the tensor work a tile is 2048 cycles
//! of the SM's 4096 FLOP/cycle and the shared-memory reads (S reads Q and K every K-step: 64 KiB a
//! warpgroup and tile, P·V 32 KiB) 1536 cycles at 128 B/cycle, so S's small N is not the limit if the
//! pipeline overlaps; the softmax is half as long a FLOP as at D = 128. Without a8's ping-pong or a
//! persistent walk, as a19 at D = 128 (0.85–0.87× cuDNN): **0.75–0.90× cuDNN without the mask
//! (cuDNN ≈ 683 TFLOP/s in the issue), 0.80–0.95× with it.**
//!
//! Measured (H200, bf16, `results/2026-11-30-h200-session62`, median of 3 processes): correct on the
//! first GPU run (tests, memcheck, racecheck), after three builds ptxas fixed here (its README). Paired
//! with a19 at D = 128 on twice the heads (call 1): **673–693 TFLOP/s at L ≥ 4096 without the mask,
//! 555–623 causal: 0.91–0.93× / 0.92–0.97× cuDNN timed in bursts, 1.10–1.18× a19 on the same FLOPs** —
//! above the prediction. Paired with a25 (call 5), at the power limit both reach, 592–612 without the
//! mask. a25 (next step) is the library's choice.
use super::hopper_wide::prefill_d256_entry;
use crate::hgemm::elem::{Bf16, F16};

prefill_d256_entry!(attn_a24_d256_f16, F16, false, 64);
prefill_d256_entry!(attn_a24_d256_bf16, Bf16, false, 64);
