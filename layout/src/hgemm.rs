//! Tile shapes and shared-memory layouts of the block-level HGEMM ladder (seed 000's 128×256×32 tile,
//! 8 warps as 2 × 4, 64×64 per warp), shared by `kernels-gpu/src/hgemm/block_*.rs` and the host.
//!
//! Problem: `C (M×N, f16) = A (M×K, f16) · B (K×N, f16)`, row-major, f32 accumulation.
use crate::{Padded, RowMajor, SwizzleFn, Swizzled};

/// Rows of C per block.
pub const BM: u32 = 128;
/// Columns of C per block.
pub const BN: u32 = 256;
/// K per shared stage.
pub const BK: u32 = 32;
/// Threads per block (8 warps).
pub const THREADS: u32 = 256;
/// Rows of C per warp (2 warps along M).
pub const WM: u32 = 64;
/// Columns of C per warp (4 warps along N).
pub const WN: u32 = 64;

/// A tile unpadded: 128 rows of 32 halves (64 B): an 8-row `ldmatrix` phase hits 2 bank groups, 4-way.
pub const A_ROW_MAJOR: RowMajor = RowMajor { rows: BM, cols: BK };
/// B tile unpadded: 32 rows of 256 halves (512 B): an 8-row phase hits one bank group, 8-way.
pub const B_ROW_MAJOR: RowMajor = RowMajor { rows: BK, cols: BN };

/// A tile padded as seed 000 does: stride `storage_align(32, 32, 8)` = 40 halves (80 B, 20 banks).
pub const A_PADDED: Padded = Padded { rows: BM, cols: BK, stride: 40 };
/// B tile padded by 8 halves: stride 264 (`storage_align(256, 32, 8)`).
pub const B_PADDED: Padded = Padded { rows: BK, cols: BN, stride: 264 };

/// A tile swizzled as `kernel-lab layout solve --tile 128x32 --store store-v4-rowmajor --load ldmatrix-x4`
/// ranks first: `Swizzle<3,2,3>` on element offsets (the 16-byte chunk of a row, bits 3–4, XOR row bits
/// 1–2): 0 store and 0 load conflicts, no extra memory.
pub const A_SWIZZLED: Swizzled<RowMajor> = Swizzled { inner: A_ROW_MAJOR, swizzle: SwizzleFn { s: 3, b: 2, m: 3 } };
/// B tile swizzled as the solver ranks first for `ldmatrix-x4-trans`: `Swizzle<5,3,3>` (chunk bits 3–5
/// XOR row bits 0–2, at element bits 8–10).
pub const B_SWIZZLED: Swizzled<RowMajor> = Swizzled { inner: B_ROW_MAJOR, swizzle: SwizzleFn { s: 5, b: 3, m: 3 } };

/// Chunk `ch` of a row-major tile with `cols` columns, as the block's copies number them: 16-byte
/// chunks in row order, `(row, col) = (ch / (cols / 8), 8 · (ch % (cols / 8)))`. Thread `tid` copies
/// chunks `tid + THREADS · i`.
///
/// ```text
/// 128 × 64 A tile (8 chunks a row):  ch 0..7 → row 0, cols 0,8,…,56;  ch 8 → row 1, col 0; …
/// thread t: rows t/8, t/8 + 32, t/8 + 64, t/8 + 96 (a warp: 4 whole rows per instruction)
/// 64 × 256 B tile (32 chunks a row): a warp copies one whole 512-byte row per instruction
/// ```
#[inline(always)]
pub const fn copy_chunk(ch: u32, cols: u32) -> (u32, u32) {
    (ch / (cols / 8), 8 * (ch % (cols / 8)))
}

/// Shared stages of the `cp.async` pipeline step.
pub const STAGES: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Layout, pad::storage_align};

    #[test]
    fn paddings_are_storage_align_and_swizzles_stay_in_tile() {
        assert_eq!(Some(A_PADDED.stride), storage_align(BK, 32, 8));
        assert_eq!(Some(B_PADDED.stride), storage_align(BN, 32, 8));
        assert_eq!((A_PADDED_WIDE.stride, B_PADDED_WIDE.stride), (72, 264));
        let mut seen = [0u64; 128];
        assert!(A_SWIZZLED.check(&mut seen).is_ok());
        assert!(B_SWIZZLED.check(&mut seen).is_ok());
    }
}

