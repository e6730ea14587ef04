//! v1 — one-shot all-reduce. Each block copies its share of the rank's input into the rank's staging
//! half, meets the same block of every peer at one barrier, then reads that share from every rank's
//! staging half (the peers' over NVLink), sums it in f32 in rank order and writes the output: one
//! barrier and `(w − 1) · n` bytes read from peers per rank, so its time is the barrier's latency plus
//! `(w − 1) · n` over the link's bandwidth. The loads of all ranks are issued before the adds (the
//! rank loop is unrolled to `MAX_RANKS` and predicated), so a thread waits one link latency, not `w`.
//!
//! Every rank computes every element from the same values in the same order: the same bits everywhere.
//! The output may be the input (each element is read before it is written, by the same thread).
use super::peer::{Bf16, Elem, F16, F32, Peers, begin};
use crate::{
    launch_bounds::launch_bounds,
    prim::{
        global::{ld_global_cg_v4_u32, st_global_v4_u32},
        thread::{block_idx_x, grid_dim_x, thread_idx_x},
    },
};
use layout::comm::BLOCK;

/// The one-shot body for element type `E`.
///
/// # Safety
/// The module's launch contract; `staging[r]` and `signals[r]` are rank `r`'s buffers for every
/// `r < world` (two halves of `half_bytes`, 16-byte aligned; `layout::comm::SIGNAL_BYTES`);
/// `input` and `output` hold `n_vec` 16-byte vectors, `n_vec · 16 <= half_bytes`.
#[inline(always)]
unsafe fn oneshot<E: Elem>(staging: Peers, signals: Peers, input: *const u32, output: *mut u32, n_vec: u64, half_bytes: u64, rank: u32,
                           world: u32, timeout_ns: u64) {
    // SAFETY: forwarded (the signal buffers).
    let Some(call) = (unsafe { begin(signals, rank, world, timeout_ns) }) else { return };
    let stride = grid_dim_x() as u64 * BLOCK as u64;
    let first = block_idx_x() as u64 * BLOCK as u64 + thread_idx_x() as u64;
    let own = call.half(staging.get(rank), half_bytes) as *mut u32;
    let mut v = first;
    while v < n_vec {
        // SAFETY: v < n_vec vectors, inside the input and this rank's staging half (caller contract).
        unsafe { st_global_v4_u32(own.add(4 * v as usize), ld_global_cg_v4_u32(input.add(4 * v as usize))) };
        v += stride;
    }
    // SAFETY: block-uniform; on failure every thread of the block returns (the status word says why).
    if !unsafe { call.barrier(0) } {
        return;
    }
    let mut v = first;
    while v < n_vec {
        // SAFETY: every rank's staging half holds n_vec vectors of this call (its block reached the
        // barrier); v < n_vec (caller contract).
        unsafe { st_global_v4_u32(output.add(4 * v as usize), call.sum_over_ranks::<E>(&staging, half_bytes, v)) };
        v += stride;
    }
    // SAFETY: block-uniform.
    unsafe { call.end() };
}

macro_rules! oneshot_kernel {
    ($name:ident, $elem:ty) => {
        /// One-shot all-reduce of `n_vec` 16-byte vectors of this element type (see the file's doc).
        ///
        /// # Safety
        /// As the module's launch contract and `oneshot`'s.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(staging: Peers, signals: Peers, input: *const u32, output: *mut u32, n_vec: u64, half_bytes: u64,
                                                rank: u32, world: u32, timeout_ns: u64) {
            // SAFETY: forwarded.
            unsafe { oneshot::<$elem>(staging, signals, input, output, n_vec, half_bytes, rank, world, timeout_ns) }
        }
        launch_bounds!($name, 512);
    };
}

oneshot_kernel!(allreduce_v1_oneshot_f32, F32);
oneshot_kernel!(allreduce_v1_oneshot_f16, F16);
oneshot_kernel!(allreduce_v1_oneshot_bf16, Bf16);
