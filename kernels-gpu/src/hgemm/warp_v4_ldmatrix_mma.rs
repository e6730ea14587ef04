//! Warp ladder v4 — `ldmatrix` + `mma.sync`, C through an `stmatrix` (seed 001 v4).
//!
//! Change from v2 (unpadded tiles again): the `wmma` black box is opened. `ldmatrix.x4` loads A's four
//! 8×8 matrices and `ldmatrix.x4.trans` B's, with an address per lane that we choose, and two
//! `mma.sync.m16n8k16` compute the two 16×8 halves of C. C goes back to shared memory with seed 001's
//! `shfl.sync` emulation of `stmatrix.x4` (`hgemm_warp_v4`) or, on sm_90, the native instruction
//! (`hgemm_warp_v4_stmatrix`). Same conflicts as v2 — the addresses are still the unpadded ones — but now
//! each address is ours to change, which v5 does.
use super::{TILE, stmatrix_x4_shfl, tile_to_global, tile_to_shared, x4_row_addr};
use crate::prim::{ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans}, mma::mma_m16n8k16_f16_f16, shared::static_alloc, sync::sync_threads, thread::lane_id};
use layout::Layout;

/// `C` fragments of `A · B` for tiles at `s_a`, `s_b` in `layout`: `[c(rows 0-7, cols 0-7),
/// c(rows 8-15, cols 0-7), c(rows 0-7, cols 8-15), c(rows 8-15, cols 8-15)]`, the `stmatrix.x4` order.
///
/// # Safety
/// All 32 lanes call it; the tiles are in shared memory, written before a barrier.
#[inline(always)]
pub(crate) unsafe fn mma_16x16x16(s_a: u32, s_b: u32, layout: &impl Layout) -> [u32; 4] {
    let lane = lane_id();
    // SAFETY: collective calls by the full warp on valid shared rows (caller contract).
    unsafe {
        let a = ldmatrix_x4(x4_row_addr(s_a, lane, layout));
        let b = ldmatrix_x4_trans(x4_row_addr(s_b, lane, layout));
        let (mut c0, mut c1) = ([0u32; 2], [0u32; 2]);
        mma_m16n8k16_f16_f16(&mut c0, a, [b[0], b[1]]);
        mma_m16n8k16_f16_f16(&mut c1, a, [b[2], b[3]]);
        [c0[0], c0[1], c1[0], c1[1]]
    }
}

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
