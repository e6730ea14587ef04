//! The SGEMM ladder (seed 004, `kernels-gpu/src/sgemm/`): row-major f32 on CUDA cores.
// Each step constant is documented by its descriptor (`about`, the ladder README), not a doc comment.
#![allow(missing_docs)]
use layout::sgemm::{BK_WIDE, BM, BN, V12_SPLIT, V14_ROWS, V14_SPLIT, V19_FULL_DEPTH, V19_SPLIT, V15_ROWS, V15_SPLIT, V17_SMEM_BYTES, a_tile_t_wide_rows, SKINNY_COLS, SKINNY_KSTEP, SKINNY_SPLIT, SKINNY_ROWS, SKINNY_SMALL_BLOCKS_PER_SM, SKINNY_SMALL_GROUP, SKINNY_SMEM_BYTES, NAIVE_TILE, SMEM_TILE, STAGES, THREADS, a_tile_rows, a_tile_t, a_tile_t_padded, a_tile_t_wide, b_tile, b_tile_wide, stage_words};

use super::{
    Family, KernelInfo, PtxCheck, Target, bounds_min,
    gemm::{Accumulate, Args, Elem, GemmStep, Grid, Needs, SplitRule},
};

/// The shared-memory accesses the bank model traces per block and K tile (`model::traces::sgemm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trace {
    /// v0: no shared memory.
    None,
    /// v1: 32×32 tiles of A and B, one output per thread.
    SmemTile,
    /// v2–v4: the 128×128×8 block, 8×8 register tile; how A is stored transposed and how the
    /// fragments are read.
    RegisterTile {
        /// A stored from coalesced loads (v2: conflicts) or in the conflict-free order (v3+).
        a_store: AStore,
        /// Fragment rows contiguous per thread (v2, v3) or strided by 16 (v4).
        strided_reads: bool,
    },
    /// v5–v9, v11: 128-bit fragment reads of the padded transposed A tile.
    Vec4 {
        /// 16-deep K tiles (v7+) instead of 8.
        wide: bool,
        /// Warp tiles with bank-aware lanes (v9, v11).
        warp_tile: bool,
    },
    /// v10: A row-major in shared memory, filled by `cp.async` (which the LSU counters do not see).
    CpAsyncRows,
    /// v17: as `Vec4 { wide: true, warp_tile: true }` with v14's 64-row tiles, B's stages filled by
    /// `cp.async` (not counted as stores).
    Vec4CpAsyncB,
    /// v13: no tiles in shared memory; once per block, the 32 groups' partial sums stored and summed
    /// (`layout::sgemm::skinny_sum_word`).
    Skinny,
}

/// The `AStore` orders of [`Trace::RegisterTile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AStore {
    /// `layout::sgemm::a_load_coalesced`.
    Coalesced,
    /// `layout::sgemm::a_load_conflict_free`.
    ConflictFree,
}

/// One SGEMM step.
pub type Step = GemmStep<Trace>;

/// Shared memory of one stage (bytes) for the unpadded (v2–v4), padded (v5, v6) and 16-deep (v7+) tiles.
const STAGE: u32 = 4 * stage_words(&a_tile_t(), &b_tile());
const STAGE_PADDED: u32 = 4 * stage_words(&a_tile_t_padded(), &b_tile());
const STAGE_WIDE: u32 = 4 * stage_words(&a_tile_t_wide(), &b_tile_wide());
/// v10's stage: A row-major (its own padding) and the 16-deep B tile.
const STAGE_ROWS: u32 = 4 * stage_words(&a_tile_rows(), &b_tile_wide());

const BLOCK: Grid = Grid::Tiles { rows: BM, cols: BN };

const fn step(name: &'static str, label: &'static str, threads: u32, smem: u32, grid: Grid, trace: Trace, ptx: PtxCheck, about: &'static str) -> Step {
    GemmStep {
        kernel: KernelInfo { name, family: Family::Sgemm, step: label, target: Target::Sm80, block_threads: threads, launch_bounds: None,
                             dyn_smem_bytes: smem, about, ptx },
        grid, args: Args::Pointers, needs: Needs::Any, acc: Accumulate::F32, elem: Elem::F32, trace,
    }
}

