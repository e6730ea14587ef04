#![cfg(lab_sm90)]
//! Attention step a7 (Hopper): a6 with **the next tile's S = Q·Kᵀ issued before this tile's softmax**
//! (FlashAttention-3's intra-warpgroup pipelining).
//!
//! In a6 a consumer warpgroup alternates: issue S, wait, softmax, issue P·V, wait. While it
//! exponentiates, its tensor-core work is zero; only the other consumer warpgroup can fill the gap.
//! a7 keeps one `wgmma` group in flight across the softmax:
//!
//! ```text
//! a6:  [S_j]·wait·softmax_j·[PV_j]·wait | [S_j+1]·wait·softmax_j+1 …
//! a7:  [S_0]·wait | [S_1] softmax_0 [PV_0] · wait | [S_2] softmax_1 [PV_1] · wait | …
//! ```
//!
//! Diff from a6 (one `PIPELINE` branch in `attention/hopper.rs`): S of tile j + 1 is issued right
//! after S of tile j retired — into a second set of 64 accumulators — and waited for at the top of the
//! next iteration together with P·V of tile j; a stage is released one iteration later (its P·V retires
//! at that wait). Registers: a second S (64 f32) beside O, P and the first S. **Three ring stages**
//! (`layout::attention::A7_STAGES`, 225 KiB at D = 128): the first version kept a6's two and ran at
//! 0.70–0.86× a6 — releasing a stage one iteration later left the producer no slack, so the next
//! tile's S waited for its TMA load every iteration.
//!
//! Prediction (before the run): a6 at D = 64 ran at a2's speed (219 TFLOP/s: the softmax, which costs
//! the same per key at D = 64 and 128, is twice the share of the work) and 398–404 at D = 128. Hiding
//! most of the softmax behind S: **~1.3–1.5× a6 at D = 64**, ~1.1–1.2× at D = 128 (where two
//! warpgroups already overlap each other's softmax with MMAs).
//!
//! Measured (H100, `results/2026-11-23-h100-session7/attention-final`): **1.02–1.09× a6**, the fastest
//! step at every shape (D = 128: 353–423 TFLOP/s, 1.13–1.22× torch's FA2; D = 64: 1.01–1.08× a4) —
//! after two versions that were slower than a6 (0.70–0.86× with 2 stages, 0.88–0.96× with 3) because
//! ptxas serialized every `wgmma` (C7515/C7513: registers of an in-flight `wgmma` written by other
//! instructions). What the body does about it is in `attention/hopper.rs` and the README. After the
//! body's softmax moved to FFMA form with the mask only on the tiles that need it (`attention-ffma`):
//! 302–508 TFLOP/s, **1.15–1.20× torch's FA2 at D = 64 and 1.38–1.49× at D = 128**, 0.72–0.80× cuDNN.
//!
//! Session 11 found, in the SASS, that the overlap this step is named for did not happen: ptxas placed
//! the wait for P·V (`WARPGROUP.DEPBAR.LE gsb0, 0x0`) at the top of its basic block, ahead of all the
//! exponentials. A block boundary the compilers cannot remove now keeps it after them, and O is
//! rescaled while S of the next tile runs — measured no faster: the other warpgroup's GEMMs already
//! covered the gap (README, session 11).
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a7's choices: a6 with the next tile's S issued before this tile's softmax, over a ring of three stages.
const A7: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: false, heavy_first: false, persistent: false, cluster: 1, varlen: false };

hopper_entry!(attn_a7_d64_f16, F16, 64, A7);
hopper_entry!(attn_a7_d128_f16, F16, 128, A7);
hopper_entry!(attn_a7_d64_bf16, Bf16, 64, A7);
hopper_entry!(attn_a7_d128_bf16, Bf16, 128, A7);
