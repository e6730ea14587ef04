//! The block-wide sum of the last reduction steps (introduced by v5, used by v5 and v6): warp shuffles,
//! then one shared-memory exchange between the warps.
use super::{BLOCK, WARP};
use crate::prim::{sync::sync_threads, thread::thread_idx_x, warp::reduce_sum_f32};

/// Sum of `v` over the block, valid in thread 0 (steps v5, v6): each warp reduces with shuffles, warp
/// leaders write their sums to `s_warp[warp]`, and warp 0 reduces those.
///
/// # Safety
/// Called by every thread of a `BLOCK`-thread block (it contains a barrier); `s_warp` points to
/// `BLOCK / WARP` f32 of this block's shared memory that nothing else uses meanwhile.
#[inline(always)]
pub(crate) unsafe fn block_sum_f32(v: f32, s_warp: *mut f32) -> f32 {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / WARP, tid % WARP);
    // SAFETY: all 32 lanes of every warp call this (caller contract), so the full-mask shuffles are
    // legal; `warp < BLOCK / WARP` keeps the shared stores inside `s_warp`.
    unsafe {
        let v = reduce_sum_f32(v);
        if lane == 0 {
            *s_warp.add(warp as usize) = v;
        }
        sync_threads();
        let mut total = 0.0;
        if warp == 0 {
            let w = if lane < BLOCK / WARP { *s_warp.add(lane as usize) } else { 0.0 };
            total = reduce_sum_f32(w);
        }
        // Reuse of `s_warp` by the caller must wait for warp 0's reads.
        sync_threads();
        total
    }
}
