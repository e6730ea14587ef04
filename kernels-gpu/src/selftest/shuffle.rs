//! Warp shuffles and the lane register.
use crate::prim::{kernel, thread::lane_id, warp};

/// For each lane `l` with input `x = g_in[l]`, writes `g_out[4l..4l+4] =`
/// `[shuffle_xor(x, 5), shuffle_down(x, 3), reduce_sum(x), l]`.
///
/// # Safety
/// One block of 32 threads; `g_in` has 32 readable f32, `g_out` 128 writable f32.
#[kernel]
pub unsafe fn selftest_shuffle(g_in: *const f32, g_out: *mut f32) {
    let lane = lane_id();
    // SAFETY: all 32 lanes run each shuffle (launch contract); indices stay below 32 and 128.
    unsafe {
        let x = *g_in.add(lane as usize);
        let o = g_out.add(4 * lane as usize);
        *o = warp::shuffle_xor_f32(x, 5);
        *o.add(1) = warp::shuffle_down_f32(x, 3);
        *o.add(2) = warp::reduce_sum_f32(x);
        *o.add(3) = lane as f32;
    }
}
