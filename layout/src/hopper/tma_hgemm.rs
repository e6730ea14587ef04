// The Hopper HGEMM ladder (h1–h6): tile shapes, stage counts, shared-memory budgets, the C staging box
// and the accumulator → C box fragment map. The module's doc comment is on its declaration in `mod.rs`.

/// Rows of C per CTA.
pub const BM: u32 = 128;
/// Columns of C per CTA (h1–h3).
pub const BN: u32 = 128;
/// Columns of C per CTA (h4–h6).
pub const BN_WIDE: u32 = 256;
/// K per stage: 64 f16 = 128 bytes, the 128B swizzle span.
pub const BK: u32 = 64;
/// Bytes of the A tile of a stage (128 rows × 128 B: one TMA box).
pub const A_BYTES: u32 = BM * BK * 2;
/// Bytes of one B box (64 K rows × 64 N × 2 B).
pub const B_BOX_BYTES: u32 = BK * 64 * 2;
/// Bytes of a stage of h1–h3: A and two B boxes.
pub const STAGE_BYTES: u32 = A_BYTES + 2 * B_BOX_BYTES;
/// Bytes of a stage of h4–h6: A and four B boxes.
pub const WIDE_STAGE_BYTES: u32 = A_BYTES + 4 * B_BOX_BYTES;
/// h6's C staging: per consumer warpgroup one 64 × 256 f16 tile (four 64×64 TMA boxes).
pub const C_STAGE_BYTES: u32 = 64 * BN_WIDE * 2;
/// Stages of each step's ring (h1 has one static stage).
pub const H2_STAGES: u32 = 2;
/// See [`H2_STAGES`].
pub const H3_STAGES: u32 = 4;
/// See [`H2_STAGES`].
pub const H4_STAGES: u32 = 4;
/// See [`H2_STAGES`].
pub const H5_STAGES: u32 = 4;
/// See [`H2_STAGES`].
pub const H6_STAGES: u32 = 3;

/// Dynamic shared memory of a stage ring laid out from the launch's dynamic shared memory rounded up
/// to 1024 bytes (the 128B pattern's period):
///
/// ```text
/// | ≤ 1023 B slack | stages × stage_bytes | extra_bytes | stages × barriers_per_stage × 8 B |
/// ```
pub const fn dyn_smem(stages: u32, stage_bytes: u32, extra_bytes: u32, barriers_per_stage: u32) -> u32 {
    1024 + stages * stage_bytes + extra_bytes + 8 * barriers_per_stage * stages
}

/// h2: one full barrier per stage.
pub const H2_DYN_SMEM: u32 = dyn_smem(H2_STAGES, STAGE_BYTES, 0, 1);
/// h3: full and empty barrier per stage.
pub const H3_DYN_SMEM: u32 = dyn_smem(H3_STAGES, STAGE_BYTES, 0, 2);
/// h4: wide stages, full and empty barriers.
pub const H4_DYN_SMEM: u32 = dyn_smem(H4_STAGES, WIDE_STAGE_BYTES, 0, 2);
/// h5: as h4.
pub const H5_DYN_SMEM: u32 = dyn_smem(H5_STAGES, WIDE_STAGE_BYTES, 0, 2);
/// h6: wide stages plus two C staging tiles.
pub const H6_DYN_SMEM: u32 = dyn_smem(H6_STAGES, WIDE_STAGE_BYTES, 2 * C_STAGE_BYTES, 2);
/// h6's C staging box: 64×64 f16 as the TMA store reads it, `SWIZZLE_128B` (four per consumer).
pub const C_BOX: super::TmaTile2d = super::TmaTile2d {
    elem_bytes: 2, rows: 64, cols: 64, stride_bytes: 128, box_rows: 64, box_cols: 64, swizzle: super::TmaSwizzle::B128,
};

/// Where lane `lane` of warp `warp` (of its warpgroup) puts accumulator pair `(j, half)` of a 64×64
/// `wgmma` block (`d[4j + 2·half]`, `d[4j + 2·half + 1]`): row and column of the block, i.e.
/// [`crate::fragment::WgmmaAcc`]`::<64>::warp_lane_rc(warp, lane, 4j + 2·half)`.
///
/// ```text
/// row = 16·warp + lane/4 + 8·half        col = 8·j + 2·(lane % 4)      (two f16: one 4-byte store)
/// ```
pub const fn c_fragment_rc(warp: u32, lane: u32, j: u32, half: u32) -> (u32, u32) {
    crate::fragment::WgmmaAcc::<64>::warp_lane_rc(warp, lane, 4 * j + 2 * half)
}

