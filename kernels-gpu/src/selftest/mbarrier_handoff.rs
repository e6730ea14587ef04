//! An mbarrier hand-off through shared memory (sm_90): the pattern of FP8 f15's scale slot in its
//! smallest form. Thread 0 (the producer) writes a word into a slot with `st.shared` and arrives on a
//! "full" barrier; warp 1 (the consumer) waits for it, reads the slot, syncs the warp, and its lane 0
//! arrives on an "empty" barrier, which the producer waits for before writing the next round. The
//! values prove the ordering on the GPU; compute-sanitizer's racecheck run on this kernel says whether
//! the tool follows mbarrier ordering of generic shared-memory accesses (fp8 README, session 17).
use crate::prim::{
    mbarrier::{fence_mbarrier_init, mbarrier_arrive, mbarrier_init, mbarrier_wait_parity},
    shared::{ld_shared_u32, st_shared_u32, static_alloc_aligned},
    sync::{sync_threads, sync_warp},
    thread::{lane_id, thread_idx_x},
};

/// Rounds of the hand-off.
pub const ROUNDS: u32 = 4;

/// `g_out[r · 32 + lane] = g_in[0] + r` for each round `r` and lane of warp 1: the word thread 0 wrote
/// into the slot in round `r`, as warp 1 read it.
///
/// # Safety
/// sm_90; one CTA of 64 threads; `g_in` one readable u32, `g_out` `32 · ROUNDS` writable u32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn selftest_mbarrier_handoff(g_in: *const u32, g_out: *mut u32) {
    // The slot at +0, the full barrier at +8, the empty barrier at +16.
    let s_base = static_alloc_aligned::<24, 16>();
    let (s_slot, s_full, s_empty) = (s_base, s_base + 8, s_base + 16);
    let tid = thread_idx_x();
    // SAFETY: thread 0 initializes both barriers (one arrival each) before the block barrier; round r
    // is phase r of each: the producer writes the slot only after the consumer's arrival that ended
    // round r − 1 (phase r − 1 of `empty`), the consumer reads it only after phase r of `full`; every
    // address is inside the 24-byte static allocation; g_out indices < 32 · ROUNDS.
    unsafe {
        if tid == 0 {
            mbarrier_init(s_full, 1);
            mbarrier_init(s_empty, 1);
            fence_mbarrier_init();
        }
        sync_threads();
        let value = *g_in;
        if tid == 0 {
            for r in 0..ROUNDS {
                if r > 0 {
                    mbarrier_wait_parity(s_empty, (r - 1) & 1);
                }
                st_shared_u32(s_slot, value + r);
                mbarrier_arrive(s_full);
            }
        } else if tid / 32 == 1 {
            let lane = lane_id();
            for r in 0..ROUNDS {
                mbarrier_wait_parity(s_full, r & 1);
                let got = ld_shared_u32(s_slot);
                sync_warp();
                if lane == 0 {
                    mbarrier_arrive(s_empty);
                }
                *g_out.add((r * 32 + lane) as usize) = got;
            }
        }
    }
}
