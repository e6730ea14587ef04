//! Block ladder v7 — 64-deep K stages.
//!
//! Change from v6: each stage holds 64 k instead of 32 (A 128×64 with `Swizzle<3,3,3>`, B 64×256 with
//! `Swizzle<5,3,3>`, both the solver's first choice), so every barrier and `cp.async` wait is followed by
//! 4 k16 steps (128 `mma.sync` per warp) instead of 2: half the synchronisation per FLOP, and more
//! independent work between waits for 8 warps per SM to overlap. 3 stages = 144 KiB of shared memory.
//! Predicted: ~1.05–1.1× over v6.
use super::block::{Acc, compute_k16s, store_c};
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    shared,
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_x, thread_idx_x},
};
use layout::Layout;
use layout::hgemm::{A_SWIZZLED_WIDE, B_SWIZZLED_WIDE, BK_WIDE, BM, BN, THREADS};
use layout::sgemm::grouped_block;

const STAGES: u32 = 3;

/// `C = A · B` (f16, row-major, f32 accumulation).
///
/// # Safety
/// 256 threads, `3 · 2 · (128·64 + 64·256)` bytes of dynamic shared memory, grid
/// `(ceil(N / 256), ceil(M / 128))`; `a`, `b`, `c` hold M·K, K·N, M·N f16, 16-byte aligned; `k % 8 == 0`,
/// `n % 8 == 0`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v7(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    let (la, lb) = (A_SWIZZLED_WIDE, B_SWIZZLED_WIDE);
    let stage = 2 * (la.size() + lb.size());
    let base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let sa = |s: u32| base + s * stage;
    let sb = |s: u32| base + s * stage + 2 * la.size();
    let tid = thread_idx_x();
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, 8);
    let (m0, n0) = (bm * BM, bn * BN);
    let tiles = k.div_ceil(BK_WIDE);
    let mut acc: Acc = [[[0.0; 4]; 8]; 4];
    // SAFETY: as v5 (copies inside their stage, zero-filled outside the matrices, a stage reused only
    // after the barrier that follows every thread's wait); chunk c of A is row c / 8, column 8 (c % 8)
    // (4 per thread), of B row c / 32, column 8 (c % 32) (8 per thread).
    unsafe {
        let copy_tile = |t: u32| {
            let (s, k0) = (t % STAGES, t * BK_WIDE);
            for i in 0..4 {
                let ch = tid + THREADS * i;
                let (r, col) = (ch / (BK_WIDE / 8), 8 * (ch % (BK_WIDE / 8)));
                let ok = m0 + r < m && k0 + col < k;
                let src = if ok { a.add((m0 + r) as usize * k as usize + (k0 + col) as usize) } else { a };
                cp_async_cg_16_zfill(sa(s) + 2 * la.offset(r, col), src as *const u8, if ok { 16 } else { 0 });
            }
            for i in 0..8 {
                let ch = tid + THREADS * i;
                let (r, col) = (ch / (BN / 8), 8 * (ch % (BN / 8)));
                let ok = k0 + r < k && n0 + col < n;
                let src = if ok { b.add((k0 + r) as usize * n as usize + (n0 + col) as usize) } else { b };
                cp_async_cg_16_zfill(sb(s) + 2 * lb.offset(r, col), src as *const u8, if ok { 16 } else { 0 });
            }
        };
        for t in 0..STAGES - 1 {
            if t < tiles {
                copy_tile(t);
            }
            cp_async_commit_group();
        }
        for t in 0..tiles {
            cp_async_wait_group::<{ STAGES - 2 }>();
            sync_threads();
            if t + STAGES - 1 < tiles {
                copy_tile(t + STAGES - 1);
            }
            cp_async_commit_group();
            compute_k16s::<4>(&mut acc, sa(t % STAGES), sb(t % STAGES), &la, &lb);
        }
        cp_async_wait_group::<0>();
        store_c(c, m, n, m0, n0, &acc);
    }
}
