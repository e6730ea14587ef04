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
pub const H6_DYN_SMEM: u32 = wide_dyn_smem(H6_STAGES);
/// The fourth stage of h6s4 and h9s4 (one more 48 KiB stage in flight, as cuBLAS's
/// `…256x128_64x4_1x2…` kernel keeps at 4096³).
pub const H9S4_STAGES: u32 = 4;
/// 64×64 C boxes a consumer warpgroup of a wide persistent step (h6, h9) stages at once with `stages`
/// stages: all four of its 64 × 256 result with up to [`H6_STAGES`] (h6, h9), two with more — the room
/// a fourth 48 KiB stage takes — so the result goes out as two halves, the second staged once the
/// TMA has read the first.
///
/// ```text
/// stages  ring      C staging (2 consumers)          total (+ 1 KiB slack, barriers)
///   3     144 KiB   2 × 4 boxes × 8 KiB = 64 KiB     209 KiB
///   4     192 KiB   2 × 2 boxes × 8 KiB = 32 KiB     225 KiB   (≤ 227 KiB)
/// ```
pub const fn wide_staged_boxes(stages: u32) -> u32 {
    if stages <= H6_STAGES { 4 } else { 2 }
}
/// Dynamic shared memory of a wide persistent step with a TMA-store epilogue and `stages` stages
/// (h6: 3, h6s4 and h9s4: 4): the ring, both consumers' [`wide_staged_boxes`] and the barriers.
pub const fn wide_dyn_smem(stages: u32) -> u32 {
    dyn_smem(stages, WIDE_STAGE_BYTES, 2 * wide_staged_boxes(stages) * C_BOX_BYTES, 2)
}
/// h6s4, h9s4: four stages, half the C staging.
pub const H9S4_DYN_SMEM: u32 = wide_dyn_smem(H9S4_STAGES);
/// HGEMM h11 (`steps/tma_v11_wide192.rs`): h6s4's CTA on tiles of [`BM`] × [`H11_BN`] — three 64-column
/// B boxes a stage, `wgmma.m64n192k16` — for shapes whose 128×256 tiles leave the last wave partly
/// empty where 128×192 ones fill it (768×4096: 96 tiles of 128×256 on 132 SMs, 132 of 128×192).
///
/// ```text
/// stage (40 KiB) = | A: 128 rows × 128 B (16 KiB) | B box 0 | B box 1 | B box 2 (8 KiB each) |
/// ring: 4 stages | staging: 2 consumers × 3 C boxes (24 KiB each) | barriers
/// ```
pub const H11_BN: u32 = 192;
/// Bytes of one h11 stage.
pub const H11_STAGE_BYTES: u32 = A_BYTES + 3 * B_BOX_BYTES;
/// Stages of h11's ring.
pub const H11_STAGES: u32 = 4;
/// h11's dynamic shared memory: the ring, each consumer's three C boxes, the barriers.
pub const H11_DYN_SMEM: u32 = dyn_smem(H11_STAGES, H11_STAGE_BYTES, 2 * 3 * (64 * 64 * 2), 2);
const _: () = assert!(H11_DYN_SMEM <= MAX_DYN_SMEM && H11_STAGE_BYTES % 1024 == 0);
/// HGEMM h12 (`steps/tma_v12_wide320.rs`): h11's CTA on tiles of [`BM`] × [`H12_BN`] — five 64-column
/// B boxes a stage, `wgmma.m64n256k16` + `m64n64k16` a K step — for shapes whose 128×256 and 128×192
/// tiles leave a round mostly empty where 128×320 ones fill one round fewer (1024×5120: 160 tiles of
/// 128×256 on 132 SMs, 128 of 128×320).
///
/// ```text
/// stage (56 KiB) = | A: 128 rows × 128 B (16 KiB) | B boxes 0..4 (8 KiB each) |
/// ring: 3 stages | staging: 2 consumers × 2 C boxes (the result goes out as 2 + 2 + 1 boxes) | barriers
/// ```
pub const H12_BN: u32 = 320;
/// Bytes of one h12 stage.
pub const H12_STAGE_BYTES: u32 = A_BYTES + 5 * B_BOX_BYTES;
/// Stages of h12's ring (a fourth 56 KiB stage does not fit beside the staging).
pub const H12_STAGES: u32 = 3;
/// 64×64 C boxes each h12 consumer stages at once.
pub const H12_STAGED_BOXES: u32 = 2;
/// h12's dynamic shared memory: the ring, each consumer's two C boxes, the barriers.
pub const H12_DYN_SMEM: u32 = dyn_smem(H12_STAGES, H12_STAGE_BYTES, 2 * H12_STAGED_BOXES * (64 * 64 * 2), 2);
const _: () = assert!(H12_DYN_SMEM <= MAX_DYN_SMEM && H12_STAGE_BYTES % 1024 == 0);

/// Bytes of one 64×64 f16 C staging box ([`C_BOX`]).
pub const C_BOX_BYTES: u32 = 64 * 64 * 2;
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
const _: () = assert!(H6_DYN_SMEM <= MAX_DYN_SMEM && H9S4_DYN_SMEM <= MAX_DYN_SMEM && H4_DYN_SMEM <= MAX_DYN_SMEM && STAGE_BYTES % 1024 == 0 && WIDE_STAGE_BYTES % 1024 == 0);

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
        assert_eq!(H9S4_DYN_SMEM, 4 * 49152 + 32768 + 1024 + 16 * 4);
        // Staging all four boxes beside four stages would not fit, so the fourth stage costs half the
        // staging; a fifth stage does not fit even with it.
        assert!(dyn_smem(4, WIDE_STAGE_BYTES, 2 * C_STAGE_BYTES, 2) > MAX_DYN_SMEM);
        assert!(wide_dyn_smem(5) > MAX_DYN_SMEM);
        assert_eq!(2 * wide_staged_boxes(H6_STAGES) * C_BOX_BYTES, 2 * C_STAGE_BYTES);
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
    persistent_splits(m, n, k, sms, BM, BN_WIDE)
}

/// [`h7_splits`] for any `rows × cols` tile of C: the rule of every persistent split-K step (h7, d3).
pub const fn persistent_splits(m: u32, n: u32, k: u32, sms: u32, rows: u32, cols: u32) -> u32 {
    let tiles = m.div_ceil(rows) * n.div_ceil(cols);
    let mut s = if tiles == 0 { 1 } else { sms / tiles };
    let by_k = k.div_ceil(BK) / 2;
    if s > by_k {
        s = by_k;
    }
    if s > H7_MAX_SPLITS {
        s = H7_MAX_SPLITS;
    }
    if s < 1 {
        return 1;
    }
    covering_splits(k.div_ceil(BK), s)
}

/// At most `s` splits of `kt` K tiles with none empty: the kernels give split i the tiles from
/// i·⌈kt/s⌉, so with s = 12 at kt = 32 (3 each) split 11 would start at 33, past K; ⌈kt / ⌈kt/s⌉⌉
/// splits cover K with none empty (1 where `kt` or `s` is 0).
pub const fn covering_splits(kt: u32, s: u32) -> u32 {
    if kt == 0 || s == 0 { 1 } else { kt.div_ceil(kt.div_ceil(s)) }
}

#[cfg(test)]
mod h7_tests {
    use super::*;

