//! Self-test kernels: each exercises a group of primitives once, so the host tests can check the
//! wrappers (fragment layouts, shuffle semantics, shared-memory widths) against a CPU model on random
//! data. They are small and single-block; the host's `selftest` module launches and verifies them.
mod mma;
mod shared_widths;
mod shuffle;
#[cfg(lab_sm90)]
mod stmatrix;

use crate::prim::{cp_async, sync::sync_threads, thread::lane_id};

/// Copies a 16×16 tile of 16-bit elements (512 bytes, row-major, 32 bytes per row) from global memory
/// to shared memory at `s_tile` with one `cp.async.cg` of 16 bytes per lane, then waits and syncs.
///
/// # Safety
/// Called by all 32 threads of a one-warp block; `g_tile` has 512 readable, 16-byte-aligned bytes;
/// `s_tile` is a 16-byte-aligned shared address of 512 writable bytes.
#[inline(always)]
pub(crate) unsafe fn load_tile_16x16_b16(s_tile: u32, g_tile: *const u16) {
    let lane = lane_id();
    // SAFETY: lane l copies bytes [16·l, 16·l + 16) of the 512, inside both buffers (caller contract).
    unsafe {
        cp_async::cp_async_cg_16(s_tile + 16 * lane, (g_tile as *const u8).add(16 * lane as usize));
        cp_async::cp_async_commit_group();
        cp_async::cp_async_wait_group::<0>();
        sync_threads();
    }
}

/// The `ldmatrix` row address lane `lane` provides for `.x4` over a row-major 16×16 tile of 16-bit
/// elements: lanes 0–15 point at rows 0–15, column 0; lanes 16–31 at rows 0–15, column 8.
/// (Row stride 32 bytes: unpadded, so this tile's `ldmatrix` is bank-conflicted — see seed 001.)
#[inline(always)]
pub(crate) fn ldmatrix_x4_row_addr(s_tile: u32, lane: u32) -> u32 {
    s_tile + (lane % 16) * 32 + (lane / 16) * 16
}
