//! The block-level HGEMM ladder (seeds 000/001, `kernels-gpu/src/hgemm/`): f16 in and out, row-major,
//! `mma.sync` steps v1–v10 on sm_80+, and the Hopper steps h1–h6 (TMA + `wgmma`, sm_90a only).
// Each step constant is documented by its descriptor (`about`, the ladder README), not a doc comment.
#![allow(missing_docs)]
use layout::{
    Padded, RowMajor,
    hgemm::{A_PADDED, A_PADDED_WIDE, A_ROW_MAJOR, A_SWIZZLED, A_SWIZZLED_WIDE, B_PADDED, B_PADDED_WIDE, B_ROW_MAJOR, B_SWIZZLED, B_SWIZZLED_WIDE,
            BM, BN, STAGES, THREADS},
    hopper::tma_hgemm,
};

use super::{
    Family, KernelInfo, PtxCheck, Target, bounds, bounds_min,
    gemm::{Accumulate, Args, Elem, GemmStep, Grid, Needs},
};

/// The shared-memory accesses the bank model traces (`model::traces::hgemm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trace {
    /// No shared memory (v1: fragments straight from global).
    None,
    /// A 128×256 block through shared tiles read by `ldmatrix` (v2–v10).
    Block {
        /// The A and B tile layouts (and with them the K depth).
        tiles: Tiles,
        /// How the tiles are filled.
        fill: Fill,
        /// How C leaves.
        epilogue: Epilogue,
    },
    /// TMA writes and `wgmma` reads shared memory: no thread issues a shared access, except h6's
    /// staging of C for the TMA store.
    Tma {
        /// C staged in `SWIZZLE_128B` boxes and written by TMA stores (h6).
        tma_store: bool,
    },
}

/// The shared A and B tiles of a block step (`layout::hgemm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiles {
    /// 128×32 and 32×256, unpadded (`A_ROW_MAJOR`, `B_ROW_MAJOR`).
    RowMajor,
    /// The same, padded by `storage_align` (`A_PADDED`, `B_PADDED`).
    Padded,
    /// The same, swizzled by the solver's `Swizzle<3,2,3>` and `<5,3,3>` (`A_SWIZZLED`, `B_SWIZZLED`).
    Swizzled,
    /// 128×64 and 64×256, swizzled (`A_SWIZZLED_WIDE`, `B_SWIZZLED_WIDE`).
    SwizzledWide,
    /// 128×64 and 64×256, padded (`A_PADDED_WIDE`, `B_PADDED_WIDE`).
    PaddedWide,
}

/// How a block step fills its tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Global → registers → 128-bit `st.shared` (v2–v4).
    Registers,
    /// `cp.async` (v5+): no LSU stores, sectors modelled by `layout::copy`.
    CpAsync,
}

/// How a block step writes C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Epilogue {
    /// 32-bit stores straight from the accumulator fragments.
    Fragments,
    /// Through the swizzled shared C tile (`C_SWIZZLED`), 128-bit global stores (v8+).
    SharedSwizzled,
}

/// One HGEMM step.
pub type Step = GemmStep<Trace>;

const fn rm(l: RowMajor) -> u32 {
    l.rows * l.cols
}
const fn pad(l: Padded) -> u32 {
    l.rows * l.stride
}
/// Bytes of one stage: an A and a B tile of f16 with `a` and `b` elements.
const fn stage(a: u32, b: u32) -> u32 {
    2 * (a + b)
}
const STAGE_ROW_MAJOR: u32 = stage(rm(A_ROW_MAJOR), rm(B_ROW_MAJOR));
const STAGE_PADDED: u32 = stage(pad(A_PADDED), pad(B_PADDED));
const STAGE_SWIZZLED: u32 = stage(rm(A_SWIZZLED.inner), rm(B_SWIZZLED.inner));
const STAGE_SWIZZLED_WIDE: u32 = stage(rm(A_SWIZZLED_WIDE.inner), rm(B_SWIZZLED_WIDE.inner));
const STAGE_PADDED_WIDE: u32 = stage(pad(A_PADDED_WIDE), pad(B_PADDED_WIDE));

const BLOCK: Grid = Grid::Tiles { rows: BM, cols: BN };
const ROWS_OF_8: Needs = Needs::KnMultipleOf { of: 8, why: "loads 16-byte rows of f16", instead: "v1 handles any shape" };
const TMA_ROWS: Needs = Needs::KnMultipleOf {
    of: 8, why: "reads A and B through TMA tensor maps, whose row strides must be multiples of 16 bytes",
    instead: "ragged M, N, K edges are zero-filled by the TMA; v1 handles any shape",
};

const fn block(name: &'static str, label: &'static str, smem: u32, tiles: Tiles, fill: Fill, epilogue: Epilogue, ptx: PtxCheck, about: &'static str) -> Step {
    GemmStep {
        kernel: KernelInfo { name, family: Family::Hgemm, step: label, target: Target::Sm80, block_threads: THREADS, launch_bounds: bounds(THREADS),
                             dyn_smem_bytes: smem, about, ptx },
        grid: BLOCK, args: Args::Pointers, needs: ROWS_OF_8, acc: Accumulate::F32, elem: Elem::F16, trace: Trace::Block { tiles, fill, epilogue },
    }
}

const fn tma(name: &'static str, label: &'static str, threads: u32, smem: u32, grid: Grid, args: Args, ptx: PtxCheck, about: &'static str) -> Step {
    GemmStep {
        kernel: KernelInfo { name, family: Family::Hgemm, step: label, target: Target::Sm90a, block_threads: threads,
                             launch_bounds: if threads == 384 { bounds_min(384, 1) } else { None }, dyn_smem_bytes: smem, about, ptx },
        grid, args, needs: TMA_ROWS, acc: Accumulate::F32, elem: Elem::F16, trace: Trace::Tma { tma_store: matches!(args, Args::TmaABC) },
    }
}

