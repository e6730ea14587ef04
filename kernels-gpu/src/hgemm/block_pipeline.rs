//! The multistage `cp.async` main loop of the block ladder (introduced by block v5; used by v5–v8 and
//! by v9/v10 for the blocks on the ragged edge), configured by a [`BlockConfig`].
//!
//! `STAGES` shared stages of `16 · K16_PER_STAGE`-deep K tiles: while the warps compute tile t, tiles
//! t+1 … t+STAGES−1 are in flight, and one barrier per tile suffices. Global → shared copies are
//! `cp.async.cg` (no registers, zero-fill outside A and B).
use super::block::{Accumulator, BlockConfig, Epilogue, compute_k16s, store_c};
use super::block_smem_epilogue::store_c_through_smem;
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group, cp_async_wait_group_n},
    shared,
    sync::sync_threads,
    thread::thread_idx_x,
};
use layout::Layout;
use layout::hgemm::{BM, BN, THREADS, copy_chunk};

/// The pipelined main loop and epilogue for block tile `(bm, bn)`, with stages in layouts `la`
/// (BM × 16·K16_PER_STAGE) and `lb` (16·K16_PER_STAGE × BN).
///
/// # Safety
/// 256 threads, `STAGES · 2 · (la.size() + lb.size())` bytes of dynamic shared memory (16-byte aligned),
/// grid `(ceil(N / 256), ceil(M / 128))`; `a`, `b`, `c` hold M·K, K·N, M·N f16, 16-byte aligned;
/// `k % 8 == 0`, `n % 8 == 0`; `(bm, bn)` inside the grid; the layouts keep 8-element chunks whole.
#[inline(always)]
pub(crate) unsafe fn pipeline<C: BlockConfig>(
    a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32, bm: u32, bn: u32, la: &impl Layout, lb: &impl Layout,
) {
    const { assert!(C::STAGES >= 2 && C::STAGES <= 4) };
    let bk = 16 * C::K16_PER_STAGE;
    let stage = 2 * (la.size() + lb.size());
    let base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let sa = |s: u32| base + s * stage;
    let sb = |s: u32| base + s * stage + 2 * la.size();
    let (m0, n0) = (bm * BM, bn * BN);
    let tiles = k.div_ceil(bk);
    let mut acc = C::Acc::ZERO;
    // SAFETY: `copy_tile`'s contract; a stage is overwritten only after the barrier that follows every
    // thread's wait for the tile after it.
    unsafe {
        let copy_tile = |t: u32| copy_tile(a, b, m, n, k, m0, n0, t * bk, sa(t % C::STAGES), sb(t % C::STAGES), bk, la, lb);
        for t in 0..C::STAGES - 1 {
            if t < tiles {
                copy_tile(t);
            }
            cp_async_commit_group();
        }
        for t in 0..tiles {
            cp_async_wait_group_n(C::STAGES - 2); // tile t has landed (this thread's copies)
            sync_threads();
            if t + C::STAGES - 1 < tiles {
                copy_tile(t + C::STAGES - 1);
            }
            cp_async_commit_group();
            compute_k16s::<C>(&mut acc, sa(t % C::STAGES), sb(t % C::STAGES), la, lb);
        }
        cp_async_wait_group::<0>();
        // A constant condition (`const`): the branch not taken is never emitted.
        if const { matches!(C::EPILOGUE, Epilogue::ThroughSharedTile) } {
            sync_threads(); // every warp is done with the stages before the epilogue reuses them
            store_c_through_smem(c, m, n, m0, n0, &acc, base);
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
