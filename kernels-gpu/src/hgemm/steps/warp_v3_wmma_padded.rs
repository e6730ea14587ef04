//! Warp ladder v3 — rows padded by 8 halves (seed 001 v3, seed 000's padding).
//!
//! Change from v2: A and B rows are 24 halves (48 bytes) apart, so the 8 rows of a fragment phase start
//! 12 banks apart and cover all 32 banks: the loads stop conflicting. But the 128-bit stores of a phase
//! (8 lanes: rows 0–3) now hit banks 0–3, 4–7, 12–15, 16–19, 24–27, 28–31, 4–7, 8–11: lanes 1 and 6
//! collide — padding trades load conflicts for store conflicts (seed 001 measures 12 after padding).
//! C stays unpadded, as in the seed. 256 extra bytes per padded tile.
use super::warp_tile_16x16::{tile_to_global, tile_to_shared};
use crate::prim::{shared::static_alloc, sync::sync_threads, wmma::*};
use layout::hgemm_warp::{PADDED, TILE};

/// As `hgemm_warp_v1`.
///
/// # Safety
/// As `hgemm_warp_v1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_warp_v3(g_a: *const u16, g_b: *const u16, g_c: *mut u16) {
    let s_a = static_alloc::<2048>();
    let (s_b, s_c) = (s_a + 768, s_a + 1536);
    // SAFETY: one full warp; two 768-byte padded tiles and one 512-byte tile inside 2048 bytes.
    unsafe {
        tile_to_shared(s_a, g_a, &PADDED);
        tile_to_shared(s_b, g_b, &PADDED);
        sync_threads();
        let a = wmma_load_a_row_m16n16k16_shared_f16(s_a as u64, PADDED.stride);
        let b = wmma_load_b_row_m16n16k16_shared_f16(s_b as u64, PADDED.stride);
        let mut acc = [0u32; 4];
        wmma_mma_row_row_m16n16k16_f16_f16(&mut acc, a, b);
        wmma_store_d_row_m16n16k16_shared_f16(s_c as u64, acc, TILE.cols);
        sync_threads();
        tile_to_global(g_c, s_c, &TILE);
    }
}
