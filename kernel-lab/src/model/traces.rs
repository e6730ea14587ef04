//! Kernel traces: the per-lane shared-memory addresses each ladder kernel's instructions use, generated
//! on the CPU from the same index functions the kernel calls (`layout::reduce`, `layout::sgemm`,
//! `layout::hgemm`), fed to the bank model to predict the kernel's wavefronts and conflicts per launch.
//! Which trace a step gets is data in its descriptor (`steps::*::Trace`), so a new step reuses a trace
//! by naming it; only a new kind of access pattern needs code here.
//!
//! Each trace follows its kernel's source, instruction by instruction, warp by warp; a warp with no
//! active lane issues nothing. The traces were checked against `ncu`'s instruction counts
//! (`smsp__sass_inst_executed_op_shared_{ld,st}`), which they reproduce exactly (results/).
use layout::{
    bank::{self, Cost},
    reduce::{BLOCK, WARP, interleaved_index, sequential_index},
};

use crate::steps::reduce::{Step, Trace as ReduceTrace, Tree};

/// Predicted shared-memory cost of one block: loads and stores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BlockCost {
    /// Loads (`op_ld`).
    pub ld: CostSer,
    /// Stores (`op_st`).
    pub st: CostSer,
}

/// A serializable copy of [`Cost`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CostSer {
    /// Warp-level instructions.
    pub instructions: u64,
    /// Wavefronts.
    pub wavefronts: u64,
    /// Bank conflicts (`wavefronts − ideal`).
    pub conflicts: u64,
}

impl From<Cost> for CostSer {
    fn from(c: Cost) -> Self {
        CostSer { instructions: c.instructions, wavefronts: c.wavefronts, conflicts: c.conflicts() }
    }
}

/// Accumulates one block's instructions.
#[derive(Default)]
struct Trace {
    ld: Cost,
    st: Cost,
}

impl Trace {
    /// One 4-byte access per active thread: `word(tid)` is the shared word thread `tid` touches when
    /// `active(tid)`; warps with no active lane issue nothing.
    fn access(&mut self, store: bool, active: impl Fn(u32) -> bool, word: impl Fn(u32) -> u32) {
        for warp in 0..BLOCK / WARP {
            let mut addrs = [0u32; 32];
            let mut mask = 0u32;
            for lane in 0..WARP {
                let tid = warp * WARP + lane;
                if active(tid) {
                    addrs[lane as usize] = 4 * word(tid);
                    mask |= 1 << lane;
                }
            }
            if mask != 0 {
                let op = if store { bank::Op::Store } else { bank::Op::Load };
                let c = bank::lsu(&addrs, mask, 4, op).expect("reduce traces are 4-byte aligned, 32 lanes");
                if store { self.st = self.st.add(c) } else { self.ld = self.ld.add(c) }
            }
        }
    }
    fn done(self) -> BlockCost {
        BlockCost { ld: self.ld.into(), st: self.st.into() }
    }
}

/// `block_sum_f32`: lane 0 of each warp stores its warp's sum, warp 0 reads the `BLOCK / WARP` sums.
fn block_sum(t: &mut Trace) {
    t.access(true, |tid| tid % WARP == 0, |tid| tid / WARP);
    t.access(false, |tid| tid < BLOCK / WARP, |tid| tid);
}

/// Predicted cost of one block of `step`; `last_block` adds v6's final reduction (only the block that
/// draws the last ticket runs it).
pub fn reduce_block(step: &Step, last_block: bool) -> BlockCost {
    let mut t = Trace::default();
    let all = |_| true;
    match step.trace {
        ReduceTrace::Tree(tree) => {
            t.access(true, all, |tid| tid); // s[tid] = loaded value
            let mut levels: Vec<(Box<dyn Fn(u32) -> bool>, Box<dyn Fn(u32) -> u32>, u32)> = vec![];
            match tree {
                Tree::InterleavedDivergent => {
                    let mut s = 1;
                    while s < BLOCK {
                        levels.push((Box::new(move |tid| tid % (2 * s) == 0), Box::new(|tid| tid), s));
                        s *= 2;
                    }
                }
                Tree::Interleaved => {
                    let mut s = 1;
                    while s < BLOCK {
                        levels.push((Box::new(move |tid| interleaved_index(tid, s) < BLOCK), Box::new(move |tid| interleaved_index(tid, s)), s));
                        s *= 2;
                    }
                }
                Tree::Sequential | Tree::SequentialLastWarp => {
                    let stop = if tree == Tree::SequentialLastWarp { WARP } else { 0 };
                    let mut half = BLOCK / 2;
                    while half > stop {
                        levels.push((Box::new(move |tid| tid < half), Box::new(sequential_index), half));
                        half /= 2;
                    }
                }
            }
            for (active, index, off) in &levels {
                // s[index] += s[index + off]: two loads, one store, by the active threads.
                t.access(false, active, index);
                t.access(false, active, |tid| index(tid) + off);
                t.access(true, active, index);
            }
            if tree == Tree::SequentialLastWarp {
                t.access(false, |tid| tid < WARP, |tid| tid);
                t.access(false, |tid| tid < WARP, |tid| tid + WARP);
            } else {
                t.access(false, |tid| tid == 0, |_| 0); // g_out[block] = s[0]
            }
        }
        ReduceTrace::WarpSums => block_sum(&mut t),
        ReduceTrace::WarpSumsLastBlock => {
            block_sum(&mut t);
            t.access(true, |tid| tid == 0, |_| BLOCK / WARP); // *s_last = ticket == last
            t.access(false, all, |_| BLOCK / WARP); // every thread reads *s_last (broadcast)
            if last_block {
                block_sum(&mut t);
            }
        }
    }
    t.done()
}

