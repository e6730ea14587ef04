//! The custom all-reduce's shared memory map (`kernels-gpu/src/comm`, `kernel_lab::comm`): what each
//! rank allocates once and every peer reads or writes through NVLink (peer pointers).
//!
//! Per rank, two allocations:
//! * **staging**: `2 × capacity` bytes, two halves used on alternate calls (the call's epoch parity),
//!   so a call never writes the half its peers may still be reading from the call before;
//! * **signals**: the flags `[phase][block][from-rank]` (`u64` each, [`FLAGS_BYTES`]) followed by the
//!   rank's own control words ([`CTRL_EPOCH`], [`CTRL_DONE`], [`CTRL_STATUS`]), zeroed at creation.
//!
//! A flag holds the epoch (the call's number, 64 bits: it never wraps) at which rank `from` last
//! reached `phase` in `block`; a rank waits until its own flag from each peer is at least its epoch.

/// Most ranks one group takes (NVLink islands of 8 GPUs).
pub const MAX_RANKS: usize = 8;
/// Most blocks one launch uses (the flags are per block).
pub const MAX_BLOCKS: usize = 64;
/// Barriers per call (one-shot uses phase 0; two-shot phases 0 and 1).
pub const PHASES: usize = 2;
/// Threads per block of the plain all-reduce kernels (v1, v2; v3 has `NORM_THREADS`).
pub const BLOCK: u32 = 512;
/// Threads per block of the all-reduce fused with the residual add and RMSNorm (v3): one block a row,
/// each thread up to 8 chunks of 8 elements (rows of at most `MAX_NORM_HIDDEN` elements).
pub const NORM_THREADS: u32 = 256;
/// Widest row v3 normalizes (16-bit elements).
pub const MAX_NORM_HIDDEN: usize = 8 * 8 * NORM_THREADS as usize;
/// Bytes each thread moves per access (one 128-bit vector).
pub const VEC_BYTES: usize = 16;

/// Bytes of the flag array at the start of a rank's signal buffer.
pub const FLAGS_BYTES: usize = PHASES * MAX_BLOCKS * MAX_RANKS * 8;
/// Index (in `u64`) of the control word holding the last finished call's epoch.
pub const CTRL_EPOCH: usize = FLAGS_BYTES / 8;
/// Index (in `u32`) of the count of blocks that finished the current call (the last one advances the
/// epoch).
pub const CTRL_DONE: usize = FLAGS_BYTES / 4 + 2;
/// Index (in `u32`) of the status word: 0 while healthy; otherwise a failure code, after which
/// every call returns at once without touching memory (the group must be rebuilt); see [`Status`].
pub const CTRL_STATUS: usize = FLAGS_BYTES / 4 + 3;
/// Bytes of one rank's signal buffer (flags and control words, padded to 128 bytes).
pub const SIGNAL_BYTES: usize = FLAGS_BYTES + 128;

/// Index (in `u64`) of the flag that rank `from` sets in a peer's signal buffer for `phase` of `block`.
#[inline(always)]
pub const fn flag_index(phase: usize, block: usize, from: usize) -> usize {
    (phase * MAX_BLOCKS + block) * MAX_RANKS + from
}


/// What a rank's status word says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// 0: no call failed.
    Healthy,
    /// This rank waited past the timeout for `peer` at barrier `phase` of `block`.
    TimedOut {
        /// The peer that did not arrive.
        peer: u32,
        /// The barrier (0: before reading the inputs; 1: two-shot's second).
        phase: u32,
        /// The block that waited.
        block: u32,
    },
    /// Rank `rank` timed out and told this rank to stop (so no rank waits for a failed group).
    PeerFailed {
        /// The rank that timed out.
        rank: u32,
    },
    /// A word no kernel writes.
    Unknown(u32),
}

impl Status {
    /// The word for this status.
    pub const fn encode(self) -> u32 {
        match self {
            Status::Healthy => 0,
            Status::TimedOut { peer, phase, block } => 0x8000_0000 | (phase & 0xf) << 24 | (block & 0xff) << 16 | (peer & 0xff),
            Status::PeerFailed { rank } => 0x4000_0000 | (rank & 0xff),
            Status::Unknown(w) => w,
        }
    }

    /// The status a word encodes.
    pub const fn decode(w: u32) -> Status {
        if w == 0 {
            Status::Healthy
        } else if w & 0xc000_0000 == 0x8000_0000 && w & 0x3000_ff00 == 0 {
            Status::TimedOut { peer: w & 0xff, phase: (w >> 24) & 0xf, block: (w >> 16) & 0xff }
        } else if w & 0xffff_ff00 == 0x4000_0000 {
            Status::PeerFailed { rank: w & 0xff }
        } else {
            Status::Unknown(w)
        }
    }
}

/// Vectors (of [`VEC_BYTES`]) of segment `s` when `n_vec` vectors are split over `world` ranks
/// (two-shot): `[start, end)`. Segments are `ceil(n_vec / world)` long, the last ones shorter or empty.
#[inline(always)]
pub const fn segment(n_vec: u64, world: u32, s: u32) -> (u64, u64) {
    let len = n_vec.div_ceil(world as u64);
    let start = len * s as u64;
    let end = start + len;
    (if start < n_vec { start } else { n_vec }, if end < n_vec { end } else { n_vec })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_distinct_and_inside_the_flag_array() {
        let mut seen = [false; FLAGS_BYTES / 8];
        for p in 0..PHASES {
            for b in 0..MAX_BLOCKS {
                for r in 0..MAX_RANKS {
                    let i = flag_index(p, b, r);
                    assert!(!seen[i], "flag {i} used twice");
                    seen[i] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert!(CTRL_EPOCH * 8 == FLAGS_BYTES && CTRL_DONE * 4 == FLAGS_BYTES + 8 && CTRL_STATUS * 4 + 4 <= SIGNAL_BYTES);
    }

    #[test]
    fn status_words_round_trip() {
        for s in [Status::Healthy, Status::TimedOut { peer: 7, phase: 1, block: 63 }, Status::TimedOut { peer: 0, phase: 0, block: 0 },
                  Status::PeerFailed { rank: 5 }, Status::Unknown(0x1234)] {
            assert_eq!(Status::decode(s.encode()), s);
        }
        assert_ne!(Status::TimedOut { peer: 0, phase: 0, block: 0 }.encode(), 0);
    }

    #[test]
    fn segments_cover_every_vector_once() {
        for n in [0u64, 1, 7, 8, 9, 1000, 1001] {
            for w in 1..=8u32 {
                let mut next = 0;
                for s in 0..w {
                    let (a, b) = segment(n, w, s);
                    assert_eq!(a, next, "n {n} w {w} s {s}");
                    assert!(b >= a);
                    next = b;
                }
                assert_eq!(next, n);
            }
        }
    }
}
