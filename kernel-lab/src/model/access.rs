//! Warp-level access patterns over a tile, as the kernels issue them: the input of the swizzle solver
//! and of the bank maps. Each pattern turns a layout into the list of warp instructions (per-lane byte
//! addresses) a kernel would execute to store or load the whole tile that way.
use layout::{
    Layout,
    bank::{self, BankError, Cost},
    fragment::{Ldmatrix, MmaM16N8K16},
};

use crate::error::{Error, Result};

/// How a warp touches the tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Threads in row-major order each store 16 bytes (`st.shared.v4`), e.g. a global→shared tile copy.
    StoreV4RowMajor,
    /// `ldmatrix.x4` over each 16×16 sub-tile (lane l → row l % 16, column 8 (l / 16)); 2-byte elements.
    LdmatrixX4,
    /// `ldmatrix.x4.trans` over each 16×16 sub-tile: same addresses as `LdmatrixX4`.
    LdmatrixX4Trans,
    /// 32-bit loads down a column: lane l reads row (32 i + l) of column c (e.g. SGEMM reading A^T).
    Ld32Column,
    /// 32-bit loads along a row: lane l reads column (32 i + l) of row r.
    Ld32Row,
    /// The m16n8k16 A fragment with plain 32-bit loads (seed 000): lane t reads (t / 4, 2 (t % 4)) of
    /// each 16×16 sub-tile (and the +8 row / +8 column quarters); 2-byte elements.
    MmaAFragment32,
}

impl Pattern {
    /// Every pattern with its command-line name.
    pub const ALL: [(&'static str, Pattern); 6] = [
        ("store-v4-rowmajor", Pattern::StoreV4RowMajor),
        ("ldmatrix-x4", Pattern::LdmatrixX4),
        ("ldmatrix-x4-trans", Pattern::LdmatrixX4Trans),
        ("ld32-column", Pattern::Ld32Column),
        ("ld32-row", Pattern::Ld32Row),
        ("mma-a-frag32", Pattern::MmaAFragment32),
    ];

    /// Parses a command-line name.
    pub fn parse(s: &str) -> Result<Pattern> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|&(_, p)| p).ok_or_else(|| Error::InvalidInput(format!(
            "unknown access pattern `{s}` (known: {})", Self::ALL.map(|(n, _)| n).join(", "))))
    }

    /// Its command-line name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, p)| *p == self).map(|(n, _)| *n).unwrap_or("?")
    }

    /// Whether it stores.
    pub fn is_store(self) -> bool {
        self == Pattern::StoreV4RowMajor
    }
}

/// One warp-level instruction: per-lane logical coordinates and byte addresses.
#[derive(Clone, Debug)]
pub struct Instr {
    /// `(row, col)` of the first element lane `l` touches (`None`: inactive).
    pub coords: [Option<(u32, u32)>; 32],
    /// Byte address per lane.
    pub addrs: [u32; 32],
    /// Active lanes.
    pub mask: u32,
    /// Bytes per lane (16 for `ldmatrix` rows).
    pub width: u32,
    /// `Some(matrices)` for `ldmatrix`.
    pub matrices: Option<u32>,
    /// Load or store.
    pub op: bank::Op,
}

impl Instr {
    /// The bank model's cost.
    pub fn cost(&self) -> std::result::Result<Cost, BankError> {
        match self.matrices {
            Some(m) => bank::matrix(&self.addrs[..8 * m as usize], m),
            None => bank::lsu(&self.addrs, self.mask, self.width, self.op),
        }
    }
    /// Elements per lane access.
    pub fn elems(&self, elem_bytes: u32) -> u32 {
        self.width / elem_bytes
    }
}