    /// No split is empty: split `splits − 1` starts below K at every tile count and depth (an empty
    /// split's `kt0 > kt1` once hung d7 and d19 at 128×1408×2048: 12 splits of 3 K tiles for 32).
    #[test]
    fn persistent_splits_leave_no_split_empty() {
        for kt in 1..300u32 {
            for tiles in 1..140u32 {
                let s = persistent_splits(tiles * 64, 64, kt * BK, 132, 64, 64);
                assert!((1..=H7_MAX_SPLITS).contains(&s), "kt {kt} tiles {tiles}: {s}");
                assert!((s - 1) * kt.div_ceil(s) < kt, "kt {kt} tiles {tiles}: split {} starts past K", s - 1);
            }
        }
        assert_eq!(persistent_splits(128, 1408, 2048, 132, D19_ROWS, D3_COLS), 11, "11 tiles, 32 K tiles: 11 splits of 3, not 12");
    }

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

/// Decode step d3 (M ≤ 64, `hgemm/steps/decode_v3_tma_swapped.rs`): C's tile is [`D3_ROWS`] rows (all
/// of a decode M) × [`D3_COLS`] columns, computed transposed (`Cᵀ = Bᵀ·Aᵀ`: the weights are `wgmma`'s
/// A operand, MN-major, one 64-column box per consumer warpgroup; the activations its B operand,
/// K-major, N = 64). A stage: the activation box (64 rows × 64 K, 128B swizzle) then two weight boxes
/// (64 K × 64 N each, as h's B boxes).
///
/// ```text
/// stage (24 KiB) = | A: 64 rows × 128 B (8 KiB) | B box 0: 64 K × 128 B | B box 1: 64 K × 128 B |
/// ```
pub const D3_ROWS: u32 = 64;
/// Rows of the activation box d3 and d4 load for an M-row A: M itself below 64, else 64. A box that
/// reaches past the matrix makes the TMA zero-fill the rest, and that was measured slow: d4 took 22 µs
/// at 80×4096² and 16 µs at 128×4096² — the same tiles, the second tile row's box 75% out of bounds
/// in the first (`results/2026-11-23-h100-session9/call8-m-range`). The stage keeps room for 64 rows;
/// rows past the box hold stale data that only reaches accumulator columns of rows ≥ M, never stored.
pub const fn decode_a_box_rows(m: u32) -> u32 {
    decode_box_rows(m, D3_ROWS)
}

/// [`decode_a_box_rows`] for a transposed decode tile of `rows` activation rows (d3–d11: 64, d13: 16):
/// M itself below `rows`, else `rows` (at least 1).
pub const fn decode_box_rows(m: u32, rows: u32) -> u32 {
    if m == 0 { 1 } else if m < rows { m } else { rows }
}

/// [`decode_a_box_row0`] for a tile of `rows` activation rows: `m0`, except the last tile of an
/// M ≥ `rows` that would reach past M, whose box ends at row M instead.
pub const fn decode_box_row0(m: u32, m0: u32, rows: u32) -> u32 {
    if m >= rows && m0 + rows > m { m - rows } else { m0 }
}

/// First row of the activation box for the d3/d4 tile whose rows start at `m0`: `m0`, except the last
/// tile of an M ≥ 64 that would reach past M, whose box is moved up to end at row M (in bounds; its
/// first `m0 − row0` rows belong to the previous tile and are not stored).
pub const fn decode_a_box_row0(m: u32, m0: u32) -> u32 {
    decode_box_row0(m, m0, D3_ROWS)
}

/// Columns of C (weight columns) per d3 tile: two consumer warpgroups × 64.
pub const D3_COLS: u32 = 128;
/// Bytes of one d3 stage.
pub const D3_STAGE_BYTES: u32 = D3_ROWS * BK * 2 + 2 * B_BOX_BYTES;
/// Stages of d3's ring: as many as fit (the weights stream once; bytes in flight are the speed).
pub const D3_STAGES: u32 = (MAX_DYN_SMEM - 1024 - 16) / (D3_STAGE_BYTES + 16);
/// d3's dynamic shared memory: the ring, a 16-byte last-CTA flag, the barriers.
pub const D3_DYN_SMEM: u32 = dyn_smem(D3_STAGES, D3_STAGE_BYTES, 16, 2);
const _: () = assert!(D3_DYN_SMEM <= MAX_DYN_SMEM && D3_STAGE_BYTES % 1024 == 0 && D3_STAGES == 9);

/// Decode step d4 (`decode_v4_whole_k.rs`): d3's transposed product without split-K — a 64 × [`D4_COLS`]
/// tile over the whole K per CTA, the two consumer warpgroups taking alternate stages and adding their
/// sums through shared memory.
///
/// ```text
/// stage (16 KiB) = | A: 64 rows × 128 B (8 KiB) | B box: 64 K × 128 B (8 KiB) |
/// after the ring: 16 KiB exchange (warpgroup 1's 64×64 f32, [element][thread]), then the barriers
/// ```
pub const D4_COLS: u32 = 64;
/// Bytes of one d4 stage.
pub const D4_STAGE_BYTES: u32 = D3_ROWS * BK * 2 + B_BOX_BYTES;
/// The exchange region: one warpgroup's 64×64 f32 accumulators.
pub const D4_EXCHANGE_BYTES: u32 = 64 * D4_COLS * 4;
/// Stages of d4's ring: as many as fit beside the exchange region, rounded down to an **even** count.
/// The warpgroups take running indices of alternate parity; with an even ring a stage's every use has
/// the same parity, so one warpgroup waits for each of its full-barrier phases in turn. With an odd
/// ring (13 fit) a stage alternates between the warpgroups, one of them can wait for use u + 2 while
/// use u + 1 is pending, and `mbarrier.try_wait.parity` cannot tell u from u + 2: the first d4 (13
/// stages) read stages before their TMA landed and ended in `CUDA_ERROR_LAUNCH_FAILED` once K wrapped
/// the ring (`results/2026-11-23-h100-session9/call5-d4`).
pub const D4_STAGES: u32 = (MAX_DYN_SMEM - 1024 - D4_EXCHANGE_BYTES) / (D4_STAGE_BYTES + 16) / 2 * 2;
/// d4's dynamic shared memory.
pub const D4_DYN_SMEM: u32 = dyn_smem(D4_STAGES, D4_STAGE_BYTES, D4_EXCHANGE_BYTES, 2);
const _: () = assert!(D4_DYN_SMEM <= MAX_DYN_SMEM && D4_STAGE_BYTES % 1024 == 0 && D4_STAGES == 12 && D4_STAGES % 2 == 0);

/// Decode step d13 (`decode_v13_sized_activations.rs`): d9 with the activation tile **16 rows** high
/// instead of 64 — `wgmma.m64n16k16`, 8 accumulators per thread instead of 32 — for M ≤ 16 (larger M
/// runs in 16-row tiles, each re-reading the weights); a 12-stage ring of 10 KiB stages.
///
/// ```text
/// stage (10 KiB) = | A: 16 rows × 128 B (2 KiB) | B box: 64 K × 128 B (8 KiB, 1024-aligned) |
/// after the ring: 4 KiB exchange (warpgroup 1's 64×16 f32, [element][thread]), then the barriers
/// ```
pub const D13_ROWS: u32 = 16;
/// Bytes of the activation part of a d13 stage (16 rows of 128 B; a multiple of 1024, so the weight
/// box after it keeps the 128B swizzle's alignment).
pub const D13_A_BYTES: u32 = D13_ROWS * BK * 2;
/// Bytes of one d13 stage.
pub const D13_STAGE_BYTES: u32 = D13_A_BYTES + B_BOX_BYTES;
/// The exchange region: one warpgroup's 64×16 f32 accumulators.
pub const D13_EXCHANGE_BYTES: u32 = 64 * D13_ROWS * 4;
/// Stages of d13's ring: 12 (96 KiB of weights in flight per CTA, as d4's 12 stages of 16 KiB), even
/// (as [`D4_STAGES`], for the same reason). Not as many as fit: with 22 (176 KiB in flight) the weights
/// streamed at 2.6 TB/s instead of 3.15 (`ncu`: DRAM throughput 68–71% of peak against 81–84%), and at
/// 1×4096² 8 / 10 / 12 / 14 / 16 / 22 stages read at 81.6 / 83.5 / 84.4 / 84.2 / 83.5 / 75.7% of a copy
/// (`results/2026-11-26-h100-session24/call5`, `call6`); [`D13_MAX_STAGES`] is the 22.
pub const D13_STAGES: u32 = 12;
/// The most stages of d13's stage size that fit beside its exchange region (even): 22.
pub const D13_MAX_STAGES: u32 = (MAX_DYN_SMEM - 1024 - D13_EXCHANGE_BYTES) / (D13_STAGE_BYTES + 16) / 2 * 2;
/// d13's dynamic shared memory.
pub const D13_DYN_SMEM: u32 = d13_dyn_smem(D13_STAGES);
/// The dynamic shared memory of d13's body with a ring of `stages` stages (its variants `d13s8`,
/// `d13s16`, `d13s22`).
pub const fn d13_dyn_smem(stages: u32) -> u32 {
    dyn_smem(stages, D13_STAGE_BYTES, D13_EXCHANGE_BYTES, 2)
}
const _: () = assert!(d13_dyn_smem(D13_MAX_STAGES) <= MAX_DYN_SMEM && D13_A_BYTES % 1024 == 0 && D13_STAGE_BYTES % 1024 == 0 && D13_MAX_STAGES == 22
                      && D13_STAGES % 2 == 0);

/// Bytes of a warpgroup's C staging in the swapped decode tiles (session 98): `rows` activation rows of each
/// warp's 16 weight columns (32 bytes of C a row), the four warps' regions one after another. A warp stages
/// its part of the tile with `stmatrix.trans` and stores it as 16-byte rows of C ([`decode_staging_at`]).
pub const fn decode_staging_bytes(rows: u32) -> u32 {
    4 * decode_warp_staging_bytes(rows)
}

/// Bytes of one warp's C staging: `rows` rows of 32 bytes.
pub const fn decode_warp_staging_bytes(rows: u32) -> u32 {
    32 * rows
}

/// Byte offset of 16-byte half `h` (weight columns `8·h .. 8·h + 8` of the warp's 16) of activation row `r`
/// in a warp's C staging: the halves of row `r` at `32·r`, swapped in rows whose `r / 4` is odd. The eight
/// rows of one `stmatrix` matrix (one half, eight consecutive rows) fall on eight distinct 4-bank groups, and
/// a quarter warp's 16-byte reads of four consecutive rows' halves on 32 distinct banks (the bank-model
/// tests below).
pub const fn decode_staging_at(r: u32, h: u32) -> u32 {
    32 * r + 16 * (h ^ ((r / 4) % 2))
}

/// The activation row and 16-byte half that lane `lane` reads and stores in read `i` of a warp's C staging
/// (`i < rows / 16`): two lanes a row, rows `16·i .. 16·i + 16`.
pub const fn decode_staging_read(i: u32, lane: u32) -> (u32, u32) {
    (16 * i + lane / 2, lane % 2)
}

/// Decode step d14 (`decode_v14_one_consumer.rs`): d13's tile and stage (16 activation rows, 10 KiB
/// stages) with **one** consumer warpgroup taking every stage (256 threads), so no exchange region.
pub const D14_STAGES: u32 = 12;
/// d14's dynamic shared memory: the ring, the consumer's C staging, the barriers.
pub const D14_DYN_SMEM: u32 = dyn_smem(D14_STAGES, D13_STAGE_BYTES, decode_staging_bytes(D13_ROWS), 2);
const _: () = assert!(D14_DYN_SMEM <= MAX_DYN_SMEM);

/// Decode step d16 (`decode_v16_one_consumer_64.rs`): d4's stage and ring (64-row activation boxes,
/// 16 KiB stages, 12 of them) with one consumer warpgroup (256 threads, no exchange region), then its C
/// staging.
pub const D16_DYN_SMEM: u32 = dyn_smem(D4_STAGES, D4_STAGE_BYTES, decode_staging_bytes(D3_ROWS), 2);
const _: () = assert!(D16_DYN_SMEM <= MAX_DYN_SMEM);
// The two-consumer tiles (d4, d13) stage C in their exchange region once warpgroup 0 has read it.
const _: () = assert!(decode_staging_bytes(D3_ROWS) <= D4_EXCHANGE_BYTES && decode_staging_bytes(D13_ROWS) <= D13_EXCHANGE_BYTES);

/// Decode step d27 (`decode_v27_rows32.rs`): d16's CTA on **32-row** activation tiles
/// (`wgmma.m64n32k16`): a 4 KiB activation box and the 8 KiB weight box a stage.
pub const D27_ROWS: u32 = 32;
/// Bytes of d27's activation box (32 rows of 128 bytes).
pub const D27_A_BYTES: u32 = D27_ROWS * BK * 2;
/// Bytes of one d27 stage.
pub const D27_STAGE_BYTES: u32 = D27_A_BYTES + B_BOX_BYTES;
/// Stages of d27's ring: 16, d16's bytes in flight (192 KiB; 128 KiB of them weights).
pub const D27_STAGES: u32 = 16;
/// d27's dynamic shared memory (the ring, the consumer's C staging, the barriers).
pub const D27_DYN_SMEM: u32 = dyn_smem(D27_STAGES, D27_STAGE_BYTES, decode_staging_bytes(D27_ROWS), 2);
const _: () = assert!(D27_DYN_SMEM <= MAX_DYN_SMEM && D27_A_BYTES % 1024 == 0 && D27_STAGE_BYTES % 1024 == 0);

/// Decode step d28m128 (`decode_v28_cluster_split.rs`): d28's one-consumer CTA on **128-row** activation
/// tiles (`wgmma.m64n128k16`): a 16 KiB activation box and the 8 KiB weight box a stage — 1.5× d16's
/// bytes for 2× its products, so a K block asks the SM for 0.75× d16's bytes per product.
pub const D28_M128_ROWS: u32 = 128;
/// Bytes of d28m128's activation box (128 rows of 128 bytes).
pub const D28_M128_A_BYTES: u32 = D28_M128_ROWS * BK * 2;
/// Bytes of one d28m128 stage.
pub const D28_M128_STAGE_BYTES: u32 = D28_M128_A_BYTES + B_BOX_BYTES;
/// Stages of d28m128's ring: as many as fit (9: 216 KiB in flight, d16's 192 KiB and a stage).
pub const D28_M128_STAGES: u32 = (MAX_DYN_SMEM - 1024) / (D28_M128_STAGE_BYTES + 16);
/// d28m128's dynamic shared memory.
pub const D28_M128_DYN_SMEM: u32 = dyn_smem(D28_M128_STAGES, D28_M128_STAGE_BYTES, 0, 2);
const _: () = assert!(D28_M128_DYN_SMEM <= MAX_DYN_SMEM && D28_M128_A_BYTES % 1024 == 0 && D28_M128_STAGE_BYTES % 1024 == 0 && D28_M128_STAGES == 9);

/// Row pitch (f32) of d28's split partial in shared memory, stored transposed (session 97): `[activation
/// rows][D28_PART_PITCH]`, a row's 64 weight columns then 4 unused words. With the pitch 4 banks off a multiple
/// of 32, a warp's scalar stores of one `wgmma` accumulator pair index (8 columns × 4 row pairs) take 32
/// distinct banks, and a quarter warp's 16-byte reads of 8 consecutive 4-column runs of a row one wavefront
/// (tested with the bank model below).
pub const D28_PART_PITCH: u32 = D4_COLS + 4;

/// Byte offset of (activation row `r`, weight column `c`) in d28's transposed partial.
pub const fn d28_part_at(r: u32, c: u32) -> u32 {
    4 * (r * D28_PART_PITCH + c)
}

/// Activation row and first weight column of run `run` of d28's summed tile: a row's 16 runs of 4 columns in
/// order, then the next row (each rank sums a contiguous share of them).
pub const fn d28_run_rc(run: u32) -> (u32, u32) {
    (run / 16, 4 * (run % 16))
}

#[cfg(test)]
mod d28_part_tests {
    use super::*;
    use crate::bank;
    use crate::fragment::WgmmaAcc;

