//! Attention step a11: **FlashAttention-2's own forward tiles** on `mma.sync` — 4 warps × 32 query
//! rows, key/value tiles of 128 keys at D = 64 and 64 at D = 128, S of both m-tiles in one k-loop.
//!
//! Diff from a4 (4 warps × two m-tiles of 16 rows, 64-key tiles, D = 64 only): a4 computes S one m-tile
//! at a time, loading every K fragment twice (once per m-tile: only V's fragments fed both); a11
//! computes S for both m-tiles in the same k-loop, so each K fragment (`ldmatrix.x4`) feeds four
//! `mma`s — two n-tiles × two m-tiles — and each V fragment feeds four as in a4. Q's fragments are
//! re-read from shared memory per k-step (one `ldmatrix.x4` per m-tile and k-step): the registers hold S
//! and O. With both m-tiles' S live, the key tile takes FA2's `kBlockN` for the sm80/sm90 forward
//! ([`layout::attention::a11_bkv`]): at D = 64 128 keys (S 128 + O 64 f32 per thread), at D = 128 64
//! keys (S 64 + O 128) — so D = 128 is in (a4 spilled there). What it took to fit 255 registers with no
//! spill (ptxas spilled 16–136 bytes on the way):
//! * `ldmatrix` addresses from one lane offset per operand (Q, K, V): another 16-column block is that
//!   offset XOR an immediate (`col_xor`), 16 rows or 64 columns further an immediate (`row_step`,
//!   `col_step`; HGEMM v10's lesson), the offsets passed through [`opaque`](crate::util::opaque) once per key tile so the
//!   40–80 addresses are formed where used, not hoisted into registers;
//! * the softmax is a4's (scale, row max, `2^(s − m)`, one chain) on 16 or 8 n-tiles per m-tile, but the
//!   mask runs as a pass of its own only on the key tiles that need it (the ragged last one, the causal
//!   diagonal ones; a uniform branch), one compare per score against a per-row limit;
//! * the four running row sums per thread live in shared memory between key tiles (read and written
//!   once per tile, conflict-free): they were what ptxas spilled last.
//! Masking otherwise as a4 (keys ≥ L; the causal mask on key tiles past the query tile's first row;
//! rows ≥ L not stored). Shared memory: Q 128 × D, 2 stages of K and V, the sums
//! ([`layout::attention::a11_smem`]: 82 KiB at D = 64, 98 KiB at D = 128, so two blocks — 8 warps, 255
//! registers each — per H100 SM, as FA2).
//!
//! Prediction (written before any measurement): shared-memory bytes per `mma` (`ldmatrix.x4` = 512 B)
//! per warp and key tile — a2: 256 B (D 64: K 16 + V 16 `ldmatrix` for 64 `mma`; D 128 the same ratio);
//! a4: 224 B (Q 8 + K 32 + V 16 for 128); a11 D = 64: **144 B** (Q 8 + K 32 + V 32 for 256), D = 128:
//! **160 B** (Q 16 + K 32 + V 32 for 256) — 0.64× a4, 0.63× a2. a4 measured 1.07× a2 for 0.875× the
//! bytes, an elasticity of ~0.5: if that holds, a11 is ~1.25× a4 at D = 64 and ~1.27× a2 at D = 128;
//! the per-tile fixed work (two barriers, the O rescale, `cp.async` issue) is also halved per key at
//! D = 64, and the mask is skipped on all but the last one or two key tiles. Predicted **1.15–1.30× a4
//! at D = 64** (about 270–300 TFLOP/s at 4×16×4096, **0.88–0.99× torch FA2**) and **1.15–1.30× a2 at
//! D = 128** (about 295–335, **0.82–0.93× FA2**): the tiles are FA2's, so the remaining gap would be
//! scheduling (FA2 double-buffers its fragment loads explicitly; a11 runs at the 255-register ceiling,
//! with little room for ptxas to prefetch) and the softmax's separate scale multiply (FA2 folds it into
//! an FFMA). Risk: the mask-pass branch is half of the change that cost a4 4–7% (README). The ≥ 1.0× FA2
//! target is more likely missed by 5–15% than met.
//!
//! Measured (H100, `results/2026-11-23-h100-session12/call2-a11-a13` and `call3-a13`, torch's SDPA in
//! the same calls): correct on its first GPU run (tests, `--check`, compute-sanitizer 0/0/0).
//! **1.27–1.32× a4 at D = 64** (305–313 TFLOP/s non-causal) and **1.24–1.36× a2 at D = 128** (332–353)
//! — above the predicted 1.15–1.30×; against torch's FlashAttention-2 **0.96–1.02× at D = 64**
//! (1.00–1.02× without the mask) and **0.93–1.05× at D = 128** (prediction 0.88–0.99× / 0.82–0.93×).
//! The "≥ 1.0× FA2" is met at D = 64 without the mask and at 16384×128 causal, within 7%
//! elsewhere. The library's default off Hopper.
use super::fa2_mma_tiles::fa2_tiles_entry;
use crate::hgemm::elem::{Bf16, F16};

fa2_tiles_entry!(attn_a11_d64_f16, F16, 64, ORDER_A11);
fa2_tiles_entry!(attn_a11_d128_f16, F16, 128, ORDER_A11);
fa2_tiles_entry!(attn_a11_d64_bf16, Bf16, 64, ORDER_A11);
fa2_tiles_entry!(attn_a11_d128_bf16, Bf16, 128, ORDER_A11);
