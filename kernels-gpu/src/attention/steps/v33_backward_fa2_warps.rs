//! Backward step b5 (issue 50): b1 on **FlashAttention-2's own warp layout** — every product's warps laid
//! out as a grid over its output, so each warp reads a quarter or a half of an operand tile where b1's read
//! it whole; Pᵀ and dSᵀ go through shared memory.
//!
//! b1 gives each of its 8 warps 16 of the CTA's 128 keys for every product: Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ come
//! out as the A fragments of dV and dK (no shared-memory round trip for P), but every warp reads the whole
//! Q and dO tiles twice (as `Qᵀ` and `.trans`) — 184 `ldmatrix.x4` per warp and 64-query tile, the
//! shared-memory bound `ncu` showed (L1 69%). b5, per 64-query tile of a CTA's 128 keys:
//!
//! ```text
//! Sᵀ, dPᵀ (128 keys × 64 queries)  warps 4 (keys) × 2 (queries), 32 × 32 each: K/V 32 rows, Q/dO 32 rows
//! Pᵀ, dSᵀ → shared memory         BwdTile::DS and b5's Pᵀ tile (128 × 64, keys as rows), then a barrier
//! dV += Pᵀ·dO, dK += dSᵀ·Q         warps 4 (keys) × 2 (halves of D), 32 keys × D/2 each (dK, dV stay in
//!                                  registers: 2 × 64 f32 a thread at D = 128)
//! dQ  = dS·K                       warps 2 (queries) × 4 (quarters of D), 32 queries × D/4 each, over all
//!                                  128 keys; added into the f32 accumulator by `red.global.add.f32`, two
//!                                  among each step of dK's products (b1's spread, session 68)
//! ```
//! `ldmatrix.x4` per warp and tile at D = 128: 32 (Sᵀ) + 32 (dPᵀ) + 24 (dV) + 24 (dK) + 32 (dQ) = 144 against
//! b1's 184, plus 32 `st.shared.b32` of Pᵀ and dSᵀ — FlashAttention-2's tiles (`Flash_bwd_kernel_traits<128,
//! 64, 128, 8, 2, 4, 2>`: 64 queries, 128 keys, 8 warps as 2 × 4 / 4 × 2 / 2 × 4). Two CTA barriers a tile,
//! as b1: one after the tile's copies landed (the last tile's products done with the other stage and with
//! Pᵀ, dSᵀ), one after Pᵀ and dSᵀ are written. Queries past q_len load as zeros (their dO and dS are 0, they
//! add nothing to dK, dV, and their dQ is not added); keys past k_len and the causal mask as b1's.
//!
//! Prediction (before any run, H200, bf16, L = 4096–8192): b1 measured 211–218 TFLOP/s at D = 128, 0.73–0.75×
//! torch's FlashAttention-2 backward (session 69), shared-memory bound with 1.34× FA2's shared wavefronts
//! and 1.18× its instructions (session 68's `ncu`). b5 reads 0.78× b1's `ldmatrix` bytes and adds the Pᵀ
//! store; expect **1.15–1.3× b1's speed: 245–280 TFLOP/s at D = 128, 0.85–0.97× FA2**, D = 64 alike
//! (FA2 takes 128-query tiles there; b5 keeps 64).
//!
//! Measured (H200, bf16, `results/2026-12-04-h200-session91`, 3 processes, b5 interleaved with b1): **0.89–0.90× b1's
//! time at D = 128 (237–246 TFLOP/s, causal 201–218), 0.91–0.92× at D = 64 — 0.81–0.84× FA2** (causal grouped 0.72×,
//! D = 64 0.76–0.81×): under the range. `ncu` against FA2's own kernel (the same tiles): 1.30× its cycles, 1.11× its
//! instructions, stalls led by short-scoreboard waits at the `mma`s and at the branches ptxas puts around each guarded
//! reduction — which also keep the reductions spread: unguarded (a scratch row for rows past q_len) ptxas gathered
//! them into one run and b5 took 1.09× the time. The attention README's backward section lists the forms tried.
use super::fa2_warps_backward::{GridOrder, RowMajor, body};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::BackwardDims as Dims;

/// The entries of one element type and head dim.
macro_rules! b5_entries {
    ($name:ident, $e:ty, $d:literal) => {
        /// b5: b1's kernel on FlashAttention-2's warp layout (see the module docs); dK, dV and dQ's f32
        /// accumulator as b1's (`attn_bwd_b1_d128_bf16`).
        ///
        /// # Safety
        /// As `attn_bwd_b1_d128_bf16`'s, with `bwd5_smem(D)` bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                                dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { body::<$e, $d, 64, RowMajor, GridOrder>(q, k, v, d_o, stats, cu_q, cu_k, dq_acc, dk, dv, dims) }
        }
        $crate::launch_bounds::launch_bounds!($name, 256, 1);
    };
}

b5_entries!(attn_bwd_b5_d64_f16, F16, 64);
b5_entries!(attn_bwd_b5_d128_f16, F16, 128);
b5_entries!(attn_bwd_b5_d64_bf16, Bf16, 64);
b5_entries!(attn_bwd_b5_d128_bf16, Bf16, 128);
