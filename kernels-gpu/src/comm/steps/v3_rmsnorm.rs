//! v3 — the one-shot all-reduce pushed, and fused with what follows it in a transformer layer: the
//! residual add and RMSNorm. A tensor-parallel layer ends in `delta = Σ_ranks partial` and the next
//! sublayer starts with `x += delta; y = w · round(x / √(mean x² + ε))`; unfused that is two kernels
//! and, in v1, a flag round trip plus a read over NVLink. Here one block per row:
//! 1. stores its row of this rank's partial into every peer's staging (slot `rank`) — a one-way
//!    NVLink trip — and meets the same block of every peer at one barrier (the flag released after the
//!    stores, so a peer that sees the flag sees the row);
//! 2. reads every rank's row from its *own* staging (local memory) and this rank's from the input, sums
//!    them in f32 in rank order, rounds (v1's bits exactly), adds the sum to the residual row `x`
//!    (rounded, written back) and writes the normalized row `y` (Hugging Face's rounding: the row
//!    rounded before the weight multiplies it).
//!
//! Every rank computes the same bits, and the same bits as v1 followed by the runner's `add_rmsnorm`
//! (tested). A grid smaller than the rows strides over them (rows `block, block + grid, …`): each block
//! pushes all its rows before its barrier.
//!
//! In the sm_90 build the kernel waits for the previous grid first (programmatic dependent launch: its
//! blocks may be resident while the GEMM that wrote `delta` finishes) and lets the next grid be
//! scheduled only after its barrier — a dependent that took SMs while this grid waits for a peer on the
//! same GPU (ranks sharing one GPU) could otherwise keep that peer's blocks from running.
use super::peer::{Bf16, Elem, F16, Peers, begin};
use crate::{
    launch_bounds::launch_bounds,
    prim::{
        unroll8,
        global::{ld_global_cg_v4_u32, ld_global_nc_v4_u32, st_global_v4_u32},
        half16::{Half, chunk, halves},
        shared,
        thread::{block_idx_x, grid_dim_x, thread_idx_x},
        warp::block_reduce_f32,
    },
};
use layout::comm::{MAX_RANKS, NORM_THREADS};

/// 16-byte chunks of a row each thread holds (`hidden ≤ 8 · 8 · NORM_THREADS`).
const CHUNKS: usize = 8;

