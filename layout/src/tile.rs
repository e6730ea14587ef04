//! 2-D tile layouts: logical `(row, col)` → storage offset in elements.
//!
//! Kernels compute both their global→shared store addresses and their shared→register load addresses
//! through one [`Layout`], so the two cannot disagree; the host's bank model and bank maps call the
//! same `offset` to predict and draw what the kernel does.
use crate::swizzle::{LayoutError, SwizzleFn};

/// A map from logical `(row, col)` of a `rows × cols` tile to an element offset in its storage.
pub trait Layout {
    /// Logical rows.
    fn rows(&self) -> u32;
    /// Logical columns.
    fn cols(&self) -> u32;
    /// Element offset of `(row, col)`; callers keep `row < rows()` and `col < cols()`.
    fn offset(&self, row: u32, col: u32) -> u32;
    /// Elements of storage the layout needs (allocation size).
    fn size(&self) -> u32;

    /// Checks that every coordinate maps inside `size()` and no two coordinates share an offset.
    /// `O(rows·cols)` with a bitmap of `size()` bits in `seen` (at least `size()` bits long).
    fn check(&self, seen: &mut [u64]) -> Result<(), LayoutError> {
        for w in seen.iter_mut() {
            *w = 0;
        }
        for row in 0..self.rows() {
            for col in 0..self.cols() {
                let offset = self.offset(row, col);
                if offset >= self.size() || (offset / 64) as usize >= seen.len() {
                    return Err(LayoutError::OutsideTile { row, col, offset, size: self.size() });
                }
                let (w, bit) = ((offset / 64) as usize, offset % 64);
                if seen[w] >> bit & 1 == 1 {
                    return Err(LayoutError::OutsideTile { row, col, offset, size: self.size() });
                }
                seen[w] |= 1 << bit;
            }
        }
        Ok(())
    }
}

/// Row-major, unpadded: `offset = row · cols + col`.
///
/// ```text
/// 16×16 f16 (32 B per row): row r starts at byte 32r → bank 8r mod 32: rows 0, 4, 8, 12 share banks
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowMajor {
    /// Rows.
    pub rows: u32,
    /// Columns (and the stride).
    pub cols: u32,
}

impl Layout for RowMajor {
    fn rows(&self) -> u32 { self.rows }
    fn cols(&self) -> u32 { self.cols }
    #[inline(always)]
    fn offset(&self, row: u32, col: u32) -> u32 { row * self.cols + col }
    fn size(&self) -> u32 { self.rows * self.cols }
}

impl RowMajor {
    /// `d` such that `offset(r + rows, c) == offset(r, c) + d` for every `(r, c)`: `rows · cols`.
    pub const fn row_step(&self, rows: u32) -> Option<u32> {
        Some(rows * self.cols)
    }
}

/// Row-major with a row stride larger than the row: `offset = row · stride + col` (seed 000's
/// `16 + 8`, or a stride from [`crate::pad::storage_align`]).
///
/// ```text
/// 16×16 f16, stride 24 (48 B): row r starts at bank 12r mod 32: 0, 12, 24, 4, 16, 28, 8, 20 — 8 rows,
/// 8 distinct 4-bank groups, so an 8-row ldmatrix phase is conflict-free
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Padded {
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Elements between the starts of consecutive rows (`>= cols`).
    pub stride: u32,
}

impl Padded {
    /// A padded layout; the stride must hold a row.
    pub const fn new(rows: u32, cols: u32, stride: u32) -> Result<Self, LayoutError> {
        if stride < cols {
            return Err(LayoutError::BadStride { cols, stride });
        }
        Ok(Padded { rows, cols, stride })
    }
}

impl Padded {
    /// `d` such that `offset(r + rows, c) == offset(r, c) + d` for every `(r, c)`: `rows · stride`.
    pub const fn row_step(&self, rows: u32) -> Option<u32> {
        Some(rows * self.stride)
    }
}

impl Layout for Padded {
    fn rows(&self) -> u32 { self.rows }
    fn cols(&self) -> u32 { self.cols }
    #[inline(always)]
    fn offset(&self, row: u32, col: u32) -> u32 { row * self.stride + col }
    fn size(&self) -> u32 { self.rows * self.stride }
}

/// An inner layout whose element offsets are XOR-swizzled: `offset = swizzle(inner.offset(row, col))`.
///
/// ```text
/// 16×16 f16 with Swizzle<3,1,3> on element offsets (seed 001): offset bit 6 (row bit 2) flips bit 3
/// (which 8-element half of the row), so rows 4–7 and 12–15 store their halves swapped and the 8 rows of
/// an ldmatrix phase land on 8 distinct 4-bank groups, with no extra memory
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swizzled<L> {
    /// The layout before swizzling.
    pub inner: L,
    /// The swizzle on element offsets.
    pub swizzle: SwizzleFn,
}

