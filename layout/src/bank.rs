//! A model of shared-memory bank conflicts that predicts what Nsight Compute reports for one
//! warp-level shared-memory instruction: `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}`
//! (wavefronts) and `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}` (bank conflicts).
//!
//! # Rules
//! 1. **Banks.** 32 banks of 4 bytes: byte address `a` is in word `a / 4`, bank `(a / 4) % 32`
//!    (CUDA C++ Programming Guide, "Shared Memory" for compute capability 5.x and later).
//! 2. **Wavefronts.** One wavefront serves at most one distinct 4-byte word per bank. Lanes that touch
//!    the same word share it (broadcast on loads; on stores one write wins), so a phase needs
//!    `max over banks of (distinct words in that bank)` wavefronts.
//! 3. **Phases.** A warp request is split into phases of at most 128 bytes of lane requests, and
//!    conflicts only arise within a phase: 4-byte accesses are one phase of 32 lanes; 8-byte accesses two
//!    phases (lanes 0–15, 16–31); 16-byte accesses four (lanes 0–7, 8–15, 16–23, 24–31). This is why seed
//!    001's 128-bit stores of a 16×16 tile (lanes 0, 8, 16, 24 in bank 0) show no conflict in `ncu`.
//!    3b. *Loads only* (found on the H200, rounds 1 and 2 of `results/2026-11-22-h200-bankcheck`): wide
//!    loads go in passes of two phases (8-byte: lanes 0–31; 16-byte: lanes 0–15 and 16–31). A pass
//!    whose active lanes all read one address costs one wavefront (a warp-uniform 8-byte load: 1, not 2;
//!    a uniform 16-byte load: 2, not 4), and the two phases of a pass share wavefronts when they touch
//!    disjoint sets of banks *and* in each phase every lane pair (2j, 2j+1) reads one address (8-byte
//!    loads where lanes 2k and 2k+1 share an address: 1 wavefront; 16-byte loads whose lanes r and r+4
//!    share: no merge, found in round 4 with SGEMM v9's fragment loads). Identical addresses in the two
//!    phases do *not* merge (lanes l and l+16 reading the same 128 B: 2 wavefronts). Stores never merge.
//! 4. **`ldmatrix` / `stmatrix`.** One phase per 8×8 matrix: its 8 row addresses (16 bytes each).
//!    `.trans` changes which lane receives which element, not the addresses, so it costs the same.
//!    Seed 001's unpadded 16×16 f16 `ldmatrix.x4`: rows 32 bytes apart, so rows r and r+4 share banks:
//!    2 wavefronts in each of the 4 phases, 8 in all, 4 conflicts.
//! 5. **Conflicts.** `ncu`'s bank-conflict count is `wavefronts − ideal` (never below 0): each extra
//!    wavefront counts once (a 4-way conflict is 3, not 1 as seed 001 suggests). For stores and
//!    `ldmatrix`/`stmatrix`, `ideal` = number of phases with an active lane.
//!    Wide loads: one per merged pass, one per phase otherwise. Known gap (listed in the committed
//!    table): when only every other lane is active and all of them hit one bank, `ncu` counts one more
//!    conflict per pass than this rule (8-byte: 15 vs 14; 16-byte: 14 vs 12), and two mixed
//!    uniform/non-uniform 16-byte patterns cost one wavefront more than modelled. Checked on an H200 against the reduce kernels (`reduce_v1`, N = 2^20: 792 019
//!    load wavefronts, 205 650 instructions, 586 369 conflicts) and against the replay microkernels
//!    (`results/`), which is where each rule above is marked as verified or corrected.
//!
//! Inputs are validated: at most 32 lanes, widths of 4, 8 or 16 bytes, addresses aligned to their width;
//! anything else is an error, never a count.

/// Banks.
pub const BANKS: u32 = 32;
/// Bytes per bank word.
pub const BANK_BYTES: u32 = 4;

/// The bank of a byte address.
#[inline(always)]
pub const fn bank_of(byte_addr: u32) -> u32 {
    (byte_addr / BANK_BYTES) % BANKS
}

/// What the model predicts for one instruction (or a sum of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Wavefronts (`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_*`).
    pub wavefronts: u64,
    /// Wavefronts a conflict-free access of the same shape needs.
    pub ideal: u64,
    /// Instructions (warp-level) summed into this cost.
    pub instructions: u64,
}

