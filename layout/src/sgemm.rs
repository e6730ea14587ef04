//! Tile shapes and shared-memory layouts of the SGEMM ladder (seed 004), shared by the kernels in
//! `kernels-gpu/src/sgemm/` and the host (launch geometry, predicted bank conflicts).
//!
//! Problem: `C (M×N) = A (M×K) · B (K×N)`, all row-major f32.
use crate::{Layout, Padded};

/// v0: one thread per output, 16×16 threads per block.
pub const NAIVE_TILE: u32 = 16;

/// v1: 32×32 outputs per block, one per thread, K in steps of 32 through shared memory.
pub const SMEM_TILE: u32 = 32;

/// v2–v6: a block computes a `BM × BN` tile of C with 256 threads, each an 8×8 register tile,
/// stepping K by `BK`.
pub const BM: u32 = 128;
/// Columns of C per block.
pub const BN: u32 = 128;
/// K per shared-memory stage.
pub const BK: u32 = 8;
/// Threads per block (16 × 16).
pub const THREADS: u32 = 256;
/// Outputs per thread along M and along N.
pub const TM: u32 = 8;
/// Outputs per thread along N.
pub const TN: u32 = 8;

/// The A tile in shared memory, transposed (`s_a[k][m]`, k-major) so a thread's 8 rows of A for one
/// `k` are contiguous: `BK × BM`, unpadded (steps v2–v4).
///
/// ```text
/// word(k, m) = k · 128 + m   → bank m mod 32: a store of one k by 32 consecutive m is conflict-free;
///                               a store of 8 k × 4 m (the natural coalesced mapping) is 8-way
/// ```
pub const fn a_tile_t() -> Padded {
    Padded { rows: BK, cols: BM, stride: BM }
}

/// The transposed A tile padded to a stride of 132 = `storage_align(128, 32, 4)` (steps v5+): a thread
/// that stores the 4 k of one float4 of A writes words `k · 132 + m`, banks `4k + m`, so 16 rows × 2
/// half-float4s of a warp cover 32 distinct banks. Rows stay 16-byte aligned (528 B) for `ld.shared.v4`.
pub const fn a_tile_t_padded() -> Padded {
    Padded { rows: BK, cols: BM, stride: BM + 4 }
}

/// The B tile in shared memory as loaded (`s_b[k][n]`): `BK × BN`.
pub const fn b_tile() -> Padded {
    Padded { rows: BK, cols: BN, stride: BN }
}

/// Shared-memory words one stage of A plus B takes in a layout pair.
pub const fn stage_words(a: &Padded, b: &Padded) -> u32 {
    a.rows * a.stride + b.rows * b.stride
}

/// Thread `tid`'s (row, col) in the 16×16 thread grid of a 256-thread block.
#[inline(always)]
pub const fn thread_rc(tid: u32) -> (u32, u32) {
    (tid / 16, tid % 16)
}

/// Contiguous thread-to-output mapping (v2, v3): thread (ty, tx) owns rows `ty·8 + i` and columns
/// `tx·8 + j` of the block tile.
///
/// ```text
/// B read for one k: lanes tx = 0..15 read word tx·8 + j → banks 0, 8, 16, 24 only: 4-way conflict
/// ```
#[inline(always)]
pub const fn contiguous_row(ty: u32, i: u32) -> u32 {
    ty * TM + i
}

/// Strided ("virtual thread", TVM) mapping at float granularity (v4): thread (ty, tx) owns rows
/// `ty + 16·i` and columns `tx + 16·j`.
///
/// ```text
/// B read for one k: lanes tx = 0..15 read words tx + 16·j → 16 consecutive banks: conflict-free
/// ```
#[inline(always)]
pub const fn strided_row(ty: u32, i: u32) -> u32 {
    ty + 16 * i
}

/// Strided mapping at float4 granularity (v5+): thread (ty, tx) owns rows `ty·4 + 64·h + r` and columns
/// `tx·4 + 64·h + c` (h ∈ {0, 1}, r, c ∈ 0..4), so each half is one `ld.shared.v4`.
///
/// ```text
/// B read for one k and h: lanes tx = 0..15 read 16 B at byte 16·tx: 256 consecutive bytes, 2 wavefronts
/// ```
#[inline(always)]
pub const fn vec4_row(ty: u32, h: u32, r: u32) -> u32 {
    ty * 4 + 64 * h + r
}

/// Element offset of `(k, m)` in a tile layout (what kernels store to and load from).
#[inline(always)]
pub fn at(l: &Padded, row: u32, col: u32) -> u32 {
    l.offset(row, col)
}

#[cfg(test)]
mod tests {
    #[test]
    fn v19_stops_splitting_shallowly_once_the_tiles_fill_three_quarters_of_the_sms() {
        let r = |m, n, k| split_k_tiles_when_full(m, n, k, 132, 64, 128, V19_SPLIT.0, V19_SPLIT.1, V19_FULL_DEPTH, 16);
        // 128 tiles (≥ 99 = ¾ of 132): K = 1000 cannot take a split of 640, K = 2000 takes three of 672.
        assert_eq!(r(1000, 1000, 1000), (1, 1000));
        assert_eq!(r(1024, 1024, 1024), (1, 1024));
        assert_eq!(r(127, 8191, 1024), (1, 1024));
        assert_eq!(r(1000, 1000, 2000), (3, 672));
        // Under ¾ of the SMs: v14's rule, unchanged (32 tiles: 12 splits of 352; 80 tiles: 4 of 512).
        assert_eq!(r(64, 4096, 4096), split_k_tiles(64, 4096, 4096, 132, 64, 128, 3, 256, 16));
        assert_eq!(r(64, 4096, 4096), (12, 352));
        assert_eq!(r(640, 1024, 2048), (4, 512));
        // The threshold itself: 99 tiles split as when full, 98 as v14.
        assert_eq!(r(64 * 99, 128, 1024), (1, 1024));
        assert_eq!(r(64 * 98, 128, 1024), split_k_tiles(64 * 98, 128, 1024, 132, 64, 128, 3, 256, 16));
        assert!(r(64 * 98, 128, 1024).0 > 1);
    }

