//! Every kernel in `kernels-gpu`, registered once: name (its PTX entry), family, step, target, launch
//! shape and a one-line description. A test fails when this list and the PTX disagree, so a kernel
//! cannot be added on the device side and forgotten here, or the reverse.
use layout::reduce::{BLOCK, WARP};

use crate::ptx::Target;

/// Kernel families; the suite prints one table per family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Family {
    /// Seed 003's reduction ladder.
    Reduce,
    /// Single-warp checks of the device primitives.
    Selftest,
    /// Replay microkernels for checking the bank model against Nsight Compute.
    Bankcheck,
    /// Seed 004's SGEMM ladder on CUDA cores.
    Sgemm,
    /// Seed 001's single-warp 16×16×16 tensor-core ladder.
    HgemmWarp,
    /// Block-level tensor-core HGEMM (seeds 000, 001).
    Hgemm,
}

impl Family {
    /// The name used by `--family`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Reduce => "reduce",
            Family::Selftest => "selftest",
            Family::Bankcheck => "bankcheck",
            Family::Sgemm => "sgemm",
            Family::HgemmWarp => "hgemm-warp",
            Family::Hgemm => "hgemm",
        }
    }
    /// Every family.
    pub const ALL: [Family; 6] = [Family::Reduce, Family::Selftest, Family::Bankcheck, Family::Sgemm, Family::HgemmWarp, Family::Hgemm];
}

/// One registered kernel.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct KernelInfo {
    /// PTX entry name (the Rust function name, `#[unsafe(no_mangle)]`).
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// Its step in the family's ladder (`v0`, …), or a short label.
    pub step: &'static str,
    /// The PTX module it is in.
    pub target: Target,
    /// Threads per block it must be launched with.
    pub block_threads: u32,
    /// Dynamic shared memory per block, in bytes.
    pub dyn_smem_bytes: u32,
    /// What the step changes.
    pub about: &'static str,
}

const fn reduce(name: &'static str, step: &'static str, dyn_smem_bytes: u32, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Reduce, step, target: Target::Sm80, block_threads: BLOCK, dyn_smem_bytes, about }
}

const fn selftest(name: &'static str, target: Target, block_threads: u32, dyn_smem_bytes: u32, about: &'static str)
    -> KernelInfo {
    KernelInfo { name, family: Family::Selftest, step: "-", target, block_threads, dyn_smem_bytes, about }
}

const fn replay(name: &'static str, target: Target, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Bankcheck, step: "-", target, block_threads: 32, dyn_smem_bytes: REPLAY_SMEM, about }
}

const fn hgemm_warp(name: &'static str, step: &'static str, target: Target, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::HgemmWarp, step, target, block_threads: 32, dyn_smem_bytes: 0, about }
}

const fn hgemm(name: &'static str, step: &'static str, block_threads: u32, dyn_smem_bytes: u32, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Hgemm, step, target: Target::Sm80, block_threads, dyn_smem_bytes, about }
}

/// Shared bytes of one HGEMM stage for a pair of tile layouts.
const fn hgemm_stage(a: u32, b: u32) -> u32 {
    2 * (a + b)
}
const HG_UNPADDED: u32 = hgemm_stage(128 * 32, 32 * 256);
const HG_PADDED: u32 = hgemm_stage(128 * 40, 32 * 264);

const fn sgemm(name: &'static str, step: &'static str, block_threads: u32, dyn_smem_bytes: u32, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Sgemm, step, target: Target::Sm80, block_threads, dyn_smem_bytes, about }
}

/// Shared memory of one SGEMM stage (bytes) for the unpadded (v2–v4) and padded (v5+) A tiles.
const SGEMM_STAGE: u32 = 4 * layout::sgemm::stage_words(&layout::sgemm::a_tile_t(), &layout::sgemm::b_tile());
const SGEMM_STAGE_WIDE: u32 = 4 * layout::sgemm::stage_words(&layout::sgemm::a_tile_t_wide(), &layout::sgemm::b_tile_wide());
const SGEMM_STAGE_PADDED: u32 = 4 * layout::sgemm::stage_words(&layout::sgemm::a_tile_t_padded(), &layout::sgemm::b_tile());

/// Dynamic shared memory of the replay kernels (`kernels-gpu/src/bankcheck`).
pub const REPLAY_SMEM: u32 = 48 * 1024;