    /// Every warp's stores of every pair index (both rows of the pair) for a tile of `R` rows.
    fn stores<const R: u32>() {
        for warp in 0..4 {
            for p in 0..R / 4 {
                for second in 0..2 {
                    let addrs: [u32; 32] = core::array::from_fn(|lane| {
                        let (c, r) = WgmmaAcc::<R>::warp_lane_rc(warp, lane as u32, 2 * p);
                        d28_part_at(r + second, c)
                    });
                    let cost = bank::lsu(&addrs, u32::MAX, 4, bank::Op::Store).unwrap();
                    assert_eq!((cost.wavefronts, cost.conflicts()), (1, 0), "R {R} warp {warp} p {p} second {second}");
                }
            }
        }
    }

    #[test]
    fn the_transposed_partials_stores_are_conflict_free() {
        stores::<16>();
        stores::<32>();
        stores::<64>();
        stores::<128>();
    }

    #[test]
    fn a_ranks_run_reads_take_one_wavefront_a_quarter_warp_and_cover_the_tile_once() {
        for rows in [16u32, 32, 64, 128] {
            for s in [2u32, 4, 8] {
                let share = rows * 16 / s;
                let mut seen = [0u32; 128 * 16];
                for rank in 0..s {
                    for j in 0..share.div_ceil(128) {
                        for warp in 0..4u32 {
                            let mut mask = 0u32;
                            let addrs: [u32; 32] = core::array::from_fn(|lane| {
                                let v = 32 * warp + lane as u32 + 128 * j;
                                if v >= share {
                                    return 0;
                                }
                                mask |= 1 << lane;
                                let run = rank * share + v;
                                seen[run as usize] += 1;
                                let (r, c) = d28_run_rc(run);
                                d28_part_at(r, c)
                            });
                            if mask == 0 {
                                continue;
                            }
                            let cost = bank::lsu(&addrs, mask, 16, bank::Op::Load).unwrap();
                            assert_eq!(cost.conflicts(), 0, "rows {rows} s {s} rank {rank} j {j} warp {warp}");
                        }
                    }
                }
                assert!(seen[..(rows * 16) as usize].iter().all(|&n| n == 1), "rows {rows} s {s}: every run read by exactly one thread of one rank");
            }
        }
    }
}

#[cfg(test)]
mod decode_staging_tests {
    use super::*;
    use crate::bank;

    /// `stmatrix.x4.trans` number `jp` of every warp, at the rows `d7_stmatrix_row` gives its lanes, into
    /// the warp's own staging: one wavefront a matrix, and the warp's `rows × 16` columns written once.
    fn stores(rows: u32) {
        for warp in 0..4 {
            let mut seen = [0u32; 256];
            for jp in 0..rows / 16 {
                let addrs: [u32; 32] = core::array::from_fn(|lane| {
                    let (r, c) = d7_stmatrix_row(warp, lane as u32, jp);
                    assert!(c >= 16 * warp && c < 16 * warp + 16 && c % 8 == 0);
                    let h = (c - 16 * warp) / 8;
                    seen[(2 * r + h) as usize] += 1;
                    decode_staging_at(r, h)
                });
                let cost = bank::matrix(&addrs, 4).unwrap();
                assert_eq!((cost.wavefronts, cost.conflicts()), (4, 0), "rows {rows} warp {warp} jp {jp}");
            }
            assert!(seen[..(2 * rows) as usize].iter().all(|&k| k == 1), "rows {rows} warp {warp}");
        }
    }

    #[test]
    fn a_warps_staging_stores_are_conflict_free_and_cover_its_columns_once() {
        for rows in [16, 32, 64, 128] {
            stores(rows);
        }
    }

    #[test]
    fn a_warps_staging_reads_take_one_wavefront_a_quarter_warp_and_read_each_half_once() {
        for rows in [16u32, 32, 64, 128] {
            let mut seen = [0u32; 256];
            for i in 0..rows / 16 {
                let addrs: [u32; 32] = core::array::from_fn(|lane| {
                    let (r, h) = decode_staging_read(i, lane as u32);
                    seen[(2 * r + h) as usize] += 1;
                    decode_staging_at(r, h)
                });
                assert!(addrs.iter().all(|&a| a + 16 <= decode_warp_staging_bytes(rows)));
                let cost = bank::lsu(&addrs, u32::MAX, 16, bank::Op::Load).unwrap();
                assert_eq!((cost.wavefronts, cost.conflicts()), (4, 0), "rows {rows} read {i}");
            }
            assert!(seen[..(2 * rows) as usize].iter().all(|&k| k == 1), "rows {rows}");
        }
    }