    use super::*;
    use crate::bank::{self, Op};

    #[test]
    fn padding_is_storage_align() {
        assert_eq!(Some(a_tile_t_padded().stride), crate::pad::storage_align(BM, 32, 4));
        assert_eq!(a_tile_t_padded().stride * 4 % 16, 0);
    }

    #[test]
    fn contiguous_b_reads_conflict_strided_do_not() {
        let lanes = |f: &dyn Fn(u32) -> u32| -> [u32; 32] { core::array::from_fn(|l| f(l as u32)) };
        let b = b_tile();
        let contiguous = lanes(&|l| 4 * b.offset(0, contiguous_row(thread_rc(l).1, 0)));
        assert_eq!(bank::lsu(&contiguous, u32::MAX, 4, Op::Load).unwrap().conflicts(), 3);
        let strided = lanes(&|l| 4 * b.offset(0, strided_row(thread_rc(l).1, 0)));
        assert_eq!(bank::lsu(&strided, u32::MAX, 4, Op::Load).unwrap().conflicts(), 0);
        let v4 = lanes(&|l| 4 * b.offset(0, vec4_row(thread_rc(l).1, 0, 0)));
        assert_eq!(bank::lsu(&v4, u32::MAX, 16, Op::Load).unwrap().conflicts(), 0);
    }
}

/// K per shared-memory stage of v7+ (twice `BK`: half as many barriers per FMA).
pub const BK_WIDE: u32 = 16;

/// v7+'s transposed A tile: `BK_WIDE × BM`, stride 132 (as [`a_tile_t_padded`]).
pub const fn a_tile_t_wide() -> Padded {
    a_tile_t_wide_rows(BM)
}

/// The transposed A tile of a block with `rows` rows of C (v14: 64, v15: 32): `BK_WIDE × rows`, stride
/// `rows + 4` — `≡ 4 (mod 32)` words for 32, 64 and 128 alike, so the loader's transposed stores and the
/// fragment reads hit the same banks as v7's (`word(k, m) = k·(rows+4) + m`, bank `4k + m mod 32`).
pub const fn a_tile_t_wide_rows(rows: u32) -> Padded {
    Padded { rows: BK_WIDE, cols: rows, stride: rows + 4 }
}

/// v14: rows of C per block (and threads = `2 · V14_ROWS`: 4 warps of the v9 warp tiling).
pub const V14_ROWS: u32 = 64;

/// v14's split rule `(blocks per SM, shallowest split)`: 128-thread blocks, three per SM.
pub const V14_SPLIT: (u32, u32) = (3, 256);

/// v15: rows of C per block (and threads = `2 · V15_ROWS`: the first 2 warps of the v9 warp tiling).
pub const V15_ROWS: u32 = 32;

/// v15's split rule `(blocks per SM, shallowest split)`: 64-thread blocks, six per SM (the same 12 warps
/// as v14's three), no split shallower than 128 (8 stages).
pub const V15_SPLIT: (u32, u32) = (6, 128);

/// v17: B's `cp.async` ring depth (stages of `16 × 128` f32 in flight or being read); A keeps v14's two
/// register-fed stages.
pub const V17_RING: u32 = 4;

/// v17's dynamic shared memory (bytes): two transposed A stages of `16 × (64 + 4)` f32 and
/// [`V17_RING`] B stages of `16 × 128` f32 — 40.5 KiB, three blocks in an SM's 228 KiB.
pub const V17_SMEM_BYTES: u32 = 4 * (2 * BK_WIDE * (V14_ROWS + 4) + V17_RING * BK_WIDE * BN);
const _: () = assert!(3 * (V17_SMEM_BYTES + 1024) <= 228 * 1024 && (2 * BK_WIDE * (V14_ROWS + 4) * 4) % 16 == 0);

/// v7+'s B tile: `BK_WIDE × BN`.
pub const fn b_tile_wide() -> Padded {
    Padded { rows: BK_WIDE, cols: BN, stride: BN }
}

/// Grouped block order (v8): launch order `pid = by · grid_n + bx` is remapped so that `group`
/// consecutive block rows sweep the block columns together, which keeps a `group`-row panel of A and a
/// column panel of B in L2 while they are reused.
///
/// ```text
/// grid 4×4, group 2:   pid:  0  1  2  3 | 4  5  6  7 | …      (bm, bn): (0,0) (1,0) (0,1) (1,1) | (0,2) (1,2) …
/// ```
/// Returns `(bm, bn)`; a bijection of `0..grid_m·grid_n` onto the grid.
#[inline(always)]
pub const fn grouped_block(pid: u32, grid_m: u32, grid_n: u32, group: u32) -> (u32, u32) {
    // `.max(1)`: the divisors are nonzero for every valid grid, and saying so lets the GPU build drop
    // its divide-by-zero panic paths.
    let per_group = if group * grid_n == 0 { 1 } else { group * grid_n };
    let first_m = (pid / per_group) * group;
    let rows = if grid_m - first_m < group { grid_m - first_m } else { group };
    let rows = if rows == 0 { 1 } else { rows };
    let in_group = pid % per_group;
    (first_m + in_group % rows, in_group / rows)
}