/// K per shared stage of v7 (twice `BK`).
pub const BK_WIDE: u32 = 64;
/// v7's A tile (128 × 64, 128-byte rows), swizzled as the solver ranks first: `Swizzle<3,3,3>`.
pub const A_SWIZZLED_WIDE: Swizzled<RowMajor> = Swizzled { inner: RowMajor { rows: BM, cols: BK_WIDE }, swizzle: SwizzleFn { s: 3, b: 3, m: 3 } };
/// v9p's A tile: v7's 128 × 64 padded instead of swizzled, stride `storage_align(64, 32, 8)` = 72
/// halves (144 B = 36 banks: the 8 rows of an `ldmatrix` phase start 4 banks apart).
pub const A_PADDED_WIDE: Padded = Padded { rows: BM, cols: BK_WIDE, stride: unwrap_stride(crate::pad::storage_align(BK_WIDE, 32, 8)) };
/// v9p's B tile: 64 × 256 padded, stride `storage_align(256, 32, 8)` = 264.
pub const B_PADDED_WIDE: Padded = Padded { rows: BK_WIDE, cols: BN, stride: unwrap_stride(crate::pad::storage_align(BN, 32, 8)) };

const fn unwrap_stride(s: Option<u32>) -> u32 {
    match s {
        Some(s) => s,
        None => panic!("storage_align found no stride"),
    }
}

/// v7's B tile (64 × 256), swizzled as the solver ranks first: `Swizzle<5,3,3>`.
pub const B_SWIZZLED_WIDE: Swizzled<RowMajor> = Swizzled { inner: RowMajor { rows: BK_WIDE, cols: BN }, swizzle: SwizzleFn { s: 5, b: 3, m: 3 } };

/// v8's C tile staged in shared memory for the epilogue: 128 × 256 f16 with `Swizzle<5,3,3>` on element
/// offsets (the 16-byte chunk index XOR the row's low 3 bits). The `mma` C-fragment writes (lanes g, t →
/// row g, 4 bytes at column 2t, 8 rows per instruction) then hit 8 different chunks, 32 distinct banks;
/// the 128-bit reads of 8 consecutive chunks of a row stay one 128-byte wavefront.
pub const C_SWIZZLED: Swizzled<RowMajor> = Swizzled { inner: RowMajor { rows: BM, cols: BN }, swizzle: SwizzleFn { s: 5, b: 3, m: 3 } };

/// The decode step `d1` (split-K for small M): a block computes a `DECODE_BM × DECODE_BN` tile of C over
/// one split of K, streaming `DECODE_KT`-deep stages of A (16 × 64) and B (64 × 64) through a
/// `DECODE_STAGES`-deep `cp.async` ring. Every row of both tiles is 64 f16 = 128 bytes, swizzled
/// `Swizzle<3,3,3>` on element offsets (the 16-byte chunk index XOR the row's low 3 bits), so the 8 rows
/// an `ldmatrix` phase reads (16 bytes each, one column chunk) fall in 8 distinct chunks: 32 banks.
///
/// ```text
/// row r, 16-byte chunk c (elements 8c..8c+7)  →  stored at chunk c ^ (r % 8) of row r
/// ```
pub const DECODE_BM: u32 = 16;
/// Columns of C per `d1` block.
pub const DECODE_BN: u32 = 64;
/// K per `d1` stage (four k16 steps: one per warp).
pub const DECODE_KT: u32 = 64;
/// `d1`'s stages in flight.
pub const DECODE_STAGES: u32 = 4;
/// Bit of the split-K decode kernels' `flags` (d2, d24): B is not written by the grid launched just
/// before on the stream (model weights), so a kernel launched with PDL may copy its first weight stages
/// before `griddepcontrol.wait`. Without it every load waits for that grid.
pub const DECODE_B_AT_LAUNCH: u32 = 1;
/// `d1`'s threads per block (4 warps, one k16 step of each stage each).
pub const DECODE_THREADS: u32 = 128;
/// `d1`'s A stage tile (16 × 64).
pub const DECODE_A: Swizzled<RowMajor> = Swizzled { inner: RowMajor { rows: DECODE_BM, cols: DECODE_KT }, swizzle: SwizzleFn { s: 3, b: 3, m: 3 } };
/// `d1`'s B stage tile (64 × 64).
pub const DECODE_B: Swizzled<RowMajor> = Swizzled { inner: RowMajor { rows: DECODE_KT, cols: DECODE_BN }, swizzle: SwizzleFn { s: 3, b: 3, m: 3 } };
/// Bytes of one `d1` stage (A and B tiles of f16).
pub const DECODE_STAGE_BYTES: u32 = 2 * (DECODE_BM * DECODE_KT + DECODE_KT * DECODE_BN);
/// `d1`'s dynamic shared memory: the stage ring (the end-of-K reduction across warps, 4 × 16 × 64 f32
/// and a flag, reuses it).
pub const DECODE_SMEM: u32 = DECODE_STAGES * DECODE_STAGE_BYTES;

