//! `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16` and its inverse `stmatrix`: which lane
//! supplies which row address, and which element of which 8×8 matrix each lane's registers hold.

/// `ldmatrix` (and `stmatrix`, [`Stmatrix`]) of `count` 8×8 matrices of 16-bit elements, transposed or
/// not: the instruction's maps as data.
///
/// Register `i` of every lane holds matrix `i`; within a matrix the map does not depend on `i`. The
/// `tile_*` functions place the matrices in one tile the way the `mma.m16n8k16` fragments want them
/// (matrix `i` at rows `8·(i % 2)`, columns `8·(i / 2)`):
///
/// ```text
/// .x1: 8×8  [0]      .x2: 16×8  [0]      .x4: 16×16  [0 2]      row address of lane l < 8·count:
///                               [1]                  [1 3]      (l % 16, 8·(l / 16)) in the tile
/// ```
///
/// `count` is 1, 2 or 4 ([`Ldmatrix::new`] checks); other values give meaningless (but panic-free)
/// results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ldmatrix {
    /// Matrices (and registers per lane): 1, 2 or 4.
    pub count: u32,
    /// `.trans`: each lane receives (or stores) the transposed matrix.
    pub trans: bool,
}

/// `stmatrix` (sm_90) uses exactly the address and fragment maps of `ldmatrix`, with the data flowing
/// the other way: lane `l`'s register `i`, half `h`, is stored at `tile_rc(l, i, h)`.
pub type Stmatrix = Ldmatrix;

impl Ldmatrix {
    /// `.x1`.
    pub const X1: Ldmatrix = Ldmatrix { count: 1, trans: false };
    /// `.x2`.
    pub const X2: Ldmatrix = Ldmatrix { count: 2, trans: false };
    /// `.x4`: with a row-major 16×16 tile, the `mma.m16n8k16` A fragment.
    pub const X4: Ldmatrix = Ldmatrix { count: 4, trans: false };
    /// `.x1.trans`.
    pub const X1_TRANS: Ldmatrix = Ldmatrix { count: 1, trans: true };
    /// `.x2.trans`: with a row-major 16×8 K×N tile, the `mma.m16n8k16` B fragment.
    pub const X2_TRANS: Ldmatrix = Ldmatrix { count: 2, trans: true };
    /// `.x4.trans`: with a row-major 16×16 K×N tile, two B fragments (n 0–7: registers 0, 1; n 8–15:
    /// registers 2, 3).
    pub const X4_TRANS: Ldmatrix = Ldmatrix { count: 4, trans: true };

    /// The instruction, if `count` is 1, 2 or 4.
    pub const fn new(count: u32, trans: bool) -> Option<Ldmatrix> {
        match count {
            1 | 2 | 4 => Some(Ldmatrix { count, trans }),
            _ => None,
        }
    }

    /// Lanes whose address is used: `8 · count` (the others' addresses are ignored).
    #[inline(always)]
    pub const fn address_lanes(self) -> u32 {
        self.count.wrapping_mul(8)
    }

    /// The matrix `i` and row `r` whose address lane `lane` supplies, `None` for an ignored lane.
    ///
    /// PTX ISA, "Warp-level matrix load instruction: `ldmatrix`", the table of threads that hold the
    /// row addresses:
    ///
    /// ```text
    /// lanes  0– 7: rows 0–7 of matrix 0        .x1: lanes 0–7 used
    /// lanes  8–15: rows 0–7 of matrix 1        .x2: lanes 0–15 used
    /// lanes 16–23: rows 0–7 of matrix 2        .x4: all 32 lanes
    /// lanes 24–31: rows 0–7 of matrix 3        i = lane / 8, r = lane % 8
    /// ```
    #[inline(always)]
    pub const fn addr_row(self, lane: u32) -> Option<(u32, u32)> {
        if lane < self.address_lanes() { Some((lane / 8, lane % 8)) } else { None }
    }

    /// Inverse of [`Ldmatrix::addr_row`]: the lane that supplies row `row` (`< 8`) of matrix `matrix`.
    #[inline(always)]
    pub const fn addr_lane(self, matrix: u32, row: u32) -> u32 {
        8 * matrix + row
    }

    /// Row and column, within its 8×8 matrix, of the element lane `lane` holds in half `half` of the
    /// matrix's register (half 0 = bits 0–15).
    ///
    /// PTX ISA, "Warp-level matrix load instruction: `ldmatrix`", figure "ldmatrix fragment layout"
    /// (and for `stmatrix` the matching figure of "Warp-level matrix store instruction: `stmatrix`");
    /// `.trans` swaps row and column:
    ///
    /// ```text
    /// not .trans: cell = lane:half            .trans: cell = lane:half
    /// row = lane / 4, col = 2·(lane%4) + half  row = 2·(lane%4) + half, col = lane / 4
    ///         col 0    1    2  …    7                 col 0    1    2  …    7
    ///   row 0   0:0  0:1  1:0  …  3:1             row 0   0:0  4:0  8:0  … 28:0
    ///   row 1   4:0  4:1  5:0  …  7:1             row 1   0:1  4:1  8:1  … 28:1
    ///    …                                        row 2   1:0  5:0  9:0  … 29:0
    ///   row 7  28:0 28:1 29:0  … 31:1              …
    ///                                             row 7   3:1  7:1 11:1  … 31:1
    /// ```
    #[inline(always)]
    pub const fn rc(self, lane: u32, half: u32) -> (u32, u32) {
        let (g, p) = (lane / 4, 2 * (lane % 4) + half);
        if self.trans { (p, g) } else { (g, p) }
    }