/// Every `mma` of a block step, `n` of them per K tile unrolled (4 × 8 per k16 step; v9+ hold two
/// loops: their own for interior blocks, v8's for edge blocks), all f32-accumulating; B by `ldmatrix.trans`.
macro_rules! mmas {
    ($n:expr) => { mmas!($n, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") };
    ($n:expr, $acc:expr) => { &[("mma.sync.aligned.m16n8k16", $n), ($acc, $n)] };
}
const LDSM_T: &str = "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16";

use Epilogue::{Fragments, SharedSwizzled};
use Fill::{CpAsync, Registers};

pub const V1: Step = GemmStep {
    kernel: KernelInfo { name: "hgemm_block_v1", family: Family::Hgemm, step: "v1", target: Target::Sm80, block_threads: 32, launch_bounds: None,
                         dyn_smem_bytes: 0, about: "one warp per 16x16 tile, fragments straight from global",
                         ptx: PtxCheck { has: &["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"], lacks: &[".shared"], count: &[], at_least: &[] } },
    grid: Grid::Tiles { rows: 16, cols: 16 }, args: Args::Pointers, needs: Needs::Any, acc: Accumulate::F32, elem: Elem::F16, trace: Trace::None,
};
pub const V2: Step = block("hgemm_block_v2", "v2", STAGE_ROW_MAJOR, Tiles::RowMajor, Registers, Fragments,
    PtxCheck { has: &[LDSM_T], lacks: &["xor.b32"], count: mmas!(64), at_least: &[] }, "128x256x32 block tile through shared memory, unpadded");
pub const V3: Step = block("hgemm_block_v3", "v3", STAGE_PADDED, Tiles::Padded, Registers, Fragments,
    PtxCheck { has: &[LDSM_T], lacks: &["xor.b32"], count: mmas!(64), at_least: &[] }, "padded tiles (storage_align): ldmatrix conflict-free");
pub const V4: Step = block("hgemm_block_v4", "v4", STAGE_SWIZZLED, Tiles::Swizzled, Registers, Fragments,
    PtxCheck { has: &[LDSM_T, "xor.b32"], lacks: &[], count: mmas!(64), at_least: &[] }, "swizzled tiles (the solver's Swizzle<3,2,3>, <5,3,3>)");
pub const V5S2: Step = block("hgemm_block_v5_s2", "v5s2", 2 * STAGE_SWIZZLED, Tiles::Swizzled, CpAsync, Fragments,
    PtxCheck { has: &[LDSM_T, "cp.async.cg.shared.global", "cp.async.wait_group 0"], lacks: &[], count: mmas!(64), at_least: &[] },
    "2-stage cp.async pipeline on the swizzled tiles");
pub const V5: Step = block("hgemm_block_v5", "v5", STAGES * STAGE_SWIZZLED, Tiles::Swizzled, CpAsync, Fragments,
    PtxCheck { has: &[LDSM_T, "cp.async.cg.shared.global", "cp.async.wait_group 1"], lacks: &[], count: mmas!(64), at_least: &[] },
    "3-stage cp.async pipeline on the swizzled tiles");
pub const V5S4: Step = block("hgemm_block_v5_s4", "v5s4", 4 * STAGE_SWIZZLED, Tiles::Swizzled, CpAsync, Fragments,
    PtxCheck { has: &[LDSM_T, "cp.async.wait_group 2"], lacks: &[], count: mmas!(64), at_least: &[] }, "4-stage cp.async pipeline on the swizzled tiles");
pub const V6: Step = block("hgemm_block_v6", "v6", STAGES * STAGE_SWIZZLED, Tiles::Swizzled, CpAsync, Fragments,
    PtxCheck { has: &[LDSM_T], lacks: &[], count: mmas!(64), at_least: &[] }, "v5 + grouped block order (8 block rows) for L2 reuse");
pub const V7: Step = block("hgemm_block_v7", "v7", STAGES * STAGE_SWIZZLED_WIDE, Tiles::SwizzledWide, CpAsync, Fragments,
    PtxCheck { has: &[LDSM_T], lacks: &["st.global.v4.u32"], count: mmas!(128), at_least: &[] },
    "64-deep K stages (the solver's swizzles for 128x64 and 64x256)");
pub const V8: Step = block("hgemm_block_v8", "v8", STAGES * STAGE_SWIZZLED_WIDE, Tiles::SwizzledWide, CpAsync, SharedSwizzled,
    PtxCheck { has: &[LDSM_T, "st.global.v4.u32"], lacks: &[], count: mmas!(128), at_least: &[] },
    "epilogue through shared memory (swizzled C tile), 128-bit stores");
pub const V9: Step = block("hgemm_block_v9", "v9", STAGES * STAGE_SWIZZLED_WIDE, Tiles::SwizzledWide, CpAsync, SharedSwizzled,
    PtxCheck { has: &[LDSM_T, "cp.async.wait_group 1"], lacks: &[], count: mmas!(256), at_least: &[] },
    "fragments double-buffered across stages (interior blocks: pointer-based copy)");
pub const V9S4: Step = block("hgemm_block_v9_s4", "v9s4", 4 * STAGE_SWIZZLED_WIDE, Tiles::SwizzledWide, CpAsync, SharedSwizzled,
    PtxCheck { has: &[LDSM_T, "cp.async.wait_group 2"], lacks: &[], count: mmas!(256), at_least: &[] }, "v9 with 4 stages");
pub const V9P: Step = block("hgemm_block_v9_padded", "v9p", STAGES * STAGE_PADDED_WIDE, Tiles::PaddedWide, CpAsync, SharedSwizzled,
    PtxCheck { has: &[LDSM_T], lacks: &[], count: mmas!(256), at_least: &[] },
    "v9 on padded tiles (storage_align 72, 264): swizzle vs padding at the top");
pub const V10: Step = block("hgemm_block_v10", "v10", STAGES * STAGE_SWIZZLED_WIDE, Tiles::SwizzledWide, CpAsync, SharedSwizzled,
    PtxCheck { has: &[LDSM_T], lacks: &[], count: mmas!(256), at_least: &[] },
    "v9 with ldmatrix addresses from 8 bases + immediates (row_step): 241 registers, not 254");
pub const V9H: Step = {
    let mut s = block("hgemm_block_v9_f16acc", "v9h", STAGES * STAGE_SWIZZLED_WIDE, Tiles::SwizzledWide, CpAsync, SharedSwizzled,
        PtxCheck { has: &[LDSM_T], lacks: &[], count: mmas!(256, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"), at_least: &[] },
        "v9 with f16 accumulation (vs cuBLAS 16F compute)");
    s.acc = Accumulate::F16;
    s
};

/// What no Hopper step holds: the TMA and `wgmma` move all tile data, and no `trap` (a run-time check
/// in the K loop made ptxas serialize every `wgmma`).
const TMA_LACKS: &[&str] = &["ldmatrix", "ld.shared", "mma.sync", "cp.async.cg", "trap"];
const TMA_TILE: Grid = Grid::Tiles { rows: tma_hgemm::BM, cols: tma_hgemm::BN };
const TMA_WIDE: Grid = Grid::Tiles { rows: tma_hgemm::BM, cols: tma_hgemm::BN_WIDE };
const TMA_PERSISTENT: Grid = Grid::Persistent { rows: tma_hgemm::BM, cols: tma_hgemm::BN_WIDE, cluster: 1 };

pub const H1: Step = tma("hgemm_tma_v1", "h1", 128, 0, TMA_TILE, Args::TmaAB,
    PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"], lacks: TMA_LACKS, count: &[], at_least: &[] },
    "Hopper: TMA (128B swizzle) + wgmma.m64n64k16, 128x128x64 tile, one warpgroup, one stage");
pub const H2: Step = tma("hgemm_tma_v2", "h2", 128, tma_hgemm::H2_DYN_SMEM, TMA_TILE, Args::TmaAB,
    PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"], lacks: TMA_LACKS, count: &[], at_least: &[] },
    "h1 + 2-stage TMA ring, one mbarrier per stage (3 CTAs per SM, as h1)");
pub const H3: Step = tma("hgemm_tma_v3", "h3", 384, tma_hgemm::H3_DYN_SMEM, TMA_TILE, Args::TmaAB,
    PtxCheck { has: &["setmaxnreg.dec.sync.aligned.u32 40", "setmaxnreg.inc.sync.aligned.u32 232", "mbarrier.arrive.shared::cta.b64"],
               lacks: TMA_LACKS, count: &[], at_least: &[] },
    "h2 warp-specialized: 1 TMA producer + 2 wgmma consumer warpgroups, setmaxnreg 40/232, full/empty mbarrier rings");
pub const H4: Step = tma("hgemm_tma_v4", "h4", 384, tma_hgemm::H4_DYN_SMEM, TMA_WIDE, Args::TmaAB,
    PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"], lacks: TMA_LACKS, count: &[], at_least: &[] },
    "h3 with 128x256 tiles (consumers 64x256) and one wgmma group in flight");
pub const H5: Step = tma("hgemm_tma_v5", "h5", 384, tma_hgemm::H5_DYN_SMEM, TMA_PERSISTENT, Args::TmaAB,
    PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"], lacks: TMA_LACKS, count: &[], at_least: &[] },
    "h4 persistent: one CTA per SM over grouped tiles, the ring running on across tiles");
/// What the TMA-store epilogue of h6 (and h6s4, h9, h9s4) puts in the PTX, and what it removes.
macro_rules! h6_has {
    ($($more:literal),*) => {
        &["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group.read 0",
          "cp.async.bulk.wait_group 0", "fence.proxy.async.shared::cta", ", 128;", "bar.sync", "st.shared" $(, $more)*]
    };
}
const H6_LACKS: &[&str] = &["ldmatrix", "ld.shared", "mma.sync", "cp.async.cg", "trap", "st.global", "arrive.release.cluster"];
pub const H6: Step = tma("hgemm_tma_v6", "h6", 384, tma_hgemm::H6_DYN_SMEM, TMA_PERSISTENT, Args::TmaABC,
    PtxCheck { has: h6_has!(), lacks: H6_LACKS, count: &[], at_least: &[] },
    "h5 with a TMA-store epilogue (swizzled shared C tiles, 3 stages)");
/// h6 with 4 stages, its C staged and stored half a consumer tile at a time: the control for h9s4's
/// fourth stage (`hgemm/steps/tma_v6_tma_store.rs`).
pub const H6S4: Step = tma("hgemm_tma_v6_s4", "h6s4", 384, tma_hgemm::H9S4_DYN_SMEM, TMA_PERSISTENT, Args::TmaABC,
    PtxCheck { has: h6_has!(), lacks: H6_LACKS, count: &[], at_least: &[] },
    "h6 with 4 stages, C staged and stored half a consumer tile at a time");
/// h6's persistent grid in clusters of 2 CTAs on vertically adjacent tiles (h9).
const TMA_PERSISTENT_X2: Grid = Grid::Persistent { rows: tma_hgemm::BM, cols: tma_hgemm::BN_WIDE, cluster: 2 };
/// Hopper h9: h6 in clusters of 2 CTAs on vertically adjacent tiles sharing B by TMA multicast
/// (`hgemm/steps/tma_v9_multicast.rs`).
pub const H9: Step = tma("hgemm_tma_v9", "h9", 384, tma_hgemm::H6_DYN_SMEM, TMA_PERSISTENT_X2, Args::TmaABC,
    PtxCheck { has: h6_has!(".reqnctapercluster 2, 1, 1", "multicast::cluster", "mbarrier.arrive.shared::cluster.b64", "%cluster_ctarank",
                             "barrier.cluster.wait.acquire"),
               lacks: H6_LACKS, count: &[], at_least: &[] },
    "h6 in clusters of 2 (vertically adjacent tiles) sharing B by TMA multicast");
/// Hopper h10: h6s4 with a stream-K tail — the partial last wave's K iterations spread over every CTA,
/// partials summed by the tile's last contributor (`hgemm/steps/tma_v10_stream_k.rs`).
pub const H10: Step = tma("hgemm_tma_v10", "h10", 384, tma_hgemm::H10_DYN_SMEM, TMA_PERSISTENT, Args::TmaStreamK,
    PtxCheck { has: h6_has!("atom.acq_rel.gpu.global.add.u32", "ld.global.cg.v4.f32", "st.global.v4.f32", "bar.sync \t3, 256"),
               lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.global.b16", "st.local"], count: &[], at_least: &[] },
    "h6s4 with a stream-K tail: the last partial wave's K iterations spread over every CTA");
/// Hopper h11: h6s4 on 128×192 tiles (`wgmma.m64n192k16`, three B boxes a stage) for shapes whose
/// 128×256 tiles leave the last wave partly empty (`hgemm/steps/tma_v11_wide192.rs`).
pub const H11: Step = tma("hgemm_tma_v11", "h11", 384, tma_hgemm::H11_DYN_SMEM, Grid::Persistent { rows: tma_hgemm::BM, cols: tma_hgemm::H11_BN, cluster: 1 },
    Args::TmaABC,
    PtxCheck { has: h6_has!("wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16"),
               lacks: &["ldmatrix", "ld.shared", "mma.sync", "cp.async.cg", "trap", "st.global", "arrive.release.cluster", "st.local", "ld.local"], count: &[], at_least: &[] },
    "h6s4 on 128x192 tiles (m64n192k16): a wave the 128x256 tiles leave partly empty filled");
/// Hopper h12: h11's CTA on 128×320 tiles (`wgmma.m64n256k16` + `m64n64k16`, five B boxes a stage,
/// three stages) for shapes whose 128×256 and 128×192 tiles leave a round mostly empty where 128×320
/// ones take a round off (`hgemm/steps/tma_v12_wide320.rs`).
pub const H12: Step = tma("hgemm_tma_v12", "h12", 384, tma_hgemm::H12_DYN_SMEM, Grid::Persistent { rows: tma_hgemm::BM, cols: tma_hgemm::H12_BN, cluster: 1 },
    Args::TmaABC,
    PtxCheck { has: h6_has!("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"),
               lacks: &["ldmatrix", "ld.shared", "mma.sync", "cp.async.cg", "trap", "st.global", "arrive.release.cluster", "st.local", "ld.local"], count: &[], at_least: &[] },
    "h11 on 128x320 tiles (m64n256k16 + m64n64k16): a round taken off where 128x256 and 128x192 tiles leave one mostly empty");
/// h9 with h6s4's four stages (cuBLAS's configuration at 4096³).
pub const H9S4: Step = tma("hgemm_tma_v9_s4", "h9s4", 384, tma_hgemm::H9S4_DYN_SMEM, TMA_PERSISTENT_X2, Args::TmaABC,
    PtxCheck { has: h6_has!(".reqnctapercluster 2, 1, 1", "multicast::cluster", "mbarrier.arrive.shared::cluster.b64"),
               lacks: H6_LACKS, count: &[], at_least: &[] },
    "h9 with 4 stages, C staged and stored half a consumer tile at a time");

/// The ladder, in order (`v9h` accumulates in f16 and is timed against cuBLAS 16F in its own table).
/// Decode ladder d1: split-K for small M (`hgemm/steps/decode_v1_split_k.rs`).
pub const D1: Step = GemmStep {
    kernel: KernelInfo { name: "hgemm_decode_v1", family: Family::Hgemm, step: "d1", target: Target::Sm80, block_threads: layout::hgemm::DECODE_THREADS,
                         launch_bounds: bounds(layout::hgemm::DECODE_THREADS), dyn_smem_bytes: layout::hgemm::DECODE_SMEM,
                         about: "decode: 16x64 tiles, K split to fill the SMs, the last block of a tile finishes the sum",
                         ptx: PtxCheck { has: &["cp.async.cg.shared.global", LDSM_T, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "red.relaxed.gpu.global.add.f32",
                                                "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.f32", "st.global.v4.u32"],
                                         lacks: &["ld.global.nc"], count: mmas!(8), at_least: &[] } },
    grid: Grid::SplitK { rows: layout::hgemm::DECODE_BM, cols: layout::hgemm::DECODE_BN }, args: Args::SplitK { partials: false }, needs: ROWS_OF_8,
    acc: Accumulate::F32, elem: Elem::F16, trace: Trace::None,
};

const fn decode_v2(name: &'static str, label: &'static str, rows: u32, mma_count: &'static [(&'static str, usize)], about: &'static str) -> Step {
    GemmStep {
        kernel: KernelInfo { name, family: Family::Hgemm, step: label, target: Target::Sm80, block_threads: layout::hgemm::DECODE_THREADS,
                             launch_bounds: bounds(layout::hgemm::DECODE_THREADS), dyn_smem_bytes: layout::hgemm::decode_smem(rows), about,
                             ptx: PtxCheck { has: &["cp.async.cg.shared.global", LDSM_T, "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                                                    "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64", "st.global.b64"],
                                             lacks: &["red.relaxed", "ld.global.nc", "st.shared.f32"], count: mma_count, at_least: &[] } },
        grid: Grid::SplitK { rows, cols: layout::hgemm::DECODE_BN }, args: Args::SplitK { partials: true }, needs: ROWS_OF_8, acc: Accumulate::F32, elem: Elem::F16,
        trace: Trace::None,
    }
}

/// Decode d2: warps own columns (no cross-warp reduction), splits' partials stored and summed by the
/// last block (no atomics on data).
pub const D2: Step = decode_v2("hgemm_decode_v2", "d2", 16, mmas!(8), "d1 with warps owning columns and the splits' partial tiles stored, summed by the last block");
/// d2 with 64-row tiles (16 < M <= 64: the weights read once).
pub const D2M64: Step = decode_v2("hgemm_decode_v2_m64", "d2m64", 64, mmas!(32), "d2 with 64-row tiles: the weights read once for M <= 64");

/// Hopper h7: h5 with split-K when the 128×256 tiles are fewer than the SMs (prefill).
pub const H7: Step = GemmStep {
    grid: Grid::PersistentSplitK { rows: 128, cols: 256, cluster: 1 },
    ..tma("hgemm_tma_v7", "h7", 384, tma_hgemm::H7_DYN_SMEM, TMA_PERSISTENT, Args::TmaSplitK,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64", "bar.sync \t3, 256"],
                   lacks: &["cp.async.bulk.tensor.2d.global.shared"], count: &[], at_least: &[] },
        "h5 with split-K over (tile, split) units when tiles < SMs; partials summed by the tile's last CTA")
};

/// Decode d3 (Hopper, M ≤ 64): h7's ring and persistent split-K with the product computed transposed —
/// the weights are `wgmma`'s MN-major A operand (`m64n64k16`, TA = 1), the activation rows its B — over
/// 64×128 tiles and a 9-stage ring (`hgemm/steps/decode_v3_tma_swapped.rs`).
pub const D3: Step = GemmStep {
    grid: Grid::PersistentSplitK { rows: tma_hgemm::D3_ROWS, cols: tma_hgemm::D3_COLS, cluster: 1 },
    ..tma("hgemm_decode_v3", "d3", 384, tma_hgemm::D3_DYN_SMEM, TMA_PERSISTENT, Args::TmaSplitK,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", ", 1, 0;", "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64",
                          "bar.sync \t3, 256", "st.global.b16"],
                   lacks: &["ldmatrix", "ldmatrix.trans", "mma.sync", "cp.async.cg", "trap", "st.local"], count: &[], at_least: &[] },
        "decode on Hopper: C^T = B^T A^T (weights as wgmma's MN-major A), 64x128 tiles, 9-stage TMA ring, persistent split-K")
};

/// Decode d4: d3 without split-K — 64×64 tiles over the whole K (64 CTAs at N = 4096), the two
/// consumer warpgroups on alternate stages, summed in shared memory (`decode_v4_whole_k.rs`).
pub const D4: Step = tma("hgemm_decode_v4", "d4", 384, tma_hgemm::D4_DYN_SMEM, Grid::Persistent { rows: tma_hgemm::D3_ROWS, cols: tma_hgemm::D4_COLS, cluster: 1 },
    Args::TmaAB,
    PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", ", 1, 0;", "bar.sync \t3, 256", "st.shared.u32", "ld.shared.u32", "bar.sync \t4, 128", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v4.u32"],
               lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "atom."], count: &[], at_least: &[] },
    "d3 without split-K: 64x64 tiles over the whole K, consumer warpgroups on alternate stages, summed in shared memory");

