//! Warp ladder v2 — staged through shared memory (seed 001 v2).
//!
//! Change from v1: each lane copies 16 bytes of A and of B into shared memory (one 128-bit load, one
//! 128-bit store), then `wmma.load ... .shared` reads the fragments there; C goes back through shared
//! memory the same way. Rows are 32 bytes, so rows r and r + 4 share banks: the fragment loads (which
//! compile to `ldmatrix`) conflict 2-way in each 8-row phase — seed 001 measures 8 load conflicts.
//! The 128-bit stores do not conflict (8-lane phases of 128 contiguous bytes).
use super::warp_tile_16x16::{tile_to_global, tile_to_shared};
use crate::prim::{shared::static_alloc, sync::sync_threads, wmma::*};
use layout::hgemm_warp::TILE;


/// As `hgemm_warp_v1`.
///
/// # Safety
/// As `hgemm_warp_v1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_warp_v2(g_a: *const u16, g_b: *const u16, g_c: *mut u16) {
    let s_a = static_alloc::<1536>();
    let (s_b, s_c) = (s_a + 512, s_a + 1024);
    let stride = TILE.cols;
    // SAFETY: one full warp; three 512-byte tiles inside the 1536-byte allocation; barriers separate
    // the stores from the loads.
    unsafe {
        tile_to_shared(s_a, g_a, &TILE);
        tile_to_shared(s_b, g_b, &TILE);
        sync_threads();
        let a = wmma_load_a_row_m16n16k16_shared_f16(s_a as u64, stride);
        let b = wmma_load_b_row_m16n16k16_shared_f16(s_b as u64, stride);
        let mut acc = [0u32; 4];
        wmma_mma_row_row_m16n16k16_f16_f16(&mut acc, a, b);
        wmma_store_d_row_m16n16k16_shared_f16(s_c as u64, acc, stride);
        sync_threads();
        tile_to_global(g_c, s_c, &TILE);
    }
}
