//! v4 — v3 with the flags in the data (NCCL's low-latency protocol, "LL"). In v3 a block stores its
//! rows into the peers' staging and then releases a flag at system scope; the release waits until every
//! store before it is acknowledged by the peer (a round trip over NVLink) before the flag can leave. Here
//! every 16-byte chunk of the partial goes out as two LL lines of 16 bytes, `{data, epoch, data, epoch}`,
//! each with `st.volatile.global.v4.u32`: an aligned 8-byte half is written whole, so a peer that reads
//! a half whose flag is this call's epoch has that half's data — no fence, no barrier, one one-way trip.
//! The receiver polls its own memory (each thread the lines it will sum), then runs v3's sum, residual
//! add and norm on the data of the lines. Twice the bytes cross the link (a flag beside each data word):
//! the protocol for rows of a few KB, not for bandwidth.
//!
//! The lines live in buffers of their own (never the one- and two-shot steps' staging, whose raw data
//! could hold a word equal to an epoch where a flag is expected), two halves by the epoch's parity: a
//! rank stores into a peer's half `e & 1` only after it has read that peer's lines of call `e − 1`, which
//! the peer stored after finishing call `e − 2`, the last reader of that half. A flag from an older call
//! in the same half holds an older epoch, and a fresh buffer holds zeros (epochs start at 1).
//!
//! Waiting: a thread that polls past the timeout records where (as the barrier does) and tells its
//! peers; the block returns without writing once any of its threads failed.
use super::{
    peer::{Bf16, F16, Peers, begin},
    v3_rmsnorm::{Half, sum_add_norm_row},
};
use crate::{
    launch_bounds::launch_bounds,
    prim::{
        atomic::ld_relaxed_sys_u32,
        atomic::st_relaxed_sys_u32,
        global::{ld_global_nc_v4_u32, ld_volatile_global_v4_u32, st_volatile_global_v4_u32},
        sync::sync_threads_or,
        thread::{block_idx_x, global_timer_ns, grid_dim_x, thread_idx_x},
    },
};
use layout::comm::{CTRL_STATUS, MAX_RANKS, NORM_THREADS, Status};

/// Bytes of LL lines per 16-byte chunk of data (two lines: each 8 data bytes and two 4-byte flags).
const LL_CHUNK: usize = 32;

/// The LL pair carrying chunk `v` (four data words) with flag `f`.
#[inline(always)]
fn lines(v: [u32; 4], f: u32) -> ([u32; 4], [u32; 4]) {
    ([v[0], f, v[1], f], [v[2], f, v[3], f])
}

