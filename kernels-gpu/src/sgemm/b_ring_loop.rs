//! The loop of SGEMM v17 and v18 (introduced by v17, whose file explains it): v16's 64×128 split-K
//! tile with B streamed global → shared by a `cp.async` ring of `V17_RING` stages and A through
//! registers; v18 runs each stage's 16 k-steps as two 8-step halves (`StageProducts::Halves`).
use super::elementwise::load4_or_zero;
use super::frag_map::{FragMap, WarpTiled};
use super::wide_k_loop::{Epi, epilogue, split_k_block, stage_products, stage_products_halves};
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    global::ld_global_nc_v4_f32,
    shared,
    sync::sync_threads,
    thread::thread_idx_x,
};
use core::marker::ConstParamTy;
use layout::Layout;
use layout::sgemm::{BK_WIDE, BN, V14_ROWS as ROWS, V17_RING as RING, a_tile_t_wide_rows, b_tile_wide};

/// How [`b_ring_tile`] runs each stage's 16 k-steps (its `PRODUCTS`).
#[derive(ConstParamTy, PartialEq, Eq, Clone, Copy)]
pub(crate) enum StageProducts {
    /// Unrolled, all 16 ([`stage_products`]: v17).
    Unrolled,
    /// A loop of two 8-step halves ([`stage_products_halves`]: v18).
    Halves,
}