/// Launch bounds `.maxntid 256` + `.minnctapersm 2` (v7+: two blocks per SM, ≤ 128 registers).
const fn two_per_sm(mut s: Step) -> Step {
    s.kernel.launch_bounds = bounds_min(THREADS, 2);
    s
}

/// v2–v4: 64 FMAs per k (the 8×8 register tile), scalar shared loads.
const REGISTER_TILE: PtxCheck = PtxCheck { has: &[], lacks: &["ld.shared.v4"], count: &[], at_least: &[("fma.rn.f32", 64)] };
/// v5+: 128-bit global loads of A and B, four 128-bit fragment loads per k, 128-bit stores of C, B
/// stored with 128-bit stores.
const VEC4: PtxCheck = PtxCheck {
    has: &[], lacks: &[], count: &[],
    at_least: &[("ld.global.nc.v4.f32", 2), ("ld.shared.v4", 4), ("st.global.v4.f32", 4), ("st.shared.v4", 1)],
};
/// v5, v6: a barrier before and after each tile's compute (v6: one after the first stage, one per step).
const VEC4_TWO_BARRIERS: PtxCheck = PtxCheck { count: &[("bar.sync", 2)], ..VEC4 };

pub const V0: Step = step("sgemm_v0", "v0", 256, 0, Grid::Tiles { rows: NAIVE_TILE, cols: NAIVE_TILE }, Trace::None,
    PtxCheck { lacks: &["ld.shared"], ..PtxCheck::NONE }, "naive: one thread per output, operands from global memory");
pub const V1: Step = step("sgemm_v1", "v1", 1024, 2 * SMEM_TILE * SMEM_TILE * 4, Grid::Tiles { rows: SMEM_TILE, cols: SMEM_TILE }, Trace::SmemTile,
    PtxCheck::has(&["ld.shared"]), "32x32 block tile through shared memory");
pub const V2: Step = step("sgemm_v2", "v2", THREADS, STAGE, BLOCK, Trace::RegisterTile { a_store: AStore::Coalesced, strided_reads: false },
    REGISTER_TILE, "128x128 block, 8x8 register tile per thread (outer products)");
pub const V3: Step = step("sgemm_v3", "v3", THREADS, STAGE, BLOCK, Trace::RegisterTile { a_store: AStore::ConflictFree, strided_reads: false },
    REGISTER_TILE, "A loaded in a mapping that stores the transposed tile conflict-free");
pub const V4: Step = step("sgemm_v4", "v4", THREADS, STAGE, BLOCK, Trace::RegisterTile { a_store: AStore::ConflictFree, strided_reads: true },
    REGISTER_TILE, "strided (virtual-thread) output mapping: conflict-free shared reads");
pub const V5: Step = step("sgemm_v5", "v5", THREADS, STAGE_PADDED, BLOCK, Trace::Vec4 { wide: false, warp_tile: false },
    VEC4_TWO_BARRIERS, "128-bit global and shared loads, A tile padded by storage_align");
pub const V6: Step = step("sgemm_v6", "v6", THREADS, 2 * STAGE_PADDED, BLOCK, Trace::Vec4 { wide: false, warp_tile: false },
    VEC4_TWO_BARRIERS, "double-buffered shared memory, next tile prefetched to registers");
pub const V7: Step = two_per_sm(step("sgemm_v7", "v7", THREADS, 2 * STAGE_WIDE, BLOCK, Trace::Vec4 { wide: true, warp_tile: false },
    VEC4, "16-deep K stages, next fragments read before the FMAs"));
pub const V8: Step = two_per_sm(step("sgemm_v8", "v8", THREADS, 2 * STAGE_WIDE, BLOCK, Trace::Vec4 { wide: true, warp_tile: false },
    VEC4, "grouped block order (8 block rows) for L2 reuse"));