    #[test]
    fn the_unswizzled_staging_would_conflict() {
        // The control: halves at 32·r + 16·h put rows r and r + 4 of a matrix on the same banks.
        let addrs: [u32; 32] = core::array::from_fn(|lane| {
            let (r, c) = d7_stmatrix_row(0, lane as u32, 0);
            32 * r + 16 * (c / 8)
        });
        assert!(bank::matrix(&addrs, 4).unwrap().conflicts() > 0);
    }
}

/// Decode step d25 (`decode_v25_split_one_consumer.rs`): d16's CTA over (tile, split) units, K split by
/// [`persistent_splits`] on its 64×64 tiles: d16's ring, its C staging and one 16-byte word for the last-CTA flag.
pub const D25_DYN_SMEM: u32 = dyn_smem(D4_STAGES, D4_STAGE_BYTES, decode_staging_bytes(D3_ROWS) + 16, 2);
const _: () = assert!(D25_DYN_SMEM <= MAX_DYN_SMEM);
/// f32 a d25 split partial holds for one 64×64 tile: 16 pairs for each of the consumer's 128 threads,
/// stored pair `p` of thread `t` at `256·p + 2·t` (each pair a coalesced 8-byte store per warp).
pub const D25_TILE_F32: u32 = 64 * 64;

/// Decode-ladder step d7 (`decode_v7_tma_store.rs`): d3 with its C written through two 64×64 staging
/// boxes ([`C_BOX`], one per consumer warpgroup) and TMA stores.
///
/// ```text
/// ring: 8 stages × 24 KiB | staging: 2 × 8 KiB (C_BOX, SWIZZLE_128B) | 16-byte last-CTA flag | barriers
/// ```
pub const D7_STAGING_BYTES: u32 = 2 * 64 * 64 * 2;
/// Stages of d7's ring: as many as fit beside the staging boxes (one fewer than d3).
pub const D7_STAGES: u32 = (MAX_DYN_SMEM - 1024 - D7_STAGING_BYTES - 16) / (D3_STAGE_BYTES + 16);
/// d7's dynamic shared memory: the ring, the staging boxes, the flag, the barriers.
pub const D7_DYN_SMEM: u32 = dyn_smem(D7_STAGES, D3_STAGE_BYTES, D7_STAGING_BYTES + 16, 2);
const _: () = assert!(D7_DYN_SMEM <= MAX_DYN_SMEM && D7_STAGES == 8);

/// Decode-ladder step d19 (`decode_v19_rows128.rs`): d7's transposed product on tiles of **128**
/// activation rows × [`D3_COLS`] weight columns — each consumer warpgroup one 64-column weight box
/// against all 128 rows (`wgmma.m64n128k16`, 64 accumulators a thread) — so each byte of a stage feeds
/// twice the MMAs of d7's (64-row) stage.
///
/// ```text
/// stage (32 KiB) = | A: 128 rows × 128 B (16 KiB) | B box 0: 64 K × 128 B | B box 1: 64 K × 128 B |
/// ring: 6 stages | staging: 2 warpgroups × 2 C boxes (rows 0–63, 64–127) × 8 KiB | flag | barriers
/// ```
pub const D19_ROWS: u32 = 128;
/// Bytes of the activation part of a d19 stage (128 rows of 128 B).
pub const D19_A_BYTES: u32 = D19_ROWS * BK * 2;
/// Bytes of one d19 stage.
pub const D19_STAGE_BYTES: u32 = D19_A_BYTES + 2 * B_BOX_BYTES;
/// d19's staging: per consumer warpgroup two 64×64 C boxes, one above the other (its 64 columns of C
/// for the tile's rows 0–63 and 64–127).
pub const D19_STAGING_BYTES: u32 = 2 * 2 * C_BOX_BYTES;
/// Stages of d19's ring: as many as fit beside the staging boxes and the flag.
pub const D19_STAGES: u32 = (MAX_DYN_SMEM - 1024 - D19_STAGING_BYTES - 16) / (D19_STAGE_BYTES + 16);
/// d19's dynamic shared memory: the ring, the staging boxes, the 16-byte last-CTA flag, the barriers.
pub const D19_DYN_SMEM: u32 = dyn_smem(D19_STAGES, D19_STAGE_BYTES, D19_STAGING_BYTES + 16, 2);
const _: () = assert!(D19_DYN_SMEM <= MAX_DYN_SMEM && D19_STAGES == 6 && D19_STAGE_BYTES % 1024 == 0 && D19_A_BYTES % 1024 == 0);

/// Decode-ladder step d21 (`decode_v21_rows.rs`): d19's tile with its height a parameter — `rows`
/// activation rows × [`D3_COLS`] weight columns, each consumer warpgroup one 64-column weight box
/// against all `rows` (`wgmma.m64n{rows}k16`, `rows / 2` accumulators a thread), C stored as one
/// `rows`-high box per warpgroup. The heights built ([`D21_ROWS`]) are those that fill the SMs in
/// whole rounds where 128-row tiles leave them part empty (384 rows: 4 tiles of 96 rows × 32 columns
/// tiles = 128 tiles on 132 SMs, against 96 tiles of 128 rows).
///
/// ```text
/// stage = | A: rows × 128 B | B box 0: 64 K × 128 B | B box 1: 64 K × 128 B |      (1024-aligned)
/// ring: d21_stages(rows) stages | staging: 2 warpgroups × rows × 128 B (SWIZZLE_128B) | flag | barriers
/// ```
pub const D21_ROWS: [u32; 4] = [80, 96, 144, 160];
/// Bytes of the activation part of a d21 stage of tile height `rows`.
pub const fn d21_a_bytes(rows: u32) -> u32 {
    rows * BK * 2
}
/// Bytes of one d21 stage.
pub const fn d21_stage_bytes(rows: u32) -> u32 {
    d21_a_bytes(rows) + 2 * B_BOX_BYTES
}
/// d21's staging: per consumer warpgroup one box of `rows` C rows × its 64 columns (128 B a row).
pub const fn d21_staging_bytes(rows: u32) -> u32 {
    2 * rows * 128
}
/// Stages of d21's ring: as many as fit beside the staging boxes and the flag.
pub const fn d21_stages(rows: u32) -> u32 {
    (MAX_DYN_SMEM - 1024 - d21_staging_bytes(rows) - 16) / (d21_stage_bytes(rows) + 16)
}
/// d21's dynamic shared memory: the ring, the staging boxes, the 16-byte last-CTA flag, the barriers.
pub const fn d21_dyn_smem(rows: u32) -> u32 {
    dyn_smem(d21_stages(rows), d21_stage_bytes(rows), d21_staging_bytes(rows) + 16, 2)
}
const _: () = {
    let mut i = 0;
    while i < D21_ROWS.len() {
        let r = D21_ROWS[i];
        // 16-row `stmatrix` groups, 1024-aligned swizzle atoms, a `wgmma` N and a TMA box height.
        assert!(r % 16 == 0 && r <= 256 && d21_dyn_smem(r) <= MAX_DYN_SMEM && d21_stages(r) >= 4);
        i += 1;
    }
};

/// [`d19_staging_row`] for d21's tile of `rows` rows, staged as one `rows`-high box: the staging row
/// of C row `r` (relative to the activation box's first row `a_row0`) in the tile whose own rows start
/// `shift = row0 − a_row0` lower (`decode_box_row0(m, m0, rows)`: the last tile of a ragged M ≥
/// `rows`). The previous tile's `shift` rows wrap to staging rows `rows − shift ..`, whose C rows lie
/// past M and are clipped by the TMA store.
///
/// ```text
/// C row (box of A):  a_row0 … row0−1        | row0 … a_row0+rows−1 (= M−1)
/// staging row:       rows−shift … rows−1    | 0 … rows−1−shift        → one box stored at row0
/// ```
pub const fn d21_staging_row(r: u32, shift: u32, rows: u32) -> u32 {
    (r + rows - shift) % rows
}

/// Row and column of C (in the warpgroup's 64×64 block: C rows = accumulator columns, C columns =
/// accumulator rows of the transposed product) of the 16-byte row that `lane` addresses in d7's
/// `stmatrix.m8n8.x4.trans` number `jp` (0..4) of warp `warp`. Call `jp` stores accumulator elements
/// `8·jp .. 8·jp + 8` as four 8×8 matrices `q = 0..4` (register `q` = elements `8·jp + 2q`, `+ 1`):
/// matrix `q` is the accumulator's rows `16·warp + 8·(q mod 2) ..` × columns `8·(2·jp + q/2) ..`, and
/// `.trans` writes its column `i` as one 16-byte row of C — C row `8·(2·jp + q/2) + i`, C columns
/// `16·warp + 8·(q mod 2) .. + 8`. Lanes `8q .. 8q + 7` give the addresses of matrix `q`'s rows `i`.
///
/// ```text
/// lane l:  q = l / 8,  i = l mod 8
///          C row = 16·jp + 8·(q / 2) + i      C col = 16·warp + 8·(q mod 2)   (8 f16 from there)
/// ```
///
/// In the `SWIZZLE_128B` box the eight rows of one matrix fall in eight different 16-byte chunks
/// (chunk `c ⊕ (row mod 8)`): one wavefront per matrix, conflict-free (test below).
pub const fn d7_stmatrix_row(warp: u32, lane: u32, jp: u32) -> (u32, u32) {
    let (q, i) = (lane / 8, lane % 8);
    (16 * jp + 8 * (q / 2) + i, 16 * warp + 8 * (q % 2))
}

/// The staging-box row of C row `r` (relative to the activation box's first row, `a_row0`) in d7's
/// tile whose own rows start `shift = row0 − a_row0` rows lower (`decode_a_box_row0`: only the last
/// tile of a ragged M ≥ 64 has `shift > 0`). The box is stored by the TMA at row `row0`, so box row `x`
/// lands on C row `row0 + x`: rows are rotated up by `shift`, and the `shift` rows of the previous tile
/// (`r < shift`) wrap to box rows `64 − shift ..`, whose C rows `a_row0 + 64 + …` lie past M and are
/// clipped by the TMA store — nothing of the previous tile is written twice.
///
/// ```text
/// C row (box of A):  a_row0 … row0−1 | row0 … a_row0+63 (= M−1)
/// staging row:       64−shift … 63   | 0 … 63−shift          → TMA store at row0: rows ≥ M clipped
/// ```
pub const fn d7_staging_row(r: u32, shift: u32) -> u32 {
    (r + 64 - shift) % 64
}

/// [`d7_staging_row`] for d19's 128-row tile, staged as two 64-row boxes one above the other: the
/// staging row (0..128; box `x / 64`, row `x mod 64` in it) of C row `r` (relative to the activation
/// box's first row `a_row0`) in the tile whose own rows start `shift = row0 − a_row0` lower
/// (`decode_box_row0(m, m0, 128)`: the last tile of a ragged M ≥ 128). The previous tile's `shift`
/// rows wrap to staging rows `128 − shift ..`, whose C rows lie past M and are clipped by the TMA store.
///
/// ```text
/// C row (box of A):  a_row0 … row0−1   | row0 … a_row0+127 (= M−1)
/// staging row:       128−shift … 127   | 0 … 127−shift        → boxes stored at row0, row0+64
/// ```
pub const fn d19_staging_row(r: u32, shift: u32) -> u32 {
    (r + 128 - shift) % 128
}

/// The first column of the weight box d7 loads for the 64 C columns starting at `col0` (a warpgroup's
/// half of a tile): `col0` itself, except where that box would reach past N (N ≥ 64), where it is
/// moved left to end at column N — as [`decode_a_box_row0`] does for the activation rows, because
/// the TMA's zero fill of a box reaching past the matrix was measured slow (N = 1000: 84% of cuBLAS,
/// M = 1000 or K = 1000 alone: 103% / 109%; `results/2026-11-23-h100-session14/call4-d8-ragged`). The
/// accumulator then holds C columns `start ..`; the epilogue rotates them by `col0 − start`
/// ([`d7_staging_row`] applied to columns: a multiple of 8, N and `col0` being multiples of 8), so the
/// store at `col0` writes this box's own columns and the overlap wraps past N, clipped.
///
/// ```text
/// N = 1000, tile columns 896..1023:   box 0 at 896 (in bounds)   box 1 at 936 = N − 64 (not 960)
/// accumulator of box 1: C cols 936 … 999;  staged rotated by 24: 960 … 999 at 0 … 39, 936 … 959 at 40 … 63
/// TMA store at 960: staged 0 … 39 → cols 960 … 999; staged 40 … 63 → cols 1000 … 1023 ≥ N, clipped
/// ```
pub const fn d7_weight_box_col(n: u32, col0: u32) -> u32 {
    if n >= 64 && col0 + 64 > n { n - 64 } else { col0 }
}

#[cfg(test)]
mod d7_tests {
    use super::*;
    use crate::bank;
    use crate::hopper::{TmaSwizzle, TmaTile2d};

