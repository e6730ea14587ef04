//! `mma.sync.aligned.m16n8k16` with 16-bit inputs (`.f16`, `.bf16`): which lane holds which element of
//! A, B and C/D.
//!
//! Element numbering is the PTX ISA's: `a0 … a7`, `b0 … b3`, `c0 … c3` per lane. Element `i` of a
//! 16-bit operand lives in register `i / 2`, half `i % 2` (half 0 = bits 0–15, the lower column or row
//! of the pair); f32 accumulators are one element per register (`c_i` in register `i`), f16
//! accumulators two (`c_i` in register `i / 2`, half `i % 2`) with the same element map.

/// `mma.sync.aligned.m16n8k16.row.col` with 16-bit A and B: `D (16×8) = A (16×16) · B (16×8) + C`, one
/// warp. A type carrying its fragment maps as associated functions (CuTe's "MMA traits", as data).
///
/// ```text
/// lane = 4·g + t      g = lane / 4 (PTX "groupID", 0..8)     t = lane % 4 ("threadID_in_group", 0..4)
/// A: a_i at (g + 8·(i/2 % 2), 2t + i%2 + 8·(i/4))     4 × b32 = 8 halves per lane
/// B: b_i at (k = 2t + i%2 + 8·(i/2), n = g)            2 × b32 = 4 halves per lane
/// C: c_i at (g + 8·(i/2), 2t + i%2)                    f32: 4 regs; f16: 2 regs of f16x2
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MmaM16N8K16;

impl MmaM16N8K16 {
    /// Rows of A, C and D.
    pub const M: u32 = 16;
    /// Columns of B, C and D.
    pub const N: u32 = 8;
    /// Columns of A, rows of B.
    pub const K: u32 = 16;
    /// Lanes (one warp).
    pub const THREADS: u32 = 32;
    /// 16-bit elements of A per lane (in 4 `b32` registers).
    pub const A_ELEMS: u32 = 8;
    /// 16-bit elements of B per lane (in 2 `b32` registers).
    pub const B_ELEMS: u32 = 4;
    /// Elements of C/D per lane (4 f32 registers, or 2 f16x2 registers).
    pub const C_ELEMS: u32 = 4;
    /// `b32` registers of A per lane.
    pub const A_REGS: u32 = 4;
    /// `b32` registers of B per lane.
    pub const B_REGS: u32 = 2;
    /// f32 registers of C/D per lane.
    pub const C_F32_REGS: u32 = 4;
    /// f16x2 registers of C/D per lane.
    pub const C_F16_REGS: u32 = 2;

    /// Row and column of A (16×16, M×K, `.row`) that lane `lane` (`< 32`) holds as element `a_i`
    /// (`i < 8`; register `i / 2`, half `i % 2`).
    ///
    /// PTX ISA, "Matrix Fragments for `mma.m16n8k16` with floating point type", figure "MMA .m16n8k16
    /// fragment layout for matrix A with .f16/.bf16 type":
    ///
    /// ```text
    /// cell = lane:i    row = g + 8·(i/2 % 2)    col = 2t + i%2 + 8·(i/4)
    ///          col 0    1    2    3  …   6    7 |   8    9  …  14   15
    ///   row 0    0:0  0:1  1:0  1:1  …  3:0  3:1 |  0:4  0:5 …  3:4  3:5
    ///   row 1    4:0  4:1  5:0  5:1  …  7:0  7:1 |  4:4  4:5 …  7:4  7:5
    ///    …
    ///   row 7   28:0 28:1 29:0 29:1  … 31:0 31:1 | 28:4 28:5 … 31:4 31:5
    ///   row 8    0:2  0:3  1:2  1:3  …  3:2  3:3 |  0:6  0:7 …  3:6  3:7
    ///    …
    ///   row 15  28:2 28:3 29:2 29:3  … 31:2 31:3 | 28:6 28:7 … 31:6 31:7
    /// register r = {a_2r, a_2r+1} covers the 8×8 quarter at rows 8·(r % 2).., cols 8·(r / 2)..
    /// ```
    #[inline(always)]
    pub const fn a_rc(lane: u32, i: u32) -> (u32, u32) {
        let (g, t) = (lane / 4, lane % 4);
        (g + 8 * (i / 2 % 2), 2 * t + i % 2 + 8 * (i / 4))
    }

    /// Inverse of [`MmaM16N8K16::a_rc`]: the `(lane, i)` holding A's `(row, col)` (`row, col < 16`).
    ///
    /// ```text
    /// lane = 4·(row % 8) + (col % 8) / 2      i = col%2 + 2·(row / 8) + 4·(col / 8)
    /// ```
    #[inline(always)]
    pub const fn a_owner(row: u32, col: u32) -> (u32, u32) {
        (4 * (row % 8) + col % 8 / 2, col % 2 + 2 * (row / 8) + 4 * (col / 8))
    }