pub const V9: Step = two_per_sm(step("sgemm_v9", "v9", THREADS, 2 * STAGE_WIDE, BLOCK, Trace::Vec4 { wide: true, warp_tile: true },
    VEC4, "warp tiles, bank-aware lanes (model said 8 not 12 wavefronts per k; GPU: 12)"));
pub const V10: Step = {
    let mut s = two_per_sm(step("sgemm_v10", "v10", THREADS, STAGES * STAGE_ROWS, BLOCK, Trace::CpAsyncRows,
        PtxCheck { at_least: &[("cp.async.cg.shared.global", 4), ("cp.async.wait_group", 2)], ..PtxCheck::NONE },
        "3-stage cp.async pipeline, A row-major in shared (K, N % 4 == 0)"));
    s.needs = Needs::KnMultipleOf { of: 4, why: "copies rows with 16-byte cp.async", instead: "v9 handles any shape" };
    s
};
pub const V11: Step = two_per_sm(step("sgemm_v11", "v11", THREADS, 2 * STAGE_WIDE, BLOCK, Trace::Vec4 { wide: true, warp_tile: true },
    VEC4, "v9 with interior blocks on a loop without bounds logic (chosen once per block)"));

/// Launch bounds `.maxntid 256` + `.minnctapersm 1` (v12: with two blocks per SM, ≤ 128 registers,
/// ptxas spilled its add epilogue, 8–48 bytes on sm_80/sm_90).
const fn one_per_sm(mut s: Step) -> Step {
    s.kernel.launch_bounds = bounds_min(THREADS, 1);
    s
}

pub const V12: Step = GemmStep {
    grid: Grid::TilesSplitK { rows: BM, cols: BN, rule: SplitRule::Tuned { multiple: BK_WIDE } },
    args: Args::PointersSplitK,
    ..one_per_sm(step("sgemm_v12", "v12", THREADS, 2 * STAGE_WIDE, BLOCK, Trace::Vec4 { wide: true, warp_tile: true },
        PtxCheck { has: &["red.relaxed.gpu.global.add.f32"], ..VEC4 }, "v11 with K split across blocks when the tiles are few (sums added into a zeroed C)"))
};

pub const V13: Step = GemmStep {
    args: Args::PointersSplitK,
    ..one_per_sm(step("sgemm_v13", "v13", THREADS, SKINNY_SMEM_BYTES,
        Grid::TilesSplitK { rows: SKINNY_ROWS, cols: SKINNY_COLS,
                            rule: SplitRule::Fixed { blocks_per_sm: SKINNY_SPLIT.0, min_depth: SKINNY_SPLIT.1, multiple: SKINNY_KSTEP } },
        Trace::Skinny,
        PtxCheck { has: &["red.relaxed.gpu.global.add.f32", "shfl.sync.bfly.b32"], lacks: &[], count: &[],
                   at_least: &[("ld.global.nc.v4.f32", 5), ("st.shared.v4", 1), ("ld.shared.v4", 1)] },
        "small M: 16x32 strips of C, B streamed once with 256 threads splitting K, sums met in shared memory"))
};

/// v33: v13 with N off 4 on the interior loop (lane `l` of a group owns columns `l + 8j`: four scalar
/// loads a row, each 32 contiguous bytes across the group) and K split by waves
/// (`layout::sgemm::split_k_waves`; `sgemm/steps/v33_skinny_odd_n.rs`).
pub const V33: Step = GemmStep {
    args: Args::PointersSplitK,
    ..one_per_sm(step("sgemm_v33", "v33", THREADS, SKINNY_SMEM_BYTES,
        Grid::TilesSplitK { rows: SKINNY_ROWS, cols: SKINNY_COLS,
                            rule: SplitRule::Waves { blocks_per_sm: 1, min_depth: SKINNY_SPLIT.1, multiple: SKINNY_KSTEP, bytes_per_k: 4 * SKINNY_COLS as u64 } },
        Trace::Skinny,
        PtxCheck { has: &["red.relaxed.gpu.global.add.f32", "shfl.sync.bfly.b32", "ld.global.nc.f32"], lacks: &[], count: &[],
                   at_least: &[("ld.global.nc.v4.f32", 5), ("st.shared.v4", 1), ("ld.shared.v4", 1)] },
        "v13 with N off 4 on the interior loop (lanes own columns l + 8j: scalar loads, 32 bytes a group) and K split by waves"))
};

