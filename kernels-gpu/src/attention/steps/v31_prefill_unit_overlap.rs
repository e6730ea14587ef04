#![cfg(lab_sm90)]
//! Attention step a28 (Hopper): a26 with the **units overlapped** — on a unit's last key tile the next
//! unit's first S = Q·Kᵀ is issued together with this tile's P·V, and its first softmax runs while that
//! P·V is on the tensor cores, before this unit's epilogue.
//!
//! Diff from a26 (the `OVERLAP` branches of the lazy loop in `attention/hopper.rs`): the last key tile of a
//! unit takes the next unit from the list (noting this unit's sequence first, for the epilogue), waits
//! for the next unit's first stage (its Q comes with it: the producer loads the next Q once every
//! consumer warp is done with this one, after this unit's last S) and issues its S where a middle tile
//! issues the next tile's; that softmax starts from scratch (its own max and sum, kept apart from this
//! unit's until the epilogue has used them). The next unit then starts at its first P·V. a26 ran, per
//! unit, P·V of the last tile alone, the epilogue, then the first S alone and its softmax with the
//! tensor cores idle.
//!
//! Why (session 77, `ncu` at D = 128 without the mask, bf16): cuDNN's kernel has a26's launch shape;
//! at 2048 tokens (16 key tiles a unit) it ran 112 µs against a26's 123 (tensor pipe 67.9% against
//! 60.8%), at 4096 (32 tiles) 410 against 425 (72.4% against 68.9%): the gap shrinks with the tiles per
//! unit, so part of it is paid per unit.
//!
//! Prediction (before any run), H200, bf16, D = 128, against a26 in the same process: a unit boundary
//! costs a26 one S round trip plus one softmax with nothing else on the tensor cores (~0.5 µs of a
//! ~8 µs unit at 2048 keys); overlapped, only the epilogue's stores remain. **1.03–1.06× a26 at 2048
//! keys without the mask, 1.01–1.03× at 4096–8192; causal (more, shorter units) 1.03–1.07×.** At D = 64
//! (a27's turns not used) against a26: the same direction, against a27 below it.
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a28's choices: a26's, with the next unit's first S and softmax under this unit's last P·V.
const A28: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: false, persistent: true, cluster: 1, varlen: true, overlap: true };

hopper_entry!(attn_a28_d64_f16, F16, 64, A28, varlen_persistent);
hopper_entry!(attn_a28_d128_f16, F16, 128, A28, varlen_persistent);
hopper_entry!(attn_a28_d64_bf16, Bf16, 64, A28, varlen_persistent);
hopper_entry!(attn_a28_d128_bf16, Bf16, 128, A28, varlen_persistent);