/// Decode d9: d4 with programmatic dependent launch (`griddepcontrol`; the runtime launches a kernel
/// whose PTX executes `griddepcontrol.wait` with programmatic stream serialization;
/// `hgemm/steps/decode_v9_pdl.rs`).
pub const D9: Step = {
    let mut s = D4;
    s.kernel.name = "hgemm_decode_v9";
    s.kernel.step = "d9";
    s.kernel.about = "d4 with programmatic dependent launch: the next grid is dispatched while this one streams, waits in griddepcontrol.wait";
    s.kernel.ptx = PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "griddepcontrol.launch_dependents;", "griddepcontrol.wait;", "bar.sync \t4, 128", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v4.u32"],
                              lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "atom."], count: &[], at_least: &[] };
    s
};

/// Decode d12: d9 with the tensor maps of A and B passed by value (`__grid_constant__`), so that the
/// first TMA load does not wait for a map evicted from L2 by rotated weights
/// (`hgemm/steps/decode_v12_param_maps.rs`).
pub const D12: Step = {
    let mut s = D9;
    s.kernel.name = "hgemm_decode_v12";
    s.kernel.step = "d12";
    s.kernel.about = "d9 with the tensor maps passed by value (__grid_constant__ parameters), not from global memory";
    s.args = Args::TmaABParams;
    s.kernel.ptx = PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", ".param .align 64 .b8 hgemm_decode_v12_param_0[128]", "cvta.param.u64",
                                     "griddepcontrol.wait;", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v4.u32"],
                              lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "atom."], count: &[], at_least: &[] };
    s
};