/// Threads of a d23 block (`hgemm_decode_v23`, the register-streamed decode step): 16 warps, each
/// streaming its own 16-row chunks of K (warp `w` takes chunks `w, w + 16, …`) of the block's 64
/// weight columns.
pub const D23_THREADS: u32 = 512;
/// K rows per d23 chunk: one `k16` step of `mma.m16n8k16`.
pub const D23_CHUNK_K: u32 = 16;
/// d23's warp tile: one 16 × 64 chunk of the weights, written by the warp's lanes from the registers
/// its `ld.global` filled and read back by the same warp's `ldmatrix.trans`; `Swizzle<3,3,3>` as
/// [`DECODE_B`] (chunk `c` of row `r` stored at chunk `c ^ (r % 8)`), so both are conflict-free.
pub const D23_W: Swizzled<RowMajor> = Swizzled { inner: RowMajor { rows: D23_CHUNK_K, cols: DECODE_BN }, swizzle: SwizzleFn { s: 3, b: 3, m: 3 } };
/// Row pitch (f32) of d23's cross-warp sum (`[warp][row of C][column]`): 64 + 4, so that the 32 lanes'
/// stores of one accumulator (columns `g`, rows `2t`: offset `2t·68 + g`, bank `8t + g`) hit 32 banks.
pub const D23_SUM_PITCH: u32 = DECODE_BN + 4;
/// d23's dynamic shared memory: the larger of the 16 warp tiles (32 KiB) and the cross-warp sum that
/// reuses them after the K loop (16 warps × 16 rows × [`D23_SUM_PITCH`] f32: 68 KiB).
pub const D23_DYN_SMEM: u32 = {
    let tiles = (D23_THREADS / 32) * 2 * D23_CHUNK_K * DECODE_BN;
    let sums = (D23_THREADS / 32) * 16 * D23_SUM_PITCH * 4;
    if tiles > sums { tiles } else { sums }
};

/// The row of d23's warp tile that holds row `r` (`< 16`) of a chunk of the weights: K permuted inside
/// the chunk so that the `mma.m16n8k16` B fragment of the activations — lane `t = lane % 4` holds K
/// `2t, 2t+1` (register 0) and `2t+8, 2t+9` (register 1) — is the 4 consecutive activations
/// `4t .. 4t+3` of a row, one 8-byte load. The sum over K does not depend on the order, so the weights'
/// rows are stored in the order the fragment names them:
///
/// ```text
/// chunk row r = 4t + 2h + e   (t < 4, h, e < 2)   →   tile row 8h + 2t + e
///  r:    0  1  2  3 |  4  5  6  7 |  8  9 10 11 | 12 13 14 15
///  row:  0  1  8  9 |  2  3 10 11 |  4  5 12 13 |  6  7 14 15
/// ```
pub const fn d23_tile_row(r: u32) -> u32 {
    let (t, h, e) = (r / 4, (r / 2) % 2, r % 2);
    8 * h + 2 * t + e
}

#[cfg(test)]
mod decode_tests {
    use super::*;
    use crate::Layout;

