//! Launch geometry and shared-memory index maps of the reduction ladder (seed 003).
//!
//! The kernels in `kernels-gpu/src/reduce/` index their shared-memory tile with these functions, and the
//! host replays them to predict bank conflicts, so the two cannot disagree.

/// Threads per block of every reduction step (the seed's `BLOCKSIZE`).
pub const BLOCK: u32 = 256;

/// Threads per warp.
pub const WARP: u32 = 32;

/// Elements one block of steps v0–v2 sums: one per thread.
pub const ELEMS_PER_BLOCK_V0: u32 = BLOCK;

/// Elements one block of steps v3–v4 sums: two per thread (the first add happens during the load).
pub const ELEMS_PER_BLOCK_V3: u32 = 2 * BLOCK;

/// Interleaved addressing (steps v1, and the data v0 touches): at tree level `stride` (1, 2, 4, …), thread
/// `tid` adds element `index + stride` into element `index`, where
///
/// ```text
/// index = 2 · stride · tid          (only while index < BLOCK)
///
/// stride = 1:  tid 0 → 0 ← 1,  tid 1 → 2 ← 3,  …, tid 16 → 32 ← 33   (word 0 and 32: same bank, 2-way)
/// stride = 2:  tid 0 → 0 ← 2,  tid 8 → 32 ← 34, tid 16 → 64, tid 24 → 96   (4-way)
/// ```
///
/// Lanes of one warp land `2·stride` words apart, so `2·stride` lanes share a bank: a `2·stride`-way
/// conflict (capped by the number of active lanes), which is what seed 003 measures.
#[inline(always)]
pub const fn interleaved_index(tid: u32, stride: u32) -> u32 {
    2 * stride * tid
}

/// Sequential addressing (steps v2 and later): at tree level `half` (BLOCK/2, BLOCK/4, …), thread
/// `tid < half` adds element `tid + half` into element `tid`.
///
/// ```text
/// index = tid                       (only while tid < half)
/// lane l of a warp touches word (warp·32 + l) and (warp·32 + l + half): 32 consecutive words, 32 banks
/// ```
///
/// Consecutive lanes touch consecutive 4-byte words, one per bank: conflict-free.
#[inline(always)]
pub const fn sequential_index(tid: u32) -> u32 {
    tid
}

/// Blocks needed to cover `n` elements when each block sums `per_block` of them (`ceil(n / per_block)`),
/// computed without overflow for any `n`.
#[inline(always)]
pub const fn blocks_for(n: u64, per_block: u64) -> u64 {
    n / per_block + (n % per_block != 0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_lanes_are_two_stride_words_apart() {
        for stride in [1u32, 2, 4, 8] {
            assert_eq!(interleaved_index(1, stride) - interleaved_index(0, stride), 2 * stride);
        }
        // The seed's example: at stride 1, lane 16 adds word 33 into word 32, the same bank as word 0.
        assert_eq!(interleaved_index(16, 1), 32);
        assert_eq!(interleaved_index(8, 2), 32);
    }

    #[test]
    fn blocks_for_rounds_up_without_overflow() {
        assert_eq!(blocks_for(0, 256), 0);
        assert_eq!(blocks_for(1, 256), 1);
        assert_eq!(blocks_for(256, 256), 1);
        assert_eq!(blocks_for(257, 256), 2);
        assert_eq!(blocks_for(u64::MAX, 2), u64::MAX / 2 + 1);
    }
}
