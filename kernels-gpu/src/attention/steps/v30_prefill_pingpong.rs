#![cfg(lab_sm90)]
//! Attention step a27 (Hopper): a26 with its two consumer warpgroups **taking turns** at the tensor
//! cores (a8's ping-pong, now on the lazy softmax), at head dim 64 where the SFU is as busy as the
//! tensor cores.
//!
//! Diff from a26 (the `PINGPONG` branch of the lazy loop in `attention/hopper.rs`): before issuing a
//! tile's two GEMMs (S of the next tile, P·V of this one) a warpgroup waits for its turn on named
//! barrier 1 + its index and hands the turn over right after, so one warpgroup's softmax runs while the
//! other's GEMMs do. Entries `x27*` (measured, then removed or kept): the same with a share of the
//! exponentials on the FMA pipe (`exp_poly`, `layout::attention::exp2_poly3`), and a27 at D = 128.
//!
//! Why (session 77, `ncu` of a26 and cuDNN at 2×32×8×4096×64, bf16, one launch each): cuDNN's kernel
//! has a26's shape (132 CTAs of 384 threads, 168 registers, `64x128x64` tiles) and runs 574.7 µs against
//! a26's 653.9; the SFU (`MUFU.EX2`, 8 cycles a warp instruction) and the tensor pipe are each ~47%
//! busy in a26 (51% and 50% in cuDNN), a26's warps stall on `mio_throttle` 0.73 cycles an instruction
//! (cuDNN 0.04; the SFU queue full: both warpgroups exponentiate at once) and cuDNN's on barriers
//! (0.75 against 0.37: its warpgroups take turns).
//!
//! Prediction (before any run), H200, bf16, 2×32×8×4096×64: per tile a warpgroup's softmax is ~512 SFU
//! cycles on each scheduler and its two GEMMs 512 tensor cycles; in a26 both warpgroups' softmaxes
//! contend for the SFU while the tensor pipe has only P·V queued, then both wait for S. Taking turns
//! overlaps one's softmax with the other's GEMMs: **1.05–1.12× a26** at D = 64 (cuDNN is 1.14× a26 in
//! `ncu`); at D = 128, where the tensor pipe is 69% busy and the SFU 35%, 0.98–1.03×. The FMA-pipe
//! exponentials: one column of eight (12.5% off the SFU, +7 issue slots a value) 1.00–1.05× with or
//! without the turns; two columns ≤ one (issue-bound).
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a27's choices: a26's, with the consumer warpgroups taking turns at the tensor cores.
const A27: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: true, lazy: true, heavy_first: false, persistent: true, cluster: 1, varlen: true, exp_poly: 0 };
/// Experiments: a26 with one column of FMA-pipe exponentials; a27 with one and two.
const X27P1: HopperPolicy = HopperPolicy { pingpong: false, exp_poly: 1, ..A27 };
const X27PP1: HopperPolicy = HopperPolicy { exp_poly: 1, ..A27 };
const X27PP2: HopperPolicy = HopperPolicy { exp_poly: 2, ..A27 };

hopper_entry!(attn_a27_d64_f16, F16, 64, A27, varlen_persistent);
hopper_entry!(attn_a27_d64_bf16, Bf16, 64, A27, varlen_persistent);
hopper_entry!(attn_x27_d128_bf16, Bf16, 128, A27, varlen_persistent);
hopper_entry!(attn_x27p1_d64_bf16, Bf16, 64, X27P1, varlen_persistent);
hopper_entry!(attn_x27pp1_d64_bf16, Bf16, 64, X27PP1, varlen_persistent);
hopper_entry!(attn_x27pp2_d64_bf16, Bf16, 64, X27PP2, varlen_persistent);
