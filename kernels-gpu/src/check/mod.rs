//! Device-side inputs and verification, so that no input or output of a large measurement has to
//! exist on the host (issue 18):
//!
//! * `check_fill_*`: a buffer of any size filled from [`layout::random`] in one grid-stride pass (element
//!   `i` is a pure function of the seed and `i`; the host can recompute any of them);
//! * `check_sum_f64`: `Σ x` of an f32 buffer in f64 (the reduce family's reference: exact for the
//!   small-integer inputs, error ~1e-16 relative otherwise);
//! * `check_compare_*`: `Σ (got − want)²`, `Σ want²` in f64 and the number of elements of `got` that are
//!   NaN (the poison a kernel failed to overwrite) — the relative L2 error and the "every element
//!   written" check of a GEMM output against the reference output, with only three scalars coming back.
//!
//! * `check_hold_ns`: one thread spinning on `%globaltimer` — what the timing loop enqueues before its
//!   start event, so that the GPU is still busy when the timed launch arrives and the host's launch
//!   latency stays out of the measurement (`kernel-lab/src/runtime/timing.rs`).
//!
//! The others are grid-stride loops over 64-bit indices: any grid covers any `n`. Each thread accumulates in
//! registers, each warp adds its lanes with shuffles, and lane 0 adds the warp's total to the result
//! with one `red.global.add` (a few hundred thousand adds to one address at most: well under a
//! millisecond, against the tens of milliseconds of reading the buffers).
use crate::prim::{
    atomic::{red_add_relaxed_gpu_f64, red_add_relaxed_gpu_u64},
    mma::{f16_to_f32, pack_bf16x2, pack_f16x2},
    thread::{global_timer_ns, grid_size_1d, index_1d, lane_id},
    warp::reduce_sum_f64,
};
use layout::random::{Dist, value};

/// Threads per block of every `check_*` kernel (the host's descriptors say the same).
pub const BLOCK: u32 = 256;

/// The distribution numbered `dist`, or `Symmetric` for an unknown number (the host only passes
/// [`Dist`] discriminants).
#[inline(always)]
fn dist_of(dist: u32) -> Dist {
    match Dist::from_u32(dist) {
        Some(d) => d,
        None => Dist::Symmetric,
    }
}

/// Calls `f(i)` for every `i < n` this thread owns in a grid-stride loop.
#[inline(always)]
fn grid_stride(n: u64, mut f: impl FnMut(u64)) {
    let stride = grid_size_1d() as u64;
    let mut i = index_1d() as u64;
    while i < n {
        f(i);
        i += stride;
    }
}

/// `g_out[i] = value(dist, seed, i)` for `i < n`.
///
/// # Safety
/// `g_out` has `n` writable f32; launched with [`BLOCK`] threads per block, any grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn check_fill_f32(g_out: *mut f32, n: u64, seed: u64, dist: u32) {
    let d = dist_of(dist);
    // SAFETY: i < n (caller contract: n writable elements).
    grid_stride(n, |i| unsafe { *g_out.add(i as usize) = value(d, seed, i) });
}

/// `g_out[i] = f16(value(dist, seed, i))` (round to nearest even) for `i < n`.
///
/// # Safety
/// `g_out` has `n` writable 16-bit elements; launched with [`BLOCK`] threads per block, any grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn check_fill_f16(g_out: *mut u16, n: u64, seed: u64, dist: u32) {
    let d = dist_of(dist);
    // SAFETY: i < n (caller contract).
    grid_stride(n, |i| unsafe { *g_out.add(i as usize) = pack_f16x2(value(d, seed, i), 0.0) as u16 });
}

/// `g_out[i] = bf16(value(dist, seed, i))` (round to nearest even) for `i < n`.
///
/// # Safety
/// As [`check_fill_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn check_fill_bf16(g_out: *mut u16, n: u64, seed: u64, dist: u32) {
    let d = dist_of(dist);
    // SAFETY: i < n (caller contract).
    grid_stride(n, |i| unsafe { *g_out.add(i as usize) = pack_bf16x2(value(d, seed, i), 0.0) as u16 });
}