/// Shared memory of the tree steps: one f32 per thread.
const TREE_SMEM: u32 = BLOCK * 4;
/// Shared memory of `block_sum_f32`: one f32 per warp.
const WARP_SUMS_SMEM: u32 = (BLOCK / WARP) * 4;

/// All kernels, in ladder order within each family.
pub const KERNELS: &[KernelInfo] = &[
    reduce("reduce_v0", "v0", TREE_SMEM, "interleaved addressing, divergent branch (baseline)"),
    reduce("reduce_v1", "v1", TREE_SMEM, "interleaved addressing, no divergence: bank conflicts"),
    reduce("reduce_v2", "v2", TREE_SMEM, "sequential addressing: conflict-free"),
    reduce("reduce_v3", "v3", TREE_SMEM, "first add during the global load"),
    reduce("reduce_v4", "v4", TREE_SMEM, "last warp reduces with shfl.sync"),
    reduce("reduce_v5", "v5", WARP_SUMS_SMEM, "128-bit loads, grid-stride loop, one final pass"),
    reduce("reduce_v6", "v6", WARP_SUMS_SMEM + 4, "4 x 128-bit loads in flight, last block finishes: one launch"),
    selftest("selftest_mma_f32_f16", Target::Sm80, 32, 0, "cp.async + ldmatrix.x4(.trans) + mma.m16n8k16 f16->f32"),
    selftest("selftest_mma_swizzled", Target::Sm80, 32, 0, "seed 001 v5: cp.async + ldmatrix through a Swizzle<3,1,3> tile"),
    selftest("selftest_mma_f16_f16", Target::Sm80, 32, 0, "cp.async + ldmatrix.x4(.trans) + mma.m16n8k16 f16->f16"),
    selftest("selftest_shuffle", Target::Sm80, 32, 0, "shfl.sync bfly/down, warp sum, %laneid"),
    selftest("selftest_shared_widths", Target::Sm80, 64, 1024, "st.shared.v4, ld.shared 32/64/128-bit, plain Rust shared loads"),
    selftest("selftest_stmatrix", Target::Sm90a, 32, 0, "stmatrix.x4 and .x4.trans (sm_90)"),
    selftest("selftest_wgmma_tma", Target::Sm90a, 128, 0, "TMA 2-D loads (SWIZZLE_128B) + mbarrier + wgmma.m64n64k16, K-major and MN-major B, through layout::hopper descriptors (sm_90a)"),
    sgemm("sgemm_v0", "v0", 256, 0, "naive: one thread per output, operands from global memory"),
    sgemm("sgemm_v1", "v1", 1024, 2 * 32 * 32 * 4, "32x32 block tile through shared memory"),
    sgemm("sgemm_v2", "v2", 256, SGEMM_STAGE, "128x128 block, 8x8 register tile per thread (outer products)"),
    sgemm("sgemm_v3", "v3", 256, SGEMM_STAGE, "A loaded in a mapping that stores the transposed tile conflict-free"),
    sgemm("sgemm_v4", "v4", 256, SGEMM_STAGE, "strided (virtual-thread) output mapping: conflict-free shared reads"),
    sgemm("sgemm_v5", "v5", 256, SGEMM_STAGE_PADDED, "128-bit global and shared loads, A tile padded by storage_align"),
    sgemm("sgemm_v6", "v6", 256, 2 * SGEMM_STAGE_PADDED, "double-buffered shared memory, next tile prefetched to registers"),
    sgemm("sgemm_v7", "v7", 256, 2 * SGEMM_STAGE_WIDE, "16-deep K stages, next fragments read before the FMAs"),
    sgemm("sgemm_v8", "v8", 256, 2 * SGEMM_STAGE_WIDE, "grouped block order (8 block rows) for L2 reuse"),
    sgemm("sgemm_v9", "v9", 256, 2 * SGEMM_STAGE_WIDE, "warp tiles, bank-aware lanes (model said 8 not 12 wavefronts per k; GPU: 12)"),
    sgemm("sgemm_v10", "v10", 256, 3 * SGEMM_STAGE_WIDE, "3-stage cp.async pipeline, A row-major in shared (K, N % 4 == 0)"),
    sgemm("sgemm_v11", "v11", 256, 2 * SGEMM_STAGE_WIDE, "v9 with interior blocks on a loop without bounds logic (chosen once per block)"),
    hgemm_warp("hgemm_warp_v1", "v1", Target::Sm80, "wmma.load/mma/store straight from global memory"),
    hgemm_warp("hgemm_warp_v2", "v2", Target::Sm80, "staged through shared memory, 128-bit stores: wmma.load conflicts"),
    hgemm_warp("hgemm_warp_v3", "v3", Target::Sm80, "rows padded by 8 halves: loads conflict-free, stores conflict"),
    hgemm_warp("hgemm_warp_v4", "v4", Target::Sm80, "ldmatrix.x4(.trans) + 2 mma.sync.m16n8k16, C via shfl.sync stmatrix"),
    hgemm_warp("hgemm_warp_v4_stmatrix", "v4s", Target::Sm90a, "v4 with the native stmatrix.x4 (sm_90)"),
    hgemm_warp("hgemm_warp_v5", "v5", Target::Sm80, "v4 with Swizzle<3,1,3> on every tile: no conflicts"),
    hgemm("hgemm_block_v1", "v1", 32, 0, "one warp per 16x16 tile, fragments straight from global"),
    hgemm("hgemm_block_v2", "v2", 256, HG_UNPADDED, "128x256x32 block tile through shared memory, unpadded"),
    hgemm("hgemm_block_v3", "v3", 256, HG_PADDED, "padded tiles (storage_align): ldmatrix conflict-free"),
    hgemm("hgemm_block_v4", "v4", 256, HG_UNPADDED, "swizzled tiles (the solver's Swizzle<3,2,3>, <5,3,3>)"),
    hgemm("hgemm_block_v5_s2", "v5s2", 256, 2 * HG_UNPADDED, "2-stage cp.async pipeline on the swizzled tiles"),
    hgemm("hgemm_block_v5", "v5", 256, 3 * HG_UNPADDED, "3-stage cp.async pipeline on the swizzled tiles"),
    hgemm("hgemm_block_v5_s4", "v5s4", 256, 4 * HG_UNPADDED, "4-stage cp.async pipeline on the swizzled tiles"),
    hgemm("hgemm_block_v6", "v6", 256, 3 * HG_UNPADDED, "v5 + grouped block order (8 block rows) for L2 reuse"),
    hgemm("hgemm_block_v7", "v7", 256, 3 * hgemm_stage(128 * 64, 64 * 256), "64-deep K stages (the solver's swizzles for 128x64 and 64x256)"),
    hgemm("hgemm_block_v8", "v8", 256, 3 * hgemm_stage(128 * 64, 64 * 256), "epilogue through shared memory (swizzled C tile), 128-bit stores"),
    hgemm("hgemm_block_v9", "v9", 256, 3 * hgemm_stage(128 * 64, 64 * 256), "fragments double-buffered across stages (interior blocks: pointer-based copy)"),
    hgemm("hgemm_block_v9_s4", "v9s4", 256, 4 * hgemm_stage(128 * 64, 64 * 256), "v9 with 4 stages"),
    hgemm("hgemm_block_v9_padded", "v9p", 256, 3 * hgemm_stage(layout::hgemm::A_PADDED_WIDE.rows * layout::hgemm::A_PADDED_WIDE.stride, layout::hgemm::B_PADDED_WIDE.rows * layout::hgemm::B_PADDED_WIDE.stride), "v9 on padded tiles (storage_align 72, 264): swizzle vs padding at the top"),
    hgemm("hgemm_block_v10", "v10", 256, 3 * hgemm_stage(128 * 64, 64 * 256), "v9 with ldmatrix addresses from 8 bases + immediates (row_step): 241 registers, not 254"),
    hgemm("hgemm_block_v9_f16acc", "v9h", 256, 3 * hgemm_stage(128 * 64, 64 * 256), "v9 with f16 accumulation (vs cuBLAS 16F compute)"),
    KernelInfo { name: "hgemm_tma_v1", family: Family::Hgemm, step: "h1", target: Target::Sm90a, block_threads: 128, dyn_smem_bytes: 0,
                 about: "Hopper: TMA (128B swizzle) + wgmma.m64n64k16, 128x128x64 tile, one warpgroup, one stage" },
    KernelInfo { name: "hgemm_tma_v2", family: Family::Hgemm, step: "h2", target: Target::Sm90a, block_threads: 128,
                 dyn_smem_bytes: layout::hopper::tma_hgemm::H2_DYN_SMEM, about: "h1 + 2-stage TMA ring, one mbarrier per stage (3 CTAs per SM, as h1)" },
    KernelInfo { name: "hgemm_tma_v3", family: Family::Hgemm, step: "h3", target: Target::Sm90a, block_threads: 384,
                 dyn_smem_bytes: layout::hopper::tma_hgemm::H3_DYN_SMEM, about: "h2 warp-specialized: 1 TMA producer + 2 wgmma consumer warpgroups, setmaxnreg 40/232, full/empty mbarrier rings" },
    KernelInfo { name: "hgemm_tma_v4", family: Family::Hgemm, step: "h4", target: Target::Sm90a, block_threads: 384,
                 dyn_smem_bytes: layout::hopper::tma_hgemm::H4_DYN_SMEM, about: "h3 with 128x256 tiles (consumers 64x256) and one wgmma group in flight" },
    KernelInfo { name: "hgemm_tma_v5", family: Family::Hgemm, step: "h5", target: Target::Sm90a, block_threads: 384,
                 dyn_smem_bytes: layout::hopper::tma_hgemm::H5_DYN_SMEM, about: "h4 persistent: one CTA per SM over grouped tiles, the ring running on across tiles" },
    KernelInfo { name: "hgemm_tma_v6", family: Family::Hgemm, step: "h6", target: Target::Sm90a, block_threads: 384,
                 dyn_smem_bytes: layout::hopper::tma_hgemm::H6_DYN_SMEM, about: "h5 with a TMA-store epilogue (swizzled shared C tiles, 3 stages)" },
    replay("bank_replay_ld_b32", Target::Sm80, "one ld.shared.u32 at given per-lane offsets"),
    replay("bank_replay_ld_b64", Target::Sm80, "one ld.shared.v2.u32 at given per-lane offsets"),
    replay("bank_replay_ld_b128", Target::Sm80, "one ld.shared.v4.u32 at given per-lane offsets"),
    replay("bank_replay_st_b32", Target::Sm80, "one st.shared.u32 at given per-lane offsets"),
    replay("bank_replay_st_b64", Target::Sm80, "one st.shared.v2.u32 at given per-lane offsets"),
    replay("bank_replay_st_b128", Target::Sm80, "one st.shared.v4.u32 at given per-lane offsets"),
    replay("bank_replay_ldmatrix_x1", Target::Sm80, "one ldmatrix.x1 at given row addresses"),
    replay("bank_replay_ldmatrix_x2", Target::Sm80, "one ldmatrix.x2 at given row addresses"),
    replay("bank_replay_ldmatrix_x4", Target::Sm80, "one ldmatrix.x4 at given row addresses"),
    replay("bank_replay_ldmatrix_x1_trans", Target::Sm80, "one ldmatrix.x1.trans at given row addresses"),
    replay("bank_replay_ldmatrix_x2_trans", Target::Sm80, "one ldmatrix.x2.trans at given row addresses"),
    replay("bank_replay_ldmatrix_x4_trans", Target::Sm80, "one ldmatrix.x4.trans at given row addresses"),
    replay("bank_replay_stmatrix_x1", Target::Sm90a, "one stmatrix.x1 at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x2", Target::Sm90a, "one stmatrix.x2 at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x4", Target::Sm90a, "one stmatrix.x4 at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x1_trans", Target::Sm90a, "one stmatrix.x1.trans at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x2_trans", Target::Sm90a, "one stmatrix.x2.trans at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x4_trans", Target::Sm90a, "one stmatrix.x4.trans at given row addresses (sm_90)"),
];

/// The registered kernel called `name`.
pub fn find(name: &str) -> Option<&'static KernelInfo> {
    KERNELS.iter().find(|k| k.name == name)
}

/// The kernels of one family.
pub fn family(f: Family) -> impl Iterator<Item = &'static KernelInfo> {
    KERNELS.iter().filter(move |k| k.family == f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in KERNELS.iter().enumerate() {
            assert!(KERNELS[i + 1..].iter().all(|b| b.name != a.name), "{} registered twice", a.name);
        }
    }

    #[test]
    fn find_returns_the_entry_or_none() {
        assert_eq!(find("reduce_v3").map(|k| k.step), Some("v3"));
        assert!(find("reduce_v99").is_none());
    }
}