    /// Inverse of [`Ldmatrix::rc`]: the `(lane, half)` holding `(row, col)` of a matrix (`row, col < 8`).
    ///
    /// ```text
    /// not .trans: lane = 4·row + col / 2, half = col % 2     .trans: lane = 4·col + row / 2, half = row % 2
    /// ```
    #[inline(always)]
    pub const fn owner(self, row: u32, col: u32) -> (u32, u32) {
        let (g, p) = if self.trans { (col, row) } else { (row, col) };
        (4 * g + p / 2, p % 2)
    }

    /// Rows of the tile the matrices form: 8 for `.x1`, 16 for `.x2` and `.x4`.
    #[inline(always)]
    pub const fn tile_rows(self) -> u32 {
        if self.count >= 2 { 16 } else { 8 }
    }

    /// Columns of the tile the matrices form: 16 for `.x4`, else 8.
    #[inline(always)]
    pub const fn tile_cols(self) -> u32 {
        if self.count >= 4 { 16 } else { 8 }
    }

    /// Top-left `(row, col)` of matrix `i` in the tile: `(8·(i % 2), 8·(i / 2))`.
    #[inline(always)]
    pub const fn matrix_origin(self, i: u32) -> (u32, u32) {
        (8 * (i % 2), 8 * (i / 2))
    }

    /// The tile `(row, col)` whose 16-byte row start lane `lane` supplies: with the tile at `base` in a
    /// layout, lane `lane` passes `base + elem_bytes · layout.offset(row, col)`. Ignored lanes get a
    /// used lane's coordinates (`lane mod 8·count`), so every address stays inside the tile. For `.x4`
    /// (`lane < 32`) this is exactly `(lane % 16, 8·(lane / 16))`, no masking.
    ///
    /// ```text
    /// .x4 over a 16×16 tile:  lanes 0–15 → (lane, 0)     lanes 16–31 → (lane − 16, 8)
    ///   = (lane % 16, 8·(lane / 16))     .x2: (lane % 16, 0)     .x1: (lane % 8, 0)
    /// ```
    #[inline(always)]
    pub const fn tile_addr_rc(self, lane: u32) -> (u32, u32) {
        let l = if self.count >= 4 { lane } else { lane & self.address_lanes().wrapping_sub(1) };
        (l % 16, 8 * (l / 16))
    }

    /// Inverse of [`Ldmatrix::tile_addr_rc`] on the row starts: the lane that supplies the address of
    /// tile row `row` of the matrix holding column `col`: `row + 16·(col / 8)` (`row < 16`).
    #[inline(always)]
    pub const fn tile_addr_lane(self, row: u32, col: u32) -> u32 {
        row + 16 * (col / 8)
    }

    /// Tile `(row, col)` of the element lane `lane` holds in half `half` of register `reg` (`reg <
    /// count`): [`Ldmatrix::rc`] moved to [`Ldmatrix::matrix_origin`]`(reg)`.
    ///
    /// ```text
    /// .x4, not .trans (= the mma A fragment, element 2·reg + half):
    ///   (8·(reg % 2) + lane / 4, 8·(reg / 2) + 2·(lane % 4) + half)
    /// .x4.trans over a K×N tile (= two mma B fragments):
    ///   (k, n) = (8·(reg % 2) + 2·(lane % 4) + half, 8·(reg / 2) + lane / 4)
    /// ```
    #[inline(always)]
    pub const fn tile_rc(self, lane: u32, reg: u32, half: u32) -> (u32, u32) {
        let (r0, c0) = self.matrix_origin(reg);
        let (r, c) = self.rc(lane, half);
        (r0 + r, c0 + c)
    }

