//! `cp.async` (SASS `LDGSTS`) traffic: how many 32-byte sectors one warp instruction moves.
//!
//! A 16-byte `cp.async` lane reads one aligned 16-byte chunk of global memory and writes one aligned
//! 16-byte chunk of shared memory. The copy path moves data in 32-byte **sectors aligned on both
//! sides**: a transfer is one (global sector, shared sector) pair, and the warp instruction costs as
//! many sector transfers as it has distinct pairs. Measured on an H200 (`ncu`,
//! `sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum`): exactly this count for
//! the HGEMM block ladder's swizzled and padded tiles (results/2026-11-22-h200-session3-padding).
//!
//! ```text
//! global row (128 B):  | s0: c0 c1 | s1: c2 c3 | s2: c4 c5 | s3: c6 c7 |   4 sectors
//! swizzled row:        XOR of chunk bits keeps the pairs {c0,c1} {c2,c3} … inside one shared sector
//!                      (the XOR mask is the same for both chunks of a pair up to bit 0)  → 4 pairs
//! padded row, 16 B off a sector boundary (row start ≡ 16 mod 32):
//!   shared:   | .. c0 | c1 c2 | c3 c4 | c5 c6 | c7 .. |
//!   pairs: (s0,t0) (s0,t1) (s1,t1) (s1,t2) (s2,t2) (s2,t3) (s3,t3) (s3,t4)              → 8 pairs
//! ```
//! So a `storage_align` padding of 8 halves (16 bytes) doubles the sectors of every other row: 1.5×
//! the copy traffic, while a swizzle that permutes whole 32-byte sector pairs costs nothing.

/// Distinct (global 32-byte sector, shared 32-byte sector) pairs among `lanes`: each item is one
/// lane's 16-byte copy as (global byte address, shared byte address). At most 32 lanes are counted
/// (one warp instruction); more are an error the caller avoids (`None`).
pub fn ldgsts_sector_pairs(lanes: impl IntoIterator<Item = (u64, u32)>) -> Option<u32> {
    let mut seen = [(0u64, 0u32); 32];
    let mut n = 0usize;
    for (count, (g, s)) in lanes.into_iter().enumerate() {
        if count >= 32 {
            return None;
        }
        let pair = (g / 32, s / 32);
        if !seen[..n].contains(&pair) {
            seen[n] = pair;
            n += 1;
        }
    }
    Some(n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_rows_move_one_sector_per_two_lanes_and_offset_rows_two() {
        // One 128-byte row, 8 lanes: aligned 4 pairs; shared start 16 bytes off: 8.
        let row = |off: u32| (0..8u32).map(move |j| (4096 + 16 * j as u64, off + 16 * j));
        assert_eq!(ldgsts_sector_pairs(row(0)), Some(4));
        assert_eq!(ldgsts_sector_pairs(row(144)), Some(8));
        assert_eq!(ldgsts_sector_pairs(row(288)), Some(4), "288 = 9·32: aligned again");
        // Swapping the two chunks of a sector pair (a swizzle with bit 0 of the chunk set) keeps 4.
        assert_eq!(ldgsts_sector_pairs((0..8u32).map(|j| (16 * j as u64, 16 * (j ^ 1)))), Some(4));
        assert_eq!(ldgsts_sector_pairs((0..33u32).map(|j| (16 * j as u64, 16 * j))), None);
    }
}