    /// Every element of the 64×64 block is written exactly once, at the transposed place of the
    /// accumulator element it holds (the `wgmma` fragment map, `c_fragment_rc`), and each `stmatrix`
    /// is conflict-free in the swizzled box (4 wavefronts: one per 8×8 matrix) and 8-way in an
    /// unswizzled one (rows 128 bytes apart).
    #[test]
    fn transposed_staging_covers_the_block_once_without_conflicts() {
        let mut seen = [[false; 64]; 64];
        for warp in 0..4 {
            for jp in 0..4 {
                // Register q of call jp holds accumulator elements 8·jp + 2q, + 1: in thread t the pair
                // (row t/4, cols 2(t%4), + 1) of matrix q, which .trans stores in the matrix's rows
                // 2(t%4), + 1 (addressed by lanes 8q + 2(t%4), + 1) at position t/4.
                for q in 0..4 {
                    let elem = 8 * jp + 2 * q;
                    let (j, half) = (elem / 4, (elem / 2) % 2);
                    for t in 0..32u32 {
                        let (r, c) = c_fragment_rc(warp, t, j, half);
                        let (row_lo, col0) = d7_stmatrix_row(warp, 8 * q + 2 * (t % 4), jp);
                        let (row_hi, col1) = d7_stmatrix_row(warp, 8 * q + 2 * (t % 4) + 1, jp);
                        assert_eq!((row_lo, col0 + t / 4), (c, r), "warp {warp} jp {jp} q {q} t {t}");
                        assert_eq!((row_hi, col1 + t / 4), (c + 1, r), "warp {warp} jp {jp} q {q} t {t}");
                        for (rr, cc) in [(c, r), (c + 1, r)] {
                            assert!(!seen[rr as usize][cc as usize], "({rr}, {cc}) written twice");
                            seen[rr as usize][cc as usize] = true;
                        }
                    }
                }
                for (mode, want) in [(TmaSwizzle::B128, 4), (TmaSwizzle::None, 32)] {
                    let tma = TmaTile2d { elem_bytes: 2, rows: 64, cols: 64, stride_bytes: 128, box_rows: 64, box_cols: 64, swizzle: mode };
                    let addrs: [u32; 32] = core::array::from_fn(|l| {
                        let (r, c) = d7_stmatrix_row(warp, l as u32, jp);
                        tma.smem_byte(r, c)
                    });
                    assert_eq!(bank::lsu(&addrs, u32::MAX, 16, bank::Op::Store).unwrap().wavefronts, want, "{mode:?} warp {warp} jp {jp}");
                }
            }
        }
        assert!(seen.iter().all(|row| row.iter().all(|&s| s)), "block not covered");
        assert_eq!(C_BOX.swizzle, TmaSwizzle::B128);
    }

    /// For every N (a multiple of 8) up to 1200 and every 64-column half: the weight box is inside the
    /// matrix (N ≥ 64), starts at or before its columns, and after the rotation every accumulator
    /// column lands on its own C column or past N.
    #[test]
    fn weight_boxes_stay_in_bounds_and_rotate_into_the_clipped_columns() {
        for n in (8..1200u32).step_by(8) {
            for col0 in (0..n.div_ceil(D3_COLS) * D3_COLS).step_by(64) {
                let start = d7_weight_box_col(n, col0);
                assert!(start <= col0 && (n < 64 || start + 64 <= n), "n {n} col0 {col0}: box at {start}");
                let shift = (col0 - start) & 63;
                assert_eq!(shift % 8, 0);
                for fr in 0..64 {
                    let lands = col0 + d7_staging_row(fr, shift);
                    let own = start + fr;
                    if own >= col0 && col0 < n && shift == col0 - start {
                        assert_eq!(lands, own, "n {n} col0 {col0} fr {fr}");
                    } else {
                        assert!(lands >= n, "n {n} col0 {col0} fr {fr}: column {own} would be stored at {lands}");
                    }
                }
            }
        }
        assert_eq!((d7_weight_box_col(1000, 896), d7_weight_box_col(1000, 960), d7_weight_box_col(4096, 4032), d7_weight_box_col(40, 0)), (896, 936, 4032, 0));
    }

    /// For every M up to 400 and every tile: the rotated staging rows are a permutation of 0..64; the
    /// tile's own rows land where the store at `row0` puts them on their C row, and the previous
    /// tile's rows land on C rows ≥ M (clipped). Rotating keeps each 8-row matrix in 8 distinct rows
    /// mod 8, so the swizzled `stmatrix` stays conflict-free.
    #[test]
    fn shifted_tiles_rotate_into_the_clipped_rows() {
        for m in 1..400u32 {
            for tm in 0..m.div_ceil(D3_ROWS) {
                let row0 = tm * D3_ROWS;
                let a_row0 = decode_a_box_row0(m, row0);
                let shift = row0 - a_row0;
                let mut used = [false; 64];
                for r in 0..64 {
                    let x = d7_staging_row(r, shift);
                    assert!(!used[x as usize]);
                    used[x as usize] = true;
                    let (c_row, lands) = (a_row0 + r, row0 + x);
                    if c_row >= row0 {
                        assert_eq!(lands, c_row, "m {m} tile {tm} r {r}");
                    } else {
                        assert!(lands >= m, "m {m} tile {tm} r {r}: previous tile's row {c_row} would be stored at {lands}");
                    }
                }
                for jp in 0..4 {
                    let tma = C_BOX;
                    let addrs: [u32; 32] = core::array::from_fn(|l| {
                        let (r, c) = d7_stmatrix_row(0, l as u32, jp);
                        tma.smem_byte(d7_staging_row(r, shift), c)
                    });
                    assert_eq!(bank::lsu(&addrs, u32::MAX, 16, bank::Op::Store).unwrap().wavefronts, 4, "m {m} tile {tm} jp {jp}");
                }
            }
        }
    }

    /// d21's tiles of every built height: the same for every M up to 800 — a permutation of 0..rows whose
    /// tile rows land on their own C rows through the one box stored at `row0`, the previous tile's rows
    /// on C rows ≥ M; every `stmatrix` (16 rows: `rows / 16` per warp) conflict-free.
    #[test]
    fn d21_shifted_tiles_rotate_into_the_clipped_rows() {
        for rows in D21_ROWS {
            assert_eq!(d21_a_bytes(rows) % 1024, 0);
            for m in 1..800u32 {
                for tm in 0..m.div_ceil(rows) {
                    let row0 = tm * rows;
                    let a_row0 = decode_box_row0(m, row0, rows);
                    let shift = row0 - a_row0;
                    assert!(shift < rows && (m < rows || a_row0 + rows <= m), "rows {rows} m {m} tile {tm}: the box stays inside A");
                    let mut used = [false; 256];
                    for r in 0..rows {
                        let x = d21_staging_row(r, shift, rows);
                        assert!(x < rows && !used[x as usize]);
                        used[x as usize] = true;
                        let (c_row, lands) = (a_row0 + r, row0 + x);
                        if c_row >= row0 {
                            assert_eq!(lands, c_row, "rows {rows} m {m} tile {tm} r {r}");
                        } else {
                            assert!(lands >= m, "rows {rows} m {m} tile {tm} r {r}: previous tile's row {c_row} would be stored at {lands}");
                        }
                    }
                    for jp in 0..rows / 16 {
                        for warp in 0..4 {
                            let addrs: [u32; 32] = core::array::from_fn(|l| {
                                let (r, c) = d7_stmatrix_row(warp, l as u32, jp);
                                C_BOX.smem_byte(d21_staging_row(r, shift, rows), c)
                            });
                            assert_eq!(bank::lsu(&addrs, u32::MAX, 16, bank::Op::Store).unwrap().wavefronts, 4, "rows {rows} m {m} tile {tm} jp {jp}");
                        }
                    }
                }
            }
        }
    }

