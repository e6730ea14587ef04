#![cfg(lab_sm90)]
//! Attention step a29 (Hopper): a26 at **head dim 96** with S summed over the head's 96 dims only — six
//! `wgmma.m64n128k16` K-steps where the 128 kernel a26 runs eight over a head zero-filled to 128.
//!
//! Diff from a26 (`attention/hopper.rs`: the body's `SD` parameter, the head dims S sums over; the
//! `varlen_persistent, 96` entry): the shared-memory layout, the TMA boxes (64 × 1 × 128, columns 96..128
//! zero-filled by the maps' bounds), P·V (`m64n128k16`, O's columns past 96 zero and never stored) and
//! the epilogue are a26's; Q·Kᵀ skips its last two K-steps, which summed products of those zeros.
//!
//! Why: Phi-3's heads are 96 wide. Padded to 128, a quarter of S's products multiply zeros, and S is half
//! of a tile's tensor work. P·V keeps N = 128: a 96-wide B in 128-byte-swizzled boxes is 1.5 swizzle
//! atoms, which the canonical MN-major layout does not describe (a 64-byte swizzle for V would, at the
//! cost of its own TMA boxes and descriptors: a later rung).
//!
//! Prediction (before any run), H200, bf16, D = 96: a tile's tensor work falls to 14/16 of a26's; at D =
//! 128 a26's tensor pipe is ~69% busy (session 77), the rest softmax and waits, so if a26 at D = 96 is
//! bound as at 128, **1.05–1.10× a26** without the mask and with it; against cuDNN (session 64: a26
//! 0.996× at 32/32 heads and 0.97–0.98× at 32/8 without the mask, 1.075–1.10× causal) 1.03–1.08× without
//! the mask.
//!
//! Measured (H200, bf16, `results/2026-12-04-h200-session93` call 2, a26 interleaved in the same process,
//! median of 3 processes): **1.06–1.10× a26** at 2k–8k tokens (1×32×32×2048 1.100, 1×32×32×8192 1.097,
//! 8×32×32×2048 1.099, 1×32×8×4096 1.097; causal 1.058–1.079), 1.04–1.05× at 8×32×32×512; against cuDNN
//! (sustained) **1.03–1.12× without the mask, 1.11–1.20× causal** there, 0.81–0.85× at 8×32×32×512. In the
//! range. ptxas: no spill (a26 at D = 128: 8 bytes). The library's kernel at D = 96 since.
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a29's choices: a26's (the head dims S sums over are the entry's last argument).
const A29: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: false, persistent: true, cluster: 1, varlen: true };

hopper_entry!(attn_a29_d96_f16, F16, 128, A29, varlen_persistent, 96);
hopper_entry!(attn_a29_d96_bf16, Bf16, 128, A29, varlen_persistent, 96);
