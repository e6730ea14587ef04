//! `warp_id`, `bar.warp.sync` and `fence.acq_rel.gpu`: a value handed from lane 0 to its warp through
//! shared memory, ordered by the warp barrier alone.
use crate::prim::{
    shared,
    sync::{sync_warp, thread_fence},
    thread::{lane_id, thread_idx_x, warp_id},
};

/// Lane 0 of warp `w` stores `g_in[w]` in shared slot `w`; after `bar.warp.sync` (no block barrier)
/// every lane `l` of the warp writes `g_out[32 w + l] = slot[w] + l`, then fences (`__threadfence()`).
///
/// # Safety
/// One block of 64 threads (two warps), 8 bytes of dynamic shared memory; `g_in` has 2 readable u32,
/// `g_out` 64 writable u32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn selftest_warp_sync(g_in: *const u32, g_out: *mut u32) {
    let (tid, warp, lane) = (thread_idx_x(), warp_id(), lane_id());
    let s_slot = shared::dynamic::<u32>();
    // SAFETY: warp < 2 slots of shared memory and of g_in, tid < 64 outputs (launch contract); every lane
    // of both warps reaches `sync_warp` (it is outside the branch), which orders lane 0's shared store
    // before the other lanes' loads of the same slot.
    unsafe {
        if lane == 0 {
            *s_slot.add(warp as usize) = *g_in.add(warp as usize);
        }
        sync_warp();
        *g_out.add(tid as usize) = *s_slot.add(warp as usize) + lane;
        thread_fence();
    }
}
