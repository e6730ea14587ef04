//! Backward step b7 (issue 50): b6 with its CTAs **longest first** — key blocks slowest in the order the GPU
//! starts them (`fa2_warps_backward::LongestFirst`), heads and sequences fastest.
//!
//! A CTA of b5–b7 takes 128 keys of one K/V head and walks the query tiles of its group's heads that see them.
//! With the causal mask key block `kb` sees the query tiles from `2·kb` (past the bottom-right offset) on, so
//! its work falls linearly with `kb`: at 1×32×8×8192×128 key block 0 walks 4 heads × 128 tiles, key block 63
//! 4 × 2. The grid `(key blocks, K/V heads, batch)` starts CTAs x fastest: head 0's key blocks 0..63, then
//! head 1's, … — the short CTAs of one head start before the long ones of the next, and the long ones of the
//! last heads run alone at the end. b6 measured 0.89× FlashAttention-2 there (FA2 takes one query head a CTA:
//! 4× finer) and 1.0–1.02× without the mask. b7 reads the block index as `lin = x + X·(y + Y·z)`, key block
//! `lin / (Y·Z)`, so every head's and sequence's key block 0 starts first and the shortest CTAs last (LPT).
//! Without the mask the CTAs of a sequence are equal and the order changes nothing but which heads' Q and dO
//! tiles are read together.
//!
//! Prediction (before any run; a list-scheduling model of the CTAs' items on 132 SMs): the causal makespan
//! over the ideal 1.24 → 1.01 at 1×32×8×8192×128 (**~0.82× b6's time**), 1.12 → 1.00 at 1×16×16×8192×128
//! (~0.90×), less at 2×16×16×4096 (two sequences already interleave long and short); without the mask
//! 0.99–1.01× b6's time.
//!
//! Measured (H200, bf16, `results/2026-12-04-h200-session92`, 3 processes, b7 interleaved with b6): causal **0.82× b6's
//! time at 1×32×8×8192×128, 0.91× at 1×16×16×8192×128, 0.90× at 2×16×16×4096** (D = 128 and 64), without the mask
//! 1.00×: **1.01–1.02× FlashAttention-2 at D = 128, causal 1.08–1.14×; D = 64 0.88×, causal 1.04×**.
use super::fa2_warps_backward::{LongestFirst, TileBlocks, body};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::BackwardDims as Dims;

/// The entries of one element type and head dim.
macro_rules! b7_entries {
    ($name:ident, $e:ty, $d:literal) => {
        /// b7: b6's kernel with its CTAs longest first (see the module docs); dQ into b6's tile blocks,
        /// converted by `attn_bwd_b6dq_*`.
        ///
        /// # Safety
        /// As `attn_bwd_b6_d128_bf16`'s.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                                dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { body::<$e, $d, 64, TileBlocks, LongestFirst>(q, k, v, d_o, stats, cu_q, cu_k, dq_acc, dk, dv, dims) }
        }
        $crate::launch_bounds::launch_bounds!($name, 256, 1);
    };
}

b7_entries!(attn_bwd_b7_d64_f16, F16, 64);
b7_entries!(attn_bwd_b7_d128_f16, F16, 128);
b7_entries!(attn_bwd_b7_d64_bf16, Bf16, 64);
b7_entries!(attn_bwd_b7_d128_bf16, Bf16, 128);
