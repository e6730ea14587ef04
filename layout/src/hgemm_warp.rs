//! Seed 001's single-warp 16×16×16 ladder: the three layouts of its 16×16 f16 tiles, used by the
//! kernels (`kernels-gpu/src/hgemm/warp_*`) and by the host's trace of each step alike.
use crate::{Padded, RowMajor, SwizzleFn, Swizzled, pad::pad_row};

/// The row-major 16×16 tile (v2, v4; C of v3): row `r` at element offset `16 r`.
pub const TILE: RowMajor = RowMajor { rows: 16, cols: 16 };

/// v3's A and B tiles: rows padded by 8 halves to a 24-element (48-byte) stride, so the 8 rows an
/// `ldmatrix` phase reads start in 8 different 16-byte bank groups.
///
/// ```text
/// row r → element offset 24 r:  bytes 0, 48, 96, …  → banks 0, 12, 24, 4, 16, 28, 8, 20 (+0..3)
/// ```
pub const PADDED: Padded = Padded { rows: 16, cols: 16, stride: pad_row(16, 8) };

/// v5's tiles: `Swizzle<3,1,3>` on element offsets of [`TILE`] (CuTe `Swizzle<1,3,3>`; unit: one f16
/// element): bit 6 of the offset (row bit 2) is XORed into bit 3 (the 16-byte chunk of the row):
///
/// ```text
/// offset bits:  r3 r2 r1 r0 c3 c2 c1 c0          (element offset 16 r + c)
/// swizzled:     r3 r2 r1 r0 (c3^r2) c2 c1 c0
/// ```
/// so rows 4–7 and 12–15 hold their two 16-byte chunks swapped, and the 8 rows of an `ldmatrix` phase
/// cover all 32 banks.
pub const SWIZZLED: Swizzled<RowMajor> = Swizzled { inner: TILE, swizzle: SwizzleFn { s: 3, b: 1, m: 3 } };