    #[test]
    fn d24_fragment_loads_stay_in_their_row_and_are_conflict_free_at_every_alignment() {
        use crate::fragment::MmaM16N8K16 as Mma;
        // Every B address offset (in elements past a 16-byte boundary) and every N mod 8, with N large
        // enough that k·N overflows u32 at deep K.
        for b_off in 0..8 {
            for big_n in [8u64, 9, 10, 11, 12, 13, 14, 15, 30_522, 50_257, (1 << 20) + 3] {
                for k16 in 0..4 {
                    for col in (0..64).step_by(8) {
                        for i in 0..4 {
                            let addr: [u32; 32] = core::array::from_fn(|lane| {
                                let (kr, nc) = Mma::b_rc(lane as u32, i);
                                let (k, n) = (16 * k16 + kr, col + nc);
                                let off = d24_raw_offset(k, n, b_off, big_n);
                                // Inside row k's raw bytes, and the element the chunks put there.
                                assert!(off >= k * D24_RAW_PITCH && off + 2 <= (k + 1) * D24_RAW_PITCH);
                                off
                            });
                            // A conflict: two lanes in one bank on different 4-byte words.
                            for x in &addr {
                                for y in &addr {
                                    assert!(x / 4 % 32 != y / 4 % 32 || x / 4 == y / 4, "b_off {b_off} N {big_n} k16 {k16} col {col} b{i}: {x} and {y}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(d24_smem(16), 4 * (2048 + 9216) + 16);
        assert!(d24_smem(128) <= 227 * 1024);
    }

    #[test]
    fn decode_splits_cover_k_without_empty_splits() {
        let four = |m, n, k| decode_split_with(m, n, k, 132, DECODE_BM, 4, u32::MAX);
        assert_eq!(four(1, 4096, 4096), (8, 512));
        assert_eq!(four(128, 4096, 4096), (2, 2048));
        assert_eq!(four(4096, 4096, 4096), (1, 4096));
        assert_eq!(decode_split_with(1, 4096, 4096, 132, DECODE_BM, 1, u32::MAX), (3, 1408));
        // The default grid: two blocks an SM where the 64 tiles leave SMs idle (Llama-3-8B's down
        // projection: 5 splits of 45 K tiles, 320 blocks); one an SM where the tiles exceed the SMs; never
        // a split under 8 K tiles beyond what one an SM gives; never fewer splits than that.
        let auto = |m, n, k| decode_split_with(m, n, k, 132, DECODE_BM, DECODE_BLOCKS_PER_SM_AUTO, 16);
        assert_eq!(auto(1, 4096, 14336), (5, 2880));
        assert_eq!(auto(1, 14336, 3584), decode_split_with(1, 14336, 3584, 132, DECODE_BM, 1, 16));
        assert_eq!(auto(1, 1024, 1024), decode_split_with(1, 1024, 1024, 132, DECODE_BM, 1, 16));
        assert_eq!(auto(8, 768, 3072), (10, 320));
        assert_eq!(auto(1, 3072, 8192), (6, 1408));
        for (m, n, k) in [(1, 8, 8), (3, 4096, 14336), (16, 28672, 8192), (1, 2048, 65536), (1, 64, 1 << 20), (16, 8192, 1000)] {
            let (s, ks) = auto(m, n, k);
            let (s1, _) = decode_split_with(m, n, k, 132, DECODE_BM, 1, 16);
            assert!(s >= s1 && s <= 16 && ks % DECODE_KT == 0 && (s - 1) * ks < k && s * ks >= k, "{m}x{n}x{k}: {s} splits of {ks}");
        }
        for (m, n, k) in [(1, 8, 8), (3, 4096, 14336), (16, 28672, 8192), (64, 8, 1_048_576), (1, 1 << 20, 64)] {
            let (s, ks) = four(m, n, k);
            assert!(ks % DECODE_KT == 0 && s >= 1, "{m}x{n}x{k}");
            assert!((s - 1) * ks < k && s * ks >= k, "{m}x{n}x{k}: every split nonempty, all of K covered");
        }
        for (m, n, k) in [(1, 8, 4096), (1, 512, 8192), (16, 64, 1 << 20)] {
            let (s, ks) = decode_split_with(m, n, k, 132, 16, 2, 16);
            assert!(s <= 16 && (s - 1) * ks < k && s * ks >= k, "{m}x{n}x{k}: capped at 16 splits, K covered");
        }
        let mut seen = [0u64; 64];
        assert!(DECODE_A.check(&mut seen).is_ok() && DECODE_B.check(&mut seen).is_ok());
        assert_eq!(DECODE_SMEM, 4 * (2048 + 8192));
        // The reduction across warps (4 × 16 × 64 f32) and its flag fit in the ring.
        assert!(4 * 16 * 64 * 4 + 16 <= DECODE_SMEM);
    }

    #[test]
    fn d23_rows_put_four_consecutive_activations_in_one_b_fragment() {
        // A permutation of the 16 rows.
        let mut hit = [false; 16];
        for r in 0..16 {
            hit[d23_tile_row(r) as usize] = true;
        }
        assert!(hit.iter().all(|&h| h));
        // Lane t's B fragment holds K slots 2t, 2t+1 (register 0) and 2t+8, 2t+9 (register 1) of the
        // tile; chunk rows 4t .. 4t+3 must sit exactly there, in that order.
        for t in 0..4 {
            let slots = [2 * t, 2 * t + 1, 2 * t + 8, 2 * t + 9];
            for (i, slot) in slots.iter().enumerate() {
                assert_eq!(d23_tile_row(4 * t + i as u32), *slot, "t {t}, activation {i}");
            }
        }
        let mut seen = [0u64; 64];
        assert!(D23_W.check(&mut seen).is_ok());
        assert_eq!(D23_DYN_SMEM, 16 * 16 * 68 * 4);
        // The sum's stores of one accumulator register: lane (g, t) at column g, row 2t → 32 banks.
        let mut banks = 0u32;
        for l in 0..32 {
            banks |= 1 << ((2 * (l % 4) * D23_SUM_PITCH + l / 4) % 32);
        }
        assert_eq!(banks, u32::MAX);
    }
}

/// d2's A stage tile for `bm` rows (16 or 64) × 64, swizzled as [`DECODE_A`].
pub const fn decode_a(bm: u32) -> Swizzled<RowMajor> {
    Swizzled { inner: RowMajor { rows: bm, cols: DECODE_KT }, swizzle: SwizzleFn { s: 3, b: 3, m: 3 } }
}

/// Bytes of one d2 stage with `bm` rows of A.
pub const fn decode_stage_bytes(bm: u32) -> u32 {
    2 * (bm * DECODE_KT + DECODE_KT * DECODE_BN)
}

/// d2's dynamic shared memory with `bm` rows of A: the stage ring (no cross-warp reduction: each warp
/// owns 16 of the 64 columns) and one flag word.
pub const fn decode_smem(bm: u32) -> u32 {
    DECODE_STAGES * decode_stage_bytes(bm) + 16
}

/// 16-byte chunks of one row of d24's raw weight stage: a row's 64 elements start at any of 8 offsets
/// in their first 16-byte chunk (B's rows at any 2-byte alignment), so 9 aligned chunks cover them.
pub const D24_RAW_CHUNKS: u32 = 9;
/// Row pitch (bytes) of d24's raw weight stage, 144: a fragment load's 4 rows (`2t`, 2 rows apart) start
/// 288 bytes apart, 32 mod 128, and each spans at most 14 + 16 bytes, so the 32 lanes' 16-bit loads fall
/// in distinct bank words or share one (no conflict) wherever the rows start.
pub const D24_RAW_PITCH: u32 = 16 * D24_RAW_CHUNKS;

/// Bytes of one d24 stage: d2's A tile for `bm` rows and the raw weight rows (64 × [`D24_RAW_PITCH`]).
pub const fn d24_stage_bytes(bm: u32) -> u32 {
    2 * bm * DECODE_KT + DECODE_KT * D24_RAW_PITCH
}

/// d24's dynamic shared memory: the stage ring and the last-block flag (16 bytes).
pub const fn d24_smem(bm: u32) -> u32 {
    DECODE_STAGES * d24_stage_bytes(bm) + 16
}

/// Row pitch (f32) of the column-owning decode steps' split partials (d2, d24) for N columns: N rounded
/// up to even, so each thread's 64-bit pair store is aligned (N is a multiple of 8 for d2: N itself).
pub const fn decode_ws_pitch(n: u32) -> u32 {
    n + n % 2
}

/// Where d24 finds element `(k, n)` of a weight stage (`k < 64`, `n < 64`) in its raw rows, in bytes
/// from the stage's B base: row `k` holds the aligned chunks that cover the row's 64 elements, the first
/// of them `e` elements into its chunk, `e = (b_off + k·N) mod 8` (`b_off`: B's address in elements
/// past the 16-byte boundary below it). `e` depends on `k mod 8` only: a stage's rows start at K offsets
/// that are multiples of 64 and column offsets that are multiples of 64.
pub const fn d24_raw_offset(k: u32, n: u32, b_off: u32, big_n: u64) -> u32 {
    let e = ((b_off as u64 + k as u64 * big_n) % 8) as u32;
    k * D24_RAW_PITCH + 2 * (e + n)
}

/// `blocks_per_sm` for [`decode_split_with`]'s default grid (the host's, unless
/// `KERNEL_LAB_DECODE_BLOCKS_PER_SM` asks for a fixed target): one block per SM, and about
/// [`DECODE_FEW_TILES_BLOCKS_PER_SM`] where the tiles alone leave SMs idle.
pub const DECODE_BLOCKS_PER_SM_AUTO: u32 = 0;
/// The default grid's target where the tiles alone leave SMs idle: 2 blocks per SM. A d2 block keeps
/// three 10 KiB stages in flight: one a SM (132 × 30 KiB ≈ 4 MB) does not cover the DRAM's
/// bandwidth-latency product (~4.2 TB/s × ~1.5–2 µs), two do. Measured on an H200 (session 79, d2 at
/// 1–16 rows, 3 processes): 1.05–1.14× one block per SM at 48–64 column tiles with K ≥ 3072
/// (1×3584×14336 0.89 → 0.99× cuBLAS), while adding a split where the tiles already exceed the SMs loses
/// 9–16% (1×14336×3584: 224 tiles, 2 splits 0.90×).
pub const DECODE_FEW_TILES_BLOCKS_PER_SM: u32 = 2;
/// The default grid adds splits past one block per SM only while each stays at least this many 64-deep
/// K tiles deep (a split's fixed cost — its ring's first fill, the partial's round trip — against its
/// stream: session 79's shallow splits of ≤ 3 K tiles lost 3–11%).
pub const DECODE_MIN_SPLIT_KTILES: u32 = 8;

/// `(splits, k_split)` for a decode step (`bm`-row tiles) on an `m × n × k` product on a GPU with `sms`
/// SMs: enough splits of K that the grid holds about `blocks_per_sm` blocks per SM (the weights stream
/// from every SM at once), at most `max_splits`, each split a whole number of `DECODE_KT` stages and
/// none empty. `blocks_per_sm` [`DECODE_BLOCKS_PER_SM_AUTO`] (the host's default,
/// `runtime::tuning::decode_blocks_per_sm`): one block per SM, or where the tiles are fewer than the SMs
/// [`DECODE_FEW_TILES_BLOCKS_PER_SM`] as long as each split keeps [`DECODE_MIN_SPLIT_KTILES`] K tiles,
/// never fewer splits than one per SM gives.
///
/// ```text
/// tiles  = ⌈n / 64⌉ · ⌈m / bm⌉
/// splits = clamp(⌈blocks_per_sm·sms / tiles⌉, 1, min(max_splits, ⌈k / 64⌉))
/// k_split = 64·⌈⌈k / splits⌉ / 64⌉;  splits = ⌈k / k_split⌉
/// auto: splits(1), or where tiles < sms: max(splits(1), min(⌈2·sms / tiles⌉, max_splits, ⌊⌈k / 64⌉ / 8⌋))
/// ```
pub const fn decode_split_with(m: u32, n: u32, k: u32, sms: u32, bm: u32, blocks_per_sm: u32, max_splits: u32) -> (u32, u32) {
    let tiles = n.div_ceil(DECODE_BN) * m.div_ceil(bm);
    let k_tiles = k.div_ceil(DECODE_KT);
    let per_sm = if blocks_per_sm == DECODE_BLOCKS_PER_SM_AUTO { 1 } else { blocks_per_sm };
    let mut splits = (per_sm * sms).div_ceil(tiles);
    if splits < 1 {
        splits = 1;
    }
    if splits > max_splits {
        splits = max_splits;
    }
    if splits > k_tiles {
        splits = k_tiles;
    }
    if blocks_per_sm == DECODE_BLOCKS_PER_SM_AUTO && tiles < sms {
        let mut more = (DECODE_FEW_TILES_BLOCKS_PER_SM * sms).div_ceil(tiles);
        if more > max_splits {
            more = max_splits;
        }
        if more > k_tiles / DECODE_MIN_SPLIT_KTILES {
            more = k_tiles / DECODE_MIN_SPLIT_KTILES;
        }
        if more > splits {
            splits = more;
        }
    }
    let k_split = DECODE_KT * k.div_ceil(splits).div_ceil(DECODE_KT);
    (k.div_ceil(k_split), k_split)
}