impl Cost {
    /// Bank conflicts as `ncu` counts them: extra wavefronts (never negative: a broadcast load can
    /// need fewer wavefronts than its bytes suggest).
    pub const fn conflicts(&self) -> u64 {
        self.wavefronts.saturating_sub(self.ideal)
    }
    /// Sum of two costs.
    pub const fn add(self, o: Cost) -> Cost {
        Cost { wavefronts: self.wavefronts + o.wavefronts, ideal: self.ideal + o.ideal, instructions: self.instructions + o.instructions }
    }
    /// `k` times this cost (e.g. per block × blocks).
    pub const fn times(self, k: u64) -> Cost {
        Cost { wavefronts: self.wavefronts * k, ideal: self.ideal * k, instructions: self.instructions * k }
    }
}

/// Why an access cannot be modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BankError {
    /// More than 32 lane addresses.
    TooManyLanes(usize),
    /// An access width other than 4, 8 or 16 bytes.
    BadWidth(u32),
    /// A lane's address is not a multiple of the access width.
    Misaligned { lane: u32, addr: u32, width: u32 },
    /// `ldmatrix`/`stmatrix` needs `8 · matrices` row addresses, `matrices` in 1, 2, 4.
    BadMatrixCount { rows: usize, matrices: u32 },
}

/// Lanes per phase for an access `width` bytes wide (rule 3).
pub const fn lanes_per_phase(width: u32) -> u32 {
    128 / width
}

/// Wavefronts one phase needs: the largest number of distinct words any bank must serve (rule 2).
/// `words` holds the word indices the phase touches (duplicates allowed); it is reordered.
fn phase_wavefronts(words: &mut [u32]) -> u64 {
    words.sort_unstable();
    let mut per_bank = [0u32; BANKS as usize];
    let mut prev = None;
    for &w in words.iter() {
        if prev != Some(w) {
            per_bank[(w % BANKS) as usize] += 1;
            prev = Some(w);
        }
    }
    per_bank.iter().copied().max().unwrap_or(0) as u64
}

/// Load or store: the hardware treats them differently (rules 3 and 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `ld.shared`.
    Load,
    /// `st.shared`.
    Store,
}

/// Cost of one `ld.shared`/`st.shared` of `width` bytes per lane: lane `l` accesses byte address
/// `addrs[l]` if bit `l` of `mask` is set (lanes beyond `addrs.len()` are inactive).
pub fn lsu(addrs: &[u32], mask: u32, width: u32, op: Op) -> Result<Cost, BankError> {
    if addrs.len() > 32 {
        return Err(BankError::TooManyLanes(addrs.len()));
    }
    if !matches!(width, 4 | 8 | 16) {
        return Err(BankError::BadWidth(width));
    }
    let active = |lane: usize| lane < addrs.len() && mask >> lane & 1 == 1;
    for (lane, &a) in addrs.iter().enumerate() {
        if active(lane) && a % width != 0 {
            return Err(BankError::Misaligned { lane: lane as u32, addr: a, width });
        }
    }
    let per_phase = lanes_per_phase(width) as usize;
    let phase_cost = |phase: usize| -> Option<u64> {
        let mut words = [0u32; 128];
        let mut n = 0;
        for lane in (phase * per_phase..(phase + 1) * per_phase).filter(|&l| active(l)) {
            for k in 0..width / BANK_BYTES {
                words[n] = addrs[lane] / BANK_BYTES + k;
                n += 1;
            }
        }
        (n > 0).then(|| phase_wavefronts(&mut words[..n]))
    };
    // Bit b set: the phase touches bank b.
    let banks_of_phase = |phase: usize| -> u32 {
        (phase * per_phase..(phase + 1) * per_phase).filter(|&l| active(l))
            .flat_map(|l| (0..width / BANK_BYTES).map(move |k| (addrs[l] / BANK_BYTES + k) % BANKS))
            .fold(0, |m, b| m | 1 << b)
    };
    let phases = 32 / per_phase;
    let mut cost = Cost { instructions: 1, ..Cost::default() };
    match op {
        Op::Store => {
            for phase in 0..phases {
                if let Some(w) = phase_cost(phase) {
                    cost.wavefronts += w;
                    cost.ideal += 1;
                }
            }
        }
        Op::Load if phases == 1 => {
            if let Some(w) = phase_cost(0) {
                cost.wavefronts += w;
                cost.ideal += 1;
            }
        }
        Op::Load => {
            // Rule 3b: wide loads go in passes of two phases (8-byte: lanes 0-31; 16-byte: lanes 0-15
            // and 16-31). A pass whose active lanes all read one address is one wavefront; two phases
            // that touch disjoint sets of banks share their wavefronts; otherwise the phases add up.
            for pass in 0..phases / 2 {
                let (p0, p1) = (2 * pass, 2 * pass + 1);
                let lanes = p0 * per_phase..(p1 + 1) * per_phase;
                let mut first = None;
                let uniform = lanes.filter(|&l| active(l)).all(|l| *first.get_or_insert(addrs[l]) == addrs[l]);
                if first.is_none() {
                    continue;
                }
                if uniform {
                    cost.wavefronts += 1;
                    cost.ideal += 1;
                    continue;
                }
                let (w0, w1) = (phase_cost(p0), phase_cost(p1));
                // Lanes 2j and 2j+1 of a phase must read one address (if both are active) for the
                // phase to be merged: duplicates four lanes apart do not count (round 4).
                let paired = |phase: usize| (phase * per_phase..(phase + 1) * per_phase).step_by(2)
                    .all(|l| !(active(l) && active(l + 1)) || addrs[l] == addrs[l + 1]);
                let disjoint = banks_of_phase(p0) & banks_of_phase(p1) == 0 && paired(p0) && paired(p1);
                match (w0, w1) {
                    (Some(a), Some(b)) if disjoint => {
                        cost.wavefronts += a.max(b);
                        cost.ideal += 1;
                    }
                    _ => {
                        for w in [w0, w1].into_iter().flatten() {
                            cost.wavefronts += w;
                            cost.ideal += 1;
                        }
                    }
                }
            }
        }
    }
    Ok(cost)
}