/// v34: v33 in row groups of 4 rows (only the 1- and 4-row loops: two blocks per SM), K split by
/// waves over two blocks an SM (`sgemm/steps/v34_skinny_small_groups.rs`).
pub const V34: Step = {
    let mut s = derived(V33, "sgemm_v34", "v34", "v33 in row groups of 4 rows: only the 1- and 4-row loops, two blocks per SM");
    s.grid = Grid::TilesSplitK { rows: SKINNY_SMALL_GROUP, cols: SKINNY_COLS,
                                 rule: SplitRule::Waves { blocks_per_sm: SKINNY_SMALL_BLOCKS_PER_SM, min_depth: SKINNY_SPLIT.1, multiple: SKINNY_KSTEP, bytes_per_k: 4 * SKINNY_COLS as u64 } };
    // Two copies of the 4-row loop's v4 loads, not v33's five across its four loops.
    s.kernel.ptx.at_least = &[("ld.global.nc.v4.f32", 2), ("st.shared.v4", 1), ("ld.shared.v4", 1)];
    s.kernel.launch_bounds = bounds_min(THREADS, SKINNY_SMALL_BLOCKS_PER_SM);
    s
};

/// v14's stage: A transposed with 64 rows (stride 68), the 16×128 B tile.
const STAGE_V14: u32 = 4 * stage_words(&a_tile_t_wide_rows(V14_ROWS), &b_tile_wide());

pub const V14: Step = {
    let mut s = step("sgemm_v14", "v14", 2 * V14_ROWS, 2 * STAGE_V14,
        Grid::TilesSplitK { rows: V14_ROWS, cols: BN, rule: SplitRule::Fixed { blocks_per_sm: V14_SPLIT.0, min_depth: V14_SPLIT.1, multiple: BK_WIDE } },
        Trace::Vec4 { wide: true, warp_tile: true },
        PtxCheck { has: &["red.relaxed.gpu.global.add.f32"], ..VEC4 }, "v12 with 64x128 tiles and 128 threads: three blocks per SM, no rows past M at M = 64");
    s.args = Args::PointersSplitK;
    s.kernel.launch_bounds = bounds_min(2 * V14_ROWS, 3);
    s
};

/// v15's stage: A transposed with 32 rows (stride 36), the 16×128 B tile.
const STAGE_V15: u32 = 4 * stage_words(&a_tile_t_wide_rows(V15_ROWS), &b_tile_wide());

pub const V15: Step = {
    let mut s = step("sgemm_v15", "v15", 2 * V15_ROWS, 2 * STAGE_V15,
        Grid::TilesSplitK { rows: V15_ROWS, cols: BN, rule: SplitRule::Fixed { blocks_per_sm: V15_SPLIT.0, min_depth: V15_SPLIT.1, multiple: BK_WIDE } },
        Trace::Vec4 { wide: true, warp_tile: true },
        PtxCheck { has: &["red.relaxed.gpu.global.add.f32"], ..VEC4 }, "v14 with 32x128 tiles and 64 threads: six blocks per SM, twice the tiles, half the splits");
    s.args = Args::PointersSplitK;
    s.kernel.launch_bounds = bounds_min(2 * V15_ROWS, 6);
    s
};

/// `base` under a new kernel name, label and description: a step whose change is in its kernel only.
const fn derived(base: Step, name: &'static str, label: &'static str, about: &'static str) -> Step {
    let mut s = base;
    s.kernel.name = name;
    s.kernel.step = label;
    s.kernel.about = about;
    s
}

pub const V16: Step = derived(V14, "sgemm_v16", "v16",
    "v14 with clamped edge tiles: past M or N (or N off 4) the full K stages load unpredicated from clamped rows and columns");