/// Decode d13: d9 with 16-row activation tiles (`wgmma.m64n16k16`, 8 accumulators a thread, a 12-stage
/// ring of 10 KiB stages) for M ≤ 16 (`decode_v13_sized_activations.rs`).
pub const D13: Step = tma("hgemm_decode_v13", "d13", 384, tma_hgemm::D13_DYN_SMEM, Grid::Persistent { rows: tma_hgemm::D13_ROWS, cols: tma_hgemm::D4_COLS, cluster: 1 },
    Args::TmaAB,
    PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16", ", 1, 0;", "griddepcontrol.wait;", "bar.sync \t3, 256", "bar.sync \t4, 128", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v4.u32"],
               lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "atom.", "m64n64k16"], count: &[], at_least: &[] },
    "d9 with 16-row activation tiles (m64n16k16, 8 accumulators a thread, 12 stages of 10 KiB) for M <= 16");

/// Decode d14: d13 (12 stages) with one consumer warpgroup taking every stage (256 threads, no
/// exchange through shared memory; `decode_v14_one_consumer.rs`).
pub const D14: Step = {
    let mut s = tma("hgemm_decode_v14", "d14", 256, tma_hgemm::D14_DYN_SMEM, Grid::Persistent { rows: tma_hgemm::D13_ROWS, cols: tma_hgemm::D4_COLS, cluster: 1 },
        Args::TmaAB,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16", ", 1, 0;", "griddepcontrol.wait;", "wgmma.wait_group.sync.aligned 1;", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v4.u32"],
                   lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "atom.", "m64n64k16", "bar.sync \t3"], count: &[], at_least: &[] },
        "d13 with one consumer warpgroup taking every stage (256 threads, no exchange)");
    s.kernel.launch_bounds = bounds_min(256, 1);
    s
};

/// Decode d15: d14 with its first stages issued by thread 0 right after the ring's initialization,
/// before the block barrier (`decode_v15_early_first_stages.rs`).
pub const D15: Step = {
    let mut s = D14;
    s.kernel.name = "hgemm_decode_v15";
    s.kernel.step = "d15";
    s.kernel.about = "d14 with the first stages issued by thread 0 before the block barrier";
    s
};

/// Decode d16: d15's CTA (one consumer warpgroup, first stages before the block barrier) on d4's
/// 64-row activation tiles and 16 KiB stages, for 16 < M ≤ 64 (`decode_v16_one_consumer_64.rs`).
pub const D16: Step = {
    let mut s = tma("hgemm_decode_v16", "d16", 256, tma_hgemm::D16_DYN_SMEM, Grid::Persistent { rows: tma_hgemm::D3_ROWS, cols: tma_hgemm::D4_COLS, cluster: 1 },
        Args::TmaAB,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", ", 1, 0;", "griddepcontrol.wait;", "wgmma.wait_group.sync.aligned 1;", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v4.u32"],
                   lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "atom.", "bar.sync \t3"], count: &[], at_least: &[] },
        "d15's CTA (one consumer, early first loads) on 64-row activation tiles, for 16 < M <= 64");
    s.kernel.launch_bounds = bounds_min(256, 1);
    s
};

/// Decode d25: d16's CTA with K split across CTAs (`persistent_splits` on its 64×64 tiles) where the tiles
/// leave SMs idle; split tiles summed by their last CTA (`decode_v25_split_one_consumer.rs`).
pub const D25: Step = {
    let mut s = tma("hgemm_decode_v25", "d25", 256, tma_hgemm::D25_DYN_SMEM, Grid::PersistentSplitK { rows: tma_hgemm::D3_ROWS, cols: tma_hgemm::D4_COLS, cluster: 1 },
        Args::TmaSplitK,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", ", 1, 0;", "griddepcontrol.wait;", "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64",
                          "bar.sync \t3, 128", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v4.u32"],
                   lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local"], count: &[], at_least: &[] },
        "d16's CTA with K split across CTAs where its 64x64 tiles leave SMs idle, split tiles summed by their last CTA");
    s.kernel.launch_bounds = bounds_min(256, 1);
    s
};

/// Decode d27: d16's CTA on 32-row activation tiles (`wgmma.m64n32k16`, 12 KiB stages, 16 of them), twice
/// d16's tiles where its 64-row tiles leave SMs idle (`decode_v27_rows32.rs`). The cost model's candidate alone.
pub const D27: Step = {
    let mut s = tma("hgemm_decode_v27", "d27", 256, tma_hgemm::D27_DYN_SMEM, Grid::Persistent { rows: tma_hgemm::D27_ROWS, cols: tma_hgemm::D4_COLS, cluster: 1 },
        Args::TmaAB,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16", ", 1, 0;", "griddepcontrol.wait;", "wgmma.wait_group.sync.aligned 1;", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v4.u32"],
                   lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "atom.", "bar.sync \t3", "m64n64k16"], count: &[], at_least: &[] },
        "d16's CTA on 32-row activation tiles (m64n32k16): twice the tiles where d16's leave SMs idle");
    s.kernel.launch_bounds = bounds_min(256, 1);
    s
};

/// Decode d28: d15's CTA (16-row tiles) or d16's (64-row, `m64`) with K split over a cluster of `cluster`
/// CTAs, the partials summed through distributed shared memory (`decode_v28_cluster_split.rs`). The cost
/// model's candidates alone.
const fn d28(name: &'static str, label: &'static str, rows: u32, cluster: u32, has: &'static [&'static str], about: &'static str) -> Step {
    // d15's ring at 16 rows, d16's at 64: one CTA an SM either way, as h8 (its residency is the model's).
    let smem = match rows {
        tma_hgemm::D13_ROWS => tma_hgemm::D14_DYN_SMEM,
        tma_hgemm::D3_ROWS => tma_hgemm::D16_DYN_SMEM,
        _ => tma_hgemm::D28_M128_DYN_SMEM,
    };
    let mut s = tma(name, label, 256, smem, Grid::ClusterSplitK { rows, cols: tma_hgemm::D4_COLS, cluster }, Args::TmaAB,
        PtxCheck { has, lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "ld.local", "atom.", "ld.global"], count: &[], at_least: &[] }, about);
    s.kernel.launch_bounds = bounds_min(256, 1);
    s
}