    /// Inverse of [`Ldmatrix::tile_rc`]: the `(lane, reg, half)` holding tile element `(row, col)`.
    #[inline(always)]
    pub const fn tile_owner(self, row: u32, col: u32) -> (u32, u32, u32) {
        let (lane, half) = self.owner(row % 8, col % 8);
        (lane, row / 8 + 2 * (col / 8), half)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fragment::MmaM16N8K16 as Mma;

    const ALL: [Ldmatrix; 6] = [Ldmatrix::X1, Ldmatrix::X2, Ldmatrix::X4, Ldmatrix::X1_TRANS, Ldmatrix::X2_TRANS, Ldmatrix::X4_TRANS];

    #[test]
    fn row_addresses_come_from_lanes_8i_to_8i_plus_7() {
        for ld in ALL {
            for lane in 0..32 {
                match ld.addr_row(lane) {
                    Some((i, r)) => {
                        assert!(lane < 8 * ld.count && i < ld.count);
                        assert_eq!((i, r), (lane / 8, lane % 8));
                        assert_eq!(ld.addr_lane(i, r), lane);
                        // The tile row start of that lane is row r of matrix i.
                        let (r0, c0) = ld.matrix_origin(i);
                        assert_eq!(ld.tile_addr_rc(lane), (r0 + r, c0), "{ld:?} lane {lane}");
                        assert_eq!(ld.tile_addr_lane(r0 + r, c0), lane);
                    }
                    None => assert!(lane >= 8 * ld.count, "{ld:?} lane {lane}"),
                }
                let (r, c) = ld.tile_addr_rc(lane);
                assert!(r < ld.tile_rows() && c < ld.tile_cols() && c % 8 == 0, "{ld:?} lane {lane} outside");
            }
        }
        for lane in 0..32 {
            assert_eq!(Ldmatrix::X4.tile_addr_rc(lane), (lane % 16, 8 * (lane / 16)));
        }
        assert_eq!((Ldmatrix::new(3, false), Ldmatrix::new(4, true)), (None, Some(Ldmatrix::X4_TRANS)));
    }

    #[test]
    fn lane_l_register_i_holds_row_l_over_4_of_matrix_i() {
        for lane in 0..32 {
            for half in 0..2 {
                assert_eq!(Ldmatrix::X4.rc(lane, half), (lane / 4, 2 * (lane % 4) + half));
                assert_eq!(Ldmatrix::X4_TRANS.rc(lane, half), (2 * (lane % 4) + half, lane / 4));
                for i in 0..4 {
                    let (r0, c0) = (8 * (i % 2), 8 * (i / 2));
                    assert_eq!(Ldmatrix::X4.tile_rc(lane, i, half), (r0 + lane / 4, c0 + 2 * (lane % 4) + half));
                }
            }
        }
        assert_eq!(Ldmatrix::X1.rc(5, 0), (1, 2));
        assert_eq!(Ldmatrix::X1_TRANS.rc(5, 1), (3, 1));
    }

    #[test]
    fn tiles_are_bijections_and_owners_invert_them() {
        for ld in ALL {
            let mut seen = [[false; 16]; 16];
            for lane in 0..32 {
                for reg in 0..ld.count {
                    for half in 0..2 {
                        let (r, c) = ld.tile_rc(lane, reg, half);
                        assert!(r < ld.tile_rows() && c < ld.tile_cols(), "{ld:?} ({lane}, {reg}, {half}) outside");
                        assert!(!seen[r as usize][c as usize], "{ld:?} ({r}, {c}) twice");
                        seen[r as usize][c as usize] = true;
                        assert_eq!(ld.tile_owner(r, c), (lane, reg, half));
                        assert_eq!(ld.owner(r % 8, c % 8), (lane, half));
                    }
                }
            }
            let covered = seen.iter().flatten().filter(|&&s| s).count() as u32;
            assert_eq!(covered, ld.tile_rows() * ld.tile_cols(), "{ld:?}");
        }
    }

    #[test]
    fn trans_holds_each_matrix_transposed_in_place() {
        // What the host's stmatrix self-test checks on the GPU: the value a lane stores with .trans lands
        // at the transposed place within the same 8×8 matrix.
        for lane in 0..32 {
            for reg in 0..4 {
                for half in 0..2 {
                    let (r, c) = Ldmatrix::X4.tile_rc(lane, reg, half);
                    let (rt, ct) = Ldmatrix::X4_TRANS.tile_rc(lane, reg, half);
                    assert_eq!((rt / 8, ct / 8), (r / 8, c / 8));
                    assert_eq!((rt % 8, ct % 8), (c % 8, r % 8));
                }
            }
        }
    }

    #[test]
    fn they_deliver_the_mma_fragments() {
        for lane in 0..32 {
            for half in 0..2 {
                for reg in 0..4 {
                    // .x4 over row-major 16×16 A: register reg = the mma's a registers, element 2·reg + half.
                    assert_eq!(Ldmatrix::X4.tile_rc(lane, reg, half), Mma::a_rc(lane, 2 * reg + half));
                    // .x4.trans over row-major 16×16 K×N B: registers 2j, 2j + 1 = B fragment of n block j.
                    let (k, n) = Mma::b_rc(lane, 2 * (reg % 2) + half);
                    assert_eq!(Ldmatrix::X4_TRANS.tile_rc(lane, reg, half), (k, n + 8 * (reg / 2)));
                    // stmatrix.x4 of two f16 C fragments (n blocks 0, 1) writes a 16×16 C tile.
                    let (r, c) = Mma::c_rc(lane, 2 * (reg % 2) + half);
                    assert_eq!(Ldmatrix::X4.tile_rc(lane, reg, half), (r, c + 8 * (reg / 2)));
                }
                for reg in 0..2 {
                    assert_eq!(Ldmatrix::X2_TRANS.tile_rc(lane, reg, half), Mma::b_rc(lane, 2 * reg + half));
                }
            }
        }
    }
}
