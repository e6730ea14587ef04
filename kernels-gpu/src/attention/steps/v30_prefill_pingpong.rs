#![cfg(lab_sm90)]
//! Attention step a27 (Hopper): a26 with its two consumer warpgroups **taking turns** at the tensor
//! cores (a8's ping-pong, now on the lazy softmax) — the library's prefill kernel at head dim 64, where
//! the SFU is as busy as the tensor cores.
//!
//! Diff from a26 (the `PINGPONG` branch of the lazy loop in `attention/hopper.rs`): before issuing a
//! tile's two GEMMs (S of the next tile, P·V of this one) a warpgroup waits for its turn on named
//! barrier 1 + its index and hands the turn over right after, so one warpgroup's softmax runs while the
//! other's GEMMs do.
//!
//! Why (session 77, `ncu` of a26 and cuDNN at 2×32×8×4096×64, bf16, one launch each): cuDNN's kernel
//! has a26's shape (132 CTAs of 384 threads, 168 registers, `64x128x64` tiles) and ran 574.7 µs against
//! a26's 653.9; the SFU (`MUFU.EX2`, 8 cycles a warp instruction) and the tensor pipe were each ~47%
//! busy in a26 (51% and 50% in cuDNN), a26's warps stalled on `mio_throttle` 0.73 cycles an instruction
//! (cuDNN 0.04: the SFU queue full, both warpgroups exponentiating at once) and cuDNN's on barriers
//! (0.75 against 0.37: its warpgroups take turns).
//!
//! Prediction (before any run), H200, bf16, D = 64: per tile a warpgroup's softmax is ~512 SFU cycles on
//! each scheduler and its two GEMMs 512 tensor cycles; in a26 both warpgroups' softmaxes contend for the
//! SFU while the tensor pipe has only P·V queued, then both wait for S. Taking turns overlaps one's
//! softmax with the other's GEMMs: **1.05–1.12× a26** at D = 64; at D = 128 (tensor pipe 69% busy, SFU
//! 35%) 0.98–1.03×.
//!
//! Measured (H200, `results/2026-12-01-h200-session77` call 2, a26 interleaved in the same process, median
//! of 3 processes): **1.048–1.064× a26 at D = 64** (2×32×8×4096, 1×32×8×8192, 4×28×4×2048, causal and
//! not; f16 1.043–1.055×) — at the low end of the range; against cuDNN (sustained) 0.98× / 0.99× at
//! 2×32×8×4096×64, 0.99× / 1.04× at 1×32×8×8192×64, 0.94× / 0.92× at 4×28×4×2048×64 (none / causal).
//! `ncu`: 617.9 µs, `mio_throttle` 0.73 → 0.20, SFU and tensor pipe 46%. At D = 128 the same turns
//! spilled 92 bytes and ran 0.89–0.94× a26 (so a26 stays there). FMA-pipe exponentials (FlashAttention-4's
//! cubic, one or two of each thread's eight 8-key columns): 0.97–1.00× a26 alone, and with the turns
//! 1.02–1.08× (one column: a27 ± 3%) / 1.00–1.05× (two) — refuted (attention README).
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a27's choices: a26's, with the consumer warpgroups taking turns at the tensor cores.
const A27: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: true, lazy: true, heavy_first: false, persistent: true, cluster: 1, varlen: true };

hopper_entry!(attn_a27_d64_f16, F16, 64, A27, varlen_persistent);
hopper_entry!(attn_a27_d64_bf16, Bf16, 64, A27, varlen_persistent);
