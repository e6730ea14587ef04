//! Block ladder v5 — a multistage `cp.async` pipeline on the swizzled tiles (2, 3 and 4 stages).
//!
//! Change from v4: global → shared copies go through `cp.async.cg` (no registers, zero-fill at the
//! edges), `STAGES` deep: while the warps compute tile t, tiles t+1 … t+STAGES-1 are in flight, and one
//! barrier per tile suffices. `hgemm_block_v5` has 3 stages (72 KiB), `hgemm_block_v5_s2` 2 and
//! `hgemm_block_v5_s4` 4 (96 KiB). Predicted: the main-loop stalls on global latency disappear (~1.5×),
//! 2 stages hiding less than 3, 4 little more than 3.
//!
//! v6 (`hgemm_block_v6`) is v5 with the grouped block order of SGEMM v8 (`layout::sgemm::grouped_block`,
//! 8 block rows sweep the columns together), so panels of A and B are reused from L2.
use super::block::{Acc, Accumulator, compute_k16s, store_c};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    shared,
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_x, thread_idx_x},
};
use layout::Layout;
use layout::hgemm::{A_SWIZZLED, B_SWIZZLED, BM, BN, THREADS, copy_chunk};
use crate::util::grouped::{GROUP, grouped_block};

/// The pipelined main loop for block tile `(bm, bn)`: `STAGES` shared stages (`WAIT = STAGES - 2`) of
/// `16 · K16`-deep tiles in layouts `la` (BM × 16·K16) and `lb` (16·K16 × BN). Shared by v5–v8; with
/// `SMEM_EPILOGUE` (v8) C goes out through shared memory, otherwise straight from the fragments.
///
/// # Safety
/// 256 threads, `STAGES · 2 · (la.size() + lb.size())` bytes of dynamic shared memory (16-byte aligned),
/// grid `(ceil(N / 256), ceil(M / 128))`; `a`, `b`, `c` hold M·K, K·N, M·N f16, 16-byte aligned;
/// `k % 8 == 0`, `n % 8 == 0`; `(bm, bn)` inside the grid; the layouts keep 8-element chunks whole.
#[inline(always)]
pub(crate) unsafe fn pipeline<const STAGES: u32, const WAIT: u32, const K16: u32, const SMEM_EPILOGUE: bool, A: Accumulator>(
    a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32, bm: u32, bn: u32, la: &impl Layout, lb: &impl Layout,
) {
    // `WAIT` is `STAGES - 2` (stable Rust cannot compute it from a const generic).
    const { assert!(WAIT + 2 == STAGES) };
    let bk = 16 * K16;
    let stage = 2 * (la.size() + lb.size());
    let base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let sa = |s: u32| base + s * stage;
    let sb = |s: u32| base + s * stage + 2 * la.size();
    let (m0, n0) = (bm * BM, bn * BN);
    let tiles = k.div_ceil(bk);
    let mut acc = A::ZERO;
    // SAFETY: `copy_tile`'s contract; a stage is overwritten only after the barrier that follows every
    // thread's wait for the tile after it.
    unsafe {
        let copy_tile = |t: u32| copy_tile(a, b, m, n, k, m0, n0, t * bk, sa(t % STAGES), sb(t % STAGES), bk, la, lb);
        for t in 0..STAGES - 1 {
            if t < tiles {
                copy_tile(t);
            }
            cp_async_commit_group();
        }
        for t in 0..tiles {
            cp_async_wait_group::<WAIT>();
            sync_threads();
            if t + STAGES - 1 < tiles {
                copy_tile(t + STAGES - 1);
            }
            cp_async_commit_group();
            compute_k16s::<K16, A>(&mut acc, sa(t % STAGES), sb(t % STAGES), la, lb);
        }
        cp_async_wait_group::<0>();
        if SMEM_EPILOGUE {
            sync_threads(); // every warp is done with the stages before the epilogue reuses them
            super::block_v8_smem_epilogue::epilogue(c, m, n, m0, n0, &acc, base);
        } else {
            store_c(c, m, n, m0, n0, &acc);
        }
    }
}

/// Issues the `cp.async.cg` copies of the K tile at `k0` (`bk` deep) into the stage at `s_a` / `s_b`,
/// zero-filling chunks outside A or B. Chunks are numbered by `layout::hgemm::copy_chunk`;
/// `ch = tid + 256 i`.
///
/// # Safety
/// As [`pipeline`]: `s_a`, `s_b` are a stage nobody reads until the copies are waited for and a barrier
/// follows; K and N multiples of 8.
#[inline(always)]
pub(crate) unsafe fn copy_tile(a: *const u16, b: *const u16, m: u32, n: u32, k: u32, m0: u32, n0: u32, k0: u32,
                               s_a: u32, s_b: u32, bk: u32, la: &impl Layout, lb: &impl Layout) {
    let tid = thread_idx_x();
    // SAFETY: copies stay inside their stage (layout offsets < size) and read global memory only for
    // chunks inside the matrices (K, N multiples of 8), zero-filling the rest.
    unsafe {
        for i in 0..BM * bk / 8 / THREADS {
            let ch = tid + THREADS * i;
            let (r, col) = copy_chunk(ch, bk);
            let ok = m0 + r < m && k0 + col < k;
            let src = if ok { a.add((m0 + r) as usize * k as usize + (k0 + col) as usize) } else { a };
            cp_async_cg_16_zfill(s_a + 2 * la.offset(r, col), src as *const u8, if ok { 16 } else { 0 });
        }
        for i in 0..bk * BN / 8 / THREADS {
            let ch = tid + THREADS * i;
            let (r, col) = copy_chunk(ch, BN);
            let ok = k0 + r < k && n0 + col < n;
            let src = if ok { b.add((k0 + r) as usize * n as usize + (n0 + col) as usize) } else { b };
            cp_async_cg_16_zfill(s_b + 2 * lb.offset(r, col), src as *const u8, if ok { 16 } else { 0 });
        }
    }
}

/// `C = A · B` (f16, row-major, f32 accumulation), 3 stages.
///
/// # Safety
/// See [`pipeline`] (3 stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v5(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { pipeline::<3, 1, 2, false, Acc>(a, b, c, m, n, k, block_idx_y(), block_idx_x(), &A_SWIZZLED, &B_SWIZZLED) }
}

/// As [`hgemm_block_v5`] with 2 stages (double buffering).
///
/// # Safety
/// See [`pipeline`] (2 stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v5_s2(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { pipeline::<2, 0, 2, false, Acc>(a, b, c, m, n, k, block_idx_y(), block_idx_x(), &A_SWIZZLED, &B_SWIZZLED) }
}

/// As [`hgemm_block_v5`] with 4 stages.
///
/// # Safety
/// See [`pipeline`] (4 stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v5_s4(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { pipeline::<4, 2, 2, false, Acc>(a, b, c, m, n, k, block_idx_y(), block_idx_x(), &A_SWIZZLED, &B_SWIZZLED) }
}

/// v6: v5 (3 stages) with the grouped block order.
///
/// # Safety
/// See [`pipeline`] (3 stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v6(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    // SAFETY: forwarded; `grouped_block` is a bijection onto the grid.
    unsafe { pipeline::<3, 1, 2, false, Acc>(a, b, c, m, n, k, bm, bn, &A_SWIZZLED, &B_SWIZZLED) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v5, 256);
launch_bounds!(hgemm_block_v5_s2, 256);
launch_bounds!(hgemm_block_v5_s4, 256);
launch_bounds!(hgemm_block_v6, 256);
