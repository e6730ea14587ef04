#![cfg(lab_sm90)]
//! Attention step a6 (Hopper): **TMA loads and `wgmma` for both GEMMs, a producer warpgroup and two
//! consumer warpgroups** — the HGEMM ladder's h3/h4 machinery applied to FlashAttention.
//!
//! Diff from a2 (which is FlashAttention-2 on `mma.sync`):
//! * one CTA per 128 query rows: warpgroup 0 is the producer (one thread issues TMA loads), warpgroups
//!   1 and 2 each own 64 query rows (`hgemm::tma_warp_specialized::warp_specialized!`, the skeleton of
//!   h3–h6: `setmaxnreg` 40 / 232, full and empty mbarriers per stage);
//! * Q (with the first K/V stage's transaction), K and V tiles of 128 keys arrive by TMA as 128-row ×
//!   64-column `SWIZZLE_128B` boxes into a 2-stage ring — no `cp.async`, no `ldmatrix`: `wgmma` reads
//!   the swizzled tiles through descriptors;
//! * S = Q·Kᵀ: per K step of 16 head dims one `wgmma.m64n128k16` with both operands K-major (K stored
//!   `[key][d]` is Kᵀ's K-major form);
//! * the online softmax runs on the `wgmma` accumulator fragment, which per warp is `mma.sync`'s
//!   (rows g and g + 8, columns 8j + 2t): a2's code, on 16 n-tiles instead of 8;
//! * O += P·V: P **stays in registers** as the A operand of `wgmma … m64n{D}k16` (the register-A form:
//!   two packed n-tiles of S are one A fragment), V read MN-major from its boxes (`imm-trans-b = 1`,
//!   the h-ladder's B layout);
//! * a K/V stage is released after both GEMMs of the tile retired (`wait_group 0`): no overlap of the
//!   softmax with the tensor cores inside a warpgroup yet — only the two consumer warpgroups and the
//!   producer run concurrently (FA3's intra-warpgroup pipelining and ping-pong are the next steps).
//!
//! Key rows past `l` inside a tile (the 2-D tensor map spans all heads, so they hold the next head's
//! keys, or zeros after the last head) are masked to −∞ like the causal mask; query rows past `l` are
//! computed and not stored.
//!
//! Prediction (H100, before the run): the `mma.sync` steps are bound by shared-memory bandwidth
//! (`ldmatrix` of K and V per MMA; a2 at 196–257 TFLOP/s, tensor pipe 34–40%); `wgmma` reads operands
//! from shared memory without the register file and at twice `mma.sync`'s rate. With the softmax not
//! overlapped, expect ~1.4–1.8× a2 at D = 128 (≈ 350–450 TFLOP/s, about torch's FA2 and below cuDNN),
//! less at D = 64 (softmax work per FLOP doubles).
//!
//! Measured (H100, `results/2026-11-23-h100-session7/`): correct on its first GPU run; at D = 128
//! 337–417 TFLOP/s, **1.42–1.63× a2, 1.08–1.23× torch's FlashAttention-2** and 0.61–0.67× cuDNN in the
//! same call; at D = 64 0.97–1.02× a2 (below a4). `ncu`: tensor pipe active 41.9% of cycles.
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A6_STAGES;

/// a6's choices: one K/V tile at a time (S, softmax, P·V, each waited for) over a ring of two stages.
const A6: HopperPolicy = HopperPolicy { pipeline: false, stages: A6_STAGES, pingpong: false, lazy: false, heavy_first: false, persistent: false, cluster: 1, varlen: false };

hopper_entry!(attn_a6_d64_f16, F16, 64, A6);
hopper_entry!(attn_a6_d128_f16, F16, 128, A6);
hopper_entry!(attn_a6_d64_bf16, Bf16, 64, A6);
hopper_entry!(attn_a6_d128_bf16, Bf16, 128, A6);
