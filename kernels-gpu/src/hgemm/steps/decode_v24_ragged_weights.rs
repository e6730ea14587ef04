//! Decode ladder d24 — d2 with the weights read where they lie: N (B's row pitch) and B's and C's
//! addresses need not be multiples of 8 elements (16 bytes). Before it, such a shape (a vocabulary of
//! 30 522 or 50 257 tokens) ran through copies of B and C into padded buffers, which at decode sizes
//! moved three times the bytes of the product itself (0.29–0.44× cuBLAS, `results/2026-11-28-h200-session48`).
//!
//! The one change, [`Raw`]:
//! * **Copies**: a weight row's 64 elements start at any of 8 offsets inside a 16-byte chunk, so the
//!   stage holds each row as the 9 aligned chunks that cover it (`layout::hgemm::D24_RAW_PITCH`, 144
//!   bytes), copied by 16-byte `cp.async` whose source size stops at the row's last element of the tile
//!   (the rest zero-filled: columns at and past N read zeros, nothing past the row is read); rows at and
//!   past the split's K end are zero-filled whole.
//! * **Fragments**: `ldmatrix.trans` needs each 8-element row piece 16-byte aligned, which a raw row is
//!   not, so each lane gathers its four B elements per n8 fragment with `ld.shared.u16` at
//!   `layout::hgemm::d24_raw_offset` (the row's offset `e = (b_off + k·N) mod 8` depends only on `k mod 8`:
//!   four offsets per lane, computed once) and packs them in pairs. The 144-byte pitch keeps the 32 lanes
//!   of each load conflict-free at every `e` (layout's test
//!   `d24_fragment_loads_stay_in_their_row_and_are_conflict_free_at_every_alignment`).
//! * **C** as 16-bit stores where a pair is not 4-byte aligned or its second column is past N; the
//!   partials' rows padded to an even pitch.
//!
//! Cost, predicted: per k16 step a warp issues 8 `ld.shared.u16` and 4 packs where d2 issued one
//! `ldmatrix.x4.trans`, and each weight row copies 9 chunks for 8; at M ≤ 16 d2 is bound by the
//! weights' bytes, so d24 should run within ~5% of d2 on the same bytes.
use super::decode_columns::{Weights, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cp_async::{cp_async_cg_16, cp_async_cg_16_zfill}, shared::ld_shared_u16};
use layout::{
    fragment::MmaM16N8K16,
    hgemm::{D24_RAW_CHUNKS as CHUNKS, D24_RAW_PITCH as PITCH, DECODE_BN as BN, DECODE_KT as KT, DECODE_THREADS as THREADS, d24_raw_offset, decode_ws_pitch},
};

launch_bounds!(hgemm_decode_v24, 128);
launch_bounds!(hgemm_decode_v24_m64, 128);
launch_bounds!(hgemm_decode_v24_m128, 128);
launch_bounds!(hgemm_decode_v24_bf16, 128);
launch_bounds!(hgemm_decode_v24_m64_bf16, 128);
launch_bounds!(hgemm_decode_v24_m128_bf16, 128);

/// Copies chunk `j` of raw row `row` of a weight stage (zero-filled past the row's `width` columns, and
/// whole where `in_k` is false).
///
/// # Safety
/// `first` is the 16-byte chunk holding the tile's element (row 0, column 0), `s0` elements into it;
/// rows are `n` elements apart; `row < 64`, `j < 9`, `width ≤ 64` columns of the row inside B; `s_b` a
/// stage's weight part.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_chunk(s_b: u32, first: *const u8, s0: u32, width: u32, n: u32, row: u32, j: u32, in_k: bool) {
    let start = s0 + row * n; // the row's first element of the tile, from `first`
    let chunk = start / 8 + j;
    // Elements of this chunk up to the row's last one in the tile (none past it, or past K).
    let valid = ((start + width) as i32 - (8 * chunk) as i32).clamp(0, 8) as u32;
    let bytes = if in_k { 2 * valid } else { 0 };
    let src = if bytes > 0 { first.wrapping_add(16 * chunk as usize) } else { first };
    // SAFETY: the first `bytes` bytes at `src` are elements of that row of B up to its last column in
    // the tile, except, in a row's first chunk, the elements before the tile's first column in the same
    // 16-byte granule: the previous row's, or before B itself for B's row 0 — a 16-byte granule holding
    // an element of B lies inside B's allocation (CUDA allocations start 256-byte aligned and end on a
    // 16-byte multiple at least); they are never used. The destination is inside the stage's raw rows
    // (row < 64, chunk < 9, 16-byte aligned).
    unsafe { cp_async_cg_16_zfill(s_b + row * PITCH + 16 * j, src, bytes) };
}

