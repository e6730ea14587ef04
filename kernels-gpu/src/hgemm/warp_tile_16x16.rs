//! The 16×16 tile of the single-warp ladder (`warp_v1` … `warp_v5`): copies between global and shared
//! memory (one 128-bit load and store per lane), the `ldmatrix`/`stmatrix` row address of a lane, seed
//! 001's `shfl.sync` emulation of `stmatrix.x4`, and the `ldmatrix` + `mma.sync` product of two tiles
//! (introduced by warp v4, reused by v5). Every address comes from the tile's `Layout`.
use crate::prim::{
    global::{ld_global_nc_v4_u32, st_global_v4_u32},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    mma::mma_m16n8k16_f16_f16,
    shared,
    thread::lane_id,
    warp::shuffle_idx_u32,
};
use layout::{Layout, fragment::Ldmatrix};

/// Copies a row-major 16×16 f16 tile from global memory into shared memory laid out by `layout`:
/// lane t moves 16 bytes (row t / 2, columns 8 (t % 2) ..) with one 128-bit load and one 128-bit store.
///
/// # Safety
/// All 32 lanes call it; `g` has 256 readable 16-byte-aligned f16; `s` is the shared address of
/// `2 · layout.size()` writable bytes, 16-byte aligned, and `layout` keeps 8-element chunks contiguous.
#[inline(always)]
pub(crate) unsafe fn tile_to_shared(s: u32, g: *const u16, layout: &impl Layout) {
    let t = lane_id();
    // SAFETY: caller contract; lane t's 16 bytes are elements 8t..8t+8 of the global tile.
    unsafe {
        let v = ld_global_nc_v4_u32((g as *const u32).add(4 * t as usize));
        shared::st_shared_v4_u32(s + 2 * layout.offset(t / 2, 8 * (t % 2)), v);
    }
}

/// Copies a 16×16 f16 tile laid out by `layout` in shared memory to a row-major tile in global memory,
/// 16 bytes per lane (the reverse of [`tile_to_shared`]).
///
/// # Safety
/// As [`tile_to_shared`], with `g` writable.
#[inline(always)]
pub(crate) unsafe fn tile_to_global(g: *mut u16, s: u32, layout: &impl Layout) {
    let t = lane_id();
    // SAFETY: caller contract.
    unsafe {
        let v = shared::ld_shared_v4_u32(s + 2 * layout.offset(t / 2, 8 * (t % 2)));
        st_global_v4_u32((g as *mut u32).add(4 * t as usize), v);
    }
}

/// The row address lane `lane` gives `ldmatrix.x4` / `stmatrix.x4` over a 16×16 tile in `layout`: the
/// tile row start [`Ldmatrix::tile_addr_rc`] (lanes 0–15 rows 0–15 at column 0, lanes 16–31 at column 8).
#[inline(always)]
pub(crate) fn x4_row_addr(s: u32, lane: u32, layout: &impl Layout) -> u32 {
    let (row, col) = Ldmatrix::X4.tile_addr_rc(lane);
    s + 2 * layout.offset(row, col)
}

/// Seed 001's `stmatrix.x4` emulation with `shfl.sync` (for GPUs without `stmatrix`): lane
/// [`Ldmatrix::addr_lane`]`(i, r)` holds the address of row r of matrix i; the 4 lanes whose register i
/// holds that row ([`Ldmatrix::rc`]: row r, columns c, c + 1) fetch it with a shuffle and each store
/// their 2 halves (32 bits) at column c.
///
/// # Safety
/// All 32 lanes call it; `row_addr` is this lane's 16-byte-aligned shared row address as for
/// `stmatrix.x4`; the 4 × 8 rows are writable and not accessed by other threads meanwhile.
#[inline(always)]
pub(crate) unsafe fn stmatrix_x4_shfl(row_addr: u32, frag: [u32; 4]) {
    let (r, c) = Ldmatrix::X4.rc(lane_id(), 0);
    for (i, v) in frag.iter().enumerate() {
        // SAFETY: all lanes shuffle (collective); the address is the owner lane's row + 2 bytes · c.
        unsafe {
            let row = shuffle_idx_u32(row_addr, Ldmatrix::X4.addr_lane(i as u32, r));
            shared::st_shared_u32(row + 2 * c, *v);
        }
    }
}

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