/// The instructions `pattern` issues over `layout` (elements of `elem_bytes` bytes). Errors name the
/// constraint a tile violates (e.g. `ldmatrix` needs 2-byte elements and 16×16 sub-tiles).
pub fn instructions(pattern: Pattern, layout: &dyn Layout, elem_bytes: u32) -> Result<Vec<Instr>> {
    let (rows, cols) = (layout.rows(), layout.cols());
    if !matches!(elem_bytes, 1 | 2 | 4 | 8) {
        return Err(Error::InvalidInput(format!("element size {elem_bytes} bytes: expected 1, 2, 4 or 8")));
    }
    let addr = |r: u32, c: u32| elem_bytes * layout.offset(r, c);
    let mut out = vec![];
    let op = if pattern.is_store() { bank::Op::Store } else { bank::Op::Load };
    let mut push = |lane_coord: &dyn Fn(u32) -> Option<(u32, u32)>, width: u32, matrices: Option<u32>| {
        let coords: [Option<(u32, u32)>; 32] = std::array::from_fn(|l| lane_coord(l as u32));
        let mask = coords.iter().enumerate().fold(0u32, |m, (l, c)| m | ((c.is_some() as u32) << l));
        let addrs = std::array::from_fn(|l| coords[l].map(|(r, c)| addr(r, c)).unwrap_or(0));
        out.push(Instr { coords, addrs, mask, width, matrices, op });
    };
    let need_f16_16x16 = |what: &str| -> Result<()> {
        if elem_bytes != 2 || rows % 16 != 0 || cols % 16 != 0 {
            return Err(Error::InvalidInput(format!("{what} needs 2-byte elements and a tile of whole 16×16 sub-tiles (got {rows}×{cols} of {elem_bytes}-byte elements)")));
        }
        Ok(())
    };
    match pattern {
        Pattern::StoreV4RowMajor => {
            let per = 16 / elem_bytes.min(16);
            if cols % per != 0 {
                return Err(Error::InvalidInput(format!("16-byte stores need rows of whole 16-byte chunks ({cols} columns of {elem_bytes} bytes)")));
            }
            let chunks = rows * cols / per;
            for w in 0..chunks.div_ceil(32) {
                push(&|l| { let c = 32 * w + l; (c < chunks).then(|| ((c * per) / cols, (c * per) % cols)) }, 16, None);
            }
        }
        Pattern::LdmatrixX4 | Pattern::LdmatrixX4Trans => {
            need_f16_16x16("ldmatrix.x4")?;
            for r0 in (0..rows).step_by(16) {
                for c0 in (0..cols).step_by(16) {
                    push(&|l| { let (r, c) = Ldmatrix::X4.tile_addr_rc(l); Some((r0 + r, c0 + c)) }, 16, Some(4));
                }
            }
        }
        Pattern::Ld32Column | Pattern::Ld32Row => {
            let word_elems = 4 / elem_bytes.min(4);
            if elem_bytes > 4 || (pattern == Pattern::Ld32Row && cols % word_elems != 0) {
                return Err(Error::InvalidInput(format!("32-bit loads need elements of at most 4 bytes in whole words (got {elem_bytes}-byte elements, {cols} columns)")));
            }
            if pattern == Pattern::Ld32Column {
                for c in (0..cols).step_by(word_elems as usize) {
                    for r0 in (0..rows).step_by(32) {
                        push(&|l| (r0 + l < rows).then_some((r0 + l, c)), 4, None);
                    }
                }
            } else {
                let words = cols / word_elems;
                for r in 0..rows {
                    for w0 in (0..words).step_by(32) {
                        push(&|l| (w0 + l < words).then(|| (r, (w0 + l) * word_elems)), 4, None);
                    }
                }
            }
        }
        Pattern::MmaAFragment32 => {
            need_f16_16x16("the m16n8k16 A fragment")?;
            for r0 in (0..rows).step_by(16) {
                for c0 in (0..cols).step_by(16) {
                    // One 32-bit load per register: register `reg` holds elements 2·reg, 2·reg + 1.
                    for reg in 0..4 {
                        push(&|t| { let (r, c) = MmaM16N8K16::a_rc(t, 2 * reg); Some((r0 + r, c0 + c)) }, 4, None);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Checks that every lane's access covers contiguous storage under `layout` (a swizzle must not split
/// a 16-byte vector or an `ldmatrix` row).
pub fn check_contiguous(instrs: &[Instr], layout: &dyn Layout, elem_bytes: u32) -> Result<()> {
    for i in instrs {
        let n = i.elems(elem_bytes);
        for (r, c) in i.coords.iter().flatten() {
            let base = layout.offset(*r, *c);
            for k in 1..n {
                if c + k >= layout.cols() || layout.offset(*r, c + k) != base + k {
                    return Err(Error::InvalidInput(format!("the layout splits the {}-byte access at ({r}, {c})", i.width)));
                }
            }
        }
    }
    Ok(())
}

/// Total cost of `instrs`.
pub fn total(instrs: &[Instr]) -> Result<Cost> {
    instrs.iter().try_fold(Cost::default(), |acc, i| {
        i.cost().map(|c| acc.add(c)).map_err(|e| Error::InvalidInput(format!("bank model: {e:?}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout::{Padded, RowMajor, SwizzleFn, Swizzled};

    #[test]
    fn seed_001_tile_costs() {
        let rm = RowMajor { rows: 16, cols: 16 };
        let ld = instructions(Pattern::LdmatrixX4, &rm, 2).unwrap();
        assert_eq!(ld.len(), 1);
        assert_eq!(total(&ld).unwrap().conflicts(), 4);
        let st = instructions(Pattern::StoreV4RowMajor, &rm, 2).unwrap();
        assert_eq!((st.len(), total(&st).unwrap().conflicts()), (1, 0));
        let sw = Swizzled { inner: rm, swizzle: SwizzleFn::new(3, 1, 3).unwrap() };
        assert_eq!(total(&instructions(Pattern::LdmatrixX4, &sw, 2).unwrap()).unwrap().conflicts(), 0);
        assert!(check_contiguous(&instructions(Pattern::LdmatrixX4, &sw, 2).unwrap(), &sw, 2).is_ok());
        let pd = Padded::new(16, 16, 24).unwrap();
        assert!(total(&instructions(Pattern::StoreV4RowMajor, &pd, 2).unwrap()).unwrap().conflicts() > 0);
    }

    #[test]
    fn splitting_swizzles_and_bad_tiles_are_rejected() {
        let rm = RowMajor { rows: 16, cols: 16 };
        let bad = Swizzled { inner: rm, swizzle: SwizzleFn::new(3, 1, 1).unwrap() }; // flips element bit 1
        let st = instructions(Pattern::StoreV4RowMajor, &bad, 2).unwrap();
        assert!(check_contiguous(&st, &bad, 2).unwrap_err().to_string().contains("splits"));
        assert!(instructions(Pattern::LdmatrixX4, &RowMajor { rows: 8, cols: 16 }, 2).is_err());
        assert!(instructions(Pattern::LdmatrixX4, &rm, 4).is_err());
        assert!(Pattern::parse("nope").unwrap_err().to_string().contains("ldmatrix-x4"));
    }

    #[test]
    fn column_reads_of_an_f32_tile_conflict_unless_padded() {
        let rm = RowMajor { rows: 32, cols: 32 };
        assert_eq!(total(&instructions(Pattern::Ld32Column, &rm, 4).unwrap()).unwrap().wavefronts, 32 * 32);
        let pd = Padded::new(32, 32, 33).unwrap();
        assert_eq!(total(&instructions(Pattern::Ld32Column, &pd, 4).unwrap()).unwrap().conflicts(), 0);
    }
}
