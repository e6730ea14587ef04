//! Warp ladder v4 — `ldmatrix` + `mma.sync`, C through an `stmatrix` (seed 001 v4).
//!
//! Change from v2 (unpadded tiles again): the `wmma` black box is opened. `ldmatrix.x4` loads A's four
//! 8×8 matrices and `ldmatrix.x4.trans` B's, with an address per lane that we choose, and two
//! `mma.sync.m16n8k16` compute the two 16×8 halves of C. C goes back to shared memory with seed 001's
//! `shfl.sync` emulation of `stmatrix.x4` (`hgemm_warp_v4`) or, on sm_90, the native instruction
//! (`hgemm_warp_v4_stmatrix`). Same conflicts as v2 — the addresses are still the unpadded ones — but now
//! each address is ours to change, which v5 does. The tile product (`ldmatrix` + `mma`) is
//! `warp_tile_16x16::mma_16x16x16`, since v5 uses it too.
use super::warp_tile_16x16::{mma_16x16x16, stmatrix_x4_shfl, tile_to_global, tile_to_shared, x4_row_addr};
use crate::prim::{shared::static_alloc, sync::sync_threads, thread::lane_id};
use layout::hgemm_warp::TILE;

/// v4's body; `store_c(row_addr, fragments)` writes C's fragments to the shared C tile as
/// `stmatrix.x4` would (the emulation or the instruction).
///
/// # Safety
/// As `hgemm_warp_v1`; `store_c` is a warp-collective `stmatrix.x4` equivalent.
#[inline(always)]
unsafe fn run(g_a: *const u16, g_b: *const u16, g_c: *mut u16, store_c: impl Fn(u32, [u32; 4])) {
    let s_a = static_alloc::<1536>();
    let (s_b, s_c) = (s_a + 512, s_a + 1024);
    // SAFETY: one full warp; three 512-byte tiles; barriers between writers and readers.
    unsafe {
        tile_to_shared(s_a, g_a, &TILE);
        tile_to_shared(s_b, g_b, &TILE);
        sync_threads();
        let c = mma_16x16x16(s_a, s_b, &TILE);
        store_c(x4_row_addr(s_c, lane_id(), &TILE), c);
        sync_threads();
        tile_to_global(g_c, s_c, &TILE);
    }
}

/// As `hgemm_warp_v1`.
///
/// # Safety
/// As `hgemm_warp_v1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_warp_v4(g_a: *const u16, g_b: *const u16, g_c: *mut u16) {
    // SAFETY: forwarded; the emulation is called by all 32 lanes.
    unsafe { run(g_a, g_b, g_c, |addr, c| stmatrix_x4_shfl(addr, c)) }
}

/// As `hgemm_warp_v4`, with C stored by the native `stmatrix.sync.aligned.m8n8.x4.shared.b16` (sm_90).
///
/// # Safety
/// As `hgemm_warp_v1`; sm_90.
#[cfg(lab_sm90)]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_warp_v4_stmatrix(g_a: *const u16, g_b: *const u16, g_c: *mut u16) {
    // SAFETY: forwarded; sm_90 (this kernel is built only for the sm_90a module).
    unsafe { run(g_a, g_b, g_c, |addr, c| crate::prim::stmatrix::stmatrix_x4(addr, c)) }
}