    /// d19's 128-row tiles: the same for every M up to 700 — a permutation of 0..128 whose tile rows
    /// land on their own C rows through the two boxes stored at `row0` and `row0 + 64`, the previous
    /// tile's rows on C rows ≥ M; each 8-row matrix stays in 8 distinct rows mod 8 across the boxes'
    /// boundary, so every `stmatrix` of either half is conflict-free.
    #[test]
    fn d19_shifted_tiles_rotate_into_the_clipped_rows() {
        for m in 1..700u32 {
            for tm in 0..m.div_ceil(D19_ROWS) {
                let row0 = tm * D19_ROWS;
                let a_row0 = decode_box_row0(m, row0, D19_ROWS);
                let shift = row0 - a_row0;
                assert!(shift < D19_ROWS && (m < D19_ROWS || a_row0 + D19_ROWS <= m), "m {m} tile {tm}: the box stays inside A");
                let mut used = [false; 128];
                for r in 0..128 {
                    let x = d19_staging_row(r, shift);
                    assert!(!used[x as usize]);
                    used[x as usize] = true;
                    let (c_row, lands) = (a_row0 + r, row0 + 64 * (x / 64) + x % 64);
                    if c_row >= row0 {
                        assert_eq!(lands, c_row, "m {m} tile {tm} r {r}");
                    } else {
                        assert!(lands >= m, "m {m} tile {tm} r {r}: previous tile's row {c_row} would be stored at {lands}");
                    }
                }
                for h in 0..2 {
                    for jp in 0..4 {
                        let addrs: [u32; 32] = core::array::from_fn(|l| {
                            let (r, c) = d7_stmatrix_row(0, l as u32, jp);
                            let x = d19_staging_row(64 * h + r, shift);
                            (x / 64) * C_BOX_BYTES + C_BOX.smem_byte(x % 64, c)
                        });
                        assert_eq!(bank::lsu(&addrs, u32::MAX, 16, bank::Op::Store).unwrap().wavefronts, 4, "m {m} tile {tm} half {h} jp {jp}");
                    }
                }
            }
        }
    }
}


/// Byte offset, in the tile d5's rank 1 hands to rank 0, of 16-byte group `g` (accumulator elements
/// `4g .. 4g + 4`) of consumer thread `t` (0..128): a row of 128 bytes per thread, the groups XOR-ed
/// with `t mod 8`. Without the XOR the 8 lanes of a 16-byte phase would all hit the same 4 banks
/// (rows 128 bytes apart: 8-way conflicts); with it each phase covers all 32 banks.
///
/// ```text
/// byte: 128·t + 16·(g ⊕ (t mod 8))      t = 0..127, g = 0..7
///        t=0: g0 g1 g2 g3 g4 g5 g6 g7
///        t=1: g1 g0 g3 g2 g5 g4 g7 g6
///        t=2: g2 g3 g0 g1 g6 g7 g4 g5   … (bank quad of g at 16-byte column g ⊕ t)
/// ```
pub const fn d5_peer_byte(t: u32, g: u32) -> u32 {
    128 * t + 16 * (g ^ (t % 8))
}

#[cfg(test)]
mod decode_box_tests {
    #[test]
    fn d5_peer_tile_is_conflict_free_and_one_to_one() {
        use crate::bank;
        let mut seen = [false; 128 * 8];
        for warp in 0..4u32 {
            for g in 0..8u32 {
                let addrs: [u32; 32] = core::array::from_fn(|l| super::d5_peer_byte(32 * warp + l as u32, g));
                for op in [bank::Op::Load, bank::Op::Store] {
                    assert_eq!(bank::lsu(&addrs, u32::MAX, 16, op).unwrap().wavefronts, 4, "warp {warp} group {g}");
                }
                for a in addrs {
                    assert!(!seen[(a / 16) as usize]);
                    seen[(a / 16) as usize] = true;
                }
            }
        }
        let plain: [u32; 32] = core::array::from_fn(|t| 128 * t as u32);
        assert_eq!(bank::lsu(&plain, u32::MAX, 16, bank::Op::Load).unwrap().wavefronts, 32, "unswizzled: 8-way");
    }

    use super::*;

    #[test]
    fn activation_boxes_stay_in_bounds_and_cover_their_tile() {
        for m in 1..400u32 {
            let rows = decode_a_box_rows(m);
            for tm in 0..m.div_ceil(D3_ROWS) {
                let m0 = tm * D3_ROWS;
                let row0 = decode_a_box_row0(m, m0);
                assert!(row0 + rows <= m, "m {m} tile {tm}: box {row0}..{} past M", row0 + rows);
                assert!(row0 <= m0 && m0.min(m) < row0 + rows && (m0 + D3_ROWS).min(m) <= row0 + rows, "m {m} tile {tm}: box misses rows");
                assert!(rows <= D3_ROWS && m0 - row0 < D3_ROWS);
            }
        }
        assert_eq!((decode_a_box_rows(1), decode_a_box_rows(16), decode_a_box_rows(64), decode_a_box_rows(80)), (1, 16, 64, 64));
        assert_eq!((decode_a_box_row0(80, 0), decode_a_box_row0(80, 64), decode_a_box_row0(128, 64)), (0, 16, 64));
    }
}

/// Stages of h8 (h5's ring; after the K loop the ring holds the CTA's f32 partial tile).
pub const H8_STAGES: u32 = 4;
/// h8's dynamic shared memory: h5's ring and barriers (the partial tile reuses the ring).
pub const H8_DYN_SMEM: u32 = dyn_smem(H8_STAGES, WIDE_STAGE_BYTES, 0, 2);
/// One CTA's f32 partial of a 128×256 tile: 128 KiB, laid over the ring's first bytes.
pub const H8_PARTIAL_BYTES: u32 = BM * BN_WIDE * 4;
/// The cluster sizes (= splits of K) h8 is built for: 2 … 8 (8 is the portable maximum).
pub const H8_CLUSTERS: [u32; 7] = [2, 3, 4, 5, 6, 7, 8];
/// The fewest 64-deep K tiles h8 gives a split: below it the fill of the ring and the cluster's
/// reduction are most of a split's time.
pub const H8_MIN_K_TILES: u32 = 4;
/// h8's fixed cost per CTA (launch, ring fill, partial store, cluster barriers, reduction) in units
/// of one 64-deep K tile of the K loop, for [`h8_splits`]'s estimate. Chosen before measuring; with
/// it the estimate picks the fastest measured size, or one within 3% of it, at 7 of the 8 shapes of
/// `results/2026-11-23-h100-session7/call2-h8-sizes` (h8x2 … h8x8 each); at 64×4096×4096 (half-empty
/// tiles, the decode range, where the entry point runs d2m64) it picks h8x6, 15% slower than h8x4.
pub const H8_OVERHEAD_K_TILES: u32 = 8;
const _: () = assert!(H8_PARTIAL_BYTES <= H8_STAGES * WIDE_STAGE_BYTES && H8_DYN_SMEM <= MAX_DYN_SMEM);

/// Byte offset of f32 `(row, col)` in h8's partial tile (128 rows of 256 f32, 1 KiB each), with
/// bits 1–2 of a row's 16-byte chunk index XORed with the row's low 2 bits — `Swizzle<5, 2, 5>` on
/// bytes (CuTe `Swizzle<2, 5, 5>`; `Swizzle<5, 2, 3>` on f32 offsets):
///
/// ```text
/// byte = row·1024 + col·4:   bit  16 … 12 | 11 10 |  9  8  7 |  6  5 |  4 | 3 2 1 0
///                                  row hi  | row%4 | chunk hi |  cc   |  c | byte in chunk
/// swizzled:                        row hi  | row%4 | chunk hi | cc ^ row%4 | c | …
/// ```
///
/// Why: a consumer warp stores a pair of f32 (8 bytes) per lane from its `wgmma` fragment, rows
/// `g = lane / 4` (8 rows 1 KiB apart), columns `8j + 2·(lane % 4)`: each row 32 bytes, two chunks. An
/// 8-byte store is served by half-warps (4 rows each). Unswizzled, the 4 rows of a half hit the same 8
/// banks: 8 wavefronts per warp where 2 carry its 256 bytes. Moving row `r`'s chunk pair by
/// `2·(r % 4)` chunks puts the 4 rows of each half on 4 different pairs, all 32 banks: 2 wavefronts
/// (test below; XORing with `r % 8` instead leaves rows `2i`, `2i + 1` on one pair: 4). The
/// reduction reads whole rows 16 bytes per lane, which a permutation inside an aligned group of 8
/// chunks leaves conflict-free.
pub const fn h8_partial_byte(row: u32, col: u32) -> u32 {
    crate::swizzle::Swizzle::<5, 2, 5>::apply(row * BN_WIDE * 4 + col * 4)
}

/// K tiles `[kt0, kt1)` of split `rank` of `splits` over `k_tiles`: `⌊k_tiles·rank / splits⌋ …` —
/// the splits differ by at most one tile and each has one if `k_tiles >= splits`.
pub const fn h8_k_range(k_tiles: u32, rank: u32, splits: u32) -> (u32, u32) {
    (k_tiles * rank / splits, k_tiles * (rank + 1) / splits)
}

/// Rows `[r0, r1)` of the tile that CTA `rank` of a cluster of `splits` sums and writes:
/// `⌊128·rank / splits⌋ …` (the ranks differ by at most one row).
pub const fn h8_rows(rank: u32, splits: u32) -> (u32, u32) {
    (BM * rank / splits, BM * (rank + 1) / splits)
}

/// Splits of K (= cluster size) for h8 on `m × n × k`, or 1 where h8 should not run (h6's
/// persistent grid instead). `resident[i]` is how many clusters of `H8_CLUSTERS[i]` CTAs the GPU
/// holds at once (`cuOccupancyMaxActiveClusters`: a GPC's SMs that cannot form a whole cluster stay
/// idle, so it is often below `SMs / size`), `sms` the SM count. The choice minimises an estimate in
/// units of one K tile of one CTA:
///
/// ```text
/// tiles = ⌈m/128⌉·⌈n/256⌉,  kt = ⌈k/64⌉
/// h6:      ⌈tiles / sms⌉ · kt
/// h8 (S):  ⌈tiles / resident(S)⌉ · (⌈kt / S⌉ + H8_OVERHEAD_K_TILES)     for S with ⌊kt/S⌋ ≥ H8_MIN_K_TILES
/// ```
///
/// (ties go to the smaller S; h8 only where it beats h6's estimate). A second wave of clusters costs
/// a whole split again, which is why resident clusters, not SMs, decide.
pub fn h8_splits(m: u32, n: u32, k: u32, sms: u32, resident: [u32; 7]) -> u32 {
    cluster_splits(m.div_ceil(BM) * n.div_ceil(BN_WIDE), k.div_ceil(BK), sms, resident, H8_OVERHEAD_K_TILES, H8_MIN_K_TILES)
}

/// The cluster split-K estimate of [`h8_splits`] (and FP8 f21's) on `tiles` tiles of `kt` K tiles:
/// the splits (= cluster size, one of [`H8_CLUSTERS`]) whose `⌈tiles / resident(S)⌉ · (⌈kt / S⌉ +
/// overhead)` is lowest and below the persistent kernel's `⌈tiles / sms⌉ · kt`, each split keeping at
/// least `min_k_tiles`; 1 where none is (ties to the smaller S).
pub fn cluster_splits(tiles: u32, kt: u32, sms: u32, resident: [u32; 7], overhead: u32, min_k_tiles: u32) -> u32 {
    cluster_split_estimate(tiles, kt, sms, resident, overhead, min_k_tiles).0
}

/// [`cluster_splits`] and its estimate, in K tiles of one CTA (the persistent kernel's where the splits
/// are 1; u64: `⌈tiles / sms⌉ · kt` can pass u32 at the largest shapes).
pub fn cluster_split_estimate(tiles: u32, kt: u32, sms: u32, resident: [u32; 7], overhead: u32, min_k_tiles: u32) -> (u32, u64) {
    if tiles == 0 || sms == 0 {
        return (1, 0);
    }
    let mut best = (tiles.div_ceil(sms) as u64 * kt as u64, 1);
    for (s, r) in H8_CLUSTERS.into_iter().zip(resident) {
        if r == 0 || kt / s < min_k_tiles.max(1) {
            continue;
        }
        let est = tiles.div_ceil(r) as u64 * (kt.div_ceil(s) + overhead) as u64;
        if est < best.0 {
            best = (est, s);
        }
    }
    (best.1, best.0)
}

/// Clusters of each of [`H8_CLUSTERS`] resident at once on an H100 SXM (132 SMs), as
/// `cuOccupancyMaxActiveClusters` reported for h8 (`results/2026-11-23-h100-session7/call2-h8-sizes`):
/// the CPU tests' GPU. Clusters of 7 and of 8 both fit 15 at once (105 and 120 of 132 SMs): 16 tiles in
/// clusters of 8 run in two waves.
pub const H100_H8_RESIDENT: [u32; 7] = [66, 39, 30, 22, 17, 15, 15];

#[cfg(test)]
mod h8_tests {
    use super::*;
    use crate::bank;