/// d24's weights: each row of the tile as the aligned 16-byte chunks covering it.
struct Raw;

impl Weights for Raw {
    const B_BYTES: u32 = KT * PITCH;
    /// Byte offsets (from a stage's weight part, k16 step 0, columns `16w …`) of this lane's four B
    /// elements `b_0 … b_3`.
    type Lane = [u32; 4];

    #[inline(always)]
    fn lane(lane: u32, warp: u32, b: *const u16, n: u32) -> [u32; 4] {
        let b_off = (b as usize / 2 % 8) as u32;
        let at = |i: u32| {
            let (kr, nc) = MmaM16N8K16::b_rc(lane, i);
            d24_raw_offset(kr, 16 * warp + nc, b_off, n as u64)
        };
        [at(0), at(1), at(2), at(3)]
    }

    #[inline(always)]
    unsafe fn load(s_b: u32, b: *const u16, n: u32, k_end: u32, n0: u32, k0: u32, tid: u32) {
        // Elements are counted from the 16-byte boundary at or below `b`. The tile's first element,
        // (k0, n0), is `at` elements past it: chunk `at / 8`, `at % 8` elements in. Everything per chunk
        // below is 32-bit, relative to that chunk (row · n < 2^26).
        let base = (b as usize & !15) as *const u8;
        let at = (b as usize / 2 % 8) as u64 + k0 as u64 * n as u64 + n0 as u64;
        let first = base.wrapping_add(16 * (at / 8) as usize);
        let (s0, width) = ((at % 8) as u32, if n - n0 < BN { n - n0 } else { BN });
        // Chunks 0–7 of every row: 8 lanes a row (128 contiguous bytes), 16 rows a round, 4 rounds.
        // In a tile whose 64 columns are all inside N and whose 64 rows are all inside the split, those
        // chunks hold only elements of the row (the row's 64 elements end in chunk 8 or at the end of
        // chunk 7): whole 16-byte copies, no size arithmetic.
        let whole = width == BN && k0 + KT <= k_end;
        let (r0, j) = (4 * (tid / 32) + tid % 32 / 8, tid % 8);
        let mut i = 0;
        while i < 4 {
            let row = r0 + 16 * i;
            if whole {
                let chunk = (s0 + row * n) / 8 + j;
                // SAFETY: 16 bytes of row k0 + row of B (above), 16-byte aligned; the destination is
                // inside this stage's raw rows.
                unsafe { cp_async_cg_16(s_b + row * PITCH + 16 * j, first.wrapping_add(16 * chunk as usize)) };
            } else {
                // SAFETY: as `copy_chunk` states.
                unsafe { copy_chunk(s_b, first, s0, width, n, row, j, k0 + row < k_end) };
            }
            i += 1;
        }
        // Chunk 8 of each row (the rest of a row that starts inside its first chunk): one thread a row.
        if tid < KT {
            // SAFETY: as `copy_chunk` states.
            unsafe { copy_chunk(s_b, first, s0, width, n, tid, CHUNKS - 1, k0 + tid < k_end) };
        }
    }