/// The most dynamic shared memory a Hopper block may have (227 KiB).
pub const MAX_DYN_SMEM: u32 = 227 * 1024;
const _: () = assert!(H6_DYN_SMEM <= MAX_DYN_SMEM && H4_DYN_SMEM <= MAX_DYN_SMEM && STAGE_BYTES % 1024 == 0 && WIDE_STAGE_BYTES % 1024 == 0);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank;
    use crate::hopper::{TmaSwizzle, TmaTile2d};

    #[test]
    fn ring_budgets_are_the_sums_the_kernels_lay_out() {
        assert_eq!((STAGE_BYTES, WIDE_STAGE_BYTES), (32768, 49152));
        assert_eq!(H2_DYN_SMEM, 2 * 32768 + 1024 + 8 * 2);
        assert_eq!(H4_DYN_SMEM, 4 * 49152 + 1024 + 16 * 4);
        assert_eq!(H6_DYN_SMEM, 3 * 49152 + 65536 + 1024 + 16 * 3);
    }

    /// The TMA-store epilogue (HGEMM h6): lane (g, t) writes the f16 pair at row g (+8), column 8j + 2t
    /// of a 64×64 box with one `st.shared.b32`. In the `SWIZZLE_128B` box the 8 rows land in 8 different
    /// 16-byte chunks: conflict-free. In an unswizzled box the rows are 128 bytes apart: 8-way.
    #[test]
    fn epilogue_stores_into_a_swizzled_box_are_conflict_free() {
        for (mode, want_wavefronts) in [(TmaSwizzle::B128, 1), (TmaSwizzle::None, 8)] {
            let tma = TmaTile2d { elem_bytes: 2, rows: 64, cols: 64, stride_bytes: 128, box_rows: 64, box_cols: 64, swizzle: mode };
            for warp in 0..4 {
                for j in 0..8 {
                    for half in 0..2 {
                        let addrs: [u32; 32] = core::array::from_fn(|l| {
                            let (g, t) = (l as u32 / 4, l as u32 % 4);
                            tma.smem_byte(16 * warp + g + 8 * half, 8 * j + 2 * t)
                        });
                        let cost = bank::lsu(&addrs, u32::MAX, 4, bank::Op::Store).unwrap();
                        assert_eq!(cost.wavefronts, want_wavefronts, "{mode:?} warp {warp} j {j} half {half}");
                    }
                }
            }
        }
    }
}

/// Stages of h7 (h5's ring: the epilogue stages nothing in shared memory).
pub const H7_STAGES: u32 = 4;
/// h7's dynamic shared memory: h5's, plus one 16-byte word for the last-CTA flag.
pub const H7_DYN_SMEM: u32 = dyn_smem(H7_STAGES, WIDE_STAGE_BYTES, 16, 2);
/// The most splits of K h7 takes (its last CTA loads every split's partial at once).
pub const H7_MAX_SPLITS: u32 = 16;

/// Splits of K for h7 on `m × n × k` with `sms` SMs: enough (tile, split) units to give every SM one
/// when the 128×256 tiles alone are fewer, each split at least two 64-deep K tiles; 1 when the tiles
/// already fill the GPU.
///
/// ```text
/// tiles = ⌈m/128⌉·⌈n/256⌉;   splits = clamp(⌊sms / tiles⌋, 1, min(16, ⌊⌈k/64⌉ / 2⌋))
/// ```
pub const fn h7_splits(m: u32, n: u32, k: u32, sms: u32) -> u32 {
    let tiles = m.div_ceil(BM) * n.div_ceil(BN_WIDE);
    let mut s = if tiles == 0 { 1 } else { sms / tiles };
    let by_k = k.div_ceil(BK) / 2;
    if s > by_k {
        s = by_k;
    }
    if s > H7_MAX_SPLITS {
        s = H7_MAX_SPLITS;
    }
    if s < 1 { 1 } else { s }
}

#[cfg(test)]
mod h7_tests {
    use super::*;

    #[test]
    fn h7_splits_fill_the_gpu_only_when_tiles_are_few() {
        assert_eq!(h7_splits(128, 4096, 4096, 132), 8); // 16 tiles
        assert_eq!(h7_splits(256, 4096, 4096, 132), 4); // 32 tiles
        assert_eq!(h7_splits(4096, 4096, 4096, 132), 1); // 512 tiles
        assert_eq!(h7_splits(128, 256, 4096, 132), 16); // capped
        assert_eq!(h7_splits(128, 4096, 128, 132), 1); // two K tiles: no split
        assert!(H7_DYN_SMEM <= MAX_DYN_SMEM);
    }
}
