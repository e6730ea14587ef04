//! Row kernels, one block per row: RMSNorm, `y[r][c] = x[r][c] · w[c] / √(mean_c x[r][c]² + ε)`, and softmax.
#![no_std]
#![feature(abi_ptx, asm_experimental_arch, core_float_math)]
use nvptx_std::{
    global::{ld_global_nc_v4_f32, st_global_v4_f32},
    kernel,
    math::ex2_approx_f32,
    shared,
    thread::{block_idx_x, thread_idx_x},
    warp::block_reduce_f32,
};

/// Threads per block: 8 warps.
pub const THREADS: u32 = 256;

/// Row `blockIdx.x` of `x` (`rows × cols`, row-major) normalized into `y`: each thread sums the squares
/// of its 16-byte chunks, the block adds them up, every thread scales its chunks (read again, mostly from L2).
///
/// # Safety
/// `THREADS` threads and 32 bytes of dynamic shared memory per block, `rows` blocks; `x`, `y` hold
/// `rows · cols` f32 and `w` holds `cols`, all 16-byte aligned; `cols % 4 == 0`.
#[kernel(threads = 256)]
pub unsafe fn rmsnorm_f32(x: *const f32, w: *const f32, y: *mut f32, cols: u32, eps: f32) {
    let row = block_idx_x() as usize * cols as usize;
    // SAFETY (loads and stores): c + 4 ≤ cols (cols % 4 == 0), 16-byte aligned: inside row `row` and `w`.
    let chunks = (4 * thread_idx_x()..cols).step_by(4 * THREADS as usize).map(|c| c as usize);
    let sq: f32 = chunks.clone().map(|c| unsafe { ld_global_nc_v4_f32(x.add(row + c)) }.iter().map(|v| v * v).sum::<f32>()).sum();
    // SAFETY: every thread reaches the reduction (no early return); 8 slots in 32 bytes of shared memory.
    let total = unsafe { block_reduce_f32::<{ THREADS / 32 }>(sq, shared::dynamic(), |a, b| a + b) };
    let scale = 1.0 / core::f32::math::sqrt(total / cols as f32 + eps);
    for c in chunks {
        let (v, g) = unsafe { (ld_global_nc_v4_f32(x.add(row + c)), ld_global_nc_v4_f32(w.add(c))) };
        unsafe { st_global_v4_f32(y.add(row + c), core::array::from_fn(|i| v[i] * scale * g[i])) };
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
    let m = unsafe { block_reduce_f32::<{ THREADS / 32 }>(m, slots, f32::max) } * LOG2E;
    let mut s = 0.0f32;
    each(&mut |_, v| s += v.iter().map(|&e| ex2_approx_f32(e * LOG2E - m)).sum::<f32>());
    let inv = 1.0 / unsafe { block_reduce_f32::<{ THREADS / 32 }>(s, slots.wrapping_add(8), |a, b| a + b) };
    each(&mut |c, v| {
        // SAFETY: as above, for y.
        unsafe { st_global_v4_f32(y.add(c), core::array::from_fn(|i| ex2_approx_f32(v[i] * LOG2E - m) * inv)) }
    });
}