/// v17: v14's grid, split rule and launch bounds (the same 64×128 tiles), B by a `cp.async` ring.
pub const V17: Step = {
    let mut s = V14;
    s.kernel.name = "sgemm_v17";
    s.kernel.step = "v17";
    s.kernel.dyn_smem_bytes = V17_SMEM_BYTES;
    s.kernel.about = "v16 with B streamed global -> shared by a 4-stage cp.async ring (A still through registers)";
    s.kernel.ptx = PtxCheck { has: &["red.relaxed.gpu.global.add.f32", "cp.async.cg.shared.global", "cp.async.wait_group 2"], lacks: &[], count: &[],
                              at_least: &[("ld.global.nc.v4.f32", 2), ("ld.shared.v4", 4), ("st.global.v4.f32", 4), ("cp.async.cg.shared.global", 4)] };
    s.trace = Trace::Vec4CpAsyncB;
    s.needs = Needs::KnMultipleOf { of: 4, why: "copies B's rows with 16-byte cp.async and loads A as float4s", instead: "v16 handles any shape" };
    s
};

pub const V18: Step = derived(V17, "sgemm_v18", "v18", "v17 with each stage's 16 k-steps as a loop of two 8-step halves (half the unrolled body)");

/// v19: v16's grid and launch bounds, every tile on the launch's one loop; its split rule stops
/// splitting shallowly once the tiles reach ¾ of the SMs (`layout::sgemm::V19_FULL_DEPTH`).
pub const V19: Step = {
    let mut s = derived(V16, "sgemm_v19", "v19", "v16 with one loop per launch: with N % 4 == 0 every tile runs the interior loop from a clamped base");
    s.grid = Grid::TilesSplitK { rows: V14_ROWS, cols: BN,
                                 rule: SplitRule::FixedWhenFull { blocks_per_sm: V19_SPLIT.0, min_depth: V19_SPLIT.1, full_depth: V19_FULL_DEPTH, multiple: BK_WIDE } };
    s
};

/// v20: v11's 128×128 tiles, grid and two blocks per SM, every block on the launch's one loop.
pub const V20: Step = derived(V11, "sgemm_v20", "v20",
    "v11 with one loop per launch: with K % 16 == 0 and N % 4 == 0 every tile runs the interior loop from a clamped base");

/// `base` (a split-K step) with its adds behind `griddepcontrol.wait` and C zeroed by
/// [`ZERO_BEFORE_DEPENDENT`], which the GEMM overlaps: sm_90a, launched with programmatic stream
/// serialization (`runtime::gpu::Kernel::pdl`).
const fn overlapped_zeroing(base: Step, name: &'static str, label: &'static str, about: &'static str) -> Step {
    let mut s = derived(base, name, label, about);
    s.kernel.target = Target::Sm90a;
    s.kernel.ptx = PtxCheck { has: &["red.relaxed.gpu.global.add.f32", "griddepcontrol.wait"], ..VEC4 };
    s
}

pub const V21: Step = overlapped_zeroing(V19, "sgemm_v21", "v21",
    "v19 with C zeroed by a grid the GEMM overlaps: the split-K adds wait (griddepcontrol.wait) for it, not a memset before the launch");
pub const V22: Step = overlapped_zeroing(V15, "sgemm_v22", "v22", "v15 (32x128 tiles) with v21's overlapped zeroing");

/// `base` (v21 or v22) with its split-K adds as `red.global.add.v4.f32` (sm_90).
const fn vector_reductions(base: Step, name: &'static str, label: &'static str, about: &'static str) -> Step {
    let mut s = derived(base, name, label, about);
    s.kernel.ptx = PtxCheck { has: &["red.relaxed.gpu.global.add.v4.f32", "griddepcontrol.wait"], ..VEC4 };
    s
}

