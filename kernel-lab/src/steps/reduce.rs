//! The reduction ladder (seed 003, `kernels-gpu/src/reduce/`): `Σ x[i]` over n f32, 256 threads per block.
// Each step constant is documented by its descriptor (`about`, the ladder README), not a doc comment.
#![allow(missing_docs)]
use layout::reduce::{BLOCK, ELEMS_PER_BLOCK_V0, ELEMS_PER_BLOCK_V3, WARP};

use super::{Family, KernelInfo, PtxCheck, Target};

/// How a step covers the input (its grid rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// One block per `per_block` elements; relaunched on the partial sums until one is left.
    Tree {
        /// Elements each block sums.
        per_block: u32,
    },
    /// One wave of blocks over a grid-stride loop, then one final single-block pass.
    GridStride,
    /// One wave of blocks; the last block to finish writes the total.
    SinglePass,
}

/// The shared-memory accesses the bank model traces for one block (`model::traces::reduce`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trace {
    /// A tree in shared memory, `s[tid]` stored first, then one level per halving.
    Tree(Tree),
    /// `block_sum_f32`: a warp-shuffle sum per warp, the warp sums through shared memory.
    WarpSums,
    /// [`Trace::WarpSums`], a flag broadcast, and the last block's final pass.
    WarpSumsLastBlock,
}

/// The tree's addressing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tree {
    /// `tid % (2s) == 0` adds `s[tid + s]`: divergent warps.
    InterleavedDivergent,
    /// Thread `tid` adds at `interleaved_index(tid, s)`: no divergence, bank conflicts.
    Interleaved,
    /// The first half adds the second half: conflict-free.
    Sequential,
    /// [`Tree::Sequential`] down to 64, then the last warp with `shfl.sync`.
    SequentialLastWarp,
}

/// The width of a step's element indices, and so the largest input it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// `u32` math (`i + BLOCK`, `4·j`), `n` passed as a `u32`: at most 2^31 elements.
    U32,
    /// `u64` indices and a `u64` `n` (v7): any input that fits in memory.
    U64,
}

impl Index {
    /// The most elements a step with this index width takes.
    pub const fn max_n(self) -> u64 {
        match self {
            Index::U32 => 1 << 31,
            Index::U64 => u64::MAX / 16,
        }
    }
}

/// One reduce step.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Name, label, launch shape.
    pub kernel: KernelInfo,
    /// How it covers the input.
    pub grid: Grid,
    /// What the bank model traces.
    pub trace: Trace,
    /// Its index width (the largest `n`, and how `n` is passed).
    pub index: Index,
}

impl PartialEq for Step {
    fn eq(&self, o: &Step) -> bool {
        self.kernel.name == o.kernel.name
    }
}

/// Shared memory of the tree steps: one f32 per thread.
const TREE_SMEM: u32 = BLOCK * 4;
/// Shared memory of `block_sum_f32`: one f32 per warp.
const WARP_SUMS_SMEM: u32 = (BLOCK / WARP) * 4;

const fn step(name: &'static str, label: &'static str, dyn_smem_bytes: u32, grid: Grid, trace: Trace, ptx: PtxCheck, about: &'static str) -> Step {
    Step {
        kernel: KernelInfo { name, family: Family::Reduce, step: label, target: Target::Sm80, block_threads: BLOCK, launch_bounds: None,
                             dyn_smem_bytes, about, ptx },
        grid, trace, index: Index::U32,
    }
}

/// A tree step's PTX: a tree through shared memory, no vector loads yet, and one barrier after the
/// load plus one per level: 1 + log2(256) = 9 for a full tree.
const TREE: PtxCheck = PtxCheck { has: &["ld.shared.", "st.shared."], lacks: &["ld.global.nc.v4"], count: &[("bar.sync", 9)], at_least: &[] };

pub const V0: Step = step("reduce_v0", "v0", TREE_SMEM, Grid::Tree { per_block: ELEMS_PER_BLOCK_V0 }, Trace::Tree(Tree::InterleavedDivergent),
    TREE, "interleaved addressing, divergent branch (baseline)");
pub const V1: Step = step("reduce_v1", "v1", TREE_SMEM, Grid::Tree { per_block: ELEMS_PER_BLOCK_V0 }, Trace::Tree(Tree::Interleaved),
    TREE, "interleaved addressing, no divergence: bank conflicts");
pub const V2: Step = step("reduce_v2", "v2", TREE_SMEM, Grid::Tree { per_block: ELEMS_PER_BLOCK_V0 }, Trace::Tree(Tree::Sequential),
    TREE, "sequential addressing: conflict-free");
pub const V3: Step = step("reduce_v3", "v3", TREE_SMEM, Grid::Tree { per_block: ELEMS_PER_BLOCK_V3 }, Trace::Tree(Tree::Sequential),
    PtxCheck { lacks: &["ld.global.nc.v4", "shfl.sync"], ..TREE }, "first add during the global load");
pub const V4: Step = step("reduce_v4", "v4", TREE_SMEM, Grid::Tree { per_block: ELEMS_PER_BLOCK_V3 }, Trace::Tree(Tree::SequentialLastWarp),
    // The tree stops at 64 (levels 128, 64): 3 barriers; the last warp shuffles.
    PtxCheck { has: &["ld.shared.", "st.shared.", "shfl.sync.bfly.b32"], lacks: &["ld.global.nc.v4"], count: &[("bar.sync", 3)], at_least: &[] }, "last warp reduces with shfl.sync");
pub const V5: Step = step("reduce_v5", "v5", WARP_SUMS_SMEM, Grid::GridStride, Trace::WarpSums,
    PtxCheck { has: &["ld.global.nc.v4.f32"], lacks: &[], count: &[("bar.sync", 2)], at_least: &[] }, "128-bit loads, grid-stride loop, one final pass");
pub const V6: Step = step("reduce_v6", "v6", WARP_SUMS_SMEM + 4, Grid::SinglePass, Trace::WarpSumsLastBlock,
    PtxCheck { has: &["ld.global.nc.L1::no_allocate.v4.f32", "atom.acq_rel.gpu.global.add.u32"], lacks: &[], count: &[("bar.sync", 5)],
                at_least: &[("ld.global.nc.L1::no_allocate.v4", 5)] },
    "4 x 128-bit loads in flight, last block finishes: one launch");

pub const V7: Step = Step { index: Index::U64, ..step("reduce_v7", "v7", WARP_SUMS_SMEM + 4, Grid::SinglePass, Trace::WarpSumsLastBlock,
    PtxCheck { has: &["ld.global.nc.L1::no_allocate.v4.f32", "atom.acq_rel.gpu.global.add.u32", "add.s64"], lacks: &[], count: &[("bar.sync", 5)],
               at_least: &[("ld.global.nc.L1::no_allocate.v4", 5)] },
    "v6 with 64-bit element indices (no u32 wrap at 2^31 elements)") };

/// The ladder, in order.
pub const STEPS: &[Step] = &[V0, V1, V2, V3, V4, V5, V6, V7];