// The cost model and the cluster notes take d28's resident clusters from h8's (`gemm::h8_resident`): both
// hold one CTA per SM, which d28's rings guarantee (two would need more than an SM's 228 KiB).
const _: () = assert!(2 * tma_hgemm::D14_DYN_SMEM > tma_hgemm::MAX_DYN_SMEM + 1024 && 2 * tma_hgemm::D16_DYN_SMEM > tma_hgemm::MAX_DYN_SMEM + 1024
                      && 2 * tma_hgemm::D28_M128_DYN_SMEM > tma_hgemm::MAX_DYN_SMEM + 1024);

/// What every d28 kernel's PTX holds: its cluster shape, the `wgmma` of its tile, the PDL wait, the DSMEM sum
/// (the partial stored transposed, `st.shared.f32`; 16-byte runs of every peer; 8-byte stores of C, element
/// stores where a run is ragged).
macro_rules! d28_has {
    ($reqn:expr, $mma:expr) => {
        &[$reqn, $mma, "griddepcontrol.wait;", "mapa.shared::cluster.u32", "ld.shared::cluster.v4.f32", "barrier.cluster.arrive.release",
          "barrier.cluster.wait.acquire", "bar.sync \t1, 128", "st.shared.f32", "st.global.v2.u32", "st.global.b16"]
    };
}

/// One d28 tile height in clusters of 2, 4, 8: `d28_sizes!(name part, label part, rows, wgmma N, about of x2)`
/// gives `hgemm_decode_v28{name}_x2` … `_x8`, labelled `d28{label}x2` … `x8`.
macro_rules! d28_sizes {
    ($name:literal, $label:literal, $rows:expr, $n:literal, $about:literal) => {
        [
            d28(concat!("hgemm_decode_v28", $name, "_x2"), concat!("d28", $label, "x2"), $rows, 2,
                d28_has!(".reqnctapercluster 2, 1, 1", concat!("wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.f16.f16")), $about),
            d28(concat!("hgemm_decode_v28", $name, "_x4"), concat!("d28", $label, "x4"), $rows, 4,
                d28_has!(".reqnctapercluster 4, 1, 1", concat!("wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.f16.f16")),
                concat!("d28", $label, " in clusters of 4 (K split 4 ways)")),
            d28(concat!("hgemm_decode_v28", $name, "_x8"), concat!("d28", $label, "x8"), $rows, 8,
                d28_has!(".reqnctapercluster 8, 1, 1", concat!("wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.f16.f16")),
                concat!("d28", $label, " in clusters of 8 (K split 8 ways)")),
        ]
    };
}

/// The bf16 twins of one `d28_sizes!` height: `d28_bf16_sizes!(f16 array, name part, label part, wgmma N)`.
macro_rules! d28_bf16_sizes {
    ($f16:ident, $name:literal, $label:literal, $n:literal) => {
        [
            bf16($f16[0], concat!("hgemm_decode_v28", $name, "_x2_bf16"), concat!("d28", $label, "x2-bf16"),
                 PtxCheck::has(&[concat!("wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.bf16.bf16"), "cvt.rn.bf16x2.f32", ".reqnctapercluster 2, 1, 1"])),
            bf16($f16[1], concat!("hgemm_decode_v28", $name, "_x4_bf16"), concat!("d28", $label, "x4-bf16"),
                 PtxCheck::has(&[concat!("wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.bf16.bf16"), "cvt.rn.bf16x2.f32", ".reqnctapercluster 4, 1, 1"])),
            bf16($f16[2], concat!("hgemm_decode_v28", $name, "_x8_bf16"), concat!("d28", $label, "x8-bf16"),
                 PtxCheck::has(&[concat!("wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.bf16.bf16"), "cvt.rn.bf16x2.f32", ".reqnctapercluster 8, 1, 1"])),
        ]
    };
}

/// d28 on 16-row tiles in clusters of 2, 4, 8 (`d28x2`, `d28x4`, `d28x8`).
pub const D28: [Step; 3] = d28_sizes!("", "", tma_hgemm::D13_ROWS, "16",
                                      "d15's CTA with K split over a cluster of 2, the partials summed through distributed shared memory");

/// d28 on 64-row tiles (d16's CTA) in clusters of 2, 4, 8 (`d28m64x2`, …).
pub const D28M64: [Step; 3] = d28_sizes!("_m64", "m64", tma_hgemm::D3_ROWS, "64",
                                         "d16's CTA with K split over a cluster of 2, the partials summed through distributed shared memory");

/// d28 on 128-row tiles (one consumer, `m64n128k16`) in clusters of 2, 4, 8 (`d28m128x2`, …).
pub const D28M128: [Step; 3] = d28_sizes!("_m128", "m128", tma_hgemm::D28_M128_ROWS, "128",
                                          "d28 on 128-row activation tiles (one consumer, m64n128k16), K split over a cluster of 2");

/// d13 with a ring of `stages` stages (`hgemm_decode_v13_s<stages>`): how the ring's depth moves the rate.
const fn d13_stages(name: &'static str, label: &'static str, stages: u32) -> Step {
    let mut s = D13;
    s.kernel.name = name;
    s.kernel.step = label;
    s.kernel.dyn_smem_bytes = tma_hgemm::d13_dyn_smem(stages);
    s.kernel.about = "d13 with another ring depth (the depth against the streaming rate)";
    s
}
/// d13 with 8, 16 and 22 stages (d13 itself has 12).
pub const D13S: [Step; 3] = [d13_stages("hgemm_decode_v13_s8", "d13s8", 8), d13_stages("hgemm_decode_v13_s16", "d13s16", 16),
                             d13_stages("hgemm_decode_v13_s22", "d13s22", 22)];

/// Decode-ladder d7: d3 with C written through two 64×64 staging boxes (`stmatrix.trans` turns the
/// transposed accumulators back into rows of C) and TMA stores (`hgemm/steps/decode_v7_tma_store.rs`).
pub const D7: Step = GemmStep {
    grid: Grid::PersistentSplitK { rows: tma_hgemm::D3_ROWS, cols: tma_hgemm::D3_COLS, cluster: 1 },
    ..tma("hgemm_decode_v7", "d7", 384, tma_hgemm::D7_DYN_SMEM, TMA_PERSISTENT, Args::TmaSplitKC,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", ", 1, 0;", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                          "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.bulk.wait_group.read 0", "fence.proxy.async.shared::cta",
                          "atom.acq_rel.gpu.global.add.u32", "st.global.b16"],
                   lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "multicast"], count: &[], at_least: &[] },
        "d3 with C staged by stmatrix.trans into swizzled 64x64 boxes and written by TMA stores")
};

/// Decode-ladder d10: d7 with its stages copied by `cp.async` from the whole producer warpgroup
/// (16-byte pieces, no extra L2 line where a row pitch is not a multiple of 128 bytes) and announced a
/// few stages late (`hgemm/steps/decode_v10_cp_async.rs`).
pub const D10: Step = GemmStep {
    grid: Grid::PersistentSplitK { rows: tma_hgemm::D3_ROWS, cols: tma_hgemm::D3_COLS, cluster: 1 },
    ..tma("hgemm_decode_v10", "d10", 384, tma_hgemm::D7_DYN_SMEM, TMA_PERSISTENT, Args::TmaSplitKCPointers,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                          "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.wait_group 4", "cp.async.wait_group 0",
                          "fence.proxy.async.shared::cta", "atom.acq_rel.gpu.global.add.u32"],
                   lacks: &["ldmatrix", "mma.sync", "cp.async.bulk.tensor.2d.shared::cluster.global", "cp.async.mbarrier.arrive", "trap", "st.local",
                            "multicast", "expect_tx"],
                   count: &[("cp.async.cg.shared.global", 12)], at_least: &[] },
        "d7 with its stages copied by cp.async from the producer warpgroup (16-byte pieces: no extra L2 line at pitches off 128 B)")
};

