//! The block ladder's epilogue through shared memory (introduced by block v8; used by v8–v10): the
//! block writes its 128×256 C tile into the idle stage memory, laid out by `layout::hgemm::C_SWIZZLED`
//! so the fragment writes are conflict-free, then copies it out with 16 coalesced 128-bit stores per
//! thread (a warp writes 512 contiguous bytes of a row).
use super::block::{Accumulator, WM, WN};
use crate::prim::{global::st_global_v4_u32, shared, sync::sync_threads, thread::thread_idx_x};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::Layout;
use layout::fragment::MmaM16N8K16;
use layout::hgemm::{BM, BN, C_SWIZZLED, THREADS, copy_chunk};

/// Writes the warp fragments to the swizzled C tile at `s_c`, then the block copies it to `c`.
///
/// # Safety
/// Called by all 256 threads after the main loop's final barrier; `s_c` has `2 · 128 · 256` bytes of
/// this block's shared memory; `c` is a writable row-major `m × n` f16 matrix with `n % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn store_c_through_smem<A: Accumulator>(c: *mut u16, m: u32, n: u32, m0: u32, n0: u32, acc: &A, s_c: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (wm, wn) = (warp / (BN / WN), warp % (BN / WN));
    // SAFETY: offsets come from C_SWIZZLED (< 128·256 elements, 4-byte aligned pairs, 16-byte chunks);
    // the barrier separates the fragment writes from the chunk reads; global stores are guarded.
    unsafe {
        unroll4!(mi => {
            unroll8!(ni => {
                unroll2!(h => {
                    // Pair h (c_2h, c_2h+1) of m16n8 tile (mi, ni): row first, then column, as separate
                    // `c_rc` calls (this order and grouping keep the PTX as it was).
                    let fr = MmaM16N8K16::c_rc(lane, 2 * h).0;
                    let row = wm * WM + (16 * mi + fr);
                    let col = wn * WN + (8 * ni + MmaM16N8K16::c_rc(lane, 2 * h).1);
                    shared::st_shared_u32(s_c + 2 * C_SWIZZLED.offset(row, col), acc.packed(mi as usize, ni as usize, h as usize));
                });
            });
        });
        sync_threads();
        for i in 0..BM * BN / 8 / THREADS {
            let ch = tid + THREADS * i;
            let (row, col) = copy_chunk(ch, BN);
            if m0 + row < m && n0 + col < n {
                let v = shared::ld_shared_v4_u32(s_c + 2 * C_SWIZZLED.offset(row, col));
                st_global_v4_u32(c.add((m0 + row) as usize * n as usize + (n0 + col) as usize) as *mut u32, v);
            }
        }
    }
}