pub const V23: Step = vector_reductions(V22, "sgemm_v23", "v23", "v22 with the split-K adds as vector reductions (red.global.add.v4.f32): a quarter of the L2 atomics");
/// v24: v21 with vector reductions and, the adds now cheap, v14's split rule again (`(3, 256)` at any
/// tile count: v19's deeper splits once the tiles fill ¾ of the SMs were measured with scalar adds);
/// since session 61 overruled where the rounds of resident blocks predict a split ≥ 5% faster
/// (`layout::sgemm::split_k_rounds`).
pub const V24: Step = {
    let mut s = vector_reductions(V21, "sgemm_v24", "v24", "v21 with v23's vector reductions, split as v14 (three blocks per SM, no split under 256) unless the rounds model predicts better");
    const _: () = assert!(V14_SPLIT.0 as usize == layout::sgemm::ROUNDS_SM_RATE_PERMILLE.len());
    s.grid = Grid::TilesSplitK { rows: V14_ROWS, cols: BN, rule: SplitRule::Rounds { min_depth: V14_SPLIT.1, multiple: BK_WIDE } };
    s
};

/// v25: v24 (its grid and split rule) with the adds as wide as each element's alignment allows (any N).
pub const V25: Step = {
    let mut s = derived(V24, "sgemm_v25", "v25", "v24 for any N: split-K adds as one .v4, two .v2, or scalar + .v2 + scalar reductions, by the element's alignment");
    s.kernel.ptx = PtxCheck { has: &["red.relaxed.gpu.global.add.v4.f32", "red.relaxed.gpu.global.add.v2.f32", "griddepcontrol.wait"], ..VEC4 };
    s
};

/// v26: v22 (v15's tiles and rule) with v25's widest reductions (any N).
pub const V26: Step = {
    let mut s = derived(V22, "sgemm_v26", "v26", "v22 with v25's widest reductions (any N)");
    s.kernel.ptx = V25.kernel.ptx;
    s
};

/// v27: v25 on v12's 128×128 tiles, 256 threads, one block per SM and v12's split rule.
pub const V27: Step = {
    let mut s = derived(V25, "sgemm_v27", "v27", "v25 on v12's 128x128 tiles (256 threads, one block per SM, v12's split rule)");
    s.kernel.block_threads = THREADS;
    s.kernel.launch_bounds = bounds_min(THREADS, 1);
    s.kernel.dyn_smem_bytes = V12.kernel.dyn_smem_bytes;
    s.grid = Grid::TilesSplitK { rows: BM, cols: BN, rule: SplitRule::Fixed { blocks_per_sm: V12_SPLIT.0, min_depth: V12_SPLIT.1, multiple: BK_WIDE } };
    s.trace = V12.trace;
    s
};

/// v29: v25 whose launches with N off 4 run the aligned loop with B as four unclamped scalar loads
/// (`Interior::YES_ODD_N`; `sgemm/steps/v29_odd_n_unclamped.rs`).
pub const V29: Step = derived(V25, "sgemm_v29", "v29", "v25 with N off 4 on the aligned loop: B as four scalar loads from the unclamped column, the last row's stage clamped");

/// v30: v29 with B's four scalar loads taken across the warp (columns lane + 32·j: each warp load one
/// 128-byte run; `Interior::YES_ODD_N_LANES`; `sgemm/steps/v30_odd_n_lanes.rs`).
pub const V30: Step = derived(V29, "sgemm_v30", "v30", "v29 with B's scalar loads across the warp: columns lane + 32j, each warp load one 128-byte run");

/// v31: v30 with B copied global → shared by `cp.async` word by word (`Interior::YES_ODD_N_ASYNC`;
/// `sgemm/steps/v31_odd_n_cp_async.rs`).
pub const V31: Step = derived(V30, "sgemm_v31", "v31", "v30 with B copied global -> shared by cp.async word by word: no registers, no st.shared for B");

/// v32: v31 for K off 16 too (K % 4 == 0, N ≥ 32): the range's last partial stage predicated
/// (`Interior::YES_ODD_N_ASYNC_TAIL`; `sgemm/steps/v32_odd_n_k_tail.rs`).
pub const V32: Step = derived(V31, "sgemm_v32", "v32", "v31 for K off 16 too: the last partial stage predicated (A zeros, B rows zero-filled by cp.async)");

