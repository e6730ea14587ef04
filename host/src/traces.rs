//! Kernel traces: the per-lane shared-memory addresses each ladder kernel's instructions use, generated
//! on the CPU from the same index functions the kernel calls (`layout::reduce`), fed to the bank model
//! to predict the kernel's wavefronts and conflicts per launch.
//!
//! Each trace follows its kernel's source, instruction by instruction, warp by warp; a warp with no
//! active lane issues nothing. The traces were checked against `ncu`'s instruction counts
//! (`smsp__sass_inst_executed_op_shared_{ld,st}`), which they reproduce exactly (results/).
use layout::{
    bank::{self, Cost},
    reduce::{BLOCK, WARP, interleaved_index, sequential_index},
};

use crate::reduce::Step;

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
pub fn reduce_block(step: Step, last_block: bool) -> BlockCost {
    let mut t = Trace::default();
    let all = |_| true;
    match step {
        Step::V0 | Step::V1 | Step::V2 | Step::V3 | Step::V4 => {
            t.access(true, all, |tid| tid); // s[tid] = loaded value
            let mut levels: Vec<(Box<dyn Fn(u32) -> bool>, Box<dyn Fn(u32) -> u32>, u32)> = vec![];
            match step {
                Step::V0 => {
                    let mut s = 1;
                    while s < BLOCK {
                        levels.push((Box::new(move |tid| tid % (2 * s) == 0), Box::new(|tid| tid), s));
                        s *= 2;
                    }
                }
                Step::V1 => {
                    let mut s = 1;
                    while s < BLOCK {
                        levels.push((Box::new(move |tid| interleaved_index(tid, s) < BLOCK), Box::new(move |tid| interleaved_index(tid, s)), s));
                        s *= 2;
                    }
                }
                _ => {
                    let stop = if step == Step::V4 { WARP } else { 0 };
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
            if step == Step::V4 {
                t.access(false, |tid| tid < WARP, |tid| tid);
                t.access(false, |tid| tid < WARP, |tid| tid + WARP);
            } else {
                t.access(false, |tid| tid == 0, |_| 0); // g_out[block] = s[0]
            }
        }
        Step::V5 => block_sum(&mut t),
        Step::V6 => {
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
pub fn reduce_launch(step: Step, grid: u64) -> BlockCost {
    let b = reduce_block(step, false);
    let scale = |c: CostSer, k: u64| CostSer { instructions: c.instructions * k, wavefronts: c.wavefronts * k, conflicts: c.conflicts * k };
    let add = |a: CostSer, b: CostSer| CostSer { instructions: a.instructions + b.instructions, wavefronts: a.wavefronts + b.wavefronts, conflicts: a.conflicts + b.conflicts };
    if step == Step::V6 && grid > 0 {
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
        let per_block = |s| { let b = reduce_block(s, false); (b.ld.instructions, b.st.instructions) };
        assert_eq!(per_block(Step::V0), (95, 55));
        assert_eq!(per_block(Step::V1), (25, 20));
        assert_eq!(per_block(Step::V2), (25, 20));
        assert_eq!(per_block(Step::V4), (14, 14));
        assert_eq!(per_block(Step::V5), (1, 8));
        let v6 = reduce_launch(Step::V6, 792);
        assert_eq!((v6.ld.instructions, v6.st.instructions), (7129, 7136));
    }

    #[test]
    fn only_interleaved_addressing_conflicts() {
        assert!(reduce_block(Step::V1, false).ld.conflicts > 0 && reduce_block(Step::V1, false).st.conflicts > 0);
        for s in [Step::V0, Step::V2, Step::V3, Step::V4, Step::V5, Step::V6] {
            let b = reduce_block(s, true);
            assert_eq!((b.ld.conflicts, b.st.conflicts), (0, 0), "{s:?}");
        }
    }
}
