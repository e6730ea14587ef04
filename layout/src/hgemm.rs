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