impl<L: Layout> Layout for Swizzled<L> {
    fn rows(&self) -> u32 { self.inner.rows() }
    fn cols(&self) -> u32 { self.inner.cols() }
    #[inline(always)]
    fn offset(&self, row: u32, col: u32) -> u32 { self.swizzle.apply(self.inner.offset(row, col)) }
    fn size(&self) -> u32 { self.inner.size() }
}

impl Swizzled<RowMajor> {
    /// `d` such that `offset(r + rows, c) == offset(r, c) + d` for every `(r, c)`, if there is one:
    /// `rows · cols` when that is a multiple of the swizzle's period, else `None`.
    ///
    /// ```text
    /// Swizzle<S,B,M> reads bits [M+S, M+S+B) and writes bits [M, M+B) of the offset: all below bit
    /// P = M+S+B. Adding d = j·2^P leaves those bits alone (no carry reaches below P), so
    ///   swizzle(x + d) = swizzle(x) + d.
    /// A wide (64 cols, Swizzle<3,3,3>, P = 9 = 8 rows): a step of 32 rows (2048) is one; 4 rows is not.
    /// ```
    /// Kernels use it to address the 16-byte chunks `r, r + rows, r + 2·rows, …` of one thread as one
    /// swizzled offset plus constants (immediate offsets in the PTX, no per-chunk swizzle).
    pub const fn row_step(&self, rows: u32) -> Option<u32> {
        let d = rows * self.inner.cols;
        if d % self.swizzle.period() == 0 { Some(d) } else { None }
    }

    /// `d` such that `offset(r, c + cols) == offset(r, c) + d` for every `(r, c)` with `c + cols` inside
    /// the row, if there is one: `cols` when it is a multiple of `2^(M+B)` and a row is a power of two
    /// of at most `2^(M+S)` elements, else `None`.
    ///
    /// ```text
    /// Swizzle<S,B,M> writes bits [M, M+B) from bits [M+S, M+S+B). With a row of 2^k ≤ 2^(M+S) elements
    /// the switch bits are row bits, which a step inside the row leaves alone; a step of j·2^(M+B) leaves
    /// the target bits alone too, so the XOR is the same and swizzle(x + d) = swizzle(x) + d.
    /// The attention tiles at D = 128 (Swizzle<4,3,3>): a step of 64 columns (8 chunks) is one.
    /// ```
    pub const fn col_step(&self, cols: u32) -> Option<u32> {
        let c = self.inner.cols;
        let target_block = 1 << (self.swizzle.m + self.swizzle.b);
        if c.is_power_of_two() && c <= 1 << (self.swizzle.m + self.swizzle.s) && cols % target_block == 0 { Some(cols) } else { None }
    }

