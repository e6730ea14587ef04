//! Fragment layouts as data: for each warp- or warpgroup-level matrix instruction, which thread holds
//! which element of its tile, as `pub const fn` maps on `u32` in both directions — `*_rc(thread, value)
//! -> (row, col)` and `*_owner(row, col) -> (thread, value)` — usable in kernels (`no_std`, no
//! allocation, no panics for in-range arguments; they compile to shifts and masks) and on the host.
//!
//! | instruction | type | tile | values per thread |
//! |---|---|---|---|
//! | `mma.sync.m16n8k16` (f16/bf16) | [`MmaM16N8K16`] | A 16×16, B 16×8 (K×N), C/D 16×8 | A 8, B 4, C 4 (elements) |
//! | `ldmatrix` / `stmatrix` `.x1/.x2/.x4[.trans]` | [`Ldmatrix`] ([`Stmatrix`]) | `count` 8×8 matrices | `count` registers × 2 halves |
//! | `wgmma.m64nNk16` f32 accumulator | [`WgmmaAcc<N>`] | 64×N, 128 threads | `N / 2` registers |
//!
//! Conventions (those of the PTX ISA's fragment figures): `lane = 4·g + t` with `g = lane / 4`
//! ("groupID") and `t = lane % 4` ("threadID_in_group"); element `i` of a 16-bit fragment is half
//! `i % 2` (bits `16·(i % 2)`..) of register `i / 2`, so one 32-bit register holds two neighbours.
//!
//! ```text
//! the shape they all share (mma C, ldmatrix matrix, one 8-column block of the wgmma accumulator):
//!   8 rows × 8 columns, row g of it in lanes 4g .. 4g+3, each lane 2 consecutive columns 2t, 2t+1
//!          col 0 1 | 2 3 | 4 5 | 6 7
//!   row 0    T0    |  T1 |  T2 |  T3
//!   row 1    T4    |  T5 |  T6 |  T7
//!    …
//!   row 7    T28   | T29 | T30 | T31
//! ```
//!
//! [`FragmentMap`] packages one map with its shape, so generic code (tests, the host's bank model)
//! can walk every `(thread, value)` of any instruction; [`MAPS`] lists them.

mod ldmatrix;
mod mma;
mod wgmma;

pub use ldmatrix::{Ldmatrix, Stmatrix};
pub use mma::MmaM16N8K16;
pub use wgmma::WgmmaAcc;

/// A map between `(thread, value)` and `(row, col)`, one direction of a [`FragmentMap`].
pub type CoordMap = fn(u32, u32) -> (u32, u32);

/// One fragment map as a value: `threads × values` register slots onto a `rows × cols` tile.
#[derive(Clone, Copy, Debug)]
pub struct FragmentMap {
    /// What it maps (instruction and operand).
    pub name: &'static str,
    /// Threads that hold the tile (32 for a warp, 128 for a warpgroup).
    pub threads: u32,
    /// Values (16-bit halves or 32-bit accumulators) per thread.
    pub values: u32,
    /// Tile rows.
    pub rows: u32,
    /// Tile columns.
    pub cols: u32,
    /// `(thread, value) → (row, col)`.
    pub rc: CoordMap,
    /// `(row, col) → (thread, value)`.
    pub owner: CoordMap,
}

/// Why a [`FragmentMap`] is not a bijection with its inverse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragmentError {
    /// `threads · values` differs from `rows · cols`.
    Size { slots: u32, cells: u32 },
    /// The bitmap passed to [`FragmentMap::check`] has fewer than `rows · cols` bits.
    BitmapTooSmall { bits: usize, cells: u32 },
    /// A slot maps outside the tile.
    OutsideTile { thread: u32, value: u32, row: u32, col: u32 },
    /// Two slots map to the same element.
    Duplicate { thread: u32, value: u32, row: u32, col: u32 },
    /// `owner(rc(thread, value))` is not `(thread, value)`.
    OwnerMismatch { thread: u32, value: u32, row: u32, col: u32 },
}

impl FragmentMap {
    /// Checks that `rc` is a bijection from the `threads × values` slots onto the tile and that `owner`
    /// inverts it. `seen` is scratch space of at least `rows · cols` bits.
    pub fn check(&self, seen: &mut [u64]) -> Result<(), FragmentError> {
        let cells = self.rows * self.cols;
        if self.threads * self.values != cells {
            return Err(FragmentError::Size { slots: self.threads * self.values, cells });
        }
        if seen.len() * 64 < cells as usize {
            return Err(FragmentError::BitmapTooSmall { bits: seen.len() * 64, cells });
        }
        seen.iter_mut().for_each(|w| *w = 0);
        for thread in 0..self.threads {
            for value in 0..self.values {
                let (row, col) = (self.rc)(thread, value);
                if row >= self.rows || col >= self.cols {
                    return Err(FragmentError::OutsideTile { thread, value, row, col });
                }
                let bit = (row * self.cols + col) as usize;
                if seen[bit / 64] >> (bit % 64) & 1 == 1 {
                    return Err(FragmentError::Duplicate { thread, value, row, col });
                }
                seen[bit / 64] |= 1 << (bit % 64);
                if (self.owner)(row, col) != (thread, value) {
                    return Err(FragmentError::OwnerMismatch { thread, value, row, col });
                }
            }
        }
        Ok(())
    }
}

