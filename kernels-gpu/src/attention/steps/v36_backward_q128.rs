//! Backward step b8 (issue 50): b7 at head dim 64 on **128-query tiles** — FlashAttention-2's own tiles there
//! (`Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4>`: 128 queries × 128 keys a tile, 8 warps).
//!
//! b7 runs at 1.01–1.14× FA2 at D = 128 but 0.88× at D = 64 without the mask. At D = 64 the `mma`s halve and
//! the `ldmatrix` traffic does not fall as fast: per warp and 128 queries b7 issues 176 `ldmatrix.x4` (Sᵀ, dPᵀ
//! 32 each, dV, dK 32 each, dQ 48) for 320 `mma`s, shared-memory bound (b6's `ncu` at D = 128: LDSM 151 M of 172
//! M shared wavefronts, the shared pipe the busiest). A 128-query tile reuses each K/V fragment over 64 queries
//! a warp and dQ's dS fragments over 32 columns:
//!
//! ```text
//! Sᵀ, dPᵀ (128 keys × 128 queries)  warps 4 (keys) × 2 (queries), 32 × 64 each (8 n-tiles: 64 + 64 f32)
//! Pᵀ, dSᵀ → shared memory          128 × 128 tiles (two 64-column halves), 32 KiB each
//! dV, dK (as b7)                    4 (keys) × 2 (D halves), 32 keys × 32 columns, k-steps over 128 queries
//! dQ = dS·K                         4 (queries) × 2 (D halves), 32 queries × 32 columns over the 128 keys
//! ```
//! `ldmatrix.x4` a warp and 128 queries: 24 + 24 + 32 + 32 + 32 = 144 (FA2's count), 0.82× b7's; barriers 2
//! where b7 takes 4. The accumulators: Sᵀ and dPᵀ 128 f32 a thread (b7: 64), dK and dV 64 — D = 128's b7 holds
//! the same 192 in 254 registers. Shared memory 162 KiB (`bwd_qt_smem(64, 128)`). dQ's tile blocks are b6's
//! with 32 columns a warp; a sequence's 64-row blocks are padded to its 128-row tiles (`bwd_dq_tile_of`).
//!
//! Prediction (before any run; H200, bf16, D = 64): if the shared pipe bounds b7 there, **~0.85× b7's time
//! without the mask (~1.03× FA2)**, causal the same ratio less the diagonal tiles' waste (a 128-query tile
//! on the diagonal masks more): ~0.9×.
//!
//! Measured (H200, bf16, `results/2026-12-04-h200-session92`, 3 processes, b8 interleaved with b7): **0.85–0.88× b7's
//! time without the mask, 0.86–0.89× causal: 1.02× FlashAttention-2 without the mask, 1.14–1.19× causal** (2×16×16×4096,
//! 1×32×8×8192, 4×16×16×2048, D = 64). ptxas: 255 registers, no spills for sm_80, 8 bytes for sm_90.
use super::fa2_warps_backward::{LongestFirst, TileBlocks, body, convert_tile_blocks, dq_cols};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::{BWD8_BQ, BackwardDims as Dims};

/// The entries of one element type.
macro_rules! b8_entries {
    ($name:ident, $conv:ident, $e:ty) => {
        /// b8: b7's kernel on 128-query tiles at head dim 64 (see the module docs); dQ into tile blocks of 32
        /// columns a warp, converted by the matching `attn_bwd_b8dq_d64_*`.
        ///
        /// # Safety
        /// As `attn_bwd_b7_d64_bf16`'s, with `bwd_qt_smem(64, 128)` bytes of dynamic shared memory and `dq_acc`
        /// `bwd_dq_tiles_of(tokens_q, batch, 128) × heads` blocks of 64 · 64 f32, zeroed.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                                dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { body::<$e, 64, BWD8_BQ, TileBlocks, LongestFirst>(q, k, v, d_o, stats, cu_q, cu_k, dq_acc, dk, dv, dims) }
        }
        $crate::launch_bounds::launch_bounds!($name, 256, 1);

        /// b8's dQ: scale × the accumulator's sums (`layout::attention::bwd_dq_block_at`'s blocks, 32 columns a
        /// warp, 128-row padding) into Q's layout.
        ///
        /// # Safety
        /// `acc` the accumulator b8 filled, `cu_q`, `cu_k` and `dims` as b8's; `dq` Q's elements, 16-byte
        /// aligned, written by nothing else meanwhile. Grid `(⌈max q_len / 64⌉, heads, batch)`, 256 threads.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $conv(acc: *const f32, cu_q: *const i32, cu_k: *const i32, dq: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { convert_tile_blocks::<$e, 64, { dq_cols(64, BWD8_BQ) }, BWD8_BQ>(acc, cu_q, cu_k, dq, dims) }
        }
        $crate::launch_bounds::launch_bounds!($conv, 256);
    };
}

b8_entries!(attn_bwd_b8_d64_f16, attn_bwd_b8dq_d64_f16, F16);
b8_entries!(attn_bwd_b8_d64_bf16, attn_bwd_b8dq_d64_bf16, Bf16);
