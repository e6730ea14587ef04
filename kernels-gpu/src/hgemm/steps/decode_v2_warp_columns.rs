//! Decode ladder d2 — d1 with the warps splitting the columns instead of K, the splits' partial tiles
//! stored (not added) and summed by the last block, and 64-row tiles for 16 < M ≤ 64.
//!
//! Changes from d1, each for a cost d1 measured (H100, weights rotated beyond L2):
//! * **Warps own columns**: warp w computes columns 16w … 16w+15 of the block's 64 over all four k16
//!   steps of a stage (four `ldmatrix.x4` of A, four `.trans` of B, eight `mma`), so a warp's sums are
//!   final for its split: d1's end-of-K reduction through 16 KiB of shared memory is gone.
//! * **Partials stored, not added**: each split writes its f32 tile with plain stores to its own slice
//!   of the workspace (`ws[split][row][col]`); the last block of the tile (the counter of d1) sums the
//!   splits from L2 in the same fragment order and writes C. d1 issued `red.global.add.f32` for every
//!   output of every split (524 288 at 16×4096×4096): it ran 1.3× slower at M = 16 than at M = 1.
//! * **`hgemm_decode_v2_m64`**: 64-row tiles (four m16 fragments of A per k16), so for 16 < M ≤ 64 the
//!   weights are read once, not once per 16 rows (d1 fell to 55% of cuBLAS at M = 64);
//!   **`hgemm_decode_v2_m128`** (`d2m128`, prefill): 128-row tiles, eight m16 fragments — the same
//!   streaming kernel for 64 < M ≤ 256, where h6's 16–32 CTAs left most SMs idle (54–63% of cuBLAS).
//!
//! The body (`decode_columns.rs`, shared with d24) is generic over how a stage holds the weights; d2's
//! [`Aligned`] copies 16-byte pieces of B's rows into `DECODE_B`'s swizzled tile and reads them back by
//! `ldmatrix.trans`.
use super::decode_columns::{Weights, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cp_async::cp_async_cg_16_zfill, ldmatrix::ldmatrix_x4_trans};
use layout::{
    Layout,
    fragment::Ldmatrix,
    hgemm::{DECODE_B as LB, DECODE_KT as KT, DECODE_THREADS as THREADS},
};

launch_bounds!(hgemm_decode_v2, 128);
launch_bounds!(hgemm_decode_v2_m64, 128);
launch_bounds!(hgemm_decode_v2_m128, 128);
launch_bounds!(hgemm_decode_v2_bf16, 128);
launch_bounds!(hgemm_decode_v2_m64_bf16, 128);

/// d2's weights: B's rows in 16-byte pieces (`n % 8 == 0`, B 16-byte aligned), swizzled as `DECODE_B`.
struct Aligned;

impl Weights for Aligned {
    const B_BYTES: u32 = 2 * KT * layout::hgemm::DECODE_BN;
    /// The `ldmatrix.trans` row and column of this lane, and its warp.
    type Lane = (u32, u32, u32);

    #[inline(always)]
    fn lane(lane: u32, warp: u32, _b: *const u16, _n: u32) -> (u32, u32, u32) {
        let (br, bc) = Ldmatrix::X4_TRANS.tile_addr_rc(lane);
        (br, bc, warp)
    }

    #[inline(always)]
    unsafe fn load(s_b: u32, b: *const u16, n: u32, k_end: u32, n0: u32, k0: u32, tid: u32) {
        let mut i = 0;
        while i < 4 {
            let ch = tid + THREADS * i;
            let (row, col) = (ch / 8, 8 * (ch % 8));
            let ok = k0 + row < k_end && n0 + col < n;
            let src = if ok { b.wrapping_add((k0 + row) as usize * n as usize + (n0 + col) as usize) } else { b };
            // SAFETY: 16 readable, aligned bytes where `ok` (n % 8 == 0, B aligned), none read
            // otherwise; inside the stage's B tile.
            unsafe { cp_async_cg_16_zfill(s_b + 2 * LB.offset(row, col), src as *const u8, if ok { 16 } else { 0 }) };
            i += 1;
        }
    }

    #[inline(always)]
    unsafe fn fragments(s_b: u32, k16: u32, &(br, bc, warp): &(u32, u32, u32)) -> [u32; 4] {
        // SAFETY: inside the stage's B tile; the caller's barrier made it visible.
        unsafe { ldmatrix_x4_trans(s_b + 2 * LB.offset(16 * k16 + br, 16 * warp + bc)) }
    }

    #[inline(always)]
    unsafe fn store_pair(c: *mut u16, n: u32, row: u32, col: u32, pair: u32) {
        // SAFETY: in bounds (caller); col even and n even: the 32-bit store is aligned.
        unsafe { *(c.add(row as usize * n as usize + col as usize) as *mut u32) = pair };
    }

    #[inline(always)]
    fn ws_pitch(n: u32) -> u32 {
        n
    }
}

/// `C = A · B` (f16, row-major, f32 accumulation) for M ≤ 16 per tile row, split along K.
///
/// # Safety
/// 128 threads per block, `decode_smem(16)` bytes of dynamic shared memory (16-byte aligned), grid
/// `(⌈n / 64⌉, ⌈m / 16⌉ · splits)`, `splits = ⌈k / k_split⌉ <= split_k::MAX_SPLITS` (16), `k_split` a positive multiple of 64;
/// `a`, `b`, `c` hold m·k, k·n, m·n f16, 16-byte aligned, `k % 8 == 0`, `n % 8 == 0`; when splits > 1,
/// `ws` holds `splits · 16⌈m/16⌉ · n` f32 and `count` `⌈n/64⌉ · ⌈m/16⌉` u32, the counters zero at launch
/// (the kernel leaves them zero), neither used by a concurrent launch; with `flags` bit
/// `DECODE_B_AT_LAUNCH`, `b` is not written by the grid launched just before on the stream.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<1, F16, Aligned>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v2`] with 64-row tiles: `decode_smem(64)` bytes, grid `(⌈n / 64⌉, ⌈m / 64⌉ ·
/// splits)`, `ws` of `splits · 64⌈m/64⌉ · n` f32, `count` of `⌈n/64⌉ · ⌈m/64⌉`.
///
/// # Safety
/// As [`hgemm_decode_v2`] with those sizes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2_m64(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<4, F16, Aligned>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v2`] with 128-row tiles (prefill, 64 < M ≤ 256): `decode_smem(128)` bytes, grid
/// `(⌈n / 64⌉, ⌈m / 128⌉ · splits)`, `ws` of `splits · 128⌈m/128⌉ · n` f32, `count` of `⌈n/64⌉ · ⌈m/128⌉`.
///
/// # Safety
/// As [`hgemm_decode_v2`] with those sizes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2_m128(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<8, F16, Aligned>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v2`] on bf16 A, B and C.
///
/// # Safety
/// As [`hgemm_decode_v2`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2_bf16(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<1, Bf16, Aligned>(a, b, c, ws, count, m, n, k, k_split, flags) }
}

/// [`hgemm_decode_v2_m64`] on bf16 A, B and C.
///
/// # Safety
/// As [`hgemm_decode_v2_m64`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2_m64_bf16(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32, flags: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<4, Bf16, Aligned>(a, b, c, ws, count, m, n, k, k_split, flags) }
}