    #[inline(always)]
    unsafe fn fragments(s_b: u32, k16: u32, off: &[u32; 4]) -> [u32; 4] {
        let base = s_b + 16 * k16 * PITCH;
        // SAFETY: inside row 16·k16 + k of the stage's raw rows (layout's test); visible after the
        // ring's barrier.
        let ld = |o: u32| unsafe { ld_shared_u16(base + o) } as u32;
        let pack = |lo: u32, hi: u32| ld(lo) | ld(hi) << 16;
        // Columns 16w + g (n8 half 0), then 16w + 8 + g (16 bytes on): b_0 / b_1, b_2 / b_3 in pairs.
        [pack(off[0], off[1]), pack(off[2], off[3]), pack(off[0] + 16, off[1] + 16), pack(off[2] + 16, off[3] + 16)]
    }

    #[inline(always)]
    unsafe fn store_pair(c: *mut u16, n: u32, row: u32, col: u32, pair: u32) {
        // SAFETY: `(row, col)` in bounds (caller); the second element only where col + 1 < n; the
        // 32-bit store only where its address is 4-byte aligned.
        unsafe {
            let p = c.add(row as usize * n as usize + col as usize);
            if col + 1 < n && p as usize % 4 == 0 {
                *(p as *mut u32) = pair;
            } else {
                *p = pair as u16;
                if col + 1 < n {
                    *p.add(1) = (pair >> 16) as u16;
                }
            }
        }
    }

    #[inline(always)]
    fn ws_pitch(n: u32) -> u32 {
        decode_ws_pitch(n)
    }
}

/// `C = A · B` (f16, row-major, f32 accumulation) for M ≤ 16 per tile row, split along K, with B and C
/// at any 2-byte alignment and any N.
///
/// # Safety
/// 128 threads per block, `d24_smem(16)` bytes of dynamic shared memory (16-byte aligned), grid
/// `(⌈n / 64⌉, ⌈m / 16⌉ · splits)`, `splits = ⌈k / k_split⌉ <= split_k::MAX_SPLITS` (16), `k_split` a
/// positive multiple of 64; `a` holds m·k f16, 16-byte aligned, `k % 8 == 0`; `b` holds k·n and `c` m·n
/// f16, 2-byte aligned, in allocations that start 16-byte aligned; when splits > 1, `ws` (8-byte
/// aligned) holds `splits · 16⌈m/16⌉ · (n + n % 2)` f32 and `count` `⌈n/64⌉ · ⌈m/16⌉` u32, the counters
/// zero at launch (the kernel leaves them zero), neither used by a concurrent launch; `flags` as
/// `hgemm_decode_v2`'s.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v24(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<1, F16, Raw>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v24`] with 64-row tiles: `d24_smem(64)` bytes, grid `(⌈n / 64⌉, ⌈m / 64⌉ · splits)`,
/// `ws` of `splits · 64⌈m/64⌉ · (n + n % 2)` f32, `count` of `⌈n/64⌉ · ⌈m/64⌉`.
///
/// # Safety
/// As [`hgemm_decode_v24`] with those sizes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v24_m64(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<4, F16, Raw>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v24`] with 128-row tiles: `d24_smem(128)` bytes, grid `(⌈n / 64⌉, ⌈m / 128⌉ · splits)`,
/// `ws` of `splits · 128⌈m/128⌉ · (n + n % 2)` f32, `count` of `⌈n/64⌉ · ⌈m/128⌉`.
///
/// # Safety
/// As [`hgemm_decode_v24`] with those sizes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v24_m128(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<8, F16, Raw>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v24`] on bf16 A, B and C.
///
/// # Safety
/// As [`hgemm_decode_v24`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v24_bf16(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<1, Bf16, Raw>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v24_m64`] on bf16 A, B and C.
///
/// # Safety
/// As [`hgemm_decode_v24_m64`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v24_m64_bf16(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<4, Bf16, Raw>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v24_m128`] on bf16 A, B and C.
///
/// # Safety
/// As [`hgemm_decode_v24_m128`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v24_m128_bf16(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<8, Bf16, Raw>(a, b, c, ws, count, m, n, k, k_split, flags) }
}