/// `*g_acc += Σ g_in[0..n)`, summed in f64.
///
/// # Safety
/// `g_in` has `n` readable f32; `g_acc` is one 8-byte-aligned f64, zeroed by the host before the launch
/// and not otherwise accessed until the kernel ends; [`BLOCK`] threads per block, any grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn check_sum_f64(g_in: *const f32, n: u64, g_acc: *mut f64) {
    let mut acc = 0.0f64;
    // SAFETY: i < n (caller contract).
    grid_stride(n, |i| acc += unsafe { *g_in.add(i as usize) } as f64);
    // SAFETY: every lane of every warp reaches this point (the loop above has no barrier and every
    // thread leaves it); `g_acc` is the caller's accumulator.
    unsafe {
        let total = reduce_sum_f64(acc);
        if lane_id() == 0 {
            red_add_relaxed_gpu_f64(g_acc, total);
        }
    }
}

/// The comparison loop of every element type: `acc[0] += Σ (got − want)²`, `acc[1] += Σ want²`,
/// `*g_unwritten += #{i : got[i] is NaN}`.
///
/// # Safety
/// As [`check_compare_f32`], with `load(i)` reading element `i` of both buffers as f32.
#[inline(always)]
unsafe fn compare(n: u64, load: impl Fn(u64) -> (f32, f32), g_acc: *mut f64, g_unwritten: *mut u64) {
    let (mut diff2, mut want2, mut nan) = (0.0f64, 0.0f64, 0u32);
    grid_stride(n, |i| {
        let (got, want) = load(i);
        if got != got {
            nan += 1;
        } else {
            let d = got as f64 - want as f64;
            diff2 += d * d;
        }
        want2 += want as f64 * want as f64;
    });
    // SAFETY: every lane reaches the shuffles (no barrier above, every thread leaves the loop); the
    // accumulators are the caller's.
    unsafe {
        let (diff2, want2, nan) = (reduce_sum_f64(diff2), reduce_sum_f64(want2), reduce_sum_f64(nan as f64));
        if lane_id() == 0 {
            red_add_relaxed_gpu_f64(g_acc, diff2);
            red_add_relaxed_gpu_f64(g_acc.add(1), want2);
            red_add_relaxed_gpu_u64(g_unwritten, nan as u64);
        }
    }
}

/// Error norms of `g_got` against `g_want` (n f32 each): `g_acc[0] += Σ (got − want)²`,
/// `g_acc[1] += Σ want²`, `*g_unwritten += ` the number of NaN elements of `got` (not counted in the
/// first sum).
///
/// # Safety
/// `g_got`, `g_want` have `n` readable elements; `g_acc` two 8-byte-aligned f64 and `g_unwritten` one
/// u64, zeroed by the host and not otherwise accessed until the kernel ends; [`BLOCK`] threads per
/// block, any grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn check_compare_f32(g_got: *const f32, g_want: *const f32, n: u64, g_acc: *mut f64, g_unwritten: *mut u64) {
    // SAFETY: i < n in every load (caller contract); the rest is forwarded.
    unsafe { compare(n, |i| (*g_got.add(i as usize), *g_want.add(i as usize)), g_acc, g_unwritten) }
}

/// bf16 → f32, exactly: the bf16 bits are the high half of the f32's.
#[inline(always)]
fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// [`check_compare_f32`] on f16 buffers (compared as f32, exactly widened).
///
/// # Safety
/// As [`check_compare_f32`], for buffers of `n` 16-bit elements.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn check_compare_f16(g_got: *const u16, g_want: *const u16, n: u64, g_acc: *mut f64, g_unwritten: *mut u64) {
    // SAFETY: as check_compare_f32.
    unsafe { compare(n, |i| (f16_to_f32(*g_got.add(i as usize)), f16_to_f32(*g_want.add(i as usize))), g_acc, g_unwritten) }
}

/// [`check_compare_f32`] on bf16 buffers.
///
/// # Safety
/// As [`check_compare_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn check_compare_bf16(g_got: *const u16, g_want: *const u16, n: u64, g_acc: *mut f64, g_unwritten: *mut u64) {
    // SAFETY: as check_compare_f32.
    unsafe { compare(n, |i| (bf16_to_f32(*g_got.add(i as usize)), bf16_to_f32(*g_want.add(i as usize))), g_acc, g_unwritten) }
}

/// Spins until `%globaltimer` has advanced `ns` nanoseconds from the kernel's start (one thread does
/// the waiting; any others return at once). Reads and writes no memory.
///
/// # Safety
/// None beyond a launch: it touches no memory. (`unsafe extern` like every kernel entry.)
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn check_hold_ns(ns: u64) {
    if index_1d() != 0 {
        return;
    }
    let t0 = global_timer_ns();
    while global_timer_ns().wrapping_sub(t0) < ns {}
}