/// Decode-ladder d8: d7 in clusters of 2 sharing the weight boxes by TMA multicast (d6's change on d7,
/// `hgemm/steps/decode_v8_multicast_tma_store.rs`).
pub const D8: Step = GemmStep {
    grid: Grid::PersistentSplitK { rows: tma_hgemm::D3_ROWS, cols: tma_hgemm::D3_COLS, cluster: 2 },
    ..tma("hgemm_decode_v8", "d8", 384, tma_hgemm::D7_DYN_SMEM, TMA_PERSISTENT, Args::TmaSplitKC,
        PtxCheck { has: &[".reqnctapercluster 2, 1, 1", "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "multicast::cluster",
                          "mbarrier.arrive.shared::cluster.b64", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                          "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "barrier.cluster.wait.acquire"],
                   lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "arrive.release.cluster"], count: &[], at_least: &[] },
        "d7 in clusters of 2 (vertically adjacent tiles) sharing the weight boxes by TMA multicast")
};

/// Decode-ladder d11: d8 ending in the producer's tail (`Ring::drain`) instead of a last cluster barrier
/// (`hgemm/steps/decode_v11_producer_tail.rs`).
pub const D11: Step = {
    let mut s = D8;
    s.kernel.name = "hgemm_decode_v11";
    s.kernel.step = "d11";
    s.kernel.about = "d8 without the last cluster barrier: the producer waits for every stage's last release (CUTLASS's load tail)";
    s.kernel.ptx = PtxCheck { has: &[".reqnctapercluster 2, 1, 1", "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "multicast::cluster",
                                     "mbarrier.arrive.shared::cluster.b64", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                                     "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"],
                              lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "arrive.release.cluster", "barrier.cluster.arrive.release"],
                              count: &[("barrier.cluster.wait", 1), ("barrier.cluster.arrive.relaxed", 1)], at_least: &[] };
    s
};

/// Decode-ladder d23: the weights streamed through registers (`ld.global.nc.v4`, 3 chunks in flight a
/// warp), each warp's 16-row chunks passed through its own swizzled tile into `ldmatrix.trans` and
/// `mma.sync`, the 16 warps' sums added once after the loop (`hgemm/steps/decode_v23_registers.rs`).
pub const D23: Step = GemmStep {
    kernel: KernelInfo { name: "hgemm_decode_v23", family: Family::Hgemm, step: "d23", target: Target::Sm80, block_threads: layout::hgemm::D23_THREADS,
                         launch_bounds: bounds_min(layout::hgemm::D23_THREADS, 1), dyn_smem_bytes: layout::hgemm::D23_DYN_SMEM,
                         about: "the weights streamed through registers: no ring, no barrier in the K loop, the warps' sums added once",
                         ptx: PtxCheck { has: &["ld.global.nc.v4.u32", "ld.global.nc.v2.u32", LDSM_T, "bar.warp.sync", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"],
                                         lacks: &["cp.async", "mbarrier", "atom", "st.local", "ld.local", "trap"], count: &[], at_least: &[] } },
    grid: Grid::Tiles { rows: 16, cols: layout::hgemm::DECODE_BN }, args: Args::Pointers, needs: ROWS_OF_8, acc: Accumulate::F32, elem: Elem::F16,
    trace: Trace::None,
};

/// Decode-ladder d19: d7 on 128-row tiles (`wgmma.m64n128k16`), the split tiles summed in the
/// accumulators' order and written by TMA stores too (`hgemm/steps/decode_v19_rows128.rs`).
pub const D19: Step = GemmStep {
    grid: Grid::PersistentSplitK { rows: tma_hgemm::D19_ROWS, cols: tma_hgemm::D3_COLS, cluster: 1 },
    ..tma("hgemm_decode_v19", "d19", 384, tma_hgemm::D19_DYN_SMEM, TMA_PERSISTENT, Args::TmaSplitKC,
        PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", ", 1, 0;", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                          "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.bulk.wait_group.read 0", "fence.proxy.async.shared::cta",
                          "atom.acq_rel.gpu.global.add.u32", "st.global.v4.f32", "ld.global.cg.v4.f32"],
                   lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "multicast", "st.global.b16", "m64n64k16"], count: &[], at_least: &[] },
        "d7 on 128-row tiles (m64n128k16): half the weight reads, split tiles summed in fragment order and stored by TMA")
};

/// Decode-ladder d21 at one tile height: d19 on tiles of `$rows` activation rows (`wgmma.m64n$rows k16`),
/// C stored as one `$rows`-high box per warpgroup (`hgemm/steps/decode_v21_rows.rs`).
macro_rules! d21 {
    ($rows:literal, $name:literal, $label:literal) => {
        GemmStep {
            grid: Grid::PersistentSplitK { rows: $rows, cols: tma_hgemm::D3_COLS, cluster: 1 },
            ..tma($name, $label, 384, tma_hgemm::d21_dyn_smem($rows), TMA_PERSISTENT, Args::TmaSplitKCRows,
                PtxCheck { has: &[concat!("wgmma.mma_async.sync.aligned.m64n", $rows, "k16.f32.f16.f16"), ", 1, 0;", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                                  "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.bulk.wait_group.read 0", "fence.proxy.async.shared::cta",
                                  "atom.acq_rel.gpu.global.add.u32", "st.global.v4.f32", "ld.global.cg.v4.f32"],
                           lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "ld.local", "multicast", "st.global.b16", "m64n64k16", "m64n128k16"],
                           // One `stmatrix` per 16 rows, and each of a partial's float4s stored and loaded once: unrolled.
                           count: &[("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", $rows / 16), ("st.global.v4.f32", $rows / 8), ("ld.global.cg.v4.f32", $rows / 8)],
                           at_least: &[] },
                concat!("d19 on ", $rows, "-row tiles (m64n", $rows, "k16, C as one ", $rows, "-row box a warpgroup): the height chosen to fill the SMs in whole rounds"))
        }
    };
}

/// Decode-ladder d21 at each height it is built for (`[i]`: `layout::hopper::tma_hgemm::D21_ROWS[i]` rows).
pub const D21: [Step; 4] = [
    d21!(80, "hgemm_decode_v21_r80", "d21r80"),
    d21!(96, "hgemm_decode_v21_r96", "d21r96"),
    d21!(144, "hgemm_decode_v21_r144", "d21r144"),
    d21!(160, "hgemm_decode_v21_r160", "d21r160"),
];

/// Decode-ladder d22 at one tile height: d21 in clusters of 2 CTAs on vertically adjacent tiles sharing
/// the weight boxes by TMA multicast (`hgemm/steps/decode_v22_rows_multicast.rs`).
macro_rules! d22 {
    ($rows:literal, $name:literal, $label:literal) => {
        GemmStep {
            grid: Grid::PersistentSplitK { rows: $rows, cols: tma_hgemm::D3_COLS, cluster: 2 },
            ..tma($name, $label, 384, tma_hgemm::d21_dyn_smem($rows), TMA_PERSISTENT, Args::TmaSplitKCRows,
                PtxCheck { has: &[concat!("wgmma.mma_async.sync.aligned.m64n", $rows, "k16.f32.f16.f16"), ".reqnctapercluster 2, 1, 1", "multicast::cluster",
                                  "mbarrier.arrive.shared::cluster.b64", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                                  "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"],
                           lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.local", "ld.local", "st.global.b16", "m64n64k16",
                                    "barrier.cluster.arrive.release"],
                           count: &[("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", $rows / 16)], at_least: &[] },
                concat!("d21 on ", $rows, "-row tiles in clusters of 2 sharing the weight boxes by TMA multicast"))
        }
    };
}

/// Decode-ladder d22 at each of d21's heights (`[i]`: `layout::hopper::tma_hgemm::D21_ROWS[i]` rows).
pub const D22: [Step; 4] = [
    d22!(80, "hgemm_decode_v22_r80", "d22r80"),
    d22!(96, "hgemm_decode_v22_r96", "d22r96"),
    d22!(144, "hgemm_decode_v22_r144", "d22r144"),
    d22!(160, "hgemm_decode_v22_r160", "d22r160"),
];

/// d22 on d19's 128-row tiles (d19's own height, with d21's one-box epilogue, in clusters of 2).
pub const D22_R128: Step = d22!(128, "hgemm_decode_v22_r128", "d22r128");

