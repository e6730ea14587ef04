//! `printf!` from a kernel (`nvptx_std::printf`): a line per thread of a one-warp block, every argument
//! type the macro promotes, and the `vprintf` result written back so the host can check the call ran.
use crate::prim::{kernel, printf, thread::lane_id};

/// Lane `l` prints one line with `l` as an i32, u8, u64, f32 (promoted to double), f64 and a pointer,
/// then writes `vprintf`'s result to `g_out[l]`.
///
/// # Safety
/// One block of 32 threads; `g_out` has 32 writable i32.
#[kernel]
pub unsafe fn selftest_printf(g_out: *mut i32) {
    let lane = lane_id();
    let r = printf!("lane %d: u8 %u u64 %llu f32 %.2f f64 %.3f ptr %p\n", lane as i32, lane as u8, 1u64 << 40 | lane as u64,
                    lane as f32 * 0.5, lane as f64 * 0.25, g_out);
    // SAFETY: lane < 32 (launch contract), g_out holds 32 i32.
    unsafe { *g_out.add(lane as usize) = r };
}
