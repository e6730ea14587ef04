//! Row kernels, one block per row: RMSNorm, `y[r][c] = x[r][c] · w[c] / √(mean_c x[r][c]² + ε)`, and softmax.
#![no_std]
#![feature(abi_ptx, asm_experimental_arch, core_float_math)]
use nvptx_std::{
    global::{ld_global_nc_v4_f32, st_global_v4_f32},
    kernel,
    math::ex2_approx_f32,
    shared,
    sync::sync_threads,
    thread::{block_idx_x, lane_id, thread_idx_x, warp_id},
    warp::{reduce_sum_f32, shuffle_xor_f32},
};

/// Threads per block: 8 warps.
pub const THREADS: u32 = 256;

/// Row `blockIdx.x` of `x` (`rows × cols`, row-major) normalized into `y`. Each thread sums the squares
/// of its 128-bit chunks, the block adds the 8 warp sums through shared memory, then every thread scales
/// its chunks again (read twice: the second read mostly hits L2 for rows up to a few MiB).
///
/// # Safety
/// `THREADS` threads per block, `rows` blocks, 32 bytes of dynamic shared memory; `x`, `y` hold
/// `rows · cols` f32 and `w` holds `cols`, all 16-byte aligned; `cols % 4 == 0`.
#[kernel(threads = 256)]
pub unsafe fn rmsnorm_f32(x: *const f32, w: *const f32, y: *mut f32, cols: u32, eps: f32) {
    let (tid, row) = (thread_idx_x(), block_idx_x() as usize);
    let (x, y) = unsafe { (x.add(row * cols as usize), y.add(row * cols as usize)) };
    let s_warps = shared::dynamic::<f32>();
    let mut sq = 0.0f32;
    let mut c = 4 * tid;
    while c < cols {
        // SAFETY: c + 4 <= cols (cols % 4 == 0), 16-byte aligned: in this row of x.
        let v = unsafe { ld_global_nc_v4_f32(x.add(c as usize)) };
        sq += (v[0] * v[0] + v[1] * v[1]) + (v[2] * v[2] + v[3] * v[3]);
        c += 4 * THREADS;
    }
    // SAFETY: every thread of the block reaches the shuffles and barriers (no early return); 8 warp slots.
    let total = unsafe {
        let warp_sum = reduce_sum_f32(sq);
        if lane_id() == 0 {
            *s_warps.add(warp_id() as usize) = warp_sum;
        }
        sync_threads();
        let mut t = 0.0f32;
        for i in 0..(THREADS / 32) as usize {
            t += *s_warps.add(i);
        }
        t
    };
    let scale = 1.0 / core::f32::math::sqrt(total / cols as f32 + eps);
    let mut c = 4 * tid;
    while c < cols {
        // SAFETY: as above, for x, w and y.
        unsafe {
            let (v, g) = (ld_global_nc_v4_f32(x.add(c as usize)), ld_global_nc_v4_f32(w.add(c as usize)));
            st_global_v4_f32(y.add(c as usize), core::array::from_fn(|i| v[i] * scale * g[i]));
        }
        c += 4 * THREADS;
    }
}

/// The block's 8 warps' values combined by `op` through `slots` (8 shared f32), the result in every
/// thread.
///
/// # Safety
/// Called by every thread of a `THREADS`-thread block (shuffles, barriers); `slots` is 8 shared f32 no
/// other call is using.
#[inline(always)]
unsafe fn block_reduce(mut v: f32, slots: *mut f32, op: impl Fn(f32, f32) -> f32) -> f32 {
    // SAFETY: the contract: all 32 lanes of every warp and every thread of the block reach each step.
    unsafe {
        for mask in [16, 8, 4, 2, 1] {
            v = op(v, shuffle_xor_f32(v, mask));
        }
        if lane_id() == 0 {
            *slots.add(warp_id() as usize) = v;
        }
        sync_threads();
        let mut t = *slots;
        for i in 1..(THREADS / 32) as usize {
            t = op(t, *slots.add(i));
        }
        t
    }
}

/// `y[r][c] = e^(x[r][c] − max_c x[r]) / Σ_c e^(x[r][c] − max_c x[r])`: softmax over row `blockIdx.x` of
/// `x` (`rows × cols`, row-major), the row read three times (max, sum, write; the later reads mostly hit
/// L2), exponentials by `ex2.approx` on `x·log2 e`.
///
/// # Safety
/// `THREADS` threads per block, `rows` blocks, 64 bytes of dynamic shared memory; `x` and `y` hold
/// `rows · cols` f32, 16-byte aligned; `cols % 4 == 0`.
#[kernel(threads = 256)]
pub unsafe fn softmax_f32(x: *const f32, y: *mut f32, cols: u32) {
    const LOG2E: f32 = core::f32::consts::LOG2_E;
    let (tid, row) = (thread_idx_x(), block_idx_x() as usize);
    let (x, y) = unsafe { (x.add(row * cols as usize), y.add(row * cols as usize)) };
    let slots = shared::dynamic::<f32>();
    let each = |f: &mut dyn FnMut(usize, [f32; 4])| {
        let mut c = 4 * tid;
        while c < cols {
            // SAFETY: c + 4 <= cols (cols % 4 == 0), 16-byte aligned: in this row of x.
            f(c as usize, unsafe { ld_global_nc_v4_f32(x.add(c as usize)) });
            c += 4 * THREADS;
        }
    };
    let mut m = f32::NEG_INFINITY;
    each(&mut |_, v| m = m.max(v[0].max(v[1])).max(v[2].max(v[3])));
    // SAFETY: every thread reaches both reductions (no early return); slots 0..8 then 8..16.
    let m = unsafe { block_reduce(m, slots, f32::max) } * LOG2E;
    let mut s = 0.0f32;
    each(&mut |_, v| s += v.iter().map(|&e| ex2_approx_f32(e * LOG2E - m)).sum::<f32>());
    let inv = 1.0 / unsafe { block_reduce(s, slots.wrapping_add(8), |a, b| a + b) };
    each(&mut |c, v| {
        // SAFETY: as above, for y.
        unsafe { st_global_v4_f32(y.add(c), core::array::from_fn(|i| ex2_approx_f32(v[i] * LOG2E - m) * inv)) }
    });
}