/// The fused body for element type `E`.
///
/// # Safety
/// The module's launch contract with `NORM_THREADS` threads and 32 bytes of dynamic shared memory per
/// block; `staging[r]` and `signals[r]` are rank `r`'s buffers for every `r < world` (two halves of
/// `half_bytes`, 16-byte aligned; `layout::comm::SIGNAL_BYTES`), `world · rows · hidden · 2 ≤
/// half_bytes`; `delta`, `x` and `y` hold `rows · hidden` elements and `w` `hidden`, 16-byte aligned,
/// `x` and `y` overlapping nothing else (`delta` and `w` are read through the non-coherent path);
/// `hidden % 8 == 0`, `hidden ≤ 8 · CHUNKS · NORM_THREADS`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fused<E: Half + Elem>(staging: Peers, signals: Peers, delta: *const u16, x: *mut u16, w: *const u16, y: *mut u16, rows: u32, hidden: u32, eps: f32,
                         half_bytes: u64, rank: u32, world: u32, timeout_ns: u64) {
    #[cfg(lab_sm90)]
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: forwarded (the signal buffers).
    let Some(call) = (unsafe { begin(signals, rank, world, timeout_ns) }) else { return };
    let (tid, hid) = (thread_idx_x(), hidden as usize);
    let slot = rows as usize * hid;
    // 1. This block's rows of the partial into slot `rank` of every peer's staging half.
    let mut row = block_idx_x();
    while row < rows {
        let at = row as usize * hid;
        let mut c = 8 * tid as usize;
        while c < hid {
            // SAFETY: c + 8 ≤ hidden, inside row `row` of `delta`; slot `rank` of a peer's half holds
            // `rows · hidden` elements (`world · rows · hidden · 2 ≤ half_bytes`).
            unsafe {
                let v = ld_global_nc_v4_u32(delta.add(at + c) as *const u32);
                for q in 0..MAX_RANKS as u32 {
                    if q < world && q != rank {
                        let dst = (call.half(staging.get(q), half_bytes) as *mut u16).add(rank as usize * slot + at + c);
                        st_global_v4_u32(dst as *mut u32, v);
                    }
                }
            }
            c += 8 * NORM_THREADS as usize;
        }
        row += grid_dim_x();
    }
    // SAFETY: block-uniform; on failure every thread of the block returns (the status word says why).
    if !unsafe { call.barrier(0) } {
        return;
    }
    // Every peer has arrived: a dependent grid may take SMs now without starving a peer on this GPU.
    #[cfg(lab_sm90)]
    crate::prim::sync::griddepcontrol_launch_dependents();
    let own = call.half(staging.get(rank), half_bytes) as *const u16;
    // 2. Sum, residual add, norm, row by row.
    let mut row = block_idx_x();
    while row < rows {
        let at = row as usize * hid;
        let mut keep = [[0u32; 4]; CHUNKS];
        let mut wk = [[0u32; 4]; CHUNKS];
        let mut sq = 0f32;
        // Both passes unrolled (`unroll8!`): indexing `keep` in a loop put it in local memory.
        unroll8!(i => {
            let c = 8 * (tid as usize + NORM_THREADS as usize * i);
            if c < hid {
                // SAFETY: c + 8 ≤ hidden; every peer's slot of this row was stored before its block
                // reached the barrier this block passed; `x` is read and written by this thread only.
                unsafe {
                    wk[i] = ld_global_nc_v4_u32(w.add(c) as *const u32);
                    let mut vals = [[0u32; 4]; MAX_RANKS];
                    for (r, val) in vals.iter_mut().enumerate() {
                        let r = r as u32;
                        if r < world {
                            *val = if r == rank {
                                ld_global_nc_v4_u32(delta.add(at + c) as *const u32)
                            } else {
                                ld_global_cg_v4_u32(own.add(r as usize * slot + at + c) as *const u32)
                            };
                        }
                    }
                    let xv = halves(ld_global_cg_v4_u32(x.add(at + c) as *const u32));
                    // -0.0 is the additive identity; rank order, as v1's `sum_over_ranks`.
                    let mut acc = [-0.0f32; 8];
                    for (r, val) in vals.iter().enumerate() {
                        if (r as u32) < world {
                            E::add(&mut acc, *val);
                        }
                    }
                    let d = halves(E::pack(&acc));
                    let h: [u16; 8] = core::array::from_fn(|j| E::bits(E::f(xv[j]) + E::f(d[j])));
                    st_global_v4_u32(x.add(at + c) as *mut u32, chunk(h));
                    sq += h.iter().map(|&b| E::f(b) * E::f(b)).sum::<f32>();
                    keep[i] = chunk(h);
                }
            }
        });
        // SAFETY: every thread reaches the reduction (block-uniform loop); 8 slots in 32 bytes of dynamic
        // shared memory, read before any thread's next reduction writes them (the reduction's barrier).
        let total = unsafe { block_reduce_f32::<{ NORM_THREADS / 32 }>(sq, shared::dynamic(), |a, b| a + b) };
        let r = 1.0 / core::f32::math::sqrt(total / hidden as f32 + eps);
        unroll8!(i => {
            let c = 8 * (tid as usize + NORM_THREADS as usize * i);
            if c < hid {
                let (h, g) = (halves(keep[i]), halves(wk[i]));
                // SAFETY: as above, for `y`.
                unsafe { st_global_v4_u32(y.add(at + c) as *mut u32, chunk(core::array::from_fn(|j| E::bits(E::f(g[j]) * E::rnd(E::f(h[j]) * r))))) };
            }
        });
        row += grid_dim_x();
        // The next row's reduction reuses the slots: every thread has read them (the barrier below).
        // SAFETY: block-uniform.
        unsafe { crate::prim::sync::sync_threads() };
    }
    // SAFETY: block-uniform.
    unsafe { call.end() };
}

macro_rules! fused_kernel {
    ($name:ident, $elem:ty) => {
        /// The all-reduce of `rows × hidden` partial sums fused with the residual add and RMSNorm (see
        /// the file's doc).
        ///
        /// # Safety
        /// As `fused`'s contract.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(staging: Peers, signals: Peers, delta: *const u16, x: *mut u16, w: *const u16, y: *mut u16, rows: u32,
                                                hidden: u32, eps: f32, half_bytes: u64, rank: u32, world: u32, timeout_ns: u64) {
            // SAFETY: forwarded.
            unsafe { fused::<$elem>(staging, signals, delta, x, w, y, rows, hidden, eps, half_bytes, rank, world, timeout_ns) }
        }
        launch_bounds!($name, 256);
    };
}

fused_kernel!(allreduce_v3_rmsnorm_f16, F16);
fused_kernel!(allreduce_v3_rmsnorm_bf16, Bf16);
