//! The accumulator of `wgmma.mma_async.sync.aligned.m64nNk16` (sm_90a) with f32 D: which thread of the
//! warpgroup holds which element of the 64×N tile.

/// The f32 D/C fragment of `wgmma.m64nNk16` (`N` a multiple of 8 in 8..=256; anything else is a compile
/// error where a map is used): 128 threads (4 warps) × `N / 2` registers covering 64 × N.
///
/// ```text
/// thread = 32·w + lane      w = warp in the warpgroup    g = lane / 4    t = lane % 4
/// d_i at (16·w + g + 8·(i/2 % 2),  8·(i/4) + 2t + i%2)          i < N / 2
/// = the mma.m16n8 C fragment (MmaM16N8K16::c_rc(lane, i % 4)) moved to rows 16·w, columns 8·(i / 4)
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WgmmaAcc<const N: u32>;

impl<const N: u32> WgmmaAcc<N> {
    /// Rows of the tile.
    pub const ROWS: u32 = 64;
    /// Columns of the tile (`N`).
    pub const COLS: u32 = N;
    /// Threads of the warpgroup.
    pub const THREADS: u32 = 128;
    /// f32 registers per thread: `N / 2`.
    pub const REGS: u32 = N / 2;
    /// Compile-time check of `N`.
    pub const VALID: () = assert!(N.is_multiple_of(8) && N >= 8 && N <= 256, "wgmma.m64nNk16 needs N a multiple of 8 in 8..=256");

    /// Row and column of the 64×N tile held in register `d_i` (`i < N / 2`) by thread `thread` of the
    /// warpgroup. `thread` is taken modulo 128, so a kernel may pass its thread index in the block.
    ///
    /// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate", section "Matrix fragments for
    /// `wgmma.m64nNk16`", figure "WGMMA .m64nNk16 register fragment layout for accumulator matrix D":
    ///
    /// ```text
    /// cell = thread:i      row = 16·w + g + 8·(i/2 % 2)      col = 8·(i/4) + 2t + i%2
    ///            col 0     1     2     3  …    7 |     8     9  … |  …  N−1
    ///   row  0   0:0   0:1   1:0   1:1  …  3:1   |   0:4   0:5  … |  …  3:N/2−3
    ///   row  1   4:0   4:1   5:0   5:1  …  7:1   |   4:4   4:5  … |
    ///    …
    ///   row  8   0:2   0:3   1:2   1:3  …  3:3   |   0:6   0:7  … |
    ///    …
    ///   row 15  28:2  28:3  29:2  29:3  … 31:3   |  28:6  28:7  … |
    ///   row 16  32:0  32:1  33:0  33:1  … 35:1   |  32:4  …         (warp 1: rows 16–31)
    ///    …
    ///   row 63 124:2 124:3 125:2 125:3  … 127:3  | 124:6 …       … 127:N/2−1
    /// ```
    #[inline(always)]
    pub const fn rc(thread: u32, i: u32) -> (u32, u32) {
        Self::warp_lane_rc(thread / 32 % 4, thread % 32, i)
    }

    /// [`WgmmaAcc::rc`] of thread `32·warp + lane` (`warp < 4`, `lane < 32`), for kernels that already
    /// hold the warp (in its warpgroup) and the lane: `(16·warp + lane/4 + 8·(i/2 % 2), 8·(i/4) +
    /// 2·(lane % 4) + i%2)`. With `i = 4j + 2·half` this is [`crate::hopper::tma_hgemm::c_fragment_rc`].
    #[inline(always)]
    pub const fn warp_lane_rc(warp: u32, lane: u32, i: u32) -> (u32, u32) {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID;
        let (g, t) = (lane / 4, lane % 4);
        (16 * warp + g + 8 * (i / 2 % 2), 8 * (i / 4) + 2 * t + i % 2)
    }

    /// Inverse of [`WgmmaAcc::rc`]: the `(thread, i)` (`thread < 128`) holding `(row, col)` (`row < 64`,
    /// `col < N`).
    ///
    /// ```text
    /// thread = 32·(row / 16) + 4·(row % 8) + (col % 8) / 2      i = 4·(col / 8) + 2·(row % 16 / 8) + col % 2
    /// ```
    #[inline(always)]
    pub const fn owner(row: u32, col: u32) -> (u32, u32) {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID;
        (32 * (row / 16) + 4 * (row % 8) + col % 8 / 2, 4 * (col / 8) + 2 * (row % 16 / 8) + col % 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fragment::MmaM16N8K16 as Mma;
    use crate::hopper::tma_hgemm::c_fragment_rc;

    fn bijection<const N: u32>() {
        let mut seen = [[false; 256]; 64];
        for thread in 0..128 {
            for i in 0..WgmmaAcc::<N>::REGS {
                let (r, c) = WgmmaAcc::<N>::rc(thread, i);
                assert!(r < 64 && c < N, "N = {N}: ({thread}, {i}) → ({r}, {c}) outside");
                assert!(!seen[r as usize][c as usize], "N = {N}: ({r}, {c}) twice");
                seen[r as usize][c as usize] = true;
                assert_eq!(WgmmaAcc::<N>::owner(r, c), (thread, i), "N = {N}");
                assert_eq!(WgmmaAcc::<N>::rc(thread + 128, i), (r, c), "thread index modulo 128");
            }
        }
        assert_eq!(seen.iter().flatten().filter(|&&s| s).count() as u32, 64 * N);
    }

    #[test]
    fn every_n_is_a_bijection_onto_64_by_n() {
        bijection::<8>();
        bijection::<16>();
        bijection::<64>();
        bijection::<128>();
        bijection::<200>();
        bijection::<256>();
    }

    #[test]
    fn it_is_the_mma_accumulator_per_warp_and_8_columns() {
        for thread in 0..128 {
            for i in 0..128 {
                let (r, c) = Mma::c_rc(thread % 32, i % 4);
                assert_eq!(WgmmaAcc::<256>::rc(thread, i), (16 * (thread / 32) + r, 8 * (i / 4) + c));
            }
        }
        assert_eq!(WgmmaAcc::<64>::rc(5, 2), (9, 2));
        assert_eq!(WgmmaAcc::<64>::rc(37, 31), (25, 59));
    }

    /// `hopper::tma_hgemm::c_fragment_rc(warp, lane, j, half)` names the pair `d[4j + 2·half]`,
    /// `d[4j + 2·half + 1]` of a 64×64 block (h6's epilogue): the same places.
    #[test]
    fn agrees_with_the_hgemm_c_fragment_map() {
        for warp in 0..4 {
            for lane in 0..32 {
                for j in 0..8 {
                    for half in 0..2 {
                        let (r, c) = c_fragment_rc(warp, lane, j, half);
                        let i = 4 * j + 2 * half;
                        assert_eq!(WgmmaAcc::<64>::rc(32 * warp + lane, i), (r, c));
                        assert_eq!(WgmmaAcc::<64>::warp_lane_rc(warp, lane, i), (r, c));
                        assert_eq!(WgmmaAcc::<64>::rc(32 * warp + lane, i + 1), (r, c + 1));
                    }
                }
            }
        }
    }
}