/// `C = A · B` (row-major) on v16's 64×128 tiles (K split into `grid_dim_y / ⌈M/64⌉` ranges of
/// `k_split`), B through a `cp.async` ring; each stage's products as `PRODUCTS` says.
///
/// # Safety
/// As `sgemm_v14`, with `V17_SMEM_BYTES` of dynamic shared memory, and `K % 4 == 0`, `N % 4 == 0`.
#[inline(always)]
pub(crate) unsafe fn b_ring_tile<const PRODUCTS: StageProducts>(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    let (bm, bn, k_begin, k_end, splits) = split_k_block(ROWS, m, k, k_split);
    let (la, lb) = (a_tile_t_wide_rows(ROWS), b_tile_wide());
    let a_words = la.rows * la.stride;
    let base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let sa = |s: u32| base + 4 * s * a_words;
    let sb = |s: u32| base + 4 * (2 * a_words + s * lb.rows * lb.stride);
    let tid = thread_idx_x();
    let (m0, n0) = (bm * ROWS, bn * BN);
    // A: float4s (row tid / 2, k (tid % 2)·4 + 8i), as v14. B: 16-byte chunks (k row tid / 32 + 4i,
    // columns (tid % 32)·4), i < 4.
    let (am, ak) = (tid / 2, (tid % 2) * 4);
    let (bk, bn4) = (tid / 32, (tid % 32) * 4);
    let a_row = (m0 + am).min(m - 1);
    let b_col = (n0 + bn4).min(n - 4);
    let stages = (k_end - k_begin).div_ceil(BK_WIDE);
    let mut acc = [[0.0f32; 8]; 8];
    // SAFETY: A: rows ≤ M − 1, columns k < k_end ≤ K (a float4 is all inside or all outside K, as K and
    // the range ends are multiples of 4), 16-byte aligned (K % 4 == 0); B: rows k < k_end, columns
    // min(col, N − 4) .. + 4 ≤ N, 16-byte aligned (N % 4 == 0), chunks past k_end zero-filled without a
    // read. Shared offsets from the layouts, inside the stages (k < 16, m < 64, n < 128). Ring: stage t
    // is copied into slot t % 4 three stages ahead; it is read after this thread's `wait_group 2` (its
    // own copies of t done) and the barrier that follows every thread's, and its slot is next rewritten
    // (by stage t + 4's copies, issued at the top of stage t + 1) only after the barrier at the top of
    // stage t + 1, which every thread passes after its reads of stage t. A's register double buffer as
    // v14 (stage t + 1 stored into the other half after the barrier that ended reads of stage t − 1).
    // Uniform loop bounds: every thread reaches every barrier. Epilogue guarded by M and N.
    unsafe {
        let copy_b = |t: u32| {
            let k0 = k_begin + t * BK_WIDE;
            for i in 0..4u32 {
                let kr = k0 + bk + 4 * i;
                let (src, bytes) = if kr < k_end { (b.add(kr as usize * n as usize + b_col as usize), 16) } else { (b, 0) };
                cp_async_cg_16_zfill(sb(t % RING) + 4 * lb.offset(bk + 4 * i, bn4), src as *const u8, bytes);
            }
        };
        let fetch_a = |t: u32| -> [[f32; 4]; 2] {
            let k0 = k_begin + t * BK_WIDE;
            if k0 + BK_WIDE <= k_end {
                let ga = a.add(a_row as usize * k as usize + (k0 + ak) as usize);
                [ld_global_nc_v4_f32(ga), ld_global_nc_v4_f32(ga.add(8))]
            } else {
                [load4_or_zero(a, a_row, k0 + ak, m, k_end, k), load4_or_zero(a, a_row, k0 + ak + 8, m, k_end, k)]
            }
        };
        let store_a = |s: u32, v: [[f32; 4]; 2]| {
            for i in 0..2u32 {
                for c in 0..4u32 {
                    shared::st_shared_f32(sa(s) + 4 * la.offset(ak + 8 * i + c, am), v[i as usize][c as usize]);
                }
            }
        };
        let (oa, ob) = ([4 * la.offset(0, WarpTiled::row(tid, 0)), 4 * la.offset(0, WarpTiled::row(tid, 1))],
                        [4 * lb.offset(0, WarpTiled::col(tid, 0)), 4 * lb.offset(0, WarpTiled::col(tid, 1))]);
        let frag = |ka: u32, kb: u32, kk: u32| -> ([f32; 8], [f32; 8]) {
            let (ka, kb) = (ka + 4 * kk * la.stride, kb + 4 * kk * lb.stride);
            let a_lo = shared::ld_shared_v4_f32(ka + oa[0]);
            let a_hi = shared::ld_shared_v4_f32(ka + oa[1]);
            let b_lo = shared::ld_shared_v4_f32(kb + ob[0]);
            let b_hi = shared::ld_shared_v4_f32(kb + ob[1]);
            ([a_lo[0], a_lo[1], a_lo[2], a_lo[3], a_hi[0], a_hi[1], a_hi[2], a_hi[3]],
             [b_lo[0], b_lo[1], b_lo[2], b_lo[3], b_hi[0], b_hi[1], b_hi[2], b_hi[3]])
        };
        // Prologue: B's stages 0 .. RING − 2 in flight (a group each, empty past the range), A's stage 0
        // stored.
        for t in 0..RING - 1 {
            if t < stages {
                copy_b(t);
            }
            cp_async_commit_group();
        }
        store_a(0, fetch_a(0));
        let mut t = 0;
        while t < stages {
            // This thread's copies of stage t are done (at most RING − 2 younger groups pending); the
            // barrier publishes everyone's, and A's stage t, and ends every read of stage t − 1.
            cp_async_wait_group::<{ RING - 2 }>();
            sync_threads();
            if t + RING - 1 < stages {
                copy_b(t + RING - 1);
            }
            cp_async_commit_group();
            let next_a = if t + 1 < stages { fetch_a(t + 1) } else { [[0.0; 4]; 2] };
            let (ka, kb) = (sa(t % 2), sb(t % RING));
            if const { matches!(PRODUCTS, StageProducts::Halves) } {
                stage_products_halves(&mut acc, |kk| frag(ka, kb, kk));
            } else {
                stage_products(&mut acc, |kk| frag(ka, kb, kk));
            }
            if t + 1 < stages {
                store_a((t + 1) % 2, next_a);
            }
            t += 1;
        }
        if splits > 1 {
            epilogue::<WarpTiled, { Epi::ADD }>(&acc, c, m0, n0, m, n, tid);
        } else {
            epilogue::<WarpTiled, { Epi::STORE }>(&acc, c, m0, n0, m, n, tid);
        }
    }
}