/// Cost of one `ldmatrix`/`stmatrix` `.x1`/`.x2`/`.x4` (`.trans` or not): `rows[8·i + r]` is the byte
/// address of row `r` of matrix `i` (given by lane `8·i + r`), each row 16 contiguous bytes.
pub fn matrix(rows: &[u32], matrices: u32) -> Result<Cost, BankError> {
    if !matches!(matrices, 1 | 2 | 4) || rows.len() != 8 * matrices as usize {
        return Err(BankError::BadMatrixCount { rows: rows.len(), matrices });
    }
    let mut cost = Cost { instructions: 1, ..Cost::default() };
    for (i, m) in rows.chunks(8).enumerate() {
        let mut words = [0u32; 32];
        for (r, &a) in m.iter().enumerate() {
            if a % 16 != 0 {
                return Err(BankError::Misaligned { lane: (8 * i + r) as u32, addr: a, width: 16 });
            }
            for k in 0..4 {
                words[4 * r + k as usize] = a / BANK_BYTES + k;
            }
        }
        cost.wavefronts += phase_wavefronts(&mut words);
        cost.ideal += 1;
    }
    Ok(cost)
}

/// The phase lane `lane` belongs to for an LSU access of `width` bytes, or for `ldmatrix`
/// (`width = 16` gives the same grouping as `ldmatrix`: 8 lanes per phase).
pub const fn phase_of(lane: u32, width: u32) -> u32 {
    lane / lanes_per_phase(width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Layout, Padded, RowMajor, SwizzleFn, Swizzled};

    const ALL: u32 = u32::MAX;

    fn lanes(f: impl Fn(u32) -> u32) -> [u32; 32] {
        core::array::from_fn(|l| f(l as u32))
    }

    /// `ldmatrix.x4` row addresses over a 16×16 f16 tile: lane l → row l % 16, column 8·(l / 16).
    fn ldmatrix_x4_rows(layout: &impl Layout) -> [u32; 32] {
        lanes(|l| 2 * layout.offset(l % 16, 8 * (l / 16)))
    }

    #[test]
    fn consecutive_words_and_broadcast_are_conflict_free() {
        assert_eq!(lsu(&lanes(|l| 4 * l), ALL, 4, Op::Load), Ok(Cost { wavefronts: 1, ideal: 1, instructions: 1 }));
        assert_eq!(lsu(&lanes(|_| 64), ALL, 4, Op::Load).unwrap().conflicts(), 0);
        assert_eq!(lsu(&lanes(|l| 8 * l), ALL, 8, Op::Load).unwrap(), Cost { wavefronts: 2, ideal: 2, instructions: 1 });
        assert_eq!(lsu(&lanes(|l| 16 * l), ALL, 16, Op::Load).unwrap(), Cost { wavefronts: 4, ideal: 4, instructions: 1 });
    }

    #[test]
    fn strided_words_conflict_by_their_stride() {
        for (stride, ways) in [(2, 2), (4, 4), (8, 8), (32, 32), (33, 1)] {
            let c = lsu(&lanes(|l| 4 * stride * l), ALL, 4, Op::Load).unwrap();
            assert_eq!((c.wavefronts, c.conflicts()), (ways, ways - 1), "stride {stride}");
        }
    }

    #[test]
    fn seed_003_interleaved_addressing_conflicts_and_sequential_does_not() {
        use crate::reduce::{interleaved_index, sequential_index};
        // v1 at stride s: active lanes (index < 256) of warp 0 touch words 2·s·lane, which fall in
        // 32 / 2s banks: active · 2s / 32 lanes per bank (2-way at s = 1, 4-way at s = 2, as the seed says).
        for s in [1u32, 2, 4, 8] {
            let mask = lanes(|l| (interleaved_index(l, s) < 256) as u32).iter().enumerate().fold(0, |m, (l, &a)| m | a << l);
            let c = lsu(&lanes(|l| 4 * interleaved_index(l, s)), mask, 4, Op::Load).unwrap();
            let active = mask.count_ones() as u64;
            assert_eq!(c.wavefronts, active * 2 * s as u64 / 32, "stride {s}");
        }
        let c = lsu(&lanes(|l| 4 * sequential_index(l)), ALL, 4, Op::Load).unwrap();
        assert_eq!(c.conflicts(), 0);
    }

    #[test]
    fn seed_001_ldmatrix_x4_unpadded_conflicts_in_every_phase() {
        let c = matrix(&ldmatrix_x4_rows(&RowMajor { rows: 16, cols: 16 }), 4).unwrap();
        assert_eq!((c.wavefronts, c.conflicts()), (8, 4));
    }

    #[test]
    fn seed_001_padding_and_swizzle_remove_the_ldmatrix_conflicts() {
        let padded = Padded::new(16, 16, 24).unwrap();
        assert_eq!(matrix(&ldmatrix_x4_rows(&padded), 4).unwrap().conflicts(), 0);
        let sw = Swizzled { inner: RowMajor { rows: 16, cols: 16 }, swizzle: SwizzleFn::new(3, 1, 3).unwrap() };
        assert_eq!(matrix(&ldmatrix_x4_rows(&sw), 4).unwrap().conflicts(), 0);
    }

    #[test]
    fn seed_001_128_bit_row_major_stores_do_not_conflict_but_padded_ones_do() {
        // Lane t stores 8 halves (16 B) at element 8t of the tile (row t / 2, col 8 (t % 2)).
        let store = |l: &dyn Fn(u32, u32) -> u32| lsu(&lanes(|t| 2 * l(t / 2, 8 * (t % 2))), ALL, 16, Op::Store).unwrap();
        let rm = RowMajor { rows: 16, cols: 16 };
        assert_eq!(store(&|r, c| rm.offset(r, c)).conflicts(), 0);
        let sw = Swizzled { inner: rm, swizzle: SwizzleFn::new(3, 1, 3).unwrap() };
        assert_eq!(store(&|r, c| sw.offset(r, c)).conflicts(), 0);
        // Padded rows of 48 B: the 8 lanes of a phase cover rows 0-3 at bytes 0,16,48,64,96,112,144,160:
        // banks 0-3, 4-7, 12-15, 16-19, 24-27, 28-31, 4-7 (!), 8-11 — lanes 1 and 6 collide: conflicts.
        let pd = Padded::new(16, 16, 24).unwrap();
        assert!(store(&|r, c| pd.offset(r, c)).conflicts() > 0);
    }

    #[test]
    fn seed_000_padded_a_tile_bank_table() {
        // Seed 000: the 128×32 f16 A tile padded by 8 halves per row (stride 40 = storage_align(32, 32, 8):
        // 80 B = 20 banks per row); in the m16n8k8 A fragment thread t reads (t / 4, 2 (t % 4)):
        // threads 0-3 → banks 0-3, 4-7 → 20-23, 8-11 → 40-43 i.e. 8-11, 12-15 → 60-63 i.e. 28-31, …
        let stride = crate::pad::storage_align(32, 32, 8).unwrap();
        assert_eq!(stride, 40);
        let pd = Padded::new(128, 32, stride).unwrap();
        let want_inner = [0, 20, 8, 28, 16, 4, 24, 12];
        for t in 0..32u32 {
            let addr = 2 * pd.offset(t / 4, 2 * (t % 4));
            assert_eq!(bank_of(addr), want_inner[(t / 4) as usize] + t % 4, "thread {t}");
        }
        let c = lsu(&lanes(|t| 2 * pd.offset(t / 4, 2 * (t % 4))), ALL, 4, Op::Load).unwrap();
        assert_eq!(c.conflicts(), 0, "the seed's conclusion: conflict-free");
    }

    #[test]
    fn bad_inputs_are_errors_not_counts() {
        assert_eq!(lsu(&[0; 33], ALL, 4, Op::Store), Err(BankError::TooManyLanes(33)));
        assert_eq!(lsu(&[0; 32], ALL, 12, Op::Load), Err(BankError::BadWidth(12)));
        assert_eq!(lsu(&lanes(|l| 4 * l + 2 * (l == 5) as u32), ALL, 4, Op::Load), Err(BankError::Misaligned { lane: 5, addr: 22, width: 4 }));
        assert_eq!(lsu(&lanes(|l| 8 * l + 4), 1, 8, Op::Load), Err(BankError::Misaligned { lane: 0, addr: 4, width: 8 }));
        assert!(lsu(&lanes(|l| 8 * l + 4), 0, 8, Op::Load).is_ok(), "inactive lanes are not checked");
        assert_eq!(matrix(&[0; 16], 4), Err(BankError::BadMatrixCount { rows: 16, matrices: 4 }));
        assert_eq!(matrix(&[0; 24], 3), Err(BankError::BadMatrixCount { rows: 24, matrices: 3 }));
        assert!(matches!(matrix(&[8; 8], 1), Err(BankError::Misaligned { .. })));
    }

    #[test]
    fn wide_loads_as_measured_on_the_h200() {
        // Round 1 of results/2026-11-22-h200-bankcheck: the cases the plain phase rule got wrong.
        let uniform = |w| lsu(&lanes(|_| 256), ALL, w, Op::Load).unwrap();
        assert_eq!((uniform(8).wavefronts, uniform(8).conflicts()), (1, 0));
        assert_eq!((uniform(16).wavefronts, uniform(16).conflicts()), (2, 0));
        // Lane pairs sharing an address: the half-warps touch disjoint banks and merge (measured 1).
        assert_eq!(lsu(&lanes(|l| 8 * (l / 2)), ALL, 8, Op::Load).unwrap().wavefronts, 1);
        // Lanes l and l+16 reading the same 128 B: no merge (measured 2, 0 conflicts).
        let c = lsu(&lanes(|l| 8 * (l % 16)), ALL, 8, Op::Load).unwrap();
        assert_eq!((c.wavefronts, c.conflicts()), (2, 0));
        // Quarter-warps uniform on four banks-disjoint addresses: 16-byte loads merge per pass (2).
        assert_eq!(lsu(&lanes(|l| 32 * (l / 8)), ALL, 16, Op::Load).unwrap().wavefronts, 2);
        // Stores keep the phase rule: uniform 8-byte store = 2 wavefronts; even lanes: 16, 14 conflicts.
        assert_eq!(lsu(&lanes(|_| 256), ALL, 8, Op::Store).unwrap().wavefronts, 2);
        assert_eq!(lsu(&lanes(|l| 128 * l), 0x5555_5555, 8, Op::Store).unwrap().conflicts(), 14);
    }

    #[test]
    fn inactive_lanes_and_empty_phases_cost_nothing() {
        assert_eq!(lsu(&lanes(|l| 4 * l), 0, 4, Op::Load).unwrap(), Cost { wavefronts: 0, ideal: 0, instructions: 1 });
        let c = lsu(&lanes(|l| 16 * l), 0xFF, 16, Op::Load).unwrap();
        assert_eq!((c.wavefronts, c.ideal), (1, 1));
    }
}