    /// `x` such that `offset(r, c ^ x) == offset(r, c) ^ x` for every `(r, c)`, if `x` is one: any `x`
    /// below `2^(M+B)` and below the row when a row is a power of two of at most `2^(M+S)` elements,
    /// else `None`.
    ///
    /// ```text
    /// The XOR is linear: swizzle(a ^ x) = swizzle(a) ^ x when x's bits are not switch bits, and flipping
    /// column bits below the row's width touches neither the row nor (with 2^k ≤ 2^(M+S)) a switch bit.
    /// Kernels keep one offset per lane and reach the other 16-byte chunks of its row by XOR with an
    /// immediate (attention a11: column blocks 16·i, i < 4, of its `ldmatrix` fragments).
    /// ```
    pub const fn col_xor(&self, x: u32) -> Option<u32> {
        let c = self.inner.cols;
        if c.is_power_of_two() && c <= 1 << (self.swizzle.m + self.swizzle.s) && x < 1 << (self.swizzle.m + self.swizzle.b) && x < c {
            Some(x)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_of_the_three_layouts() {
        let rm = RowMajor { rows: 16, cols: 16 };
        assert_eq!(rm.offset(2, 3), 35);
        let pd = Padded::new(16, 16, 24).unwrap();
        assert_eq!((pd.offset(2, 3), pd.size()), (51, 384));
        let sw = Swizzled { inner: rm, swizzle: SwizzleFn::new(3, 1, 3).unwrap() };
        assert_eq!(sw.offset(4, 0), 72); // row 4 (element 64) lands on element 72
        assert_eq!(sw.offset(4, 8), 64);
        assert_eq!(sw.offset(0, 8), 8);
        let mut seen = [0u64; 8];
        assert!(rm.check(&mut seen).is_ok() && pd.check(&mut seen).is_ok() && sw.check(&mut seen).is_ok());
    }

    #[test]
    fn row_step_is_a_constant_shift_exactly_when_promised() {
        // Every swizzle of the HGEMM tiles, and every step of rows: where `row_step` promises a
        // constant, every offset moves by it; where it refuses, some offset does not.
        let tiles = [crate::hgemm::A_SWIZZLED, crate::hgemm::B_SWIZZLED, crate::hgemm::A_SWIZZLED_WIDE,
                     crate::hgemm::B_SWIZZLED_WIDE, crate::hgemm::C_SWIZZLED, crate::attention::tile(128, 64), crate::attention::tile(64, 128)];
        let mut promised = 0;
        for l in tiles {
            for step in 1..l.rows() {
                let shifts_by = |d: u32| (0..l.rows() - step).all(|r| (0..l.cols()).all(|c| l.offset(r + step, c) == l.offset(r, c) + d));
                match l.row_step(step) {
                    Some(d) => {
                        assert!(shifts_by(d), "{l:?}: step {step}");
                        promised += 1;
                    }
                    None => assert!(!shifts_by(step * l.cols()), "{l:?}: step {step} refused but constant"),
                }
            }
        }
        assert!(promised > 0);
        assert_eq!(crate::hgemm::A_SWIZZLED_WIDE.row_step(32), Some(2048));
        assert_eq!(crate::hgemm::A_SWIZZLED_WIDE.row_step(4), None);
        assert_eq!(RowMajor { rows: 4, cols: 5 }.row_step(3), Some(15));
    }

    #[test]
    fn col_step_is_a_constant_shift_where_promised() {
        // The HGEMM and attention tiles, every column step: where `col_step` promises a constant, every
        // offset moves by it.
        let tiles = [crate::hgemm::A_SWIZZLED, crate::hgemm::B_SWIZZLED, crate::hgemm::A_SWIZZLED_WIDE, crate::hgemm::B_SWIZZLED_WIDE,
                     crate::hgemm::C_SWIZZLED, crate::attention::tile(64, 64), crate::attention::tile(128, 128)];
        let mut promised = 0;
        for l in tiles {
            for step in 1..l.cols() {
                if let Some(d) = l.col_step(step) {
                    assert!((0..l.rows()).all(|r| (0..l.cols() - step).all(|c| l.offset(r, c + step) == l.offset(r, c) + d)), "{l:?}: step {step}");
                    promised += 1;
                }
            }
        }
        assert!(promised > 0);
        assert_eq!(crate::attention::tile(64, 128).col_step(64), Some(64));
        assert_eq!(crate::attention::tile(64, 128).col_step(16), None);
    }

    #[test]
    fn col_xor_is_an_xor_of_the_offset_where_promised() {
        let tiles = [crate::hgemm::A_SWIZZLED, crate::hgemm::B_SWIZZLED, crate::hgemm::A_SWIZZLED_WIDE, crate::hgemm::B_SWIZZLED_WIDE,
                     crate::hgemm::C_SWIZZLED, crate::attention::tile(128, 64), crate::attention::tile(64, 128)];
        let mut promised = 0;
        for l in tiles {
            for x in 1..l.cols() {
                if let Some(x) = l.col_xor(x) {
                    assert!((0..l.rows()).all(|r| (0..l.cols()).all(|c| l.offset(r, c ^ x) == l.offset(r, c) ^ x)), "{l:?}: xor {x}");
                    promised += 1;
                }
            }
        }
        // a11's column blocks 16·i (i < 4) at both head dims.
        assert!((0..4).all(|i| crate::attention::tile(128, 64).col_xor(16 * i) == Some(16 * i) && crate::attention::tile(64, 128).col_xor(16 * i) == Some(16 * i)));
        assert!(promised > 0 && crate::attention::tile(64, 128).col_xor(64).is_none());
    }

    #[test]
    fn swizzle_that_leaves_the_tile_is_caught() {
        // 5 rows × 8 = 40 elements; Swizzle<2,1,3> flips bit 3 where bit 5 is set: row 4 (offsets 32..39)
        // moves to 40..47, outside the tile (40 is not a multiple of the swizzle's 64-element period).
        let bad = Swizzled { inner: RowMajor { rows: 5, cols: 8 }, swizzle: SwizzleFn::new(2, 1, 3).unwrap() };
        let mut seen = [0u64; 8];
        assert_eq!(bad.check(&mut seen), Err(LayoutError::OutsideTile { row: 4, col: 0, offset: 40, size: 40 }));
        assert_eq!(Padded::new(4, 16, 8), Err(LayoutError::BadStride { cols: 16, stride: 8 }));
    }
}