#[cfg(test)]
mod grouped_tests {
    use super::grouped_block;

    #[test]
    fn grouped_block_order_is_a_bijection() {
        for (gm, gn, g) in [(4u32, 4u32, 2u32), (5, 3, 2), (64, 64, 8), (7, 9, 8), (1, 1, 8), (9, 1, 8)] {
            let mut seen = [[false; 64]; 64];
            for pid in 0..gm * gn {
                let (m, n) = grouped_block(pid, gm, gn, g);
                assert!(m < gm && n < gn, "({m}, {n}) outside {gm}x{gn}");
                assert!(!seen[m as usize][n as usize], "({m}, {n}) twice");
                seen[m as usize][n as usize] = true;
            }
        }
        assert_eq!(grouped_block(2, 4, 4, 2), (0, 1));
        assert_eq!(grouped_block(3, 4, 4, 2), (1, 1));
    }
}

/// Warp-tiled, bank-aware thread mapping (v9): the 8 warps of a block tile it 4 (M) × 2 (N), each warp
/// a 32×64 region; inside a warp, quarter-warp `q` (lanes 8q..8q+7) holds thread rows `ty` and columns
/// `tx` chosen so that the two quarters of each half-warp read *disjoint* banks for both A and B:
///
/// ```text
/// lane = 8q + r,  ty = 2·ty_hi(q) + r / 4,  tx = 4·tx_hi(q) + r % 4,  (ty_hi, tx_hi) = (0,0) (1,1) (0,1) (1,0)
/// A float4 of a lane: words 4·ty..  → quarters of a half-warp: ty {0,1} | {2,3}  (banks 0-7 | 8-15)
/// B float4 of a lane: words 4·tx..  → quarters of a half-warp: tx {0-3} | {4-7}  (banks 0-15 | 16-31)
/// ```
///
/// The design assumed rule 3b as it stood after round 3 (two bank-disjoint phases of a half-warp share
/// wavefronts), which predicted 2 wavefronts per fragment load instead of 2 (A) and 4 (B): 8 instead of
/// 12 per k per warp. The H200 measured 12: B's duplicated lanes are r and r+4 of a quarter, and merging
/// needs lanes 2j and 2j+1 to share (rule 3b since round 4). Kept as the measured lesson.
/// Returns `(ty, tx)` in `0..4 × 0..8` for a lane.
#[inline(always)]
pub const fn warp_lane_rc(lane: u32) -> (u32, u32) {
    let (q, r) = (lane / 8, lane % 8);
    let (ty_hi, tx_hi) = match q { 0 => (0, 0), 1 => (1, 1), 2 => (0, 1), _ => (1, 0) };
    (2 * ty_hi + r / 4, 4 * tx_hi + r % 4)
}

/// v9: first row of float4 group `h` (0, 1) of thread `tid`'s rows: `32·(warp / 2) + 16·h + 4·ty`.
#[inline(always)]
pub const fn warp_tile_row(tid: u32, h: u32) -> u32 {
    32 * (tid / 32 / 2) + 16 * h + 4 * warp_lane_rc(tid % 32).0
}

/// v9: first column of float4 group `h` (0, 1) of thread `tid`'s columns: `64·(warp % 2) + 32·h + 4·tx`.
#[inline(always)]
pub const fn warp_tile_col(tid: u32, h: u32) -> u32 {
    64 * (tid / 32 % 2) + 32 * h + 4 * warp_lane_rc(tid % 32).1
}

#[cfg(test)]
mod warp_tile_tests {
    use super::*;
    use crate::bank::{self, Op};
    use crate::Layout;

    fn cost(addr: impl Fn(u32) -> u32) -> u64 {
        let a: [u32; 32] = core::array::from_fn(|l| addr(l as u32));
        bank::lsu(&a, u32::MAX, 16, Op::Load).unwrap().wavefronts
    }

