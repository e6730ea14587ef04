//! What the all-reduce steps share: the peer table, the call's epoch, the barrier with its timeout,
//! and the element types (summed in f32, in rank order, so every rank computes the same bits).
use crate::prim::{
    global::ld_global_cg_v4_u32,
    atomic::{atom_add_acq_rel_gpu_u32, ld_acquire_sys_u64, ld_relaxed_gpu_u64, ld_relaxed_sys_u32, st_relaxed_gpu_u32, st_relaxed_gpu_u64,
             st_relaxed_sys_u32, st_release_sys_u64},
    mma::{f16_to_f32, pack_bf16x2, pack_f16x2},
    sync::{sync_threads, sync_threads_or},
    thread::{block_idx_x, global_timer_ns, grid_dim_x, thread_idx_x},
};
use layout::comm::{CTRL_DONE, CTRL_EPOCH, CTRL_STATUS, MAX_RANKS, Status, flag_index};

/// One device address per rank (unused entries 0), passed by value as a 64-byte kernel parameter.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Peers(pub [u64; MAX_RANKS]);

impl Peers {
    /// Rank `r`'s address (0 past the table): a chain of selects, so a runtime `r` never sends the
    /// table to local memory (indexing the parameter's array directly put 216 bytes on the stack).
    #[inline(always)]
    pub fn get(&self, r: u32) -> u64 {
        let mut a = 0;
        for (i, &p) in self.0.iter().enumerate() {
            if i as u32 == r {
                a = p;
            }
        }
        a
    }

    /// Rank `r`'s address as a pointer to `T`.
    #[inline(always)]
    pub fn at<T>(&self, r: u32) -> *mut T {
        self.get(r) as *mut T
    }
}

/// A call in progress on one rank: its epoch and where its signals are.
pub struct Call {
    /// This call's number (the last finished call's + 1, the same on every rank; 64 bits never wrap).
    pub epoch: u64,
    /// This rank.
    pub rank: u32,
    /// Ranks in the group.
    pub world: u32,
    /// Every rank's signal buffer.
    pub signals: Peers,
    /// Nanoseconds a wait may take before the call gives up.
    pub timeout_ns: u64,
}

/// Starts a call: `None` (return at once) when this rank's status word says an earlier call failed
/// here or on a peer, otherwise the call with its epoch. Every block reads the same epoch: the previous launch on this
/// stream advanced it before it ended.
///
/// # Safety
/// `signals` holds every rank's signal buffer (`layout::comm::SIGNAL_BYTES`, mapped in this context);
/// `rank < world <= MAX_RANKS`.
#[inline(always)]
pub unsafe fn begin(signals: Peers, rank: u32, world: u32, timeout_ns: u64) -> Option<Call> {
    // SAFETY: the control words lie inside this rank's signal buffer (caller contract).
    let (status, last) = unsafe { (ld_relaxed_sys_u32(signals.at::<u32>(rank).add(CTRL_STATUS)), ld_relaxed_gpu_u64(signals.at::<u64>(rank).add(CTRL_EPOCH))) };
    if status != 0 {
        return None;
    }
    Some(Call { epoch: last + 1, rank, world, signals, timeout_ns })
}

impl Call {
    /// The staging half this call writes and reads (its epoch's parity): `base + parity · half_bytes`.
    #[inline(always)]
    pub fn half(&self, base: u64, half_bytes: u64) -> u64 {
        base + (self.epoch & 1) as u64 * half_bytes
    }

    /// Barrier `phase` of this block with the same block of every peer: the block's earlier writes
    /// are released to every peer, and every peer's writes before its arrival are acquired. Returns
    /// false (for every thread of the block) when a peer did not arrive within the timeout; the status
    /// word then says who and where.
    ///
    /// # Safety
    /// Every thread of the block calls it (it holds block barriers); `begin`'s contract.
    #[inline(always)]
    pub unsafe fn barrier(&self, phase: u32) -> bool {
        let (tid, block) = (thread_idx_x(), block_idx_x());
        // Every thread's writes before this point (its part of the staging buffer) happen before the
        // release below (the barrier orders them; the release is cumulative).
        // SAFETY: block-uniform (caller contract).
        unsafe { sync_threads() };
        let mut failed = false;
        if tid < self.world && tid != self.rank {
            let idx_to_peer = flag_index(phase as usize, block as usize, self.rank as usize);
            let idx_from_peer = flag_index(phase as usize, block as usize, tid as usize);
            let peer: *mut u64 = self.signals.at(tid);
            let own: *mut u64 = self.signals.at(self.rank);
            // SAFETY: the flags lie inside the signal buffers (`begin`'s contract).
            unsafe { st_release_sys_u64(peer.add(idx_to_peer), self.epoch) };
            let start = global_timer_ns();
            let status = self.signals.at::<u32>(self.rank).wrapping_add(CTRL_STATUS);
            // SAFETY: as above (flags and status words of the signal buffers).
            while unsafe { ld_acquire_sys_u64(own.add(idx_from_peer)) } < self.epoch {
                // A peer that gave up says so here: stop waiting for the rest of the group.
                if unsafe { ld_relaxed_sys_u32(status) } != 0 {
                    failed = true;
                    break;
                }
                if global_timer_ns().wrapping_sub(start) > self.timeout_ns {
                    // Record where this rank gave up, then tell every peer to stop, so that none of
                    // them waits its own timeout for this rank (or for one that waits for it).
                    // SAFETY: status words of the signal buffers (`begin`'s contract).
                    unsafe {
                        st_relaxed_sys_u32(status, Status::TimedOut { peer: tid, phase, block }.encode());
                        for q in 0..self.world {
                            if q != self.rank {
                                st_relaxed_sys_u32(self.signals.at::<u32>(q).add(CTRL_STATUS), Status::PeerFailed { rank: self.rank }.encode());
                            }
                        }
                    }
                    failed = true;
                    break;
                }
            }
        }
        // The second barrier spreads what the waiting threads acquired to the whole block.
        // SAFETY: block-uniform (caller contract).
        !unsafe { sync_threads_or(failed) }
    }

