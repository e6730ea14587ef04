#![cfg(lab_sm90)]
//! Attention step a28 (Hopper): a25 with **80-key tiles** at head dim 256 (FlashAttention-3's 128 × 80
//! there) — `hopper_wide.rs` with `BKV = 80`.
//!
//! Diff from a25: S is `wgmma.m64n80k16` (40 registers a thread where a25 holds 32; `[f32; 40]`'s
//! `FlatWgmma`), P five `m16n8k16` K-steps (20 registers, a25 16), P·V five `m64n256k16` instead of
//! four; K and V tiles are 40 KiB (four TMA boxes of 80 keys × 64 dims), the ring's four entries and Q
//! 225 KiB of shared memory (a25: 193). The host's tensor maps take 80-row K/V boxes and its work list
//! counts 80-key tiles.
//!
//! Why: at D = 256 a consumer warpgroup pays per key tile the same fixed costs whatever the tile's
//! keys — two `wgmma` waits, a full and an empty barrier for K and for V, the lazy rescale's vote, the
//! row max's quad shuffles, the gap between one tile's P·V retiring and the next tile's `wgmma`s
//! being issued — and S's `m64n64k16` reads 4 KiB of shared memory per 32 tensor cycles, the 128 B a
//! cycle the SM's shared memory gives (n80: 4.5 KiB per 40 cycles, 115 B). Session 62's `ncu` of a25 at
//! 1×16×8×8192: tensor pipe 79% active, `wait` stalls first.
//!
//! Prediction (before any run), H200, bf16, 16/8 heads, against a25 in the same process: if a25's 21%
//! of idle tensor pipe is per-tile cost, 80 keys leave 21 / 1.25 ≈ 17%: 1.04× a25, less the partial
//! last tile (L = 4096: 52 tiles of 80 for 51.2 of work, 1.6%; L = 8192: 0.6%) — **1.02–1.05× a25
//! without the mask at L ≥ 4096**, causal 0.97–1.03× (the diagonal's 128 queries cross two or three
//! 80-key tiles, masked work 1.25× a25's); registers: ptxas below the 232 `setmaxnreg` gives, no spill.
//!
//! Measured (H200, bf16, `results/2026-12-04-h200-session93` call 1, a25 interleaved in the same process,
//! median of 3 processes): **1.03–1.06× a25 without the mask** (2×16×8×4096 1.056, 1×16×8×8192 1.034,
//! 8×16×8×2048 1.041, 1×16×8×2048 1.060, 4×8×4×4096 1.042), **1.00–1.03× causal** — in the range; against
//! cuDNN (sustained) 0.97–0.99× without the mask at L ≥ 4096, causal 1.00–1.08×. No spill. The library's
//! kernel at D = 256 since.
use super::hopper_wide::prefill_d256_entry;
use crate::hgemm::elem::{Bf16, F16};

prefill_d256_entry!(attn_a28_d256_f16, F16, true, 80);
prefill_d256_entry!(attn_a28_d256_bf16, Bf16, true, 80);
