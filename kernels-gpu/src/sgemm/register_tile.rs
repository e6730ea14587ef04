//! The main loop shared by v2–v4: a 128×128 block tile, 256 threads, 8×8 outputs per thread, K in
//! steps of 8 through shared memory (A stored transposed, `s_a[k][m]`). What differs between those
//! steps is only the [`Mapping`]: which element each thread loads, and which outputs it owns.
use super::elementwise::{fma, load_or_zero, store_if};
use crate::util::unroll::unroll8;
use crate::prim::{shared, sync::sync_threads, thread::{block_idx_x, block_idx_y, thread_idx_x}};
use layout::Layout;
use layout::sgemm::{BK, BM, BN, TM, TN, a_tile_t, b_tile, thread_rc};

/// A step's choice of thread-to-element mappings.
pub(crate) trait Mapping {
    /// `(m, k)` inside the 128×8 A tile of the `i`-th (0..4) element thread `tid` loads.
    fn a_load(tid: u32, i: u32) -> (u32, u32);
    /// Row of the block tile that thread row `ty` owns as its `i`-th (0..8).
    fn row(ty: u32, i: u32) -> u32;
    /// Column of the block tile that thread column `tx` owns as its `j`-th (0..8).
    fn col(tx: u32, j: u32) -> u32;
}

/// `C = A · B` for the block `(block_idx_y, block_idx_x)`.
///
/// # Safety
/// Launched with 256 threads, `(BK·BM + BK·BN) · 4` bytes of dynamic shared memory, grid
/// `(ceil(N / 128), ceil(M / 128))`; `a`, `b`, `c` hold `M·K`, `K·N`, `M·N` f32.
#[inline(always)]
pub(crate) unsafe fn run<Map: Mapping>(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (la, lb) = (a_tile_t(), b_tile());
    let s_a = shared::dynamic::<f32>();
    let s_b = s_a.wrapping_add((la.rows * la.stride) as usize);
    let tid = thread_idx_x();
    let (ty, tx) = thread_rc(tid);
    let (m0, n0) = (block_idx_y() * BM, block_idx_x() * BN);
    let mut acc = [[0.0f32; TN as usize]; TM as usize];
    // SAFETY: shared offsets come from the tile layouts with m < BM, n < BN, k < BK; global loads are
    // predicated; the K loop bound is uniform, so every thread reaches every barrier.
    unsafe {
        let mut k0 = 0;
        while k0 < k {
            for i in 0..4 {
                let (am, ak) = Map::a_load(tid, i);
                *s_a.add(la.offset(ak, am) as usize) = load_or_zero(a, m0 + am, k0 + ak, m, k, k);
                let e = tid + THREADS_U * i;
                let (bk, bn) = (e / BN, e % BN);
                *s_b.add(lb.offset(bk, bn) as usize) = load_or_zero(b, k0 + bk, n0 + bn, k, n, n);
            }
            sync_threads();
            for kk in 0..BK {
                let a_frag: [f32; TM as usize] = core::array::from_fn(|i| *s_a.add(la.offset(kk, Map::row(ty, i as u32)) as usize));
                let b_frag: [f32; TN as usize] = core::array::from_fn(|j| *s_b.add(lb.offset(kk, Map::col(tx, j as u32)) as usize));
                for i in 0..TM as usize {
                    for j in 0..TN as usize {
                        acc[i][j] = fma(a_frag[i], b_frag[j], acc[i][j]);
                    }
                }
            }
            sync_threads();
            k0 += BK;
        }
        unroll8!(i => {
            unroll8!(j => {
                store_if(c, m0 + Map::row(ty, i), n0 + Map::col(tx, j), m, n, n, acc[i as usize][j as usize]);
            })
        });
    }
}

const THREADS_U: u32 = layout::sgemm::THREADS;
