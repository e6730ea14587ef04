//! The TMA-store epilogue's pieces (introduced by h6, whose file explains the epilogue): one 64×64
//! accumulator block converted and written into a `SWIZZLE_128B` C staging box, and the named barrier
//! of one consumer warpgroup. Used by h6 and the FP8 steps (bf16 out).
use super::elem::Elem16;
use crate::prim::{shared::st_shared_u32, sync::sync_named};
use layout::hopper::tma_hgemm::{C_BOX, c_fragment_rc};

/// Named barrier `1 + mh` over consumer warpgroup `mh`'s 128 threads, with the id as an immediate (a
/// run-time id makes ptxas reserve all 16 hardware barriers).
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh` (0 or 1), converged, the same number of times.
#[inline(always)]
pub(crate) unsafe fn consumer_barrier(mh: u32) {
    // SAFETY: forwarded to the caller; `mh` is uniform across the warpgroup, so each group takes one arm.
    unsafe {
        if mh == 0 { sync_named(1, 128) } else { sync_named(2, 128) }
    }
}

/// Writes one 64×64 accumulator block as f16 into a C staging box at `s_box` in the TMA's `SWIZZLE_128B`
/// layout ([`C_BOX`]`.smem_byte`): lane (g, t) of warp `warp` writes rows `16·warp + g (+8)`, bytes
/// `16j + 4t` — one conflict-free `st.shared.b32` per (j, half) for the warp.
///
/// # Safety
/// `s_box` is a 1024-aligned `.shared` address of 8 KiB that no TMA store is reading.
#[inline(always)]
pub(crate) unsafe fn stage_c_box<E: Elem16>(acc: &[f32; 32], s_box: u32, warp: u32, lane: u32) {
    for j in 0..8u32 {
        for half in 0..2u32 {
            let (r, c) = c_fragment_rc(warp, lane, j, half);
            let i = (4 * j + 2 * half) as usize;
            // SAFETY: r < 64 and c < 64 keep the byte inside the 8 KiB box (caller: nobody reads it now).
            unsafe { st_shared_u32(s_box + C_BOX.smem_byte(r, c), E::pack(acc[i], acc[i + 1])) };
        }
    }
}
