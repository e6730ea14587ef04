//! Self-test kernels: each exercises a group of primitives once, so the host tests can check the
//! wrappers (fragment layouts, shuffle semantics, shared-memory widths) against a CPU model on random
//! data. They are small and single-block; the host's `selftest` module launches and verifies them.
#[cfg(lab_sm90)]
mod launch_cost;
#[cfg(lab_sm90)]
pub mod mbarrier_handoff;
mod indices;
mod mma;
mod printf;
mod shared_widths;
mod shuffle;
#[cfg(lab_sm90)]
mod stmatrix;
mod warp_sync;
#[cfg(lab_sm90)]
mod wgmma_tma;

use crate::prim::{cp_async, sync::sync_threads, thread::lane_id};
use layout::{Layout, fragment::Ldmatrix};

/// Copies a 16×16 tile of 16-bit elements (512 bytes, row-major in global memory) into shared memory at
/// `s_tile` laid out by `layout`, with one `cp.async.cg` of 16 bytes (8 elements) per lane: lane l copies
/// row l / 2, columns 8 (l % 2) .. +8 to element `layout.offset(row, col)`. Then waits and syncs.
/// The same `layout` must give the `ldmatrix` addresses ([`ldmatrix_x4_row_addr`]).
///
/// # Safety
/// Called by all 32 threads of a one-warp block; `g_tile` has 512 readable, 16-byte-aligned bytes;
/// `s_tile` is a 16-byte-aligned shared address of `2 · layout.size()` writable bytes; `layout` keeps
/// each 8-element chunk contiguous and 8-element aligned (a swizzle with M >= 3 on element offsets).
#[inline(always)]
pub(crate) unsafe fn load_tile_16x16_b16(s_tile: u32, g_tile: *const u16, layout: &impl Layout) {
    let lane = lane_id();
    let (row, col) = (lane / 2, 8 * (lane % 2));
    // SAFETY: lane l reads bytes [16·l, 16·l + 16) of the 512 and writes 16 bytes inside the layout's
    // storage (caller contract).
    unsafe {
        cp_async::cp_async_cg_16(s_tile + 2 * layout.offset(row, col), (g_tile as *const u8).add(16 * lane as usize));
        cp_async::cp_async_commit_group();
        cp_async::cp_async_wait_group::<0>();
        sync_threads();
    }
}

/// The `ldmatrix` row address lane `lane` provides for `.x4` over a 16×16 tile of 16-bit elements in
/// `layout`: [`Ldmatrix::tile_addr_rc`] (lanes 0–15 rows 0–15 at column 0, lanes 16–31 at column 8). With the
/// unpadded row-major layout (row stride 32 bytes) this `ldmatrix` is bank-conflicted (seed 001); with
/// `Swizzle<3,1,3>` it is not.
#[inline(always)]
pub(crate) fn ldmatrix_x4_row_addr(s_tile: u32, lane: u32, layout: &impl Layout) -> u32 {
    let (row, col) = Ldmatrix::X4.tile_addr_rc(lane);
    s_tile + 2 * layout.offset(row, col)
}