    #[test]
    fn h8_splits_fill_one_wave_with_enough_k() {
        let r = H100_H8_RESIDENT;
        assert_eq!(h8_splits(128, 4096, 4096, 132, r), 6); // 16 tiles: 17 clusters of 6 fit, of 7 or 8 only 15
        assert_eq!(h8_splits(64, 4096, 4096, 132, r), 6); // the same tiles, half empty
        assert_eq!(h8_splits(256, 4096, 4096, 132, r), 3); // 32 tiles: 39 clusters of 3 fit, of 4 only 30
        assert_eq!(h8_splits(256, 4096, 14336, 132, r), 3); // 224 K tiles: still one wave of 3
        assert_eq!(h8_splits(128, 14336, 4096, 132, r), 2); // 56 tiles: 66 clusters of 2 fit
        assert_eq!(h8_splits(512, 4096, 4096, 132, r), 2); // 64 tiles → 128 CTAs
        assert_eq!(h8_splits(1024, 4096, 4096, 132, r), 1); // 128 tiles fill the GPU alone
        assert_eq!(h8_splits(128, 4096, 256, 132, r), 1); // 4 K tiles: too short to split
        assert_eq!(h8_splits(0, 4096, 4096, 132, r), 1);
        assert_eq!(h8_splits(128, 4096, 4096, 132, [0; 7]), 1); // no cluster fits: h6
        // Where one wave of some size exists (tiles ≤ 66), the choice is one.
        for m in (128..=512).step_by(128) {
            let s = h8_splits(m, 4096, 4096, 132, r);
            if s > 1 {
                let i = H8_CLUSTERS.iter().position(|&c| c == s).unwrap();
                assert!((m / 128) * 16 <= r[i], "M = {m}: S = {s} needs a second wave");
            }
        }
    }

    #[test]
    fn h8_rows_cover_the_tile_once() {
        for s in H8_CLUSTERS {
            let mut next = 0;
            for rank in 0..s {
                let (a, b) = h8_rows(rank, s);
                assert_eq!(a, next);
                assert!(b - a >= BM / s && b - a <= BM.div_ceil(s));
                next = b;
            }
            assert_eq!(next, BM);
        }
    }

    #[test]
    fn h8_k_ranges_cover_k_once() {
        for k_tiles in [1u32, 7, 8, 9, 64, 65, 224] {
            for s in H8_CLUSTERS {
                let mut next = 0;
                for r in 0..s {
                    let (a, b) = h8_k_range(k_tiles, r, s);
                    assert_eq!(a, next);
                    assert!(b >= a && b - a <= k_tiles.div_ceil(s));
                    next = b;
                }
                assert_eq!(next, k_tiles);
            }
        }
    }

    /// The partial tile is a bijection onto its 128 KiB, and every 16-byte chunk stays whole.
    #[test]
    fn h8_partial_layout_is_a_permutation_of_whole_chunks() {
        let mut seen = [false; (H8_PARTIAL_BYTES / 16) as usize];
        for row in 0..BM {
            for c4 in 0..BN_WIDE / 4 {
                let b = h8_partial_byte(row, 4 * c4);
                assert_eq!(b % 16, 0);
                for i in 1..4 {
                    assert_eq!(h8_partial_byte(row, 4 * c4 + i), b + 4 * i);
                }
                assert!(b / 1024 == row, "stays in its row");
                assert!(!seen[(b / 16) as usize]);
                seen[(b / 16) as usize] = true;
            }
        }
    }