/// What h8's PTX holds: the wide `wgmma`, its cluster shape, the distributed-shared-memory reads, the
/// cluster barriers, the consumers' named barrier before the partial overwrites the ring, and the
/// 8-byte partial stores; no global workspace or counters, no `trap`.
macro_rules! h8_has {
    ($reqn:literal) => {
        &[$reqn, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "mapa.shared::cluster.u32", "ld.shared::cluster.v4.f32",
          "barrier.cluster.arrive.release", "barrier.cluster.wait.acquire", "bar.sync \t1, 256", "st.shared.v2.u32"]
    };
}
const fn h8(name: &'static str, label: &'static str, cluster: u32, has: &'static [&'static str], about: &'static str) -> Step {
    GemmStep {
        grid: Grid::ClusterSplitK { rows: tma_hgemm::BM, cols: tma_hgemm::BN_WIDE, cluster },
        ..tma(name, label, 384, tma_hgemm::H8_DYN_SMEM, TMA_WIDE, Args::TmaAB,
            PtxCheck { has, lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "atom", "ld.global"], count: &[], at_least: &[] }, about)
    }
}

/// Hopper h8 in clusters of 2 … 8 CTAs: split-K over the CTAs of a cluster, the partials summed
/// through distributed shared memory (`[i]`: clusters of `layout::hopper::tma_hgemm::H8_CLUSTERS[i]`).
pub const H8: [Step; 7] = [
    h8("hgemm_tma_v8_x2", "h8x2", 2, h8_has!(".reqnctapercluster 2, 1, 1"), "h4 with K split over a cluster of 2 CTAs, the partial tiles summed through distributed shared memory"),
    h8("hgemm_tma_v8_x3", "h8x3", 3, h8_has!(".reqnctapercluster 3, 1, 1"), "h8 in clusters of 3 (K split 3 ways)"),
    h8("hgemm_tma_v8_x4", "h8x4", 4, h8_has!(".reqnctapercluster 4, 1, 1"), "h8 in clusters of 4 (K split 4 ways)"),
    h8("hgemm_tma_v8_x5", "h8x5", 5, h8_has!(".reqnctapercluster 5, 1, 1"), "h8 in clusters of 5 (K split 5 ways)"),
    h8("hgemm_tma_v8_x6", "h8x6", 6, h8_has!(".reqnctapercluster 6, 1, 1"), "h8 in clusters of 6 (K split 6 ways)"),
    h8("hgemm_tma_v8_x7", "h8x7", 7, h8_has!(".reqnctapercluster 7, 1, 1"), "h8 in clusters of 7 (K split 7 ways)"),
    h8("hgemm_tma_v8_x8", "h8x8", 8, h8_has!(".reqnctapercluster 8, 1, 1"), "h8 in clusters of 8 (K split 8 ways)"),
];

/// The h8 step for `splits` (= cluster size, `layout::hopper::tma_hgemm::h8_splits`), f16 or bf16;
/// `None` for a size h8 is not built for.
pub const fn h8_for(splits: u32, elem: Elem) -> Option<&'static Step> {
    if splits < 2 || splits > 8 {
        return None;
    }
    let i = (splits - 2) as usize;
    match elem {
        Elem::F16 => Some(&H8[i]),
        Elem::Bf16 => Some(&H8_BF16[i]),
        Elem::F32 => None,
    }
}

/// d2 with 128-row tiles (prefill: 64 < M <= 256).
pub const D2M128: Step = decode_v2("hgemm_decode_v2_m128", "d2m128", 128, mmas!(64), "d2 with 128-row tiles: prefill (64 < M <= 256) as a streaming split-K kernel");

const fn decode_v24(name: &'static str, label: &'static str, rows: u32, mma_count: &'static [(&'static str, usize)], about: &'static str) -> Step {
    GemmStep {
        kernel: KernelInfo { name, family: Family::Hgemm, step: label, target: Target::Sm80, block_threads: layout::hgemm::DECODE_THREADS,
                             launch_bounds: bounds(layout::hgemm::DECODE_THREADS), dyn_smem_bytes: layout::hgemm::d24_smem(rows), about,
                             ptx: PtxCheck { has: &["cp.async.cg.shared.global", "ld.shared.u16", "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                                                    "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64", "st.global.b64", "st.global.b16"],
                                             lacks: &[LDSM_T, "red.relaxed", "ld.global.nc", "st.local", "ld.local"], count: mma_count, at_least: &[] } },
        grid: Grid::SplitK { rows, cols: layout::hgemm::DECODE_BN }, args: Args::SplitK { partials: true },
        needs: Needs::KMultipleOf { of: 8, why: "loads A's rows 16 bytes at a time" }, acc: Accumulate::F32, elem: Elem::F16, trace: Trace::None,
    }
}

/// Decode d24: d2 with the weights read where they lie — any N, B and C at any 2-byte alignment.
pub const D24: Step = decode_v24("hgemm_decode_v24", "d24", 16, mmas!(8), "d2 reading B at any alignment: raw 16-byte chunks per row, fragments gathered by ld.shared.u16 (any N)");
/// d24 with 64-row tiles.
pub const D24M64: Step = decode_v24("hgemm_decode_v24_m64", "d24m64", 64, mmas!(32), "d24 with 64-row tiles (16 < M <= 64, any N)");
/// d24 with 128-row tiles.
pub const D24M128: Step = decode_v24("hgemm_decode_v24_m128", "d24m128", 128, mmas!(64), "d24 with 128-row tiles (64 < M <= 256, any N)");