/// The ladder, in order.
pub const STEPS: &[Step] = &[V0, V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19, V20, V21, V22, V23, V24, V25, V26, V27, V29, V30, V31, V32, V33, V34];

/// The grid that zeroes C before v21–v26 (`kernels-gpu/src/sgemm/zero_before_dependent.rs`): it lets the
/// dependent GEMM start first (`griddepcontrol.launch_dependents`) and does not wait itself.
pub const ZERO_BEFORE_DEPENDENT: KernelInfo = KernelInfo {
    name: "sgemm_zero_before_dependent", family: Family::Sgemm, step: "-", target: Target::Sm90a, block_threads: ZERO_THREADS,
    launch_bounds: None, dyn_smem_bytes: 0, about: "zeroes C after letting the dependent GEMM start (v21–v26)",
    ptx: PtxCheck { has: &["griddepcontrol.launch_dependents", "st.global.v4.f32"], lacks: &["griddepcontrol.wait", "ld.global"], count: &[], at_least: &[] },
};

/// Threads per block of [`ZERO_BEFORE_DEPENDENT`].
pub const ZERO_THREADS: u32 = 256;

/// The SGEMM family's kernels that are not ladder steps.
pub const KERNELS: &[KernelInfo] = &[ZERO_BEFORE_DEPENDENT];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_split_k_step_uses_its_own_rule() {
        use layout::sgemm::split_k_tiles;
        for (m, n, k) in [(1, 4096, 4096), (16, 1024, 4096), (64, 4096, 4096), (1000, 1000, 1000), (127, 8191, 1024), (300, 300, 5000)] {
            assert_eq!(V13.split_k(m, n, k, 132, 1), split_k_tiles(m, n, k, 132, SKINNY_ROWS, SKINNY_COLS, SKINNY_SPLIT.0, SKINNY_SPLIT.1, SKINNY_KSTEP), "v13 {m}x{n}x{k}");
            assert_eq!(V14.split_k(m, n, k, 132, 1), split_k_tiles(m, n, k, 132, V14_ROWS, BN, V14_SPLIT.0, V14_SPLIT.1, BK_WIDE), "v14 {m}x{n}x{k}");
            assert_eq!(V15.split_k(m, n, k, 132, 1), split_k_tiles(m, n, k, 132, V15_ROWS, BN, V15_SPLIT.0, V15_SPLIT.1, BK_WIDE), "v15 {m}x{n}x{k}");
            let (b, d) = crate::runtime::tuning::sgemm_split();
            assert_eq!(V12.split_k(m, n, k, 132, 1), split_k_tiles(m, n, k, 132, BM, BN, b, d, BK_WIDE), "v12 {m}x{n}x{k}");
            assert_eq!(V11.split_k(m, n, k, 132, 1), (1, k));
        }
        for (m, n, k) in [(1, 4096, 4096), (1, 5120, 13824), (4, 50257, 768), (2, 5120, 5120)] {
            assert_eq!(V33.split_k(m, n, k, 132, 1), layout::sgemm::split_k_waves(m, n, k, 132, SKINNY_ROWS, SKINNY_COLS, 1, SKINNY_SPLIT.1, SKINNY_KSTEP, 4 * SKINNY_COLS as u64), "v33 {m}x{n}x{k}");
        }
        // The measured cases: 64×4096² splits v14 12 ways, 1×1024×4096 splits v13 4 ways.
        assert_eq!(V14.split_k(64, 4096, 4096, 132, 1), (12, 352));
        assert_eq!(V13.split_k(1, 1024, 4096, 132, 1), (4, 1024));
        // v15: 32×4096² 24 splits of 176 (32 tiles); 1000³ 3 of 336 (256 tiles); 512³ 4 of 128 (64 tiles).
        assert_eq!(V15.split_k(32, 4096, 4096, 132, 1), (24, 176));
        assert_eq!(V15.split_k(1000, 1000, 1000, 132, 1), (3, 336));
        assert_eq!(V15.split_k(512, 512, 512, 132, 1), (4, 128));
    }
}