/// Predicted cost of one launch of `step` with `grid` blocks (v6: one of them is the last block).
pub fn reduce_launch(step: &Step, grid: u64) -> BlockCost {
    let b = reduce_block(step, false);
    let scale = |c: CostSer, k: u64| CostSer { instructions: c.instructions * k, wavefronts: c.wavefronts * k, conflicts: c.conflicts * k };
    let add = |a: CostSer, b: CostSer| CostSer { instructions: a.instructions + b.instructions, wavefronts: a.wavefronts + b.wavefronts, conflicts: a.conflicts + b.conflicts };
    if step.trace == ReduceTrace::WarpSumsLastBlock && grid > 0 {
        let last = reduce_block(step, true);
        BlockCost { ld: add(scale(b.ld, grid - 1), last.ld), st: add(scale(b.st, grid - 1), last.st) }
    } else {
        BlockCost { ld: scale(b.ld, grid), st: scale(b.st, grid) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_counts_match_what_ncu_counted_on_the_h200() {
        // Per block, from results/2026-11-22-h200-reduce (ncu, N = 2^20): v0 95 ld / 55 st, v2 25 / 20,
        // v4 14 / 14, v5 1 / 8; v6 (792 blocks) 7129 ld / 7136 st per launch.
        use crate::steps::reduce::{V0, V1, V2, V4, V5, V6};
        let per_block = |s| { let b = reduce_block(s, false); (b.ld.instructions, b.st.instructions) };
        assert_eq!(per_block(&V0), (95, 55));
        assert_eq!(per_block(&V1), (25, 20));
        assert_eq!(per_block(&V2), (25, 20));
        assert_eq!(per_block(&V4), (14, 14));
        assert_eq!(per_block(&V5), (1, 8));
        let v6 = reduce_launch(&V6, 792);
        assert_eq!((v6.ld.instructions, v6.st.instructions), (7129, 7136));
    }

    #[test]
    fn sgemm_traces_match_what_ncu_counted_on_the_h200() {
        use crate::{gemm::Shape, steps::sgemm::{V0, V2, V3, V4, V9}};
        // results/2026-11-22-h200-full, 1024³: load instructions and wavefronts per launch.
        let s = Shape::new(1024, 1024, 1024).unwrap();
        let ld = |st| sgemm::launch(st, s).unwrap().ld;
        assert_eq!((ld(&V2).instructions, ld(&V2).wavefronts, ld(&V2).conflicts), (5_242_880, 18_874_368, 12_582_912));
        assert_eq!((ld(&V4).instructions, ld(&V4).wavefronts, ld(&V4).conflicts), (8_388_608, 8_388_608, 0));
        assert_eq!((ld(&V9).instructions, ld(&V9).wavefronts), (2_097_152, 6_291_456));
        assert_eq!(sgemm::launch(&V2, s).unwrap().st.conflicts, 1_835_008);
        assert_eq!(sgemm::launch(&V3, s).unwrap().st.conflicts, 0);
        assert!(sgemm::launch(&V0, s).is_none());
        // v14 (64-row tiles, 4 warps): per tile half of v11's fragment loads and A stores, the same B
        // stores, and the same wavefronts per instruction (stride 68 ≡ 132 mod 32).
        let (l11, s11) = sgemm::per_tile(&crate::steps::sgemm::V11).unwrap();
        let (l14, s14) = sgemm::per_tile(&crate::steps::sgemm::V14).unwrap();
        assert_eq!((2 * l14.instructions, 2 * l14.wavefronts), (l11.instructions, l11.wavefronts));
        assert_eq!(s14.wavefronts - s14.ideal, s11.wavefronts - s11.ideal, "v14's stores conflict exactly as v11's");
        // v15 (32-row tiles, 2 warps): a quarter of v11's fragment loads and A stores per tile, the same
        // wavefronts per instruction (stride 36 ≡ 132 mod 32), and B's stores as v11's.
        let (l15, s15) = sgemm::per_tile(&crate::steps::sgemm::V15).unwrap();
        assert_eq!((4 * l15.instructions, 4 * l15.wavefronts), (l11.instructions, l11.wavefronts));
        assert_eq!(s15.wavefronts - s15.ideal, s11.wavefronts - s11.ideal, "v15's stores conflict exactly as v11's");
        // v17: v14's loads and A stores; B's stores are cp.async copies the LSU counters do not count.
        let (l17, s17) = sgemm::per_tile(&crate::steps::sgemm::V17).unwrap();
        assert_eq!((l17.instructions, l17.wavefronts), (l14.instructions, l14.wavefronts));
        // B's 16×128 stage is 16 float4 stores per tile (4 per warp), 4 wavefronts each (512 contiguous bytes).
        assert_eq!((s14.instructions - s17.instructions, s14.wavefronts - s17.wavefronts), (16, 64), "v17 stores A only");
        // v13's once-per-block sums: conflict-free stores and loads (one wavefront per 8 lanes' float4s).
        for rows in [1, 4, 8, 16] {
            let (ld, st) = sgemm::skinny_block(rows);
            assert_eq!((ld.wavefronts, st.wavefronts), (ld.ideal, st.ideal), "{rows} rows");
            assert_eq!(st.instructions, 8 * rows as u64);
            assert_eq!(ld.instructions, 8 * rows as u64, "8 loads per lane per row, one warp per row");
        }
    }

    #[test]
    fn only_interleaved_addressing_conflicts() {
        use crate::steps::reduce::{STEPS, V1};
        assert!(reduce_block(&V1, false).ld.conflicts > 0 && reduce_block(&V1, false).st.conflicts > 0);
        for s in STEPS.iter().filter(|s| **s != V1) {
            let b = reduce_block(s, true);
            assert_eq!((b.ld.conflicts, b.st.conflicts), (0, 0), "{}", s.kernel.name);
        }
    }
}

/// SGEMM: the shared-memory instructions one block issues per K tile, as the kernels' sources write
/// them with the instruction forms ptxas emits for sm_90 (checked with `cuobjdump -sass`: v1's A reads
/// become `LDS.128` of 4 consecutive k, v2/v3's 8 contiguous A reads become 2 `LDS.128`; everything
/// else is as written), addresses from `layout::sgemm` (the functions the kernels call).
pub mod sgemm {
    use layout::{
        Layout, Padded,
        bank::{self, Cost, Op},
        sgemm::*,
    };

    use super::{BlockCost, CostSer};
    use crate::{
        gemm::Shape,
        steps::sgemm::{AStore, Step, Trace},
    };

    /// Sums one instruction per warp of a `threads`-thread block: lane `l` of warp `w` accesses byte
    /// address `addr(tid)` with `width` bytes.
    fn per_warp(threads: u32, width: u32, op: Op, addr: impl Fn(u32) -> u32) -> Cost {
        (0..threads / 32).fold(Cost::default(), |acc, w| {
            let a: [u32; 32] = core::array::from_fn(|l| addr(32 * w + l as u32));
            acc.add(bank::lsu(&a, u32::MAX, width, op).expect("sgemm traces are aligned, 32 lanes"))
        })
    }

    /// Predicted (loads, stores) of one block for one K tile of `step`; `None` for v0 (no shared memory).
    pub fn per_tile(step: &Step) -> Option<(Cost, Cost)> {
        let mut ld = Cost::default();
        let mut st = Cost::default();
        let (la, lb) = (a_tile_t(), b_tile());
        let w = |l: &Padded, r: u32, c: u32| 4 * l.offset(r, c);
        // v17 is v14's trace without B's stores (its B stages arrive by cp.async, which the LSU store
        // counters do not see).
        let (trace, b_by_cp_async) = match step.trace {
            Trace::Vec4CpAsyncB => (Trace::Vec4 { wide: true, warp_tile: true }, true),
            t => (t, false),
        };
        match trace {
            Trace::None | Trace::Vec4CpAsyncB => return None,
            Trace::SmemTile => {
                let t = SMEM_TILE;
                let rc = |tid: u32| (tid / t, tid % t);
                st = st.add(per_warp(1024, 4, Op::Store, |tid| 4 * (rc(tid).0 * t + rc(tid).1)).times(2));
                for q in 0..t / 4 {
                    ld = ld.add(per_warp(1024, 16, Op::Load, |tid| 4 * (rc(tid).0 * t + 4 * q)));
                }
                for kk in 0..t {
                    ld = ld.add(per_warp(1024, 4, Op::Load, |tid| 4 * (kk * t + rc(tid).1)));
                }
            }
            Trace::RegisterTile { a_store, strided_reads } => {
                let a_load = if a_store == AStore::Coalesced { a_load_coalesced } else { a_load_conflict_free };
                for i in 0..4 {
                    st = st.add(per_warp(THREADS, 4, Op::Store, |tid| { let (m, k) = a_load(tid, i); w(&la, k, m) }));
                    st = st.add(per_warp(THREADS, 4, Op::Store, |tid| { let e = tid + THREADS * i; w(&lb, e / BN, e % BN) }));
                }
                for kk in 0..BK {
                    if strided_reads {
                        for i in 0..8 {
                            ld = ld.add(per_warp(THREADS, 4, Op::Load, |tid| w(&la, kk, strided_row(thread_rc(tid).0, i))));
                            ld = ld.add(per_warp(THREADS, 4, Op::Load, |tid| w(&lb, kk, strided_row(thread_rc(tid).1, i))));
                        }
                    } else {
                        for h in 0..2 {
                            ld = ld.add(per_warp(THREADS, 16, Op::Load, |tid| w(&la, kk, contiguous_row(thread_rc(tid).0, 4 * h))));
                        }
                        for j in 0..8 {
                            ld = ld.add(per_warp(THREADS, 4, Op::Load, |tid| w(&lb, kk, thread_rc(tid).1 * TN + j)));
                        }
                    }
                }
            }
            Trace::Vec4 { wide, warp_tile } => {
                // The block's rows (128; v14: 64) and its threads (two per row: 8 or 4 warps).
                let rows = if wide { step.grid.tile().0 } else { BM };
                let threads = 2 * rows;
                let (la, lb) = if wide { (a_tile_t_wide_rows(rows), b_tile_wide()) } else { (a_tile_t_padded(), b_tile()) };
                let kstep = if wide { BK_WIDE } else { BK };
                for i in 0..kstep / 8 {
                    for c in 0..4 {
                        st = st.add(per_warp(threads, 4, Op::Store, |tid| w(&la, (tid % 2) * 4 + 8 * i + c, tid / 2)));
                    }
                }
                // B: `kstep · BN / 4` float4s, `threads` at a time, k rows `threads / 32` apart.
                for i in 0..if b_by_cp_async { 0 } else { kstep * BN / 4 / threads } {
                    st = st.add(per_warp(threads, 16, Op::Store, |tid| w(&lb, tid / 32 + threads / 32 * i, (tid % 32) * 4)));
                }
                let (row, col): (fn(u32, u32) -> u32, fn(u32, u32) -> u32) = if warp_tile {
                    (warp_tile_row, warp_tile_col)
                } else {
                    (|tid, h| vec4_row(thread_rc(tid).0, h, 0), |tid, h| vec4_row(thread_rc(tid).1, h, 0))
                };
                for kk in 0..kstep {
                    for h in 0..2 {
                        ld = ld.add(per_warp(threads, 16, Op::Load, |tid| w(&la, kk, row(tid, h))));
                        ld = ld.add(per_warp(threads, 16, Op::Load, |tid| w(&lb, kk, col(tid, h))));
                    }
                }
            }
            Trace::Skinny => return None,
            Trace::CpAsyncRows => {
                // cp.async fills do not appear in the LSU store counters (measured: 0 wavefronts).
                let (la, lb) = (a_tile_rows(), b_tile_wide());
                for kq in 0..BK_WIDE / 2 {
                    for i in 0..8 {
                        ld = ld.add(per_warp(THREADS, 8, Op::Load, |tid| w(&la, vec4_row(thread_rc(tid).0, i / 4, i % 4), 2 * kq)));
                    }
                }
                for kk in 0..BK_WIDE {
                    for h in 0..2 {
                        ld = ld.add(per_warp(THREADS, 16, Op::Load, |tid| w(&lb, kk, vec4_row(thread_rc(tid).1, h, 0))));
                    }
                }
            }
        }
        Some((ld, st))
    }

    /// v13's shared accesses of one block computing `rows` rows (`skinny_rows`): every thread stores
    /// its `rows` float4 sums; warp w then loads, for each of its rows `w, w + 8, …`, 8 float4s per
    /// lane (groups `quarter + 4i`).
    pub fn skinny_block(rows: u32) -> (Cost, Cost) {
        let mut st = Cost::default();
        let mut ld = Cost::default();
        for r in 0..rows {
            st = st.add(per_warp(THREADS, 16, Op::Store, |tid| { let (g, lane) = skinny_thread(tid); 4 * skinny_sum_word(g, r, lane) }));
            let quarters = 32 / SKINNY_LANES;
            for i in 0..SKINNY_GROUPS / quarters {
                let a: [u32; 32] = core::array::from_fn(|l| 4 * skinny_sum_word(l as u32 / SKINNY_LANES + quarters * i, r, l as u32 % SKINNY_LANES));
                ld = ld.add(bank::lsu(&a, u32::MAX, 16, Op::Load).expect("aligned, 32 lanes"));
            }
        }
        (ld, st)
    }

    /// Predicted loads and stores of a whole launch of `step` on `shape` (v13: of one split of K;
    /// a launch with `splits` splits makes `splits` times as many).
    pub fn launch(step: &Step, s: Shape) -> Option<BlockCost> {
        if step.trace == Trace::Skinny {
            let strips = s.n.div_ceil(SKINNY_COLS as usize) as u64;
            let (full, last) = (s.m / SKINNY_ROWS as usize, s.m % SKINNY_ROWS as usize);
            let (ld, st) = skinny_block(SKINNY_ROWS);
            let (mut ld, mut st) = (ld.times(full as u64 * strips), st.times(full as u64 * strips));
            if last > 0 {
                let (l, t) = skinny_block(skinny_rows(last as u32));
                (ld, st) = (ld.add(l.times(strips)), st.add(t.times(strips)));
            }
            return Some(BlockCost { ld: CostSer::from(ld), st: CostSer::from(st) });
        }
        let (ld, st) = per_tile(step)?;
        let (bm, bn) = step.grid.tile();
        let kstep = match step.trace {
            Trace::SmemTile => SMEM_TILE,
            Trace::Vec4 { wide: true, .. } | Trace::CpAsyncRows | Trace::Vec4CpAsyncB => BK_WIDE,
            _ => BK,
        } as usize;
        let blocks = (s.m.div_ceil(bm as usize) * s.n.div_ceil(bn as usize)) as u64;
        let tiles = blocks * s.k.div_ceil(kstep) as u64;
        Some(BlockCost { ld: CostSer::from(ld.times(tiles)), st: CostSer::from(st.times(tiles)) })
    }
}

/// Block-level HGEMM: shared-memory instructions per block per K tile, from `layout::hgemm` and the
/// chunk/fragment maps the kernels use (`kernels-gpu/src/hgemm/block.rs`, `block_pipeline.rs`): 128-bit tile stores (v2–v4;
/// v5+ fill shared memory with `cp.async`, which the LSU store counters do not see) and, per warp and
/// k16, 4 `ldmatrix.x4` of A and 4 `ldmatrix.x4.trans` of B.
pub mod hgemm {
    use layout::{
        Layout,
        bank::{self, Cost, Op},
        fragment::{Ldmatrix, MmaM16N8K16},
        hgemm::*,
    };

    use super::{BlockCost, CostSer};
    use crate::{
        gemm::Shape,
        steps::hgemm::{Epilogue, Fill, Step, Tiles, Trace},
    };

    /// The A and B tile layouts and the K depth of `tiles`.
    pub fn layouts(tiles: Tiles) -> (&'static dyn Layout, &'static dyn Layout, u32) {
        match tiles {
            Tiles::RowMajor => (&A_ROW_MAJOR, &B_ROW_MAJOR, BK),
            Tiles::Padded => (&A_PADDED, &B_PADDED, BK),
            Tiles::Swizzled => (&A_SWIZZLED, &B_SWIZZLED, BK),
            Tiles::SwizzledWide => (&A_SWIZZLED_WIDE, &B_SWIZZLED_WIDE, BK_WIDE),
            Tiles::PaddedWide => (&A_PADDED_WIDE, &B_PADDED_WIDE, BK_WIDE),
        }
    }

    /// Predicted (loads, stores) of one block for one K tile; `None` for steps that issue no shared
    /// accesses per K tile (v1: none at all; h1–h6: the TMA writes and `wgmma` reads shared memory
    /// outside the LSU path this model covers).
    pub fn per_tile(step: &Step) -> Option<(Cost, Cost)> {
        let Trace::Block { tiles, fill, .. } = step.trace else { return None };
        let (la, lb, bk) = layouts(tiles);
        let mut ld = Cost::default();
        let mut st = Cost::default();
        if fill == Fill::Registers {
            for w in 0..THREADS / 32 {
                for i in 0..(BM * bk / 8).div_ceil(THREADS) {
                    let a: [u32; 32] = core::array::from_fn(|l| { let (r, c) = copy_chunk(32 * w + l as u32 + THREADS * i, bk); 2 * la.offset(r, c) });
                    st = st.add(bank::lsu(&a, u32::MAX, 16, Op::Store).expect("aligned"));
                }
                for i in 0..(bk * BN / 8).div_ceil(THREADS) {
                    let a: [u32; 32] = core::array::from_fn(|l| { let (r, c) = copy_chunk(32 * w + l as u32 + THREADS * i, BN); 2 * lb.offset(r, c) });
                    st = st.add(bank::lsu(&a, u32::MAX, 16, Op::Store).expect("aligned"));
                }
            }
        }
        for w in 0..THREADS / 32 {
            let (wm, wn) = (w / (BN / WN), w % (BN / WN));
            for k16 in 0..bk / 16 {
                for mi in 0..4 {
                    let rows: [u32; 32] = core::array::from_fn(|l| { let (r, c) = Ldmatrix::X4.tile_addr_rc(l as u32);
                        2 * la.offset(wm * WM + 16 * mi + r, 16 * k16 + c) });
                    ld = ld.add(bank::matrix(&rows, 4).expect("aligned"));
                }
                for nj in 0..4 {
                    let rows: [u32; 32] = core::array::from_fn(|l| { let (r, c) = Ldmatrix::X4_TRANS.tile_addr_rc(l as u32);
                        2 * lb.offset(16 * k16 + r, wn * WN + 16 * nj + c) });
                    ld = ld.add(bank::matrix(&rows, 4).expect("aligned"));
                }
            }
        }
        Some((ld, st))
    }

    /// `cp.async` sector transfers (`layout::copy`) of one launch of a `cp.async` step (v5–v9p; `None`
    /// for the others): per block and K tile, every warp instruction of the copy (chunks numbered by
    /// `copy_chunk`, thread `tid` copying `tid + 256 i`), global addresses from the shape's row pitches,
    /// shared addresses from the step's layouts — the kernel's maps. Exact for shapes whose blocks are
    /// all interior (zero-filled edge chunks read no global memory); row pitches (2K, 2N bytes) are
    /// multiples of 32 there, so every block and K tile moves the same.
    pub fn ldgsts_sectors(step: &Step, s: Shape) -> Option<u64> {
        use layout::copy::ldgsts_sector_pairs;
        let Trace::Block { tiles, fill: Fill::CpAsync, .. } = step.trace else { return None };
        let (la, lb, bk) = layouts(tiles);
        let (pitch_a, pitch_b) = (2 * s.k as u64, 2 * s.n as u64);
        let mut per_tile = 0u64;
        for w in 0..THREADS / 32 {
            let warp = |i: u32, cols: u32, l: &dyn Layout, pitch: u64| {
                ldgsts_sector_pairs((0..32).map(|lane| {
                    let (r, c) = copy_chunk(32 * w + lane + THREADS * i, cols);
                    (r as u64 * pitch + 2 * c as u64, 2 * l.offset(r, c))
                })).expect("32 lanes") as u64
            };
            per_tile += (0..BM * bk / 8 / THREADS).map(|i| warp(i, bk, la, pitch_a)).sum::<u64>();
            per_tile += (0..bk * BN / 8 / THREADS).map(|i| warp(i, BN, lb, pitch_b)).sum::<u64>();
        }
        let blocks = (s.m.div_ceil(BM as usize) * s.n.div_ceil(BN as usize)) as u64;
        Some(per_tile * blocks * s.k.div_ceil(bk as usize) as u64)
    }

    /// v8's epilogue per block: the C fragments written to `C_SWIZZLED` (32-bit stores, per warp 4 × 8
    /// × 2 instructions), and the 16-byte chunk reads of the copy-out (16 per thread).
    pub fn epilogue_v8() -> (Cost, Cost) {
        let (mut ld, mut st) = (Cost::default(), Cost::default());
        for w in 0..THREADS / 32 {
            let (wm, wn) = (w / (BN / WN), w % (BN / WN));
            for mi in 0..4 {
                for ni in 0..8 {
                    for h in 0..2 {
                        let a: [u32; 32] = core::array::from_fn(|l| { let (r, c) = MmaM16N8K16::c_rc(l as u32, 2 * h);
                            2 * C_SWIZZLED.offset(wm * WM + 16 * mi + r, wn * WN + 8 * ni + c) });
                        st = st.add(bank::lsu(&a, u32::MAX, 4, Op::Store).expect("aligned"));
                    }
                }
            }
            for i in 0..BM * BN / 8 / THREADS {
                let a: [u32; 32] = core::array::from_fn(|l| { let (r, c) = copy_chunk(32 * w + l as u32 + THREADS * i, BN); 2 * C_SWIZZLED.offset(r, c) });
                ld = ld.add(bank::lsu(&a, u32::MAX, 16, Op::Load).expect("aligned"));
            }
        }
        (ld, st)
    }

    /// h6's TMA-store epilogue, per C tile (128×256): each of the 8 consumer warps writes its four 64×64
    /// accumulator blocks into `SWIZZLE_128B` staging boxes, one `st.shared.b32` per (block, j, half), at
    /// `tma_hgemm::C_BOX.smem_byte` of `tma_hgemm::c_fragment_rc` — the functions the kernel uses. The
    /// TMA store that reads the boxes back is not an LSU access. h1–h5 issue no shared-memory
    /// instructions at all (TMA writes, `wgmma` reads).
    pub fn epilogue_h6() -> Cost {
        use layout::hopper::tma_hgemm::{C_BOX, c_fragment_rc};
        let mut st = Cost::default();
        for _consumer in 0..2 {
            for warp in 0..4 {
                for _block in 0..4 {
                    for j in 0..8 {
                        for half in 0..2 {
                            let a: [u32; 32] = core::array::from_fn(|l| {
                                let (r, c) = c_fragment_rc(warp, l as u32, j, half);
                                C_BOX.smem_byte(r, c)
                            });
                            st = st.add(bank::lsu(&a, u32::MAX, 4, Op::Store).expect("aligned"));
                        }
                    }
                }
            }
        }
        st
    }

    /// Predicted loads and stores of a whole launch.
    pub fn launch(step: &Step, s: Shape) -> Option<BlockCost> {
        if step.trace == (Trace::Tma { tma_store: true }) {
            use layout::hopper::tma_hgemm::{BM as TM, BN_WIDE as TN};
            let tiles = (s.m.div_ceil(TM as usize) * s.n.div_ceil(TN as usize)) as u64;
            return Some(BlockCost { ld: CostSer::from(Cost::default()), st: CostSer::from(epilogue_h6().times(tiles)) });
        }
        let (ld, st) = per_tile(step)?;
        let Trace::Block { tiles, epilogue, .. } = step.trace else { return None };
        let bk = layouts(tiles).2 as usize;
        let blocks = (s.m.div_ceil(BM as usize) * s.n.div_ceil(BN as usize)) as u64;
        let t = blocks * s.k.div_ceil(bk) as u64;
        let (mut ld, mut st) = (ld.times(t), st.times(t));
        if epilogue == Epilogue::SharedSwizzled {
            let (el, es) = epilogue_v8();
            (ld, st) = (ld.add(el.times(blocks)), st.add(es.times(blocks)));
        }
        Some(BlockCost { ld: CostSer::from(ld), st: CostSer::from(st) })
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::steps::hgemm::{H6, V2, V3, V4, V5, V6, V7, V8, V9, V9P, V9S4};

        #[test]
        fn unpadded_tiles_conflict_padded_and_swizzled_do_not() {
            let (ld2, _) = per_tile(&V2).unwrap();
            assert!(ld2.conflicts() > 0, "unpadded ldmatrix conflicts");
            // Padding fixes the loads but, as seed 000 says, the 128-bit stores of the A tile now
            // conflict (rows 80 bytes apart: a quarter-warp's two rows overlap in banks 0-3).
            let (ld3, st3) = per_tile(&V3).unwrap();
            assert_eq!(ld3.conflicts(), 0);
            assert!(st3.conflicts() > 0);
            let (el, es) = epilogue_v8();
            assert_eq!((el.conflicts(), es.conflicts()), (0, 0), "v8's swizzled C tile is conflict-free both ways");
            // h6: 64 conflict-free stores per consumer warp per tile; at 1024³ (32 tiles) that is the
            // 16 384 instructions = 16 384 wavefronts, 0 conflicts ncu counted (results/…-hopper-repeat).
            let h6 = launch(&H6, Shape::new(1024, 1024, 1024).unwrap()).unwrap();
            assert_eq!((h6.st.instructions, h6.st.wavefronts, h6.st.conflicts, h6.ld.instructions), (16_384, 16_384, 0, 0));
            // cp.async sectors at 4096³: ncu measured 50 331 648 for v8 and v9 and 75 497 472 for v9p
            // (results/2026-11-22-h200-session3-padding): padding's 16-byte row offsets split every
            // other row's sectors; the swizzles keep them whole.
            let big = Shape::new(4096, 4096, 4096).unwrap();
            assert_eq!([V8, V9, V9P].map(|st| ldgsts_sectors(&st, big)), [Some(50_331_648), Some(50_331_648), Some(75_497_472)]);
            assert_eq!(ldgsts_sectors(&V4, big), None);
            for st in [V4, V5, V6, V7, V8, V9, V9S4, V9P] {
                let (ld, s) = per_tile(&st).unwrap();
                assert_eq!((ld.conflicts(), s.conflicts()), (0, 0), "{}", st.kernel.name);
            }
        }
    }
}

/// Seed 001's warp ladder: the shared-memory instructions of one launch, from the step's tiles
/// (`layout::hgemm_warp`, the layouts the kernels use) with the instruction forms ptxas emits for
/// sm_90 (read with `cuobjdump -sass`: `wmma.load ... .shared` is `LDSM.16.M88.4` / `LDSM.16.MT88.4`
/// like `ldmatrix`, and `wmma.store ... .shared` of the f16 accumulator is 4 × `STS` of 32 bits in the
/// mma C-fragment layout).
pub mod hgemm_warp {
    use layout::{
        Layout,
        bank::{self, Cost, Op},
        fragment::Ldmatrix,
        hgemm_warp::{PADDED, SWIZZLED, TILE},
    };

    use crate::steps::hgemm_warp::{CStore, Step, Tile, Trace};

    fn layout(t: Tile) -> &'static dyn Layout {
        match t {
            Tile::RowMajor => &TILE,
            Tile::Padded => &PADDED,
            Tile::Swizzled => &SWIZZLED,
        }
    }

    /// Predicted (loads, stores) of the one launch of `step`.
    pub fn predict(step: &Step) -> Option<(Cost, Cost)> {
        const ALL: u32 = u32::MAX;
        let Trace::Shared { ab, c, c_store } = step.trace else { return Some((Cost::default(), Cost::default())) };
        let (ab, c) = (layout(ab), layout(c));
        let lanes = |f: &dyn Fn(u32) -> u32| -> [u32; 32] { std::array::from_fn(|l| f(l as u32)) };
        // 128-bit tile copy: lane t → row t / 2, column 8 (t % 2) (kernels-gpu `hgemm::tile_to_shared`).
        let copy = |l: &dyn Layout, op| bank::lsu(&lanes(&|t| 2 * l.offset(t / 2, 8 * (t % 2))), ALL, 16, op).ok();
        // ldmatrix.x4 / stmatrix.x4 rows (`hgemm::x4_row_addr`), one 8×8 matrix per 8 lanes.
        let x4 = |l: &dyn Layout| bank::matrix(&lanes(&|t| { let (r, c) = Ldmatrix::X4.tile_addr_rc(t); 2 * l.offset(r, c) }), 4).ok();
        // C written in the mma C-fragment layout of the 16×16 tile, 32 bits per lane per register —
        // register i of `stmatrix.x4`'s fragment (matrix i of the tile). Both wmma.store and the shfl
        // stmatrix emulation write exactly these words.
        let c_frag = |l: &dyn Layout| -> Option<Cost> {
            (0..4u32).try_fold(Cost::default(), |acc, i| {
                let a = lanes(&|t| { let (r, c) = Ldmatrix::X4.tile_rc(t, i, 0); 2 * l.offset(r, c) });
                bank::lsu(&a, ALL, 4, Op::Store).ok().map(|c| acc.add(c))
            })
        };
        let mut st = copy(ab, Op::Store)?.add(copy(ab, Op::Store)?);
        st = st.add(match c_store { CStore::Stmatrix => x4(c)?, CStore::Fragments => c_frag(c)? });
        let ld = x4(ab)?.add(x4(ab)?).add(copy(c, Op::Load)?);
        Some((ld, st))
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::steps::hgemm_warp::{V1, V2, V3, V4, V4S, V5};

        #[test]
        fn predictions_reproduce_seed_001() {
            let p = |k| { let (l, s) = predict(k).unwrap(); (l.conflicts(), s.conflicts()) };
            assert_eq!(p(&V1), (0, 0));
            assert_eq!(p(&V2), (8, 4), "seed 001: 8 load conflicts for v2");
            assert_eq!(p(&V3), (0, 12), "seed 001: 12 store conflicts after padding");
            assert_eq!(p(&V4), (8, 4));
            assert_eq!(p(&V4S), (8, 4));
            assert_eq!(p(&V5), (0, 0), "the issue: v5 has 0 load and 0 store conflicts");
        }
    }
}