    /// The kernel's two shared accesses through the bank model: each fragment store (8 bytes a lane,
    /// 256 bytes a warp) is 2 wavefronts (unswizzled: 8), and the reduction's 16-byte row reads are
    /// conflict-free (4 wavefronts for 512 bytes). XORing whole chunks with `row % 8` would leave 4.
    #[test]
    fn h8_partial_accesses_are_conflict_free() {
        let plain = |row: u32, col: u32| row * 1024 + col * 4;
        let by_row8 = |row: u32, col: u32| crate::swizzle::xor_swizzle(row * 1024 + col * 4, 6, 3, 4);
        let cases = [("swizzled", h8_partial_byte as fn(u32, u32) -> u32, 2), ("plain", plain as fn(u32, u32) -> u32, 8), ("chunk ^ row % 8", by_row8, 4)];
        for (name, f, want) in cases {
            for mh in 0..2 {
                for warp in 0..4 {
                    for nb in 0..4 {
                        for j in 0..8 {
                            for half in 0..2 {
                                let addrs: [u32; 32] = core::array::from_fn(|l| {
                                    let (r, c) = c_fragment_rc(warp, l as u32, j, half);
                                    f(64 * mh + r, 64 * nb + c)
                                });
                                let cost = bank::lsu(&addrs, u32::MAX, 8, bank::Op::Store).unwrap();
                                assert_eq!(cost.wavefronts, want, "{name}: mh {mh} warp {warp} nb {nb} j {j} half {half}");
                            }
                        }
                    }
                }
            }
        }
        for row in 0..BM {
            for w in 0..2 {
                let addrs: [u32; 32] = core::array::from_fn(|l| h8_partial_byte(row, 4 * (32 * w + l as u32)));
                let cost = bank::lsu(&addrs, u32::MAX, 16, bank::Op::Load).unwrap();
                assert_eq!((cost.wavefronts, cost.conflicts()), (4, 0), "row {row} half {w}");
            }
        }
    }
}

/// The stream-K tail of h10: how many of the last 128×256 tiles (in the persistent order) are not given
/// whole to one CTA but have their K iterations spread evenly over all `ctas` CTAs. It is the partial
/// last wave, `tiles mod ctas`, when there is at least one full wave before it, every CTA gets at
/// least one K tile of it, and it fills at most [`STREAM_K_MAX_FILL`] of a wave; 0 (plain persistent
/// tiles, h6s4's schedule) otherwise.
///
/// The fill limit is measured (H100, `results/2026-11-23-h100-session15/call4-h10`, h10 against h6s4
/// streaming every tail): a tail of 21% of a wave gained 1.05× (1.06× again in `call5`), 52% 1.01×
/// (0.98× in `call5`: no gain), 79% 0.95×, 88% 0.89–0.90×.
/// Streaming costs the partial tiles' traffic and the K lockstep of the CTAs (each starts its range at
/// another K offset, so A's and B's panels are re-read from DRAM); it pays only while the idle part of
/// the wave it saves is the larger.
///
/// ```text
/// tiles = 688, ctas = 132, k_tiles = 64 (2048×11008×4096):  5 full waves (660 tiles) + tail 28
///   tail iterations I = 28 · 64 = 1792, CTA g takes [⌊g·I/132⌋, ⌊(g+1)·I/132⌋): 13 or 14 K tiles each
///   instead of 28 CTAs running whole 64-deep tiles while 104 wait
/// ```
pub const fn stream_k_tail(tiles: u32, ctas: u32, k_tiles: u32) -> u32 {
    if ctas == 0 || tiles <= ctas {
        return 0;
    }
    let tail = tiles % ctas;
    let (fill_num, fill_den) = STREAM_K_MAX_FILL;
    if (tail as u64) * (k_tiles as u64) < ctas as u64 || tail as u64 * fill_den > ctas as u64 * fill_num { 0 } else { tail }
}

/// The largest tail [`stream_k_tail`] streams, as a fraction of the CTAs: 1/3, between the measured
/// gain (21%: 1.05–1.06×) and the tail that gained nothing (52%: 1.01× and 0.98× in two calls).
pub const STREAM_K_MAX_FILL: (u64, u64) = (1, 3);

/// CTA `g`'s range `[lo, hi)` of the tail's `tail · k_tiles` K iterations (iteration `i` = K tile
/// `i mod k_tiles` of tail tile `i / k_tiles`). With at least one iteration per CTA
/// ([`stream_k_tail`]) every range is non-empty, and with `tail < ctas` none is longer than `k_tiles`,
/// so a range touches at most two tiles.
pub const fn stream_k_range(g: u32, ctas: u32, tail: u32, k_tiles: u32) -> (u32, u32) {
    let iters = tail as u64 * k_tiles as u64;
    let ctas = if ctas == 0 { 1 } else { ctas as u64 };
    ((g as u64 * iters / ctas) as u32, ((g as u64 + 1) * iters / ctas) as u32)
}

/// The next segment of a CTA's stream-K range from iteration `i` (below `hi`): tail tile, first and
/// end K tile — the rest of that tile or of the range, whichever ends first.
pub const fn stream_k_segment(i: u32, hi: u32, k_tiles: u32) -> (u32, u32, u32) {
    // (No range exists without K tiles; the guard only keeps a division by zero out of the kernels.)
    let k_tiles = if k_tiles == 0 { 1 } else { k_tiles };
    let (t, kt0) = (i / k_tiles, i % k_tiles);
    let end = if kt0 + (hi - i) < k_tiles { kt0 + (hi - i) } else { k_tiles };
    (t, kt0, end)
}

/// The workspace slot of CTA `g`'s segment of tail tile `t` starting at K tile `kt0`: a segment that
/// starts a tile (`kt0 = 0`; each tile has exactly one) takes slot `ctas + t`, one that starts inside a
/// tile (only the first segment of a range can) slot `g`. Slots are unique, `< ctas + tail`.
pub const fn stream_k_slot(g: u32, ctas: u32, t: u32, kt0: u32) -> u32 {
    if kt0 == 0 { ctas + t } else { g }
}

/// The CTAs whose ranges start strictly inside tail tile `t`, `[first, end)`: with the CTA that starts
/// the tile (slot `ctas + t`), the contributors of tile `t`; so `end − first + 1` of them. The last to
/// take the tile's ticket sums their slots.
///
/// ```text
/// lo(g) = ⌊g·I/ctas⌋ > t·k  ⇔  g ≥ ⌈(t·k + 1)·ctas / I⌉ = first;   end = first g with lo(g) ≥ (t+1)·k
/// ```
pub const fn stream_k_inner_ctas(t: u32, ctas: u32, tail: u32, k_tiles: u32) -> (u32, u32) {
    let iters = tail as u64 * k_tiles as u64;
    if iters == 0 {
        return (0, 0);
    }
    // The smallest g with lo(g) ≥ x is ⌈x·ctas / I⌉.
    let start = t as u64 * k_tiles as u64;
    let first = ((start + 1) * ctas as u64).div_ceil(iters) as u32;
    let end = ((start + k_tiles as u64) * ctas as u64).div_ceil(iters) as u32;
    let end = if end > ctas { ctas } else { end };
    (if first > end { end } else { first }, end)
}

/// Bytes of one stream-K workspace slot: a 128×256 f32 partial tile (h10).
pub const STREAM_K_SLOT_BYTES: u32 = BM * BN_WIDE * 4;
/// h10: h6s4's layout with a 16-byte ticket flag after the C staging.
pub const H10_DYN_SMEM: u32 = dyn_smem(H9S4_STAGES, WIDE_STAGE_BYTES, 2 * wide_staged_boxes(H9S4_STAGES) * C_BOX_BYTES + 16, 2);
const _: () = assert!(H10_DYN_SMEM <= MAX_DYN_SMEM);

#[cfg(test)]
mod stream_k_tests {
    use super::*;
    extern crate std;
    use std::{vec, vec::Vec};

    /// Every tail K iteration is computed by exactly one segment; the segments' slots are unique and in
    /// range; each tile's contributors are the segments the summing CTA enumerates; no range is empty
    /// or touches more than two tiles.
    #[test]
    fn the_stream_k_tail_is_covered_once_and_summed_from_the_right_slots() {
        let mut checked = 0;
        for ctas in [1u32, 2, 7, 66, 114, 132] {
            for k_tiles in [1u32, 2, 3, 13, 64, 128, 1000] {
                for tiles in (ctas + 1..=3 * ctas + 5).step_by(if ctas > 60 { 5 } else { 1 }) {
                    let chosen = stream_k_tail(tiles, ctas, k_tiles);
                    if chosen == 0 {
                        assert!(tiles % ctas == 0 || (tiles % ctas) * k_tiles < ctas || 3 * (tiles % ctas) > ctas);
                    } else {
                        assert!(3 * chosen <= ctas);
                        assert_eq!(chosen, tiles % ctas);
                    }
                    // Every tail the kernel's guard admits (any `tail < ctas` with a K tile per CTA), not
                    // only the ones the rule chooses: the kernel's safety argument rests on these.
                    let tail = tiles % ctas;
                    if tail == 0 || tail * k_tiles < ctas {
                        continue;
                    }
                    let mut covered = vec![0u32; (tail * k_tiles) as usize];
                    let mut slots = vec![false; (ctas + tail) as usize];
                    let mut per_tile: Vec<Vec<u32>> = vec![Vec::new(); tail as usize];
                    for g in 0..ctas {
                        let (lo, hi) = stream_k_range(g, ctas, tail, k_tiles);
                        assert!(lo < hi && hi - lo <= k_tiles, "ctas {ctas} k {k_tiles} tiles {tiles} g {g}");
                        let (mut i, mut segs) = (lo, 0);
                        while i < hi {
                            let (t, kt0, kt1) = stream_k_segment(i, hi, k_tiles);
                            assert!(kt0 < kt1 && kt1 <= k_tiles && t < tail);
                            for kt in kt0..kt1 {
                                covered[(t * k_tiles + kt) as usize] += 1;
                            }
                            let s = stream_k_slot(g, ctas, t, kt0);
                            assert!(!slots[s as usize], "slot {s} twice");
                            slots[s as usize] = true;
                            per_tile[t as usize].push(s);
                            i += kt1 - kt0;
                            segs += 1;
                        }
                        assert!(segs <= 2);
                    }
                    assert!(covered.iter().all(|&c| c == 1));
                    for t in 0..tail {
                        let (first, end) = stream_k_inner_ctas(t, ctas, tail, k_tiles);
                        let mut want: Vec<u32> = (first..end).chain([ctas + t]).collect();
                        want.sort();
                        let mut got = per_tile[t as usize].clone();
                        got.sort();
                        assert_eq!(got, want, "tile {t} of ctas {ctas} k {k_tiles} tiles {tiles}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "{checked}");
        // The shapes the step is for: 2048×11008×4096 on 132 SMs streams its 28-tile tail; 4096³'s 116.
        assert_eq!(stream_k_tail(688, 132, 64), 28);
        assert_eq!(stream_k_tail(2048, 132, 128), 0, "8192³: 52% of a wave");
        assert_eq!(stream_k_tail(1100, 132, 64), 44, "a third of a wave");
        assert_eq!(stream_k_tail(1101, 132, 64), 0);
        assert_eq!(stream_k_tail(512, 132, 64), 0, "4096³: a tail of 88% runs whole");
        assert_eq!(stream_k_tail(896, 132, 64), 0, "2048×14336×4096: 79%");
        assert_eq!(stream_k_tail(528, 132, 64), 0, "whole waves");
        assert_eq!(stream_k_tail(100, 132, 64), 0, "under one wave: h8/d7's shapes");
        assert_eq!(stream_k_tail(133, 132, 64), 0, "1 tile × 64 K tiles < 132 CTAs");
    }
}
