//! `stmatrix.x4` and `stmatrix.x4.trans` (sm_90): registers in the `ldmatrix` fragment layout → shared.
use super::ldmatrix_x4_row_addr;
use crate::prim::{shared::static_alloc, stmatrix, sync::sync_threads, thread::lane_id};
use layout::{fragment::Ldmatrix, hgemm_warp::TILE};

/// Lane `l` builds the `ldmatrix.x4` fragment of the row-major 16×16 tile `g_in` (16-bit elements)
/// straight from global memory: register `i`, half `h` = element `Ldmatrix::X4.tile_rc(l, i, h)`. `stmatrix.x4` writes the fragments back to a shared tile at
/// the `ldmatrix_x4_row_addr` addresses (so `g_out[0..256]` must equal `g_in`), and `stmatrix.x4.trans`
/// writes them to a second tile (so `g_out[256..512]` holds each 8×8 matrix transposed in place).
///
/// # Safety
/// sm_90; one block of 32 threads; `g_in` has 256 readable `u16`, `g_out` 512 writable `u16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn selftest_stmatrix(g_in: *const u16, g_out: *mut u16) {
    let s_tile = static_alloc::<1024>();
    let lane = lane_id();
    // Register i = elements (r, c), (r, c + 1) of matrix i: `Ldmatrix::tile_rc` (`rc` moved to the origin).
    let (r, c) = Ldmatrix::X4.rc(lane, 0);
    // SAFETY: one full warp runs the collectives; rows/cols < 16 keep global reads in the 256 elements;
    // the 32-bit reads are at even columns (4-byte aligned); the shared tiles lie in the 1024 bytes.
    unsafe {
        let frag: [u32; 4] = core::array::from_fn(|i| {
            let (r0, c0) = Ldmatrix::X4.matrix_origin(i as u32);
            *(g_in.add(((r0 + r) * 16 + c0 + c) as usize) as *const u32)
        });
        stmatrix::stmatrix_x4(ldmatrix_x4_row_addr(s_tile, lane, &TILE), frag);
        stmatrix::stmatrix_x4_trans(ldmatrix_x4_row_addr(s_tile + 512, lane, &TILE), frag);
        sync_threads();
        // Copy the 1024 bytes out: 32 lanes × 8 words.
        for k in 0..8 {
            let word = lane * 8 + k;
            let v = crate::prim::shared::ld_shared_u32(s_tile + 4 * word);
            *(g_out as *mut u32).add(word as usize) = v;
        }
    }
}