    /// Row `k` and column `n` of B (16×8, K×N, `.col`) that lane `lane` (`< 32`) holds as element `b_i`
    /// (`i < 4`; register `i / 2`, half `i % 2`: each register is two consecutive `k` of one `n`).
    ///
    /// PTX ISA, same section, figure "MMA .m16n8k16 fragment layout for matrix B with .f16/.bf16 type":
    ///
    /// ```text
    /// cell = lane:i    k = 2t + i%2 + 8·(i/2)    n = g
    ///          n 0    1    2  …    7
    ///   k 0     0:0  4:0  8:0 …  28:0
    ///   k 1     0:1  4:1  8:1 …  28:1
    ///   k 2     1:0  5:0  9:0 …  29:0
    ///    …
    ///   k 7     3:1  7:1 11:1 …  31:1
    ///   k 8     0:2  4:2  8:2 …  28:2
    ///    …
    ///   k 15    3:3  7:3 11:3 …  31:3
    /// ```
    #[inline(always)]
    pub const fn b_rc(lane: u32, i: u32) -> (u32, u32) {
        let (g, t) = (lane / 4, lane % 4);
        (2 * t + i % 2 + 8 * (i / 2), g)
    }

    /// Inverse of [`MmaM16N8K16::b_rc`]: the `(lane, i)` holding B's `(k, n)` (`k < 16`, `n < 8`).
    ///
    /// ```text
    /// lane = 4·n + (k % 8) / 2      i = k%2 + 2·(k / 8)
    /// ```
    #[inline(always)]
    pub const fn b_owner(k: u32, n: u32) -> (u32, u32) {
        (4 * n + k % 8 / 2, k % 2 + 2 * (k / 8))
    }

    /// Row and column of C/D (16×8) that lane `lane` (`< 32`) holds as element `c_i` (`i < 4`): f32
    /// register `i`, or f16x2 register `i / 2` half `i % 2`.
    ///
    /// PTX ISA, same section, figures "MMA .m16n8k16 fragment layout for accumulator matrix C/D with
    /// .f32 type" and "… with .f16 type":
    ///
    /// ```text
    /// cell = lane:i    row = g + 8·(i/2)    col = 2t + i%2
    ///          col 0    1    2    3    4    5    6    7
    ///   row 0    0:0  0:1  1:0  1:1  2:0  2:1  3:0  3:1
    ///   row 1    4:0  4:1  5:0  5:1  6:0  6:1  7:0  7:1
    ///    …
    ///   row 7   28:0 28:1 29:0 29:1 30:0 30:1 31:0 31:1
    ///   row 8    0:2  0:3  1:2  1:3  2:2  2:3  3:2  3:3
    ///    …
    ///   row 15  28:2 28:3 29:2 29:3 30:2 30:3 31:2 31:3
    /// ```
    #[inline(always)]
    pub const fn c_rc(lane: u32, i: u32) -> (u32, u32) {
        let (g, t) = (lane / 4, lane % 4);
        (g + 8 * (i / 2), 2 * t + i % 2)
    }

    /// Inverse of [`MmaM16N8K16::c_rc`]: the `(lane, i)` holding C's `(row, col)` (`row < 16`, `col < 8`).
    ///
    /// ```text
    /// lane = 4·(row % 8) + col / 2      i = col%2 + 2·(row / 8)
    /// ```
    #[inline(always)]
    pub const fn c_owner(row: u32, col: u32) -> (u32, u32) {
        (4 * (row % 8) + col / 2, col % 2 + 2 * (row / 8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    type Mma = MmaM16N8K16;

    #[test]
    fn spot_values_from_the_ptx_isa_figures() {
        // Lane 5: g = 1, t = 1.
        assert_eq!(Mma::c_rc(5, 0), (1, 2));
        assert_eq!(Mma::c_rc(5, 1), (1, 3));
        assert_eq!(Mma::c_rc(5, 2), (9, 2));
        assert_eq!(Mma::c_rc(5, 3), (9, 3));
        // A: register r holds elements 2r, 2r + 1; register 1 is row g + 8, register 2 column 2t + 8.
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            assert_eq!(Mma::a_rc(lane, 0), (g, 2 * t));
            assert_eq!(Mma::a_rc(lane, 2), (g + 8, 2 * t));
            assert_eq!(Mma::a_rc(lane, 3), (g + 8, 2 * t + 1));
            assert_eq!(Mma::a_rc(lane, 4), (g, 2 * t + 8));
            assert_eq!(Mma::a_rc(lane, 6), (g + 8, 2 * t + 8));
            assert_eq!(Mma::b_rc(lane, 0), (2 * t, g));
            assert_eq!(Mma::b_rc(lane, 1), (2 * t + 1, g));
            assert_eq!(Mma::b_rc(lane, 2), (2 * t + 8, g));
        }
        assert_eq!(Mma::a_rc(31, 7), (15, 15));
        assert_eq!(Mma::b_rc(31, 3), (15, 7));
        assert_eq!(Mma::a_owner(9, 10), (5, 6)); // g = 1, t = 1; row g + 8, column 2t + 8: element 6
    }

    #[test]
    fn the_accumulator_is_the_a_fragment_left_half() {
        // C (16×8) is laid out as A's left 16×8 half: element i < 4 at the same place.
        for lane in 0..32 {
            for i in 0..4 {
                assert_eq!(Mma::c_rc(lane, i), Mma::a_rc(lane, i));
            }
        }
    }
}
