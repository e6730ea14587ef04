//! Warp ladder v5 — `Swizzle<3,1,3>` on every tile (seed 001 v5).
//!
//! Change from v4: A, B and C live in a `Swizzled { RowMajor 16×16, Swizzle<3,1,3> }` layout on element
//! offsets: bit 6 of the offset (row bit 2) flips bit 3 (which 8-half chunk of the row), so rows 4–7
//! and 12–15 keep their two halves swapped. The 128-bit stores, the `ldmatrix` rows and the `stmatrix`
//! rows all come from that one layout, so they agree; an 8-row phase now covers 32 distinct banks.
//! Predicted (bank model): 0 load and 0 store conflicts, no extra shared memory (seed 001: the same).
use super::warp_tile_16x16::{mma_16x16x16, stmatrix_x4_shfl, tile_to_global, tile_to_shared, x4_row_addr};
use crate::prim::{shared::static_alloc, sync::sync_threads, thread::lane_id};
use layout::hgemm_warp::SWIZZLED;

/// As `hgemm_warp_v1`.
///
/// # Safety
/// As `hgemm_warp_v1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_warp_v5(g_a: *const u16, g_b: *const u16, g_c: *mut u16) {
    let s_a = static_alloc::<1536>();
    let (s_b, s_c) = (s_a + 512, s_a + 1024);
    // SAFETY: as `hgemm_warp_v4`; Swizzle<3,1,3> permutes within 64-element blocks of the 256-element
    // tiles and keeps 8-element chunks whole.
    unsafe {
        tile_to_shared(s_a, g_a, &SWIZZLED);
        tile_to_shared(s_b, g_b, &SWIZZLED);
        sync_threads();
        let c = mma_16x16x16(s_a, s_b, &SWIZZLED);
        stmatrix_x4_shfl(x4_row_addr(s_c, lane_id(), &SWIZZLED), c);
        sync_threads();
        tile_to_global(g_c, s_c, &SWIZZLED);
    }
}
