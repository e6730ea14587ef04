//! v7 — v6 with 64-bit element indices.
//!
//! Change from v6: the grid-stride loop counts 128-bit vectors in `u64` (`j`, the stride, the bound
//! and the tail index), so no `4·j` or `j + 3·stride` wraps when the input has 2^31 or more elements.
//! v6's `u32` math caps it at 2^31 elements; an H200 holds 35 billion f32. `n` itself is a `u64`
//! parameter, so v7 takes any count that fits in memory (the host's descriptor says `Index::U64`, and
//! passes `n` as 8 bytes; v0–v6 get 4). Predicted below
//! 2^31: the same speed as v6 (1.00 ± 0.01×): the loop gains one 64-bit add and compare per 64 bytes
//! loaded, hidden under HBM latency as v6's `u32` math is.
use super::block_sum::block_sum_f32;
use super::{BLOCK, WARP};
use crate::prim::{
    atomic::{atom_add_acq_rel_gpu_u32, st_relaxed_gpu_u32},
    global::{ld_global_cg_f32, ld_global_nc_na_v4_f32},
    shared,
    sync::sync_threads,
    thread::{block_idx_x, grid_dim_x, grid_size_1d, index_1d, thread_idx_x},
};

/// `g_out[0] = Σ g_in[0..n)` in one launch, as [`super::v6_unrolled_single_pass`] with 64-bit indices.
///
/// # Safety
/// Launched with `BLOCK` threads, `(BLOCK / WARP + 1) · 4` bytes of dynamic shared memory, any number
/// of blocks; `g_in` has `n` readable, 16-byte-aligned f32; `g_partials` one writable f32 per block;
/// `*g_counter == 0` at launch (the kernel leaves it 0 again); no other launch uses `g_partials` or
/// `g_counter` concurrently.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reduce_v7(
    g_in: *const f32, g_partials: *mut f32, g_counter: *mut u32, g_out: *mut f32, n: u64,
) {
    let (gid, stride) = (index_1d() as u64, grid_size_1d() as u64);
    let tid = thread_idx_x();
    let n4 = n / 4;
    let s_warp = shared::dynamic::<f32>();
    let s_last = s_warp.wrapping_add((BLOCK / WARP) as usize) as *mut u32;
    let mut acc = [0.0f32; 4];
    // SAFETY: loads as v6, in 64-bit arithmetic (`j + 3·stride < n4 <= 2^62` cannot wrap, nor `4·j`); every thread reaches each
    // `block_sum_f32`/barrier: `is_last` is read from shared memory after a barrier, so it is uniform
    // in the block. Ordering: thread 0 writes the partial before its release-atomic; the last block's
    // thread 0 acquires, then the barrier orders its block's L2 (`.cg`) reads of the partials after it.
    unsafe {
        let mut j = gid;
        while j + 3 * stride < n4 {
            let v: [[f32; 4]; 4] = core::array::from_fn(|u| ld_global_nc_na_v4_f32(g_in.add((4 * (j + u as u64 * stride)) as usize)));
            for u in 0..4 {
                acc[u] += (v[u][0] + v[u][1]) + (v[u][2] + v[u][3]);
            }
            j += 4 * stride;
        }
        while j < n4 {
            let v = ld_global_nc_na_v4_f32(g_in.add((4 * j) as usize));
            acc[0] += (v[0] + v[1]) + (v[2] + v[3]);
            j += stride;
        }
        let t = 4 * n4 + gid;
        if t < n {
            acc[0] += *g_in.add(t as usize);
        }
        let block_total = block_sum_f32((acc[0] + acc[1]) + (acc[2] + acc[3]), s_warp);
        if tid == 0 {
            *g_partials.add(block_idx_x() as usize) = block_total;
            let ticket = atom_add_acq_rel_gpu_u32(g_counter, 1);
            *s_last = (ticket == grid_dim_x() - 1) as u32;
        }
        sync_threads();
        if *s_last != 0 {
            let mut p = 0.0f32;
            let mut b = tid;
            while b < grid_dim_x() {
                p += ld_global_cg_f32(g_partials.add(b as usize));
                b += BLOCK;
            }
            let total = block_sum_f32(p, s_warp);
            if tid == 0 {
                *g_out = total;
                st_relaxed_gpu_u32(g_counter, 0);
            }
        }
    }
}
