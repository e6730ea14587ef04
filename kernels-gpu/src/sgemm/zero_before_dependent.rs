#![cfg(lab_sm90)]
//! The grid that zeroes C before the split-K adds of v21–v26 (sm_90). Its first instruction,
//! `griddepcontrol.launch_dependents`, lets the GEMM launched after it on the stream (with programmatic
//! stream serialization, as the runtime launches any kernel that executes `griddepcontrol.wait`) be
//! dispatched at once; the GEMM runs its whole K loop meanwhile and waits for this grid only before
//! its adds (`wide_k_loop::Epi::WAIT_ADD`). v12–v19 zero C with a driver memset instead, a separate
//! operation on the stream that the GEMM's launch follows.

use crate::prim::{global::st_global_v4_f32, sync::griddepcontrol_launch_dependents, thread::{block_dim_x, block_idx_x, grid_dim_x, thread_idx_x}};

/// `c[0 .. len] = 0.0`, after letting the next grid on the stream start: each thread zeroes float4s
/// `index, index + threads, …` of the grid, then thread `index` the `len % 4` trailing floats.
///
/// # Safety
/// `c` holds `len` writable f32, 16-byte aligned, that nothing else touches until this grid completes
/// (the dependent GEMM waits for it with `griddepcontrol.wait` before its first access to C). Any grid
/// and block size.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_zero_before_dependent(c: *mut f32, len: u64) {
    griddepcontrol_launch_dependents();
    let index = block_idx_x() as u64 * block_dim_x() as u64 + thread_idx_x() as u64;
    let threads = grid_dim_x() as u64 * block_dim_x() as u64;
    let quads = len / 4;
    let mut q = index;
    while q < quads {
        // SAFETY: 4q + 3 < len, and c + 4q is 16-byte aligned (c is; 16 bytes per quad).
        unsafe { st_global_v4_f32(c.add(4 * q as usize), [0.0; 4]) };
        q += threads;
    }
    let tail = 4 * quads + index;
    if tail < len {
        // SAFETY: tail < len.
        unsafe { *c.add(tail as usize) = 0.0 };
    }
}
