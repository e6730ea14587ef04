#![cfg(lab_sm90)]
//! Attention step a19 (Hopper): a10's body on the inputs models serve — **sequences of different
//! lengths packed token-major, grouped-query heads, the causal mask aligned bottom-right, head dim 96**.
//!
//! Diff from a10 (the `VARLEN` branches of `attention/hopper.rs`, entry `prefill`):
//! * Q, K, V, O are `[tokens][heads][D]` (K and V with the K/V heads), sequence `b` the tokens
//!   `cu_q[b]..cu_q[b + 1]` of Q and `cu_k[b]..cu_k[b + 1]` of K and V. The grid is `(⌈max q_len / 128⌉,
//!   heads, batch)`; a CTA reads its sequence's four offsets (`ld.global.nc`) and exits at once when the
//!   sequence has fewer query tiles than its x (before any barrier).
//! * The loads are 3-D TMA boxes (D, heads, tokens) of 64 × 1 × 128: one box of a head's 128 tokens lands
//!   in shared memory exactly as a10's 2-D box of 128 rows, so the `wgmma` descriptors are a10's. Query
//!   head `h` reads K/V head `h / group`; the heads of one group are adjacent in the grid, so their CTAs
//!   run together and each K/V tile comes from HBM about once per group (L2).
//! * Keys past the sequence's `k_len` are masked (the boxes run into the next sequence's tokens, or past
//!   the tensor where the TMA fills zeros); with the causal mask query `r` sees keys `0..=r + k_len −
//!   q_len` (FlashAttention's bottom-right alignment: new queries against a cached prefix plus
//!   themselves), so a query tile walks `kv_tiles_off` key tiles and the mask pass runs on
//!   `needs_mask_off`'s.
//! * Head dim 96 runs the D = 128 entry: the maps' dim 0 is 96, so the boxes' columns 96..128 are
//!   zero-filled by the TMA (zero in Q·Kᵀ, zero columns of O), and the epilogue stores columns `< 96`.
//! * O and the LSE are stored token-major (`[tokens][heads]` for the LSE), rows `< q_len`.
//!
//! Prediction (before any run): at equal lengths without grouping, the same tiles and instructions
//! as a10 but for the 3-D box coordinates: 0.99–1.01× a10. Against cuDNN (torch SDPA) at D = 128,
//! 32/8 heads, L = 4096, the persistent a12/a15 run at 0.93–1.07× and a10 is 0.86–0.99× a12, so
//! **0.85–0.95× cuDNN** — the 1.05× needs a persistent varlen walk (next step). D = 96 computes
//! 4/3 of the useful work: about 0.75× D = 128's useful TFLOP/s, ~0.85–0.95× cuDNN's 463. Variable
//! lengths (16 sequences of 100–8192 tokens) against equal lengths of the same work: 0.88–0.97× (the
//! grid runs sequence by sequence, so the last sequence's longest tiles can start late).
//!
//! Measured (H200, bf16, `results/2026-11-28-h200-session50/call1-a19`, median of 3 processes, torch 2.11
//! SDPA in the same call): correct on the first GPU run (tests, memcheck, racecheck). **0.85–0.87× cuDNN**
//! at D = 128, 32/8 heads, L = 4096 and 8192 (580–608 TFLOP/s against 683–698), causal 0.89×; 0.79–0.80×
//! at 4 × 28/4 × 2048; D = 96 0.85× (causal 0.94×); D = 64 0.86×. Against the fixed-length a15/a12 in the
//! same process: 0.93–0.97× without the mask, 0.89–0.95× with it (a19 is not persistent). **16 sequences
//! of 686–8086 tokens: 1.02–1.03× the TFLOP/s of equal lengths of the same work** — above the prediction.
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a19's choices: a10's body (a9: pipelined, lazy rescaling; query tiles longest first) on packed
/// variable-length sequences.
const A19: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: true, persistent: false, cluster: 1, varlen: true };

hopper_entry!(attn_a19_d64_f16, F16, 64, A19, varlen);
hopper_entry!(attn_a19_d128_f16, F16, 128, A19, varlen);
hopper_entry!(attn_a19_d64_bf16, Bf16, 64, A19, varlen);
hopper_entry!(attn_a19_d128_bf16, Bf16, 128, A19, varlen);