/// The body for element type `E`.
///
/// # Safety
/// v3's contract (`fused`), with `ll[r]` rank `r`'s LL buffer instead of its staging: two halves of
/// `half_bytes`, 16-byte aligned, `world · rows · hidden · 4 ≤ half_bytes`, written by no other step.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fused_ll<E: Half>(ll: Peers, signals: Peers, delta: *const u16, x: *mut u16, w: *const u16, y: *mut u16, rows: u32, hidden: u32, eps: f32,
                            half_bytes: u64, rank: u32, world: u32, timeout_ns: u64) {
    #[cfg(lab_sm90)]
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: forwarded (the signal buffers).
    let Some(call) = (unsafe { begin(signals, rank, world, timeout_ns) }) else { return };
    let flag = call.epoch as u32;
    let (tid, hid) = (thread_idx_x() as usize, hidden as usize);
    // Chunks of 8 elements in one rank's slot.
    let slot = rows as usize * hid / 8;
    // 1. This block's rows of the partial, as LL lines, into slot `rank` of every peer's half.
    let mut row = block_idx_x();
    while row < rows {
        let at = row as usize * hid;
        let mut c = 8 * tid;
        while c < hid {
            // SAFETY: c + 8 ≤ hidden, inside row `row` of `delta`; chunk `(at + c) / 8` of slot `rank` lies
            // in a peer's half (`world · rows · hidden · 4 ≤ half_bytes`), 16-byte aligned.
            unsafe {
                let (l0, l1) = lines(ld_global_nc_v4_u32(delta.add(at + c) as *const u32), flag);
                for q in 0..MAX_RANKS as u32 {
                    if q < world && q != rank {
                        let dst = (call.half(ll.get(q), half_bytes) as *mut u8).add((rank as usize * slot + (at + c) / 8) * LL_CHUNK) as *mut u32;
                        st_volatile_global_v4_u32(dst, l0);
                        st_volatile_global_v4_u32(dst.add(4), l1);
                    }
                }
            }
            c += 8 * NORM_THREADS as usize;
        }
        row += grid_dim_x();
    }
    let own = call.half(ll.get(rank), half_bytes) as *const u8;
    let line = |r: u32, e: usize| -> *const u32 { own.wrapping_add((r as usize * slot + e / 8) * LL_CHUNK) as *const u32 };
    let status = signals.at::<u32>(rank).wrapping_add(CTRL_STATUS);
    // 2. Row by row: wait for every peer's lines of this thread's chunks, then v3's sum and norm.
    let mut row = block_idx_x();
    while row < rows {
        let at = row as usize * hid;
        let mut failed = false;
        let mut c = 8 * tid;
        while c < hid && !failed {
            for q in 0..MAX_RANKS as u32 {
                if q < world && q != rank && !failed {
                    let start = global_timer_ns();
                    // SAFETY: the lines lie in this rank's half (as in 1.); the status words in the signal
                    // buffers (`begin`'s contract).
                    unsafe {
                        loop {
                            let (a, b) = (ld_volatile_global_v4_u32(line(q, at + c)), ld_volatile_global_v4_u32(line(q, at + c).add(4)));
                            if a[1] == flag && a[3] == flag && b[1] == flag && b[3] == flag {
                                break;
                            }
                            if ld_relaxed_sys_u32(status) != 0 {
                                failed = true;
                                break;
                            }
                            if global_timer_ns().wrapping_sub(start) > timeout_ns {
                                st_relaxed_sys_u32(status, Status::TimedOut { peer: q, phase: 0, block: block_idx_x() }.encode());
                                for p in 0..world {
                                    if p != rank {
                                        st_relaxed_sys_u32(signals.at::<u32>(p).add(CTRL_STATUS), Status::PeerFailed { rank }.encode());
                                    }
                                }
                                failed = true;
                                break;
                            }
                        }
                    }
                }
            }
            c += 8 * NORM_THREADS as usize;
        }
        // SAFETY: block-uniform: every thread of the block returns together.
        if unsafe { sync_threads_or(failed) } {
            return;
        }
        // SAFETY: every peer's lines of this thread's chunks of the row hold this call's epoch (polled
        // above by this thread), so their data words are this call's; the rest is v3's contract.
        unsafe {
            sum_add_norm_row::<E>(at, delta, x, w, y, hidden, eps, rank, world, |r, e| {
                let (a, b) = (ld_volatile_global_v4_u32(line(r, e)), ld_volatile_global_v4_u32(line(r, e).add(4)));
                [a[0], a[2], b[0], b[2]]
            })
        };
        row += grid_dim_x();
    }
    // Every peer's data has arrived (every peer is running): a dependent grid may take SMs now.
    #[cfg(lab_sm90)]
    crate::prim::sync::griddepcontrol_launch_dependents();
    // SAFETY: block-uniform.
    unsafe { call.end() };
}

macro_rules! fused_ll_kernel {
    ($name:ident, $elem:ty) => {
        /// v3's all-reduce + residual add + RMSNorm with the flags in the data (see the file's doc).
        ///
        /// # Safety
        /// As `fused_ll`'s contract.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(ll: Peers, signals: Peers, delta: *const u16, x: *mut u16, w: *const u16, y: *mut u16, rows: u32,
                                                hidden: u32, eps: f32, half_bytes: u64, rank: u32, world: u32, timeout_ns: u64) {
            // SAFETY: forwarded.
            unsafe { fused_ll::<$elem>(ll, signals, delta, x, w, y, rows, hidden, eps, half_bytes, rank, world, timeout_ns) }
        }
        launch_bounds!($name, 256);
    };
}

fused_ll_kernel!(allreduce_v4_rmsnorm_ll_f16, F16);
fused_ll_kernel!(allreduce_v4_rmsnorm_ll_bf16, Bf16);
