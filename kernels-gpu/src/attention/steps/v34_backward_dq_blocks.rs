//! Backward step b6 (issue 50): b5 with **FlashAttention-2's dQ accumulator** — the f32 sums kept in the
//! order the reductions leave the registers, so that each warp's `red` adds 32 consecutive f32.
//!
//! b5 adds its dQ fragments into an accumulator in Q's layout: one `red.global.add.f32` of a warp covers the
//! fragment's 8 rows × 4 lanes, every other column — 8 sectors of 32 bytes, half of each used. `ncu` (session
//! 91, 1×16×16×4096×128) put b5's L2 at 62.7% of its peak against 26.4% for FlashAttention-2's kernel, whose
//! 32 `atomicAdd`s a thread and tile are the same count: FA2 keeps `dq_accum` in its threads' order
//! (`GmemTiledCopydQaccumAtomicAdd`: a warp's 32 lanes on one 128-byte row of the block) and its conversion
//! kernel reads it back in that order. b6 does the same on b4's padded tile blocks:
//!
//! ```text
//! accumulator   bwd_h4_dq_tiles(tokens_q, batch) × heads blocks of 64 × D f32 (b4's: a sequence's tiles
//!               start at bwd_h4_dq_tile(q_start, b), so no two sequences share a block)
//! in a block    layout::attention::bwd_dq_block_at: warp w's 32 × D/4 sums at 8·D·w, its lane l's reduction k
//!               at 32·k + l — one `red` = 128 consecutive bytes, 4 whole sectors
//! reductions    unguarded: rows past q_len add zeros (their Q and dO rows load as zeros) into the tile's
//!               padding, never converted; one base register a tile, each `red` an immediate offset
//! conversion    attn_bwd_b6dq_*: a CTA per (tile, head, sequence) reads its block in order (coalesced) and
//!               writes scale × its rows below q_len into dQ
//! ```
//! Everything else is b5's body (`fa2_warps_backward::body` with the `TileBlocks` policy).
//!
//! Prediction (before any run, H200, bf16, L = 4096–8192): the L2's atomic traffic halves (sectors a `red`
//! 8 → 4, all used) and the 32 guard branches and address computations a tile go (b5's SASS: a
//! `BSSY/BRA/BSYNC` around each guarded `red`); b5's ncu stall samples in those branches were 14%. Expect
//! **0.88–0.94× b5's time at D = 128** (0.86–0.92× FA2's), 0.92–0.97× at D = 64; the conversion reads
//! 64·D·4 bytes a padded tile — about 1% of the backward at L = 4096.
//!
//! Measured (H200, bf16, `results/2026-12-04-h200-session92`, 3 processes, b6 interleaved with b5): **0.80–0.83× b5's
//! time at D = 128 (292–306 TFLOP/s, causal 245–268), 0.86–0.87× at D = 64 — 0.99–1.02× FlashAttention-2 at D = 128**
//! (causal grouped 0.89×: the CTAs' order, b7), 0.88× / 0.93× at D = 64. `ncu` at 1×16×16×4096×128: 2.06 M cycles
//! (b5 2.64 M, FA2 2.02 M), L2 29% of peak (b5 63%), 267 M instructions (b5 295 M). ptxas gathers the unguarded `red`s
//! into one run (SASS 2071–2116 of 2584) as it did b5's scratch-row form, but at 4 sectors each they cost 7.7% of the
//! stall samples.
use super::fa2_warps_backward::{GridOrder, TileBlocks, body, convert_tile_blocks};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::BackwardDims as Dims;

/// The entries of one element type and head dim.
macro_rules! b6_entries {
    ($name:ident, $e:ty, $d:literal) => {
        /// b6: b5's kernel adding dQ into b4's padded tile blocks in its own order (see the module docs).
        ///
        /// # Safety
        /// As `attn_bwd_b5_d128_bf16`'s, except `dq_acc`: `bwd_h4_dq_tiles(tokens_q, batch) × heads` blocks of
        /// 64 · D f32, zeroed, that only this launch's atomics touch, converted by [`attn_bwd_b6dq_d128_bf16`]
        /// and its kin.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                                dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { body::<$e, $d, 64, TileBlocks, GridOrder>(q, k, v, d_o, stats, cu_q, cu_k, dq_acc, dk, dv, dims) }
        }
        $crate::launch_bounds::launch_bounds!($name, 256, 1);
    };
}

b6_entries!(attn_bwd_b6_d64_f16, F16, 64);
b6_entries!(attn_bwd_b6_d128_f16, F16, 128);
b6_entries!(attn_bwd_b6_d64_bf16, Bf16, 64);
b6_entries!(attn_bwd_b6_d128_bf16, Bf16, 128);

macro_rules! b6_convert {
    ($name:ident, $e:ty, $d:literal) => {
        /// b6's dQ: scale × the accumulator's sums (`layout::attention::bwd_dq_block_at`'s blocks, `D / 4`
        /// columns a warp) into Q's layout.
        ///
        /// # Safety
        /// `acc` the accumulator b6 filled (its `dq_acc`), `cu_q`, `cu_k` and `dims` as b6's; `dq` Q's elements,
        /// 16-byte aligned, written by nothing else meanwhile. Grid `(⌈max q_len / 64⌉, heads, batch)`, 256 threads.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(acc: *const f32, cu_q: *const i32, cu_k: *const i32, dq: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { convert_tile_blocks::<$e, $d, { $d / 4 }, 64>(acc, cu_q, cu_k, dq, dims) }
        }
        $crate::launch_bounds::launch_bounds!($name, 256);
    };
}

b6_convert!(attn_bwd_b6dq_d64_f16, F16, 64);
b6_convert!(attn_bwd_b6dq_d128_f16, F16, 128);
b6_convert!(attn_bwd_b6dq_d64_bf16, Bf16, 64);
b6_convert!(attn_bwd_b6dq_d128_bf16, Bf16, 128);