    #[test]
    fn every_thread_owns_8x8_distinct_outputs() {
        let mut seen = [[false; 128]; 128];
        for tid in 0..THREADS {
            for h in 0..2 {
                for h2 in 0..2 {
                    for r in 0..4 {
                        for c in 0..4 {
                            let (row, col) = (warp_tile_row(tid, h) + r, warp_tile_col(tid, h2) + c);
                            assert!(!seen[row as usize][col as usize]);
                            seen[row as usize][col as usize] = true;
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn warp_tiled_mapping_costs_what_the_gpu_measured() {
        let (la, lb) = (a_tile_t_wide(), b_tile_wide());
        // v5-v8: 2 × 16 lanes per warp.
        let a_v7 = cost(|l| 4 * la.offset(0, vec4_row(thread_rc(l).0, 0, 0)));
        let b_v7 = cost(|l| 4 * lb.offset(0, vec4_row(thread_rc(l).1, 0, 0)));
        assert_eq!((a_v7, b_v7), (2, 4));
        // v9: A 2, B still 4. Before round 4 of the bank check the model predicted 2 for B (bank-disjoint
        // quarters); the H200 measured 4, because B's duplicate lanes sit four apart (r, r+4), and the
        // model now requires lane pairs (2j, 2j+1) to share for a merge.
        for h in 0..2 {
            assert_eq!(cost(|l| 4 * la.offset(0, warp_tile_row(l, h))), 2);
            assert_eq!(cost(|l| 4 * lb.offset(0, warp_tile_col(l, h))), 4);
        }
    }
}

/// Shared-memory stages of v10's `cp.async` pipeline.
pub const STAGES: u32 = 3;

/// v10's A tile, *not* transposed: `BM × BK_WIDE` row-major (64 B rows), filled by 16-byte `cp.async`
/// copies straight from A's rows; a thread reads a float4 of 4 consecutive k of one row.
pub const fn a_tile_rows() -> Padded {
    Padded { rows: BM, cols: BK_WIDE, stride: BK_WIDE }
}

/// v2's A-tile load mapping: element `e = tid + 256·i` (i in 0..4) of the 128×8 tile is `(m, k) =
/// (e / 8, e % 8)`: 8 lanes read 8 consecutive k of one row (coalesced), and store them transposed to 8
/// words 128 apart, one bank: an 8-way conflict.
#[inline(always)]
pub const fn a_load_coalesced(tid: u32, i: u32) -> (u32, u32) {
    let e = tid + THREADS * i;
    (e / BK, e % BK)
}

/// v3+'s A-tile load mapping: `(m, k) = (e % 128, e / 128)`: a warp stores 32 consecutive m of one k
/// (conflict-free) but reads 32 rows of A, one float each.
#[inline(always)]
pub const fn a_load_conflict_free(tid: u32, i: u32) -> (u32, u32) {
    let e = tid + THREADS * i;
    (e % BM, e / BM)
}

/// SGEMM v12's default split rule `(blocks per SM, shallowest split)` for [`split_k_tiles`] with its
/// 128×128 tiles and 16-deep stages: about one block per SM (v12 runs one per SM), no split
/// shallower than 256 (`KERNEL_LAB_SGEMM_SPLIT` overrides it on the host).
///
/// ```text
/// tiles = ⌈m/128⌉·⌈n/128⌉;  splits = clamp(⌊sms / tiles⌋, 1, ⌊k / 256⌋);  k_split = 16·⌈⌈k/splits⌉/16⌉
/// ```
pub const V12_SPLIT: (u32, u32) = (1, 256);

/// The split rule of the split-K SGEMM steps (v12 with 128×128 tiles, v14 with 64×128, v13 with
/// `rows × cols` strips): `⌊blocks_per_sm · sms / tiles⌋` splits at most and no more than
/// `⌊k / min_depth⌋` (`min_depth` at least `multiple`), each a multiple of `multiple` deep except the
/// last, which takes what remains (it may be shallower); `(1, k)` when that leaves one split.
///
/// ```text
/// tiles = ⌈m/rows⌉·⌈n/cols⌉;  splits = clamp(⌊blocks_per_sm·sms / tiles⌋, 1, ⌊k / min_depth⌋)
/// k_split = multiple·⌈⌈k/splits⌉/multiple⌉;  splits = ⌈k / k_split⌉ (every split nonempty)
/// ```
#[allow(clippy::too_many_arguments)]
pub const fn split_k_tiles(m: u32, n: u32, k: u32, sms: u32, rows: u32, cols: u32, blocks_per_sm: u32, min_depth: u32, multiple: u32) -> (u32, u32) {
    let tiles = m.div_ceil(rows) * n.div_ceil(cols);
    let mut s = if tiles == 0 { 1 } else { (blocks_per_sm * sms) / tiles };
    let min_depth = if min_depth < multiple { multiple } else { min_depth };
    if s > k / min_depth {
        s = k / min_depth;
    }
    if s <= 1 {
        return (1, k);
    }
    let k_split = multiple * k.div_ceil(s).div_ceil(multiple);
    (k.div_ceil(k_split), k_split)
}

/// [`split_k_rounds`]: an SM's throughput with 1, 2 and 3 resident v24 blocks (per mille of three's).
/// Read off session 61's v24 splits at four compute-bound shapes (H200; 20 points, each against
/// cuBLAS): with these rates the model orders 16 of their 20 split counts as measured.
pub const ROUNDS_SM_RATE_PERMILLE: [u64; 3] = [450, 800, 1000];
/// [`split_k_rounds`]: a block's fixed cost in k-steps of its tile (prologue, pipeline fill, the adds).
pub const ROUNDS_BLOCK_COST_K: u64 = 64;
/// [`split_k_rounds`] overrules the base rule only where it predicts its own split at least this much
/// faster (percent), and proposes at most [`ROUNDS_MAX_SPLITS`] splits: the range it was read off.
pub const ROUNDS_MARGIN_PERCENT: u64 = 5;
/// The deepest split [`split_k_rounds`] proposes.
pub const ROUNDS_MAX_SPLITS: u32 = 6;

/// The time of `blocks` blocks of `depth` k-steps each on `sms` SMs holding up to `rates.len()` at once
/// (in k-steps of one SM at full rate × 10⁶, u128: no overflow at any dimension the kernels take): full rounds run at the full rate; the last, partial
/// round spreads its blocks evenly and lasts as long as its fullest SM, whose `j` blocks run at
/// `rates[j − 1]`.
fn rounds_time(blocks: u128, depth: u128, sms: u128, rates: &[u64]) -> u128 {
    let per = rates.len() as u128;
    let w = depth + ROUNDS_BLOCK_COST_K as u128;
    let full = blocks / (sms * per);
    let left = blocks - full * sms * per;
    let mut t = full * per * w * 1_000_000 / rates[rates.len() - 1] as u128;
    if left > 0 {
        let top = left.div_ceil(sms);
        t += top * w * 1_000_000 / rates[(top - 1) as usize] as u128;
    }
    t
}

/// v24's split (session 61): the base rule's `(splits, k_split)` ([`split_k_tiles`] with v14's `(3,
/// 256)`) unless the rounds of resident blocks predict another split of at most [`ROUNDS_MAX_SPLITS`]
/// at least [`ROUNDS_MARGIN_PERCENT`] faster. Where the tiles leave the last round of three blocks per
/// SM mostly empty, an SM runs one or two blocks at a fraction of its rate
/// ([`ROUNDS_SM_RATE_PERMILLE`]): 64 × 57344 × 8192 (448 tiles: 396 then 52) ran 0.79× cuBLAS whole and
/// 0.95–1.01× split in 2–4; 128 × 10240 × 8192 0.79× in two splits, 0.93× in four.
///
/// ```text
/// time(s) = ⌊B/(3·SMs)⌋ · 3 · w / r₃  +  j · w / r_j      B = tiles · s,  w = depth(s) + 64,  j = ⌈(B mod 3·SMs) / SMs⌉
/// ```
#[allow(clippy::too_many_arguments)]
pub fn split_k_rounds(m: u32, n: u32, k: u32, sms: u32, rows: u32, cols: u32, min_depth: u32, multiple: u32) -> (u32, u32) {
    let rates = &ROUNDS_SM_RATE_PERMILLE;
    let base = split_k_tiles(m, n, k, sms, rows, cols, rates.len() as u32, min_depth, multiple);
    let tiles = m.div_ceil(rows.max(1)) as u128 * n.div_ceil(cols.max(1)) as u128;
    let sms = sms.max(1) as u128;
    let multiple = multiple.max(1);
    let min_depth = min_depth.max(multiple);
    let base_t = rounds_time(tiles * base.0 as u128, base.1 as u128, sms, rates);
    let mut best = base;
    let mut best_t = base_t;
    let most = (k / min_depth).min(ROUNDS_MAX_SPLITS);
    let mut s = 1;
    while s <= most {
        let depth = if s == 1 { k } else { multiple * k.div_ceil(s).div_ceil(multiple) };
        let splits = k.div_ceil(depth);
        let t = rounds_time(tiles * splits as u128, depth as u128, sms, rates);
        if t < best_t {
            best = (splits, depth);
            best_t = t;
        }
        s += 1;
    }
    if best_t * 100 <= base_t * (100 - ROUNDS_MARGIN_PERCENT as u128) { best } else { base }
}

/// v19's split rule: v14's `(3, 256)` while the 64×128 tiles are fewer than ¾ of the SMs; from ¾ on,
/// no split shallower than [`V19_FULL_DEPTH`] (`split_k_tiles_when_full`).
pub const V19_SPLIT: (u32, u32) = V14_SPLIT;

/// v19: the shallowest split once the tiles reach ¾ of the SMs. Measured (H100, session 19, v19 at three
/// blocks per SM): with 112–128 tiles three splits of ~340 lose to none at K ≈ 1000 (1000³ 72 → 63 µs,
/// 896×1024×1024 64 → 62, 127×8191×1024 80 → 69) and two of 512 lose too (896×1024×1024 68 µs), while
/// three splits of ~680 win at K = 2000–2048 (1000×1000×2000 112 against 116 µs, 640 / 768 × 1280 × 2048
/// 107 / 112 against 118); below ¾ splitting wins at any depth (640×1024×2048, 80 tiles: 85 against 119 µs).
pub const V19_FULL_DEPTH: u32 = 640;

/// [`split_k_tiles`] with the shallowest split raised to `full_depth` once the tiles reach ¾ of the SMs
/// (v19): where the tiles nearly fill the GPU a split only adds warps per SM, and a shallow one costs more
/// (its prologue, the zeroed C and the atomic adds) than they save.
///
/// ```text
/// tiles = ⌈m/rows⌉·⌈n/cols⌉;  depth = full_depth if 4·tiles ≥ 3·sms else min_depth;  then split_k_tiles
/// ```
#[allow(clippy::too_many_arguments)]
pub const fn split_k_tiles_when_full(m: u32, n: u32, k: u32, sms: u32, rows: u32, cols: u32, blocks_per_sm: u32, min_depth: u32, full_depth: u32,
                                     multiple: u32) -> (u32, u32) {
    let tiles = m.div_ceil(rows) as u64 * n.div_ceil(cols) as u64;
    let depth = if 4 * tiles >= 3 * sms as u64 { full_depth } else { min_depth };
    split_k_tiles(m, n, k, sms, rows, cols, blocks_per_sm, depth, multiple)
}

/// [`split_k_waves`]'s fixed cost of a block in bytes of its own streaming: its start, the sums met in
/// shared memory and its stores, taken as the 64 KiB (~2 µs of one SM's share of HBM) measured for a
/// decode-attention CTA (session 55, `attention::decode::DECODE_CTA_COST_BYTES`); a split also pays it
/// once more for zeroing C.
pub const SPLIT_BLOCK_COST_BYTES: u64 = 64 * 1024;

/// The split of K by waves (v33, v34): of the splits `s = 1 ..= min(⌊K / min_depth⌋, 64)` (each range a
/// multiple of `multiple`), the one whose launch is predicted shortest, the smaller on a tie:
///
/// ```text
/// blocks(s) = ⌈M/rows⌉·⌈N/cols⌉·s    bytes(s) = bytes_per_k · depth(s)    rounds(s) = ⌈blocks(s) / (blocks_per_sm · SMs)⌉
/// time(s)  ∝ max(blocks(s) · bytes(s) / SMs,  rounds(s) · bytes(s))  +  rounds(s) · F  +  (s > 1) · F
/// ```
///
/// in units of one block's streaming time per byte. The first bound is HBM: about one streaming block
/// per SM reads at the copy rate (v13 at 1 × 28672 × 4096, seven rounds of 132 blocks: 0.96× cuBLAS),
/// so more blocks than SMs share it; the second is a block's own rate (its loads in flight) times the
/// rounds of resident blocks. F = `SPLIT_BLOCK_COST_BYTES` is a round's fixed cost (starting the
/// blocks, their sums met in shared memory, the stores), and a split pays it once more (C zeroed).
/// Session 61 (H200): at one block per SM (v33) 1 × 5120 × 13824 splits in four (two rounds of 160
/// blocks → five of 640 a quarter as deep: 1.20× measured); at two (v34) splits rarely pay, and a
/// first form that counted only the rounds split 1 × 4096² in two (0.94×) while one that let the blocks
/// of an SM share one block's rate split 1 × 6144 × 4096 and 4 × 4608 × 3584 (0.89×, 0.84×). Returns
/// `(splits, k_split)`.
#[allow(clippy::too_many_arguments)]
pub fn split_k_waves(m: u32, n: u32, k: u32, sms: u32, rows: u32, cols: u32, blocks_per_sm: u32, min_depth: u32, multiple: u32,
                     bytes_per_k: u64) -> (u32, u32) {
    let tiles = m.div_ceil(rows.max(1)) as u128 * n.div_ceil(cols.max(1)) as u128;
    let sms = sms.max(1) as u128;
    let slots = blocks_per_sm.max(1) as u128 * sms;
    let multiple = multiple.max(1);
    let min_depth = min_depth.max(multiple);
    let f = SPLIT_BLOCK_COST_BYTES as u128;
    // max(blocks · bytes / SMs, rounds · bytes) + rounds · F (+ F for a split); u128: no overflow at any
    // dimension the kernels take.
    let cost = |blocks: u128, bytes: u128| {
        let rounds = blocks.div_ceil(slots);
        (blocks * bytes).div_ceil(sms).max(rounds * bytes) + rounds * f
    };
    let mut best = (1u32, k);
    let mut best_t = cost(tiles, bytes_per_k as u128 * k as u128);
    for s in 2..=(k / min_depth).min(64) {
        let depth = multiple * k.div_ceil(s).div_ceil(multiple);
        let splits = k.div_ceil(depth);
        let t = cost(tiles * splits as u128, bytes_per_k as u128 * depth as u128) + f;
        if splits > 1 && t < best_t {
            best = (splits, depth);
            best_t = t;
        }
    }
    best
}

/// v13 ("skinny", small M): the most rows of C one block computes; a thread keeps `≤ 16 × 4` sums.
pub const SKINNY_ROWS: u32 = 16;
/// v13: columns of C per block, 4 per thread: 8 lanes side by side read one 128-byte row segment of B.
pub const SKINNY_COLS: u32 = 32;
/// v13: threads side by side along N (`SKINNY_COLS / 4`).
pub const SKINNY_LANES: u32 = SKINNY_COLS / 4;
/// v13: groups of threads that split the block's K range (`THREADS / SKINNY_LANES` = 32), each
/// taking 4 consecutive k of every [`SKINNY_KSTEP`].
pub const SKINNY_GROUPS: u32 = THREADS / SKINNY_LANES;
/// v13: the k one pass of the block covers (4 per group), and the multiple its K splits are cut in.
pub const SKINNY_KSTEP: u32 = 4 * SKINNY_GROUPS;
/// v13's split rule `(blocks per SM, shallowest split)`: K is split across blocks only when the
/// blocks (row groups × strips) are at most half the SMs, into at most `⌊K / 512⌋` splits.
pub const SKINNY_SPLIT: (u32, u32) = (1, 4 * SKINNY_KSTEP);
/// v34: rows of C per block (its row groups), so only the 1- and 4-row loops are compiled.
pub const SKINNY_SMALL_GROUP: u32 = 4;
/// v34: resident blocks per SM (its `.minnctapersm`: 128 registers a thread; at three, 80, its 4-row loop
/// spilled 264 bytes).
pub const SKINNY_SMALL_BLOCKS_PER_SM: u32 = 2;
/// v13's dynamic shared memory: every group's `SKINNY_ROWS × SKINNY_COLS` partial sums (64 KiB).
pub const SKINNY_SMEM_BYTES: u32 = 4 * SKINNY_GROUPS * SKINNY_ROWS * SKINNY_COLS;

/// v13: thread `tid`'s `(group, lane)`: its k are `4·group + 128·pass + (0..4)`, its columns
/// `4·lane .. 4·lane + 4` of the strip.
///
/// ```text
/// tid:   0..7   8..15  16..23  24..31 | 32..39 …
/// group: 0      1      2       3      | 4      …   a warp reads 4 consecutive k-quads × 128 B of B
/// lane:  0..7   0..7   0..7    0..7   | 0..7
/// ```
#[inline(always)]
pub const fn skinny_thread(tid: u32) -> (u32, u32) {
    (tid / SKINNY_LANES, tid % SKINNY_LANES)
}

/// v13: word offset of group `g`'s partial sum for row `r`, column `4·lane` of the strip in the
/// reduction buffer (`[g][r][col]`, row-major): a quarter-warp's `st.shared.v4` (8 lanes of one group)
/// covers 32 consecutive words, all 32 banks; lane `g` of the summing warp reads group g's float4.
///
/// ```text
/// word = (g·SKINNY_ROWS + r)·SKINNY_COLS + 4·lane
/// ```
#[inline(always)]
pub const fn skinny_sum_word(g: u32, r: u32, lane: u32) -> u32 {
    (g * SKINNY_ROWS + r) * SKINNY_COLS + 4 * lane
}

/// v13: how many rows the block's loop is compiled for when `left` rows of C remain from its first
/// row (1, 4, 8 or 16: four monomorphized copies, so M = 1 does not pay 16 rows of FMAs).
#[inline(always)]
pub const fn skinny_rows(left: u32) -> u32 {
    match left {
        0..=1 => 1,
        2..=4 => 4,
        5..=8 => 8,
        _ => SKINNY_ROWS,
    }
}

/// v13: block `lin` (linear, within one split) → `(row group, strip)`, row groups fastest, so the
/// blocks that read the same strip of B run side by side and share it through L2.
#[inline(always)]
pub const fn skinny_block(lin: u32, row_groups: u32) -> (u32, u32) {
    (lin % row_groups, lin / row_groups)
}

#[cfg(test)]
mod split_tests {
    use super::*;

    #[test]
    fn split_k_fills_the_gpu_and_covers_k() {
        let split_k_with = |m, n, k, sms, b, d| split_k_tiles(m, n, k, sms, BM, BN, b, d, BK_WIDE);
        let split_k = |m, n, k, sms| split_k_with(m, n, k, sms, V12_SPLIT.0, V12_SPLIT.1);
        assert_eq!(split_k(1000, 1000, 1000, 132), (2, 512));
        assert_eq!(split_k(127, 8191, 1024, 132), (2, 512));
        assert_eq!(split_k_with(1000, 1000, 1000, 132, 2, 256), (3, 336));
        assert_eq!(split_k(4096, 4096, 4096, 132), (1, 4096));
        assert_eq!(split_k(1000, 1000, 300, 132), (1, 300), "K < 512: no split");
        // v13's strips: 1×4096² has 128 strips (no split); 1×1024×4096 32 (4 splits of 1024).
        let skinny = |m, n, k| split_k_tiles(m, n, k, 132, SKINNY_ROWS, SKINNY_COLS, SKINNY_SPLIT.0, SKINNY_SPLIT.1, SKINNY_KSTEP);
        assert_eq!(skinny(1, 4096, 4096), (1, 4096));
        assert_eq!(skinny(1, 1024, 4096), (4, 1024));
        assert_eq!(skinny(1, 1024, 1000), (1, 1000), "K below two splits of 512: none");
        assert_eq!(skinny(16, 256, 3000), (5, 640));
        for (m, n, k) in [(1, 1, 1), (128, 128, 100_000), (500, 300, 777), (2000, 64, 4097)] {
            let (s, ks) = skinny(m, n, k);
            assert!(ks % SKINNY_KSTEP == 0 || s == 1, "{m}x{n}x{k}");
            assert!((s - 1) * ks < k && s * ks >= k, "{m}x{n}x{k}: v13's splits nonempty, K covered");
        }
        for (m, n, k) in [(1, 1, 1), (128, 128, 100_000), (500, 300, 777), (2000, 64, 4097)] {
            let (s, ks) = split_k(m, n, k, 132);
            assert!(ks % 16 == 0 || s == 1, "{m}x{n}x{k}");
            assert!((s - 1) * ks < k && s * ks >= k, "{m}x{n}x{k}: every split nonempty, K covered");
        }
    }
}

#[cfg(test)]
mod skinny_tests {
    use super::*;

    /// The split by waves: never deeper than allowed, ranges cover K, one block per (tile, split), and
    /// its predicted time is the least over every allowed split (brute force); the cases that motivated it.
    /// v24's split by rounds: session 61's four outliers move to the splits measured best or near it,
    /// the base rule's measured splits stay (64 × 4096² twelve, 1000³ three), and the pick is never
    /// slower than the base rule's in the model.
    #[test]
    fn split_k_rounds_fills_the_last_round() {
        let pick = |m, n, k| split_k_rounds(m, n, k, 132, V14_ROWS, BN, V14_SPLIT.1, BK_WIDE).0;
        assert_eq!(pick(64, 57344, 8192), 5, "448 tiles: 1.01x at 4 splits, 0.79x whole");
        assert_eq!(pick(128, 10240, 8192), 4, "160 tiles: 0.93x at 4, 0.79x at 2 (the base rule)");
        assert_eq!(pick(512, 3584, 14336), 5, "224 tiles: 0.94x at 5, 0.82x whole");
        assert_eq!(pick(64, 64128, 3072), 3, "501 tiles: 0.94x at 2 and 3, 0.84x whole");
        for (m, n, k) in [(64, 4096, 4096), (1000, 1000, 1000), (1024, 1024, 1024), (128, 4096, 4096), (2048, 57344, 8192)] {
            assert_eq!(split_k_rounds(m, n, k, 132, V14_ROWS, BN, V14_SPLIT.1, BK_WIDE), split_k_tiles(m, n, k, 132, V14_ROWS, BN, V14_SPLIT.0, V14_SPLIT.1, BK_WIDE), "{m}x{n}x{k}");
        }
        for (m, n, k) in [(1, 1, 1), (64, 57344, 255), (3000, 3000, 16), (17, 33, 100_000), (1 << 20, 1 << 20, 1 << 20)] {
            let (s, d) = split_k_rounds(m, n, k, 132, V14_ROWS, BN, V14_SPLIT.1, BK_WIDE);
            assert!(s >= 1 && s * d >= k && (s - 1) * d < k, "{m}x{n}x{k}: ({s}, {d})");
        }
    }

    #[test]
    fn split_k_waves_takes_the_least_predicted_time() {
        let cost = |m: u32, n: u32, s: u32, d: u32, rows: u32, per_sm: u64| {
            let blocks = m.div_ceil(rows) as u64 * n.div_ceil(SKINNY_COLS) as u64 * s as u64;
            let rounds = blocks.div_ceil(132 * per_sm);
            (blocks * 128 * d as u64).div_ceil(132).max(rounds * 128 * d as u64) + rounds * SPLIT_BLOCK_COST_BYTES + if s > 1 { SPLIT_BLOCK_COST_BYTES } else { 0 }
        };
        for (rows, per_sm) in [(SKINNY_ROWS, 1), (SKINNY_SMALL_GROUP, SKINNY_SMALL_BLOCKS_PER_SM)] {
            for (m, n, k) in [(1, 5120, 13824), (4, 50257, 768), (1, 4096, 4096), (1, 14336, 4096), (16, 4096, 4096), (1, 6144, 4096), (3, 777, 100_000), (1, 8, 511), (9, 33, 1),
                          (1 << 20, 1 << 20, 1 << 20)] {
                let (s, d) = split_k_waves(m, n, k, 132, rows, SKINNY_COLS, per_sm, 512, SKINNY_KSTEP, 128);
                assert!(s >= 1 && (s == 1 || d % SKINNY_KSTEP == 0) && s * d >= k && (s - 1) * d < k, "{m}x{n}x{k}: ({s}, {d})");
                assert!(s == 1 || (d >= 512 && s <= 64), "{m}x{n}x{k}: ({s}, {d}) too deep a split");
                let t = cost(m, n, s, d, rows, per_sm as u64);
                for s2 in 2..=(k / 512).min(64) {
                    let d2 = SKINNY_KSTEP * k.div_ceil(s2).div_ceil(SKINNY_KSTEP);
                    assert!(t <= cost(m, n, k.div_ceil(d2), d2, rows, per_sm as u64), "{m}x{n}x{k}: ({s}, {d}) predicted slower than {s2} splits");
                }
            }
        }
        // Session 61's measured choices at two blocks per SM (v34): whole at 1 × 4096² (split in two 0.94×),
        // 1 × 6144 × 4096 (0.89×) and 4 × 4608 × 3584 (0.84×).
        for (m, n, k) in [(1, 4096, 4096), (1, 6144, 4096), (4, 4608, 3584), (1, 14336, 4096)] {
            assert_eq!(split_k_waves(m, n, k, 132, SKINNY_SMALL_GROUP, SKINNY_COLS, 2, 512, SKINNY_KSTEP, 128), (1, k), "{m}x{n}x{k}");
        }
        // 160 strips on 132 SMs: four splits (five waves of a quarter the bytes); 128 strips fill one wave.
        assert_eq!(split_k_waves(1, 5120, 13824, 132, SKINNY_ROWS, SKINNY_COLS, 1, 512, SKINNY_KSTEP, 128), (4, 3456));
        assert_eq!(split_k_waves(1, 4096, 4096, 132, SKINNY_ROWS, SKINNY_COLS, 1, 512, SKINNY_KSTEP, 128), (1, 4096));
    }

    #[test]
    fn skinny_threads_cover_the_strip_and_every_k_once() {
        let mut seen = [[false; SKINNY_COLS as usize]; SKINNY_KSTEP as usize];
        for tid in 0..THREADS {
            let (g, lane) = skinny_thread(tid);
            for kk in 0..4 {
                for c in 0..4 {
                    let cell = &mut seen[(4 * g + kk) as usize][(4 * lane + c) as usize];
                    assert!(!*cell, "tid {tid}");
                    *cell = true;
                }
            }
        }
        assert!(seen.iter().flatten().all(|&s| s));
    }

    #[test]
    fn skinny_sums_are_disjoint_and_conflict_free() {
        // Every (group, row, lane) its own float4, inside the buffer.
        let mut used = [false; (SKINNY_SMEM_BYTES / 16) as usize];
        for g in 0..SKINNY_GROUPS {
            for r in 0..SKINNY_ROWS {
                for lane in 0..SKINNY_LANES {
                    let w = skinny_sum_word(g, r, lane);
                    assert!(w % 4 == 0 && 4 * (w + 4) <= SKINNY_SMEM_BYTES);
                    assert!(!used[(w / 4) as usize]);
                    used[(w / 4) as usize] = true;
                }
            }
        }
        // A quarter-warp's st.shared.v4 (8 lanes of one group, one row): 32 distinct banks.
        let mut banks = 0u32;
        for l in 0..SKINNY_LANES {
            for i in 0..4 {
                banks |= 1 << ((skinny_sum_word(3, 5, l) + i) % 32);
            }
        }
        assert_eq!(banks, u32::MAX);
    }

    #[test]
    fn skinny_rows_and_blocks() {
        assert_eq!([1, 2, 4, 5, 8, 9, 16, 100].map(skinny_rows), [1, 4, 4, 8, 8, 16, 16, 16]);
        assert!((1..=100).all(|left| skinny_rows(left) >= left.min(SKINNY_ROWS)));
        assert_eq!(skinny_block(0, 4), (0, 0));
        assert_eq!(skinny_block(5, 4), (1, 1));
        assert_eq!(skinny_block(7, 1), (0, 7));
    }
}
