//! v5 — 128-bit loads, a grid-stride loop, one final pass.
//!
//! Change from v4: instead of one block per 512 elements (over half a million blocks at 2^28, each
//! paying a tree), the host launches one full wave of blocks and each thread sums many elements in a
//! register, reading them as `float4` with `ld.global.nc.v4.f32` (4× fewer load instructions). The
//! block tree shrinks to warp shuffles plus one shared-memory exchange (`block_sum_f32`). The ~1000
//! partial sums are then reduced by a second launch of the same kernel with one block.
//! Predicted: close to copy bandwidth (~85–90%; every byte is read exactly once).
use super::block_sum::block_sum_f32;
use crate::prim::{global::ld_global_nc_v4_f32, shared, thread::{block_idx_x, grid_size_1d, index_1d, thread_idx_x}};

/// Partial sums over a grid-stride partition: `Σ_b g_out[b] = Σ g_in[0..n)`.
///
/// # Safety
/// Launched with `BLOCK` threads, `(BLOCK / WARP) · 4` bytes of dynamic shared memory, any number of
/// blocks; `g_in` has `n` readable f32 and is 16-byte aligned; `g_out` has one writable f32 per block;
/// `n <= MAX_N`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reduce_v5(g_in: *const f32, g_out: *mut f32, n: u32) {
    let (gid, stride) = (index_1d(), grid_size_1d());
    let n4 = n / 4;
    let mut acc = 0.0f32;
    // SAFETY: `j < n4` keeps each 16-byte load inside the `n` floats (and aligned: `g_in` is);
    // the tail element `t < n` is read only if it exists; `block_sum_f32` is called by every thread.
    unsafe {
        let mut j = gid;
        while j < n4 {
            let v = ld_global_nc_v4_f32(g_in.add(4 * j as usize));
            acc += (v[0] + v[1]) + (v[2] + v[3]);
            j += stride;
        }
        let t = 4 * n4 + gid; // the last n % 4 elements, one thread each
        if t < n {
            acc += *g_in.add(t as usize);
        }
        let total = block_sum_f32(acc, shared::dynamic::<f32>());
        if thread_idx_x() == 0 {
            *g_out.add(block_idx_x() as usize) = total;
        }
    }
}