    /// Vector `v` of every rank's staging half summed in rank order and rounded to `E`: all ranks'
    /// loads issued first (the rank loop unrolled to `MAX_RANKS` and predicated), so a thread waits
    /// one link latency, not `world`.
    ///
    /// # Safety
    /// Every rank's staging half (`staging[r] + parity · half_bytes`) holds vector `v` of this call,
    /// written before that rank's block reached the barrier this block passed.
    #[inline(always)]
    pub unsafe fn sum_over_ranks<E: Elem>(&self, staging: &Peers, half_bytes: u64, v: u64) -> [u32; 4] {
        let mut vals = [[0u32; 4]; MAX_RANKS];
        for (r, val) in vals.iter_mut().enumerate() {
            if (r as u32) < self.world {
                let half = self.half(staging.0[r], half_bytes) as *const u32;
                // SAFETY: forwarded (the caller's contract).
                *val = unsafe { ld_global_cg_v4_u32(half.add(4 * v as usize)) };
            }
        }
        // -0.0 is the additive identity (it keeps a sum of -0.0s negative).
        let mut acc = [-0.0f32; 8];
        for (r, val) in vals.iter().enumerate() {
            if (r as u32) < self.world {
                E::add(&mut acc, *val);
            }
        }
        E::pack(&acc)
    }

    /// Ends the call for this block; the last block of the grid advances the rank's epoch, which the
    /// next launch on the stream reads. Every thread of the block calls it, after its last access.
    ///
    /// # Safety
    /// `begin`'s contract; block-uniform.
    #[inline(always)]
    pub unsafe fn end(&self) {
        // SAFETY: block-uniform (caller contract).
        unsafe { sync_threads() };
        if thread_idx_x() == 0 {
            let own: *mut u32 = self.signals.at(self.rank);
            // SAFETY: control words of this rank's signal buffer; only this kernel's blocks touch them.
            unsafe {
                if atom_add_acq_rel_gpu_u32(own.add(CTRL_DONE), 1) == grid_dim_x() - 1 {
                    st_relaxed_gpu_u32(own.add(CTRL_DONE), 0);
                    st_relaxed_gpu_u64(self.signals.at::<u64>(self.rank).add(CTRL_EPOCH), self.epoch);
                }
            }
        }
    }
}

/// An element type as 16-byte vectors summed in f32: `LANES` elements per vector.
pub trait Elem {
    /// Elements per 16-byte vector.
    const LANES: usize;
    /// Adds the vector's elements to `acc[..LANES]`.
    fn add(acc: &mut [f32; 8], v: [u32; 4]);
    /// `acc[..LANES]` rounded to the element type, as a vector.
    fn pack(acc: &[f32; 8]) -> [u32; 4];
}

/// f32.
pub struct F32;
/// f16 and bf16: the element types of `nvptx_std::half16` (their per-element conversions there).
pub use crate::prim::half16::{Bf16, F16};

impl Elem for F32 {
    const LANES: usize = 4;
    #[inline(always)]
    fn add(acc: &mut [f32; 8], v: [u32; 4]) {
        for i in 0..4 {
            acc[i] += f32::from_bits(v[i]);
        }
    }
    #[inline(always)]
    fn pack(acc: &[f32; 8]) -> [u32; 4] {
        [acc[0].to_bits(), acc[1].to_bits(), acc[2].to_bits(), acc[3].to_bits()]
    }
}

impl Elem for F16 {
    const LANES: usize = 8;
    #[inline(always)]
    fn add(acc: &mut [f32; 8], v: [u32; 4]) {
        for i in 0..4 {
            acc[2 * i] += f16_to_f32(v[i] as u16);
            acc[2 * i + 1] += f16_to_f32((v[i] >> 16) as u16);
        }
    }
    #[inline(always)]
    fn pack(acc: &[f32; 8]) -> [u32; 4] {
        [pack_f16x2(acc[0], acc[1]), pack_f16x2(acc[2], acc[3]), pack_f16x2(acc[4], acc[5]), pack_f16x2(acc[6], acc[7])]
    }
}

impl Elem for Bf16 {
    const LANES: usize = 8;
    #[inline(always)]
    fn add(acc: &mut [f32; 8], v: [u32; 4]) {
        // bf16 → f32 exactly: its bits are the f32's high half.
        for i in 0..4 {
            acc[2 * i] += f32::from_bits(v[i] << 16);
            acc[2 * i + 1] += f32::from_bits(v[i] & 0xffff_0000);
        }
    }
    #[inline(always)]
    fn pack(acc: &[f32; 8]) -> [u32; 4] {
        [pack_bf16x2(acc[0], acc[1]), pack_bf16x2(acc[2], acc[3]), pack_bf16x2(acc[4], acc[5]), pack_bf16x2(acc[6], acc[7])]
    }
}
