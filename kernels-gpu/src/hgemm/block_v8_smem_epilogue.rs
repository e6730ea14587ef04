//! Block ladder v8 — the epilogue through shared memory with 128-bit stores.
//!
//! Change from v7: instead of every lane storing 32-bit f16 pairs of its `mma` fragments straight to
//! global memory (64 stores per thread, each warp instruction touching 8 rows × 16 bytes), the block
//! first writes its 128×256 C tile into the (now idle) stage memory — laid out by
//! `layout::hgemm::C_SWIZZLED` so the fragment writes are conflict-free — then copies it out with
//! 16 coalesced 128-bit stores per thread (a warp writes 512 contiguous bytes of a row).
//! Predicted: small, ~1.02× (the epilogue is ~2–3% of the time at 4096³; L2 already merges the
//! partial-sector writes).
use super::block::{Acc, Accumulator, WM, WN};
use super::block_v5_cp_async::pipeline;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    global::st_global_v4_u32,
    shared,
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_x, thread_idx_x},
};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::Layout;
use layout::hgemm::{A_SWIZZLED_WIDE, B_SWIZZLED_WIDE, BM, BN, C_SWIZZLED, THREADS, copy_chunk};
use crate::util::grouped::{GROUP, grouped_block};

/// Writes the warp fragments to the swizzled C tile at `s_c`, then the block copies it to `c`.
///
/// # Safety
/// Called by all 256 threads after the main loop's final barrier; `s_c` has `2 · 128 · 256` bytes of
/// this block's shared memory; `c` is a writable row-major `m × n` f16 matrix with `n % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn epilogue<A: Accumulator>(c: *mut u16, m: u32, n: u32, m0: u32, n0: u32, acc: &A, s_c: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (wm, wn) = (warp / (BN / WN), warp % (BN / WN));
    let (g, t) = (lane / 4, lane % 4);
    // SAFETY: offsets come from C_SWIZZLED (< 128·256 elements, 4-byte aligned pairs, 16-byte chunks);
    // the barrier separates the fragment writes from the chunk reads; global stores are guarded.
    unsafe {
        unroll4!(mi => {
            unroll8!(ni => {
                unroll2!(h => {
                    let (row, col) = (wm * WM + 16 * mi + g + 8 * h, wn * WN + 8 * ni + 2 * t);
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

/// `C = A · B` (f16, row-major, f32 accumulation).
///
/// # Safety
/// As `hgemm_block_v7` (144 KiB of dynamic shared memory, of which the epilogue reuses 64 KiB).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v8(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    // SAFETY: forwarded; the 3 × 48 KiB of stages cover the 64 KiB C tile.
    unsafe {
        pipeline::<3, 1, 4, true, Acc>(a, b, c, m, n, k, bm, bn, &A_SWIZZLED_WIDE, &B_SWIZZLED_WIDE);
    }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v8, 256);