impl MmaM16N8K16 {
    /// [`MmaM16N8K16::a_rc`] as a [`FragmentMap`] (values = elements `a_i`).
    pub const A_MAP: FragmentMap = FragmentMap { name: "mma.m16n8k16 A (f16/bf16)", threads: 32, values: 8, rows: 16, cols: 16, rc: Self::a_rc, owner: Self::a_owner };
    /// [`MmaM16N8K16::b_rc`] as a [`FragmentMap`] (rows = K, columns = N).
    pub const B_MAP: FragmentMap = FragmentMap { name: "mma.m16n8k16 B (f16/bf16)", threads: 32, values: 4, rows: 16, cols: 8, rc: Self::b_rc, owner: Self::b_owner };
    /// [`MmaM16N8K16::c_rc`] as a [`FragmentMap`] (f32 registers, or f16 elements).
    pub const C_MAP: FragmentMap = FragmentMap { name: "mma.m16n8k16 C/D", threads: 32, values: 4, rows: 16, cols: 8, rc: Self::c_rc, owner: Self::c_owner };
}

fn ld_rc<const COUNT: u32, const TRANS: bool>(lane: u32, v: u32) -> (u32, u32) {
    Ldmatrix { count: COUNT, trans: TRANS }.tile_rc(lane, v / 2, v % 2)
}

fn ld_owner<const COUNT: u32, const TRANS: bool>(row: u32, col: u32) -> (u32, u32) {
    let (lane, reg, half) = Ldmatrix { count: COUNT, trans: TRANS }.tile_owner(row, col);
    (lane, 2 * reg + half)
}

impl Ldmatrix {
    /// [`Ldmatrix::tile_rc`] as a [`FragmentMap`]: value `v` = register `v / 2`, half `v % 2`.
    pub const fn map(self) -> FragmentMap {
        let (rc, owner, name): (CoordMap, CoordMap, &'static str) = match (self.count, self.trans) {
            (1, false) => (ld_rc::<1, false>, ld_owner::<1, false>, "ldmatrix.x1"),
            (2, false) => (ld_rc::<2, false>, ld_owner::<2, false>, "ldmatrix.x2"),
            (1, true) => (ld_rc::<1, true>, ld_owner::<1, true>, "ldmatrix.x1.trans"),
            (2, true) => (ld_rc::<2, true>, ld_owner::<2, true>, "ldmatrix.x2.trans"),
            (_, true) => (ld_rc::<4, true>, ld_owner::<4, true>, "ldmatrix.x4.trans"),
            (_, false) => (ld_rc::<4, false>, ld_owner::<4, false>, "ldmatrix.x4"),
        };
        FragmentMap { name, threads: 32, values: 2 * self.count, rows: self.tile_rows(), cols: self.tile_cols(), rc, owner }
    }
}

impl<const N: u32> WgmmaAcc<N> {
    /// [`WgmmaAcc::rc`] as a [`FragmentMap`].
    pub const MAP: FragmentMap = FragmentMap { name: "wgmma.m64nNk16 D (f32)", threads: 128, values: N / 2, rows: 64, cols: N, rc: Self::rc, owner: Self::owner };
}

/// Every map of this module (the wgmma accumulator for the N the HGEMM kernels use).
pub const MAPS: [FragmentMap; 12] = [
    MmaM16N8K16::A_MAP, MmaM16N8K16::B_MAP, MmaM16N8K16::C_MAP,
    Ldmatrix::X1.map(), Ldmatrix::X2.map(), Ldmatrix::X4.map(),
    Ldmatrix::X1_TRANS.map(), Ldmatrix::X2_TRANS.map(), Ldmatrix::X4_TRANS.map(),
    WgmmaAcc::<64>::MAP, WgmmaAcc::<128>::MAP, WgmmaAcc::<256>::MAP,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_map_is_a_bijection_onto_its_tile_and_owner_inverts_it() {
        let mut seen = [0u64; 256];
        for m in MAPS {
            assert_eq!(m.check(&mut seen), Ok(()), "{}", m.name);
        }
        assert_eq!(MAPS.map(|m| m.values), [8, 4, 4, 2, 4, 8, 2, 4, 8, 32, 64, 128]);
    }

    #[test]
    fn check_catches_broken_maps() {
        let mut seen = [0u64; 4];
        let swapped = FragmentMap { rc: |l, i| MmaM16N8K16::c_rc(l, i ^ 1), ..MmaM16N8K16::C_MAP };
        assert_eq!(swapped.check(&mut seen), Err(FragmentError::OwnerMismatch { thread: 0, value: 0, row: 0, col: 1 }));
        let folded = FragmentMap { rc: |l, i| MmaM16N8K16::c_rc(l % 16, i), ..MmaM16N8K16::C_MAP };
        assert!(matches!(folded.check(&mut seen), Err(FragmentError::Duplicate { thread: 16, .. })));
        let wide = FragmentMap { rc: |l, i| MmaM16N8K16::a_rc(l, i + 4), ..MmaM16N8K16::C_MAP };
        assert!(matches!(wide.check(&mut seen), Err(FragmentError::OutsideTile { col: 8, .. })));
        assert_eq!(MmaM16N8K16::C_MAP.check(&mut seen[..1]), Err(FragmentError::BitmapTooSmall { bits: 64, cells: 128 }));
        assert_eq!(FragmentMap { values: 2, ..MmaM16N8K16::C_MAP }.check(&mut seen), Err(FragmentError::Size { slots: 64, cells: 128 }));
    }
}
