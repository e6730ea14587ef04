#![cfg(lab_sm90)]
//! Attention step a32 (Hopper): **a31 at head dim 128** — `hopper_wide.rs` with O as two 64-column blocks
//! (`[[f32; 32]; 2]`, P·V by `m64n128k16`), a26's 128-key tiles (S by `m64n128k16`, 64 registers a thread,
//! P eight K-steps), K and V as separate ring entries (six of 32 KiB beside Q's 32 KiB: three key tiles in
//! flight, as a26's three stages of K and V together), each unit's first S and softmax under the last
//! unit's last P·V (`CROSS`).
//!
//! Diff from a31: the head dim (the body's `OutTile`: 128 columns of O where a31 holds 256) and the key
//! tile (128, a31's 80: at D = 128 O is 64 registers, S of 128 keys 64 more, one P set 32). Diff from a26,
//! the library's kernel at D = 128 before: a31's softmax (the exponentials after the row max, in place:
//! one register set for S and P, where a26's a9 exponentials ahead of the max hold two P sets and spill 8
//! bytes), K released when S retires and V when P·V does (a26 releases a stage of both after P·V), and the
//! cross-unit start.
//!
//! Why (session 93): a31 ran 1.04–1.08× a28 at ≥ 2048 tokens without the mask — the tensor pipe 91.1%
//! active against 83.6% at the same issue rate — while a26 at D = 128 sits at 0.98–1.02× cuDNN without the
//! mask, short of issue 49's 1.05×. Session 78's cross-unit try on a26's own body (a28 then, removed)
//! spilled 172 bytes at D = 128 (the next unit's S and its softmax beside a26's two P sets); a31's body
//! holds one P set, so the same overlap fits: O 64 + S 64 + P 32 live at the last tile, as in a26's loop.
//!
//! Prediction (before any run), H200, bf16, against a26 in the same process: the body alone (the `x32`
//! experiment entry, no `CROSS`) 0.96–1.02× (fewer registers and earlier K release, against a26's
//! exponentials overlapping the max); with the cross-unit start **1.02–1.07× a26 without the mask at
//! ≥ 4096 tokens, 1.00–1.04× causal**; against cuDNN sustained 1.00–1.07× without the mask at 32/8 × 4096.
//!
//! Measured (H200, bf16, `results/2026-12-04-h200-session94` call 1, a26 interleaved in the same process, 3
//! processes): **both parts of the prediction wrong** — the body alone (x32) **0.89–0.95× a26** (0.89–0.92 at
//! ≥ 2048 tokens), a32 **0.93–0.99× a26** without the mask, 0.93–1.02× causal: the cross-unit start buys the
//! 6–7% it bought a31, on a body 10% slower than a26's. Against cuDNN a32 0.93–0.97× without the mask at
//! 32/8 × 4096–8192. ptxas: a32 12 bytes of spill, x32 none. Where the body loses, a guess: a26's exponentials
//! start when S retires (a9: against the running max, the row max taken beside them), the wide body's wait for
//! the row max (the max tree, two quad shuffles and a vote) every tile — at D = 128 a tile's products are half
//! D = 256's, so the same softmax latency weighs twice.
//!
//! x33 (a32 with a9's exponentials ahead of the max: two P sets, the next one written while the last P·V reads
//! the other; ptxas spill-free). Prediction (before its run): the max's latency off each tile's critical
//! path, **1.00–1.06× a26 without the mask** at ≥ 2048 tokens (a32's 0.93–0.99 plus the 5–8% the body lost),
//! 0.98–1.04× causal.
//!
//! Measured (call 2, as first built: one P set copied from the other at each tile's end): **0.79–0.86× a26** —
//! LLVM, to which a `wgmma` reads its registers at issue, gave both P sets the same registers, the exponentials
//! wrote them under the P·V that read them, and ptxas serialized every `wgmma` (C7513). Rebuilt in a26's form
//! (two sets taking turns, two tiles an iteration): no C7513, but 160 bytes of spill (two expanded steps beside
//! the cross-unit code). Prediction for that build (before its run): 0.95–1.02× a26 — the spills cost what the
//! earlier exponentials gain.
//!
//! Measured (call 3): 0.97–1.00× a26 at ≥ 2048 tokens (0.89× / 0.93× at 8×32×8×512). `ncu`: 1.051× a26's
//! instructions. x34: x33 with K and V of a key tile in one ring entry (three of 64 KiB, a26's stages: one wait
//! and one release a tile where x33 has two of each). Prediction (before its run): 1.01–1.04× a26 at ≥ 2048
//! tokens without the mask (a third to half of x33's 5% of extra instructions gone; K no longer released early).
use super::hopper_wide::prefill_wide_entry;
use crate::hgemm::elem::{Bf16, F16};

prefill_wide_entry!(attn_a32_d128_f16, F16, 128, true, 128, true, false, false);
prefill_wide_entry!(attn_a32_d128_bf16, Bf16, 128, true, 128, true, false, false);
// Experiments: a32 without the cross-unit start (measured in session 94, call 1), and a32 with a9's exponentials
// ahead of the max (two P sets).
prefill_wide_entry!(attn_x32_d128_bf16, Bf16, 128, true, 128, false, false, false);
prefill_wide_entry!(attn_x33_d128_bf16, Bf16, 128, true, 128, true, true, false);
prefill_wide_entry!(attn_x34_d128_bf16, Bf16, 128, true, 128, true, true, true);
