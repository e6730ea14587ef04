//! v2 — two-shot all-reduce (reduce-scatter, then all-gather, through peer memory). The message is
//! split into `w` segments; rank `s` owns segment `s`. After a first barrier each rank sums its own
//! segment from every rank's staging half and writes the sum back into its own half (and its output);
//! after a second barrier it copies every other segment's sum from its owner. A rank reads
//! `2 (w − 1)/w · n` bytes from peers instead of one-shot's `(w − 1) · n`: the same at `w = 2`, 3.5×
//! less at `w = 8`, for one more barrier.
//!
//! Each segment is summed once, by its owner, in rank order: every rank ends with the same bits. The
//! output may be the input (every element is read and written by the same thread).
use super::peer::{Bf16, Elem, F16, F32, Peers, begin};
use crate::{
    launch_bounds::launch_bounds,
    prim::{
        global::{ld_global_cg_v4_u32, st_global_v4_u32},
        thread::{block_idx_x, grid_dim_x, thread_idx_x},
    },
};
use layout::comm::{BLOCK, MAX_RANKS};

/// The two-shot body for element type `E`.
///
/// # Safety
/// As v1's `oneshot`.
#[inline(always)]
unsafe fn twoshot<E: Elem>(staging: Peers, signals: Peers, input: *const u32, output: *mut u32, n_vec: u64, half_bytes: u64, rank: u32,
                           world: u32, timeout_ns: u64) {
    // SAFETY: forwarded (the signal buffers).
    let Some(call) = (unsafe { begin(signals, rank, world, timeout_ns) }) else { return };
    let stride = grid_dim_x() as u64 * BLOCK as u64;
    let first = block_idx_x() as u64 * BLOCK as u64 + thread_idx_x() as u64;
    // Segment s is [s · seg, min((s + 1) · seg, n_vec)) (layout::comm::segment); a thread handles
    // offset j of every segment, so each phase touches the same vectors in the same block.
    let seg = n_vec.div_ceil(world.max(1) as u64);
    let own = call.half(staging.get(rank), half_bytes) as *mut u32;

    let mut j = first;
    while j < seg {
        let mut vals = [[0u32; 4]; MAX_RANKS];
        for (s, val) in vals.iter_mut().enumerate() {
            let v = s as u64 * seg + j;
            if (s as u32) < world && v < n_vec {
                // SAFETY: v < n_vec (caller contract).
                *val = unsafe { ld_global_cg_v4_u32(input.add(4 * v as usize)) };
            }
        }
        for (s, val) in vals.iter().enumerate() {
            let v = s as u64 * seg + j;
            if (s as u32) < world && v < n_vec {
                // SAFETY: v < n_vec vectors fit this rank's staging half (caller contract).
                unsafe { st_global_v4_u32(own.add(4 * v as usize), *val) };
            }
        }
        j += stride;
    }
    // SAFETY: block-uniform; on failure every thread of the block returns (the status word says why).
    if !unsafe { call.barrier(0) } {
        return;
    }

    // Reduce-scatter: this rank's segment, from every rank.
    let mut j = first;
    let mine = rank as u64 * seg;
    while j < seg && mine + j < n_vec {
        let v = mine + j;
        // SAFETY: every rank's half holds this call's input (its block reached barrier 0); v < n_vec.
        let sum = unsafe { call.sum_over_ranks::<E>(&staging, half_bytes, v) };
        // SAFETY: v < n_vec. Only this rank reads its own segment before barrier 1; peers read it after.
        unsafe {
            st_global_v4_u32(own.add(4 * v as usize), sum);
            st_global_v4_u32(output.add(4 * v as usize), sum);
        }
        j += stride;
    }
    // SAFETY: block-uniform.
    if !unsafe { call.barrier(1) } {
        return;
    }

    // All-gather: every other segment's sum, from its owner.
    let mut j = first;
    while j < seg {
        let mut vals = [[0u32; 4]; MAX_RANKS];
        for (s, val) in vals.iter_mut().enumerate() {
            let v = s as u64 * seg + j;
            if (s as u32) < world && s as u32 != rank && v < n_vec {
                let half = call.half(staging.0[s], half_bytes) as *const u32;
                // SAFETY: rank s wrote its segment's sum there before barrier 1.
                *val = unsafe { ld_global_cg_v4_u32(half.add(4 * v as usize)) };
            }
        }
        for (s, val) in vals.iter().enumerate() {
            let v = s as u64 * seg + j;
            if (s as u32) < world && s as u32 != rank && v < n_vec {
                // SAFETY: v < n_vec.
                unsafe { st_global_v4_u32(output.add(4 * v as usize), *val) };
            }
        }
        j += stride;
    }
    // SAFETY: block-uniform.
    unsafe { call.end() };
}

macro_rules! twoshot_kernel {
    ($name:ident, $elem:ty) => {
        /// Two-shot all-reduce of `n_vec` 16-byte vectors of this element type (see the file's doc).
        ///
        /// # Safety
        /// As the module's launch contract and v1's `oneshot`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(staging: Peers, signals: Peers, input: *const u32, output: *mut u32, n_vec: u64, half_bytes: u64,
                                                rank: u32, world: u32, timeout_ns: u64) {
            // SAFETY: forwarded.
            unsafe { twoshot::<$elem>(staging, signals, input, output, n_vec, half_bytes, rank, world, timeout_ns) }
        }
        launch_bounds!($name, 512);
    };
}

twoshot_kernel!(allreduce_v2_twoshot_f32, F32);
twoshot_kernel!(allreduce_v2_twoshot_f16, F16);
twoshot_kernel!(allreduce_v2_twoshot_bf16, Bf16);
