//! The stream-K workspace of the 128×256 wide steps (introduced by h10, whose file explains the
//! schedule; used by h10 and FP8's f14): where a consumer thread keeps its partial tile in a workspace
//! slot, and the stores and adds of those partials.
//!
//! ```text
//! slot (STREAM_K_SLOT_BYTES = 128·256·4):  [warpgroup mh: 2][float4 q: 32][thread i: 128] × 16 B
//! float4 q of a thread = accumulators 4·(q % 8) .. of its box q / 8 (64 columns each)
//! a warp's store of one q: 32 consecutive float4 = 512 contiguous bytes
//! ```
use crate::prim::global::{ld_global_cg_v4_f32, st_global_v4_f32};
use crate::util::unroll::{unroll4, unroll8};
use layout::hopper::tma_hgemm::STREAM_K_SLOT_BYTES;

/// f32 per workspace slot.
pub(crate) const SLOT_F32: usize = (STREAM_K_SLOT_BYTES / 4) as usize;

/// Where thread `i` (of 128) of consumer warpgroup `mh` keeps `float4` number `q` (0..32: box `q / 8`,
/// accumulators `4·(q % 8) ..`) of its partial inside a workspace slot, in f32: consecutive threads
/// 16 bytes apart.
#[inline(always)]
fn partial_at(mh: u32, q: u32, i: u32) -> usize {
    (((mh * 32 + q) * 128 + i) * 4) as usize
}

/// Writes this thread's 128 accumulators to its places in `slot` ([`partial_at`]).
///
/// # Safety
/// `slot` is a 16-byte aligned workspace slot of [`SLOT_F32`] f32 that no other CTA reads before this
/// CTA's ticket; `mh < 2`, `i < 128`.
#[inline(always)]
pub(crate) unsafe fn store_partial(r_acc: &[[f32; 32]; 4], slot: *mut f32, mh: u32, i: u32) {
    // Unrolled with constant indices (`unroll4!`/`unroll8!`), so the accumulators stay in registers.
    unroll4!(nb => { unroll8!(j => {
        let (acc, e) = (&r_acc[nb as usize], 4 * j as usize);
        // SAFETY: partial_at < SLOT_F32 (mh < 2, q < 32, i < 128), a multiple of 4: aligned (caller).
        unsafe { st_global_v4_f32(slot.add(partial_at(mh, 8 * nb + j, i)), [acc[e], acc[e + 1], acc[e + 2], acc[e + 3]]) };
    })});
}

/// Adds another contributor's partial from `slot` (the same places) to this thread's accumulators, one
/// box at a time: its 8 loads first, then the adds.
///
/// # Safety
/// `slot` as [`store_partial`], written by its contributor before the ticket this CTA acquired.
#[inline(always)]
pub(crate) unsafe fn add_partial(r_acc: &mut [[f32; 32]; 4], slot: *const f32, mh: u32, i: u32) {
    unroll4!(nb => {
        let mut v = [[0f32; 4]; 8];
        unroll8!(j => {
            // SAFETY: as store_partial.
            v[j as usize] = unsafe { ld_global_cg_v4_f32(slot.add(partial_at(mh, 8 * nb + j, i))) };
        });
        unroll8!(j => {
            let (acc, x, e) = (&mut r_acc[nb as usize], v[j as usize], 4 * j as usize);
            acc[e] += x[0];
            acc[e + 1] += x[1];
            acc[e + 2] += x[2];
            acc[e + 3] += x[3];
        });
    });
}