/// A step's bf16 twin: the same kernel body on bf16 (`hgemm::elem::Elem16`), named `<name>_bf16`.
const fn bf16(step: Step, name: &'static str, label: &'static str, ptx: PtxCheck) -> Step {
    Step { kernel: KernelInfo { name, step: label, ptx, ..step.kernel }, elem: Elem::Bf16, ..step }
}
/// h6 on bf16.
pub const H6_BF16: Step = bf16(H6, "hgemm_tma_v6_bf16", "h6-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// h6s4 on bf16.
pub const H6S4_BF16: Step = bf16(H6S4, "hgemm_tma_v6_s4_bf16", "h6s4-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// h9 on bf16.
pub const H9_BF16: Step = bf16(H9, "hgemm_tma_v9_bf16", "h9-bf16",
                               PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32", ".reqnctapercluster 2, 1, 1"]));
/// h9s4 on bf16.
pub const H9S4_BF16: Step = bf16(H9S4, "hgemm_tma_v9_s4_bf16", "h9s4-bf16",
                                 PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32", ".reqnctapercluster 2, 1, 1"]));
/// h10 on bf16.
pub const H10_BF16: Step = bf16(H10, "hgemm_tma_v10_bf16", "h10-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// h11 on bf16.
pub const H11_BF16: Step = bf16(H11, "hgemm_tma_v11_bf16", "h11-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// h12 on bf16.
pub const H12_BF16: Step = bf16(H12, "hgemm_tma_v12_bf16", "h12-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// h7 on bf16.
pub const H7_BF16: Step = bf16(H7, "hgemm_tma_v7_bf16", "h7-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
macro_rules! h8_bf16 {
    ($i:literal, $name:literal, $label:literal, $reqn:literal) => {
        bf16(H8[$i], $name, $label, PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32", $reqn]))
    };
}
/// h8 (clusters of 2 … 8) on bf16.
pub const H8_BF16: [Step; 7] = [
    h8_bf16!(0, "hgemm_tma_v8_x2_bf16", "h8x2-bf16", ".reqnctapercluster 2, 1, 1"),
    h8_bf16!(1, "hgemm_tma_v8_x3_bf16", "h8x3-bf16", ".reqnctapercluster 3, 1, 1"),
    h8_bf16!(2, "hgemm_tma_v8_x4_bf16", "h8x4-bf16", ".reqnctapercluster 4, 1, 1"),
    h8_bf16!(3, "hgemm_tma_v8_x5_bf16", "h8x5-bf16", ".reqnctapercluster 5, 1, 1"),
    h8_bf16!(4, "hgemm_tma_v8_x6_bf16", "h8x6-bf16", ".reqnctapercluster 6, 1, 1"),
    h8_bf16!(5, "hgemm_tma_v8_x7_bf16", "h8x7-bf16", ".reqnctapercluster 7, 1, 1"),
    h8_bf16!(6, "hgemm_tma_v8_x8_bf16", "h8x8-bf16", ".reqnctapercluster 8, 1, 1"),
];
/// d2 on bf16.
pub const D2_BF16: Step = bf16(D2, "hgemm_decode_v2_bf16", "d2-bf16", PtxCheck::has(&["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cvt.rn.bf16x2.f32"]));
/// d2m64 on bf16.
pub const D2M64_BF16: Step = bf16(D2M64, "hgemm_decode_v2_m64_bf16", "d2m64-bf16", PtxCheck::has(&["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cvt.rn.bf16x2.f32"]));
/// d4 on bf16.
pub const D4_BF16: Step = bf16(D4, "hgemm_decode_v4_bf16", "d4-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d3 on bf16.
pub const D3_BF16: Step = bf16(D3, "hgemm_decode_v3_bf16", "d3-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d7 on bf16.
pub const D7_BF16: Step = bf16(D7, "hgemm_decode_v7_bf16", "d7-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d8 on bf16.
pub const D8_BF16: Step = bf16(D8, "hgemm_decode_v8_bf16", "d8-bf16",
                               PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32", ".reqnctapercluster 2, 1, 1"]));
/// d9 on bf16.
pub const D9_BF16: Step = bf16(D9, "hgemm_decode_v9_bf16", "d9-bf16",
                               PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32", "griddepcontrol.wait;"]));
/// d12 on bf16.
pub const D12_BF16: Step = bf16(D12, "hgemm_decode_v12_bf16", "d12-bf16",
                                PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32", ".param .align 64 .b8 hgemm_decode_v12_bf16_param_0[128]"]));
/// d13 on bf16.
pub const D13_BF16: Step = bf16(D13, "hgemm_decode_v13_bf16", "d13-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d14 on bf16.
pub const D14_BF16: Step = bf16(D14, "hgemm_decode_v14_bf16", "d14-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d15 on bf16.
pub const D15_BF16: Step = bf16(D15, "hgemm_decode_v15_bf16", "d15-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d19 on bf16.
pub const D19_BF16: Step = bf16(D19, "hgemm_decode_v19_bf16", "d19-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d21 on bf16, at each height.
macro_rules! d21_bf16 {
    ($i:literal, $name:literal, $label:literal, $rows:literal) => {
        bf16(D21[$i], $name, $label, PtxCheck { has: &[concat!("wgmma.mma_async.sync.aligned.m64n", $rows, "k16.f32.bf16.bf16"), "cvt.rn.bf16x2.f32"],
                                                lacks: &["st.local", "ld.local", "f32.f16.f16"], count: &[], at_least: &[] })
    };
}
/// d21 on bf16 (`[i]`: as [`D21`]).
pub const D21_BF16: [Step; 4] = [
    d21_bf16!(0, "hgemm_decode_v21_r80_bf16", "d21r80-bf16", 80),
    d21_bf16!(1, "hgemm_decode_v21_r96_bf16", "d21r96-bf16", 96),
    d21_bf16!(2, "hgemm_decode_v21_r144_bf16", "d21r144-bf16", 144),
    d21_bf16!(3, "hgemm_decode_v21_r160_bf16", "d21r160-bf16", 160),
];
/// d22 on bf16 (`[i]`: as [`D22`]).
pub const D22_BF16: [Step; 4] = [
    bf16(D22[0], "hgemm_decode_v22_r80_bf16", "d22r80-bf16", PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16", ".reqnctapercluster 2, 1, 1"], lacks: &["st.local", "f32.f16.f16"], count: &[], at_least: &[] }),
    bf16(D22[1], "hgemm_decode_v22_r96_bf16", "d22r96-bf16", PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16", ".reqnctapercluster 2, 1, 1"], lacks: &["st.local", "f32.f16.f16"], count: &[], at_least: &[] }),
    bf16(D22[2], "hgemm_decode_v22_r144_bf16", "d22r144-bf16", PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16", ".reqnctapercluster 2, 1, 1"], lacks: &["st.local", "f32.f16.f16"], count: &[], at_least: &[] }),
    bf16(D22[3], "hgemm_decode_v22_r160_bf16", "d22r160-bf16", PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16", ".reqnctapercluster 2, 1, 1"], lacks: &["st.local", "f32.f16.f16"], count: &[], at_least: &[] }),
];
/// d22r128 on bf16.
pub const D22_R128_BF16: Step = bf16(D22_R128, "hgemm_decode_v22_r128_bf16", "d22r128-bf16",
                                     PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", ".reqnctapercluster 2, 1, 1"], lacks: &["st.local", "f32.f16.f16"], count: &[], at_least: &[] });
/// d23 on bf16.
pub const D23_BF16: Step = bf16(D23, "hgemm_decode_v23_bf16", "d23-bf16",
                                PtxCheck { has: &["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cvt.rn.bf16x2.f32"], lacks: &["st.local", "f32.f16.f16"], count: &[], at_least: &[] });
/// d16 on bf16.
pub const D16_BF16: Step = bf16(D16, "hgemm_decode_v16_bf16", "d16-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d25 on bf16.
pub const D25_BF16: Step = bf16(D25, "hgemm_decode_v25_bf16", "d25-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d27 on bf16.
pub const D27_BF16: Step = bf16(D27, "hgemm_decode_v27_bf16", "d27-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d28 on bf16 (16-row tiles).
pub const D28_BF16: [Step; 3] = d28_bf16_sizes!(D28, "", "", "16");
/// d28m64 on bf16.
pub const D28M64_BF16: [Step; 3] = d28_bf16_sizes!(D28M64, "_m64", "m64", "64");
/// d28m128 on bf16.
pub const D28M128_BF16: [Step; 3] = d28_bf16_sizes!(D28M128, "_m128", "m128", "128");
/// d10 on bf16.
pub const D10_BF16: Step = bf16(D10, "hgemm_decode_v10_bf16", "d10-bf16", PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32"]));
/// d11 on bf16.
pub const D11_BF16: Step = bf16(D11, "hgemm_decode_v11_bf16", "d11-bf16",
                                PtxCheck::has(&["wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "cvt.rn.bf16x2.f32", ".reqnctapercluster 2, 1, 1"]));

/// d24 on bf16.
pub const D24_BF16: Step = bf16(D24, "hgemm_decode_v24_bf16", "d24-bf16", PtxCheck::has(&["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cvt.rn.bf16x2.f32", "ld.shared.u16"]));
/// d24m64 on bf16.
pub const D24M64_BF16: Step = bf16(D24M64, "hgemm_decode_v24_m64_bf16", "d24m64-bf16", PtxCheck::has(&["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cvt.rn.bf16x2.f32", "ld.shared.u16"]));
/// d24m128 on bf16.
pub const D24M128_BF16: Step = bf16(D24M128, "hgemm_decode_v24_m128_bf16", "d24m128-bf16", PtxCheck::has(&["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cvt.rn.bf16x2.f32", "ld.shared.u16"]));

/// Every HGEMM kernel: the f16 ladder in order, then the bf16 twins (their own table).
pub const STEPS: &[Step] = &[V1, V2, V3, V4, V5S2, V5, V5S4, V6, V7, V8, V9, V9S4, V9P, V10, V9H, H1, H2, H3, H4, H5, H6, H6S4, H9, H9S4, H10, H11, H12, H7, H8[0], H8[1], H8[2], H8[3], H8[4], H8[5], H8[6], D1, D2,
                             D2M64, D2M128, D3, D4, D7, D8, D9, D10, D11, D12, D13, D13S[0], D13S[1], D13S[2], D14, D15, D16, D19, D21[0], D21[1], D21[2], D21[3], D22[0], D22[1], D22[2], D22[3], D22_R128, D23, D24, D24M64, D24M128, D25, D27, D28[0], D28[1], D28[2], D28M64[0], D28M64[1], D28M64[2], D28M128[0], D28M128[1], D28M128[2], H6_BF16, H6S4_BF16, H9_BF16, H9S4_BF16, H10_BF16, H11_BF16, H12_BF16, H7_BF16, H8_BF16[0], H8_BF16[1], H8_BF16[2], H8_BF16[3], H8_BF16[4], H8_BF16[5], H8_BF16[6],
                             D2_BF16, D2M64_BF16, D3_BF16, D4_BF16, D7_BF16, D8_BF16, D9_BF16, D10_BF16, D11_BF16, D12_BF16, D13_BF16, D14_BF16, D15_BF16, D16_BF16, D19_BF16, D21_BF16[0], D21_BF16[1], D21_BF16[2],
                             D21_BF16[3], D22_BF16[0], D22_BF16[1], D22_BF16[2], D22_BF16[3], D22_R128_BF16, D23_BF16, D24_BF16, D24M64_BF16, D24M128_BF16, D25_BF16, D27_BF16, D28_BF16[0], D28_BF16[1], D28_BF16[2], D28M64_BF16[0],
                             D28M64_BF16[1], D28M64_BF16[2], D28M128_BF16[0], D28M128_BF16[1], D28M128_BF16[2]];
