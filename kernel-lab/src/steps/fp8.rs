//! The FP8 ladder (issue 16, `kernels-gpu/src/fp8/`, sm_90a only): `C (M×N, bf16) = dequant(A) ·
//! dequant(B)ᵀ` with A stored M×K and B stored N×K in e4m3, and the quantization kernels that produce
//! those inputs (not steps: `--list` shows them with `-`).
use layout::fp8::tiles::{BM, F1_BN, F1_DYN_SMEM, F2_BN, F2_DYN_SMEM, F9_BN, F9_DYN_SMEM, F12_DYN_SMEM, F14_DYN_SMEM, F15_DYN_SMEM, F16_DYN_SMEM, F17_BM, F17_BN,
                         F17_CONSUMERS, F17_DYN_SMEM, F18_DYN_SMEM, F19_BN, F19_DYN_SMEM, F20_DYN_SMEM, F21_DYN_SMEM, F22_DYN_SMEM, F22_TILE, F23_DYN_SMEM,
                         F25_DYN_SMEM, F25_ROWS, F25_WEIGHT_ROWS, F26_DYN_SMEM, F26_ROWS};

use super::{Family, KernelInfo, PtxCheck, Target, bounds_min};

/// How a step's inputs are scaled (which quantization produces them, which cuBLASLt mode matches).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Scaling {
    /// One f32 scale per matrix (`fp8_amax_f32` + `fp8_quantize_tensor_f32`).
    PerTensor,
    /// A: one per 1×128 row segment, B: one per 128×128 block (`fp8_quantize_1x128_f32`,
    /// `fp8_quantize_128x128_f32`; layouts in `layout::fp8`).
    Block,
}

/// One FP8 GEMM step.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Name, label, block, shared memory, PTX checks.
    pub kernel: KernelInfo,
    /// Rows and columns of C per tile (a persistent 1-D grid: one CTA per SM at most, one per tile).
    pub tile: (u32, u32),
    /// The scaling its arguments carry.
    pub scaling: Scaling,
    /// Whether partial sums are promoted into f32 registers every 128 of K (the error does not grow
    /// with K).
    pub promotes: bool,
    /// CTAs per cluster (`.reqnctapercluster`; 2: pairs of vertically adjacent tiles share B by TMA
    /// multicast, each loading `tile.1 / cluster` of its rows).
    pub cluster: u32,
    /// The partial last wave's K iterations spread over every CTA (HGEMM h10's stream-K tail): the kernel
    /// also takes a workspace, counters and the tail (`layout::hopper::tma_hgemm::stream_k_tail`).
    pub stream_k: bool,
    /// Each K block's A scales reach the stage by TMA (f15): the kernel also takes a tensor map over
    /// `sa` as `⌈K/128⌉` rows of `M` f32 (so M % 4 == 0), after C's.
    pub scale_map: bool,
    /// Not a `wgmma` kernel but the weight-only decode route ([`FW1`]): A widened to bf16 with the
    /// product's scale, then the weight-only kernel streaming B's e4m3 bytes.
    pub weight_only: bool,
    /// The CTAs of a cluster split one tile's K (f21, HGEMM h8's schedule) instead of sharing B: the
    /// grid is every tile × [`Step::cluster`] CTAs (not persistent), each loads all of B's tile rows,
    /// and C leaves by global stores from the cluster's sum (the kernel takes C's pointer, not a map).
    /// With clusters of one (f25) that is a grid of one CTA per tile, running all of its K, whose C
    /// leaves by global stores.
    pub cluster_split: bool,
}

impl PartialEq for Step {
    fn eq(&self, o: &Self) -> bool {
        self.kernel.name == o.kernel.name
    }
}

impl Step {
    /// `None` if the step takes `m × n × k`, else why not: A's and B's rows are read by the TMA (row
    /// strides multiples of 16 bytes: K % 16), C is written by TMA stores (N % 8 for 16-byte bf16 rows).
    pub fn rejects(&self, m: usize, n: usize, k: usize) -> Option<String> {
        if self.weight_only && m > FW1_MAX_M {
            return Some(format!("{} streams B once for at most {FW1_MAX_M} rows of A (its weight-only kernel's token tiles); got {m}x{n}x{k}", self.kernel.step));
        }
        if k % 16 != 0 {
            return Some(format!("{} reads A (M×K) and B (N×K) e4m3 through TMA tensor maps, whose row strides must be multiples of 16 bytes: K must be a multiple of 16 (got {m}x{n}x{k}; `fp8::gemm_fp8` pads other K)", self.kernel.name));
        }
        if n % 8 != 0 {
            return Some(format!("{} writes C (bf16) with TMA stores, whose row stride must be a multiple of 16 bytes: N must be a multiple of 8 (got {m}x{n}x{k}; `fp8::gemm_fp8` pads other N)", self.kernel.name));
        }
        if self.scale_map && !scale_map_takes(m) {
            return Some(format!("{} loads A's scales (⌈K/128⌉ rows of M f32) through a TMA tensor map, whose row stride must be a multiple of 16 bytes: M must be a multiple of 4 (got {m}x{n}x{k})", self.kernel.name));
        }
        None
    }

    /// The persistent grid on `m × n` when `clusters` clusters (of [`Step::cluster`] CTAs; for one-CTA
    /// steps: SMs) fit on the GPU at once: one cluster per group of `cluster` vertically adjacent tiles
    /// at most, a multiple of the cluster size.
    pub fn grid(&self, m: usize, n: usize, clusters: u32) -> u32 {
        if self.cluster_split {
            // One cluster per tile, however many fit at once (the rest run in later waves).
            return (self.tiles(m, n) * self.cluster as u64).min(u32::MAX as u64) as u32;
        }
        let groups = (m as u64).div_ceil(self.tile.0 as u64).div_ceil(self.cluster as u64) * (n as u64).div_ceil(self.tile.1 as u64);
        groups.min(clusters.max(1) as u64) as u32 * self.cluster
    }

    /// Tiles of C on `m × n`.
    pub fn tiles(&self, m: usize, n: usize) -> u64 {
        (m as u64).div_ceil(self.tile.0 as u64) * (n as u64).div_ceil(self.tile.1 as u64)
    }

    /// Tiles the CTAs walk on `m × n`: [`Step::tiles`], with the tile rows rounded up to whole clusters where a
    /// cluster shares operands over adjacent tile rows (f28's pairs: 64 rows take two CTAs, one with no rows).
    pub fn cta_tiles(&self, m: usize, n: usize) -> u64 {
        if self.cluster_split { self.tiles(m, n) } else { (m as u64).div_ceil(self.tile.0 as u64).next_multiple_of(self.cluster as u64) * (n as u64).div_ceil(self.tile.1 as u64) }
    }

    /// The wave model's time of `m × n` on `sms` SMs, in output elements: rounds of persistent tiles
    /// (`⌈tiles / sms⌉`, the last round as long as a full one) × tile area / `speed` (its speed per unit
    /// of work against a reference step's). What [`per_tensor_step_for`] and [`block_step_for`] compare.
    pub fn wave_time(&self, m: usize, n: usize, sms: u32, speed: f64) -> f64 {
        self.tiles(m, n).div_ceil(sms.max(1) as u64) as f64 * (self.tile.0 * self.tile.1) as f64 / speed
    }

    /// Rows of B one CTA loads per stage (the tensor map's box): its share of the tile's columns (all of
    /// them where the cluster splits K), in two boxes where that is over the TMA's 256 rows (f27).
    pub fn b_box_rows(&self) -> u32 {
        if self.cluster_split { self.tile.1 } else { layout::fp8::tiles::f27_b_box_rows(self.tile.1 / self.cluster) }
    }
}

/// What no FP8 step holds: all tile data moves by TMA and `wgmma`, no `trap` (a run-time check in the
/// K loop serializes the `wgmma`s), no per-thread global stores of C, no cluster-scope release on an
/// mbarrier arrival (a `MEMBAR.ALL.GPU` each: f5/f6 ran at half speed with it).
const LACKS: &[&str] = &["ldmatrix", "ld.shared", "mma.sync", "cp.async.cg", "trap", "st.global", "wgmma.mma_async.sync.aligned.m64n256k16", "release.cluster.shared::cluster"];

#[allow(clippy::too_many_arguments)]
const fn gemm(name: &'static str, label: &'static str, smem: u32, has: &'static [&'static str], tile: (u32, u32), scaling: Scaling, promotes: bool, about: &'static str) -> Step {
    Step {
        kernel: KernelInfo { name, family: Family::Fp8, step: label, target: Target::Sm90a, block_threads: 384, launch_bounds: bounds_min(384, 1),
                             dyn_smem_bytes: smem, about, ptx: PtxCheck { has, lacks: LACKS, count: &[], at_least: &[] } },
        tile, scaling, promotes, cluster: 1, stream_k: false, scale_map: false, weight_only: false, cluster_split: false,
    }
}

/// What a cluster step's PTX holds beyond its one-CTA twin: the cluster shape, the multicast load, the
/// remote arrivals, the cluster barriers.
const CLUSTER_PTX: &[&str] = &[".reqnctapercluster 2, 1, 1", "multicast::cluster", "mapa.shared::cluster.u32", "mbarrier.arrive.shared::cluster.b64",
                               "barrier.cluster.arrive.release", "barrier.cluster.wait.acquire", "%cluster_ctarank"];

/// f1: h6 on e4m3, per-tensor scales, all of K in the tensor core's accumulators.
pub const F1: Step = gemm("fp8_gemm_v1", "f1", F1_DYN_SMEM,
    &["wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "setmaxnreg.inc.sync.aligned.u32 232"],
    (BM, F1_BN), Scaling::PerTensor, false, "h6 on e4m3 (B stored NxK), 128x256x128 stages, wgmma.m64n256k32, per-tensor scales in the epilogue");
/// f2: block scales, promotion every 128 of K.
pub const F2: Step = gemm("fp8_gemm_v2", "f2", F2_DYN_SMEM,
    &["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 0", "fma.rn.f32"],
    (BM, F2_BN), Scaling::Block, true, "block scales (A 1x128, B 128x128): 128x128 tiles, each K block's wgmma sums promoted into f32 with its scales");

/// f3: f2 with each K block's scales loaded one block ahead.
pub const F3: Step = gemm("fp8_gemm_v3", "f3", F2_DYN_SMEM,
    &["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 0", "fma.rn.f32"],
    (BM, F2_BN), Scaling::Block, true, "f2 with the scales of K block kb+1 loaded while block kb computes");
/// f4: f3 with two block-accumulator sets, each block promoted while the next one's MMAs run.
pub const F4: Step = gemm("fp8_gemm_v4", "f4", F2_DYN_SMEM,
    &["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 1", "fma.rn.f32"],
    (BM, F2_BN), Scaling::Block, true, "f3 with two block-accumulator sets: block kb promoted while block kb+1's wgmmas run");

/// f5: f1 in clusters of two sharing B through TMA multicast.
pub const F5: Step = Step {
    cluster: 2,
    ..gemm("fp8_gemm_v5", "f5", F1_DYN_SMEM, CLUSTER_PTX, (BM, F1_BN), Scaling::PerTensor, false,
           "f1 in clusters of 2 CTAs (vertically adjacent tiles) sharing B through TMA multicast")
};
/// f6: f4 in clusters of two sharing B.
pub const F6: Step = Step {
    cluster: 2,
    ..gemm("fp8_gemm_v6", "f6", F2_DYN_SMEM, CLUSTER_PTX, (BM, F2_BN), Scaling::Block, true,
           "f4 in clusters of 2 CTAs sharing B through TMA multicast")
};

/// f7: block scales on f1's 128×256 tiles, each K block promoted in two halves.
pub const F7: Step = gemm("fp8_gemm_v7", "f7", F1_DYN_SMEM,
    &["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 0", "fma.rn.f32", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"],
    (BM, F1_BN), Scaling::Block, true, "block scales on 128x256 tiles: each K block's wgmmas in two 128-column halves, each promoted with its own B scale");

/// f8: f3 with the two consumer warpgroups taking turns to issue their K blocks.
pub const F8: Step = gemm("fp8_gemm_v8", "f8", F2_DYN_SMEM,
    &["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 0", "fma.rn.f32", "bar.arrive"],
    (BM, F2_BN), Scaling::Block, true, "f3 with the consumer warpgroups taking turns (named barriers) to issue each K block's wgmmas");

/// f9: f3 on 128×192 tiles (two B scale blocks per tile).
pub const F9: Step = gemm("fp8_gemm_v9", "f9", F9_DYN_SMEM,
    &["wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 0", "fma.rn.f32"],
    (BM, F9_BN), Scaling::Block, true, "f3 on 128x192 tiles: 96 fresh + 96 promoted registers, two B scale blocks per tile");

/// f10: f9 in clusters of two sharing B.
pub const F10: Step = Step {
    cluster: 2,
    ..gemm("fp8_gemm_v10", "f10", F9_DYN_SMEM, CLUSTER_PTX, (BM, F9_BN), Scaling::Block, true,
           "f9 in clusters of 2 CTAs sharing B through TMA multicast (each loads 96 of the 192 B rows)")
};

/// f11: f3 in clusters of two sharing B.
pub const F11: Step = Step {
    cluster: 2,
    ..gemm("fp8_gemm_v11", "f11", F2_DYN_SMEM, CLUSTER_PTX, (BM, F2_BN), Scaling::Block, true,
           "f3 in clusters of 2 CTAs sharing B through TMA multicast")
};

/// f12: f1 with a fourth stage, C stored in two halves (HGEMM h6s4's change).
pub const F12: Step = gemm("fp8_gemm_v12", "f12", F12_DYN_SMEM,
    &["wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "setmaxnreg.inc.sync.aligned.u32 232"],
    (BM, F1_BN), Scaling::PerTensor, false, "f1 with 4 stages, C staged and stored in two halves (h6s4's change)");
/// f13: f5 with a fourth stage.
pub const F13: Step = Step {
    cluster: 2,
    ..gemm("fp8_gemm_v13", "f13", F12_DYN_SMEM, CLUSTER_PTX, (BM, F1_BN), Scaling::PerTensor, false,
           "f5 with 4 stages, C staged and stored in two halves")
};

/// f14: f12 with HGEMM h10's stream-K tail.
pub const F14: Step = {
    let mut s = gemm("fp8_gemm_v14", "f14", F14_DYN_SMEM, &[], (BM, F1_BN), Scaling::PerTensor, false,
                     "f12 with h10's stream-K tail: a last wave at most a third full spread over every CTA by K, partials summed by each tile's last contributor");
    s.stream_k = true;
    // The tail's partials go to global memory as f32 (`st.global.v4.f32`, read back with `.cg`); C still
    // leaves only by TMA stores (no 16-bit global stores).
    s.kernel.ptx = PtxCheck {
        has: &["wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "setmaxnreg.inc.sync.aligned.u32 232",
               "atom.acq_rel.gpu.global.add.u32", "st.global.v4.f32", "ld.global.cg.v4.f32"],
        lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.global.b16", "st.local", "wgmma.mma_async.sync.aligned.m64n256k16", "release.cluster.shared::cluster"],
        count: &[], at_least: &[],
    };
    s
};

/// f15: f9 with each K block's scales put into its stage by the producer (A's by TMA, B's two by the
/// producer thread), read by the consumers from shared memory.
pub const F15: Step = {
    let mut s = gemm("fp8_gemm_v15", "f15", F15_DYN_SMEM, &[], (BM, F9_BN), Scaling::Block, true,
                     "f9 with each K block's scales staged by the producer (A's 128 by TMA, B's two by st.shared), read by the consumers from the stage");
    s.scale_map = true;
    // The consumers read the scales with `ld.shared`, the producer writes B's pair with `st.shared`; the
    // rest of what no FP8 step holds still holds.
    s.kernel.ptx = PtxCheck {
        has: &["wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 0", "fma.rn.f32", "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
               "ld.shared.f32", "ld.shared.v2.u32", "st.shared.v2.u32", "bar.warp.sync"],
        lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.global", "wgmma.mma_async.sync.aligned.m64n256k16", "release.cluster.shared::cluster"],
        count: &[], at_least: &[],
    };
    s
};

/// f16: f15 with h10's stream-K tail.
pub const F16: Step = {
    let mut s = gemm("fp8_gemm_v16", "f16", F16_DYN_SMEM, &[], (BM, F9_BN), Scaling::Block, true,
                     "f15 with h10's stream-K tail: a last wave at most a third full spread over every CTA by K, promoted partials summed by each tile's last contributor");
    s.scale_map = true;
    s.stream_k = true;
    // f15's and f14's: scales from the stage, partials through global memory as f32.
    s.kernel.ptx = PtxCheck {
        has: &["wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 0", "fma.rn.f32", "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
               "ld.shared.f32", "st.shared.v2.u32", "bar.warp.sync", "atom.acq_rel.gpu.global.add.u32", "st.global.v4.f32", "ld.global.cg.v4.f32"],
        lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.global.b16", "st.local", "wgmma.mma_async.sync.aligned.m64n256k16", "release.cluster.shared::cluster"],
        count: &[], at_least: &[],
    };
    s
};

/// f17: per-tensor scales on 192×192 tiles, three consumer warpgroups (cuBLASLt's tile at
/// 2048×11008×4096).
pub const F17: Step = {
    let s = gemm("fp8_gemm_v17", "f17", F17_DYN_SMEM,
                     &["wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
                       "setmaxnreg.inc.sync.aligned.u32 152", "setmaxnreg.dec.sync.aligned.u32 40", "bar.sync 	3, 128"],
                     (F17_BM, F17_BN), Scaling::PerTensor, false,
                     "per-tensor scales on 192x192 tiles: three consumer warpgroups of 64 rows (512 threads, setmaxnreg 40/152), 3 stages of 48 KiB");
    three_consumers(s)
};

/// `base` as another kernel: its name, label, shared memory and description (the rest as `base`'s).
const fn variant(base: Step, name: &'static str, label: &'static str, smem: u32, about: &'static str) -> Step {
    let mut s = base;
    s.kernel.name = name;
    s.kernel.step = label;
    s.kernel.dyn_smem_bytes = smem;
    s.kernel.about = about;
    s
}

/// `s` in a CTA of the producer warpgroup and three consumers (f17–f20): 512 threads, one CTA per SM.
const fn three_consumers(mut s: Step) -> Step {
    s.kernel.block_threads = 128 * (F17_CONSUMERS + 1);
    s.kernel.launch_bounds = bounds_min(128 * (F17_CONSUMERS + 1), 1);
    s
}

/// f18: f17 with a fourth stage, C staged one box at a time.
pub const F18: Step = variant(F17, "fp8_gemm_v18", "f18", F18_DYN_SMEM, "f17 with 4 stages, each consumer's C staged and stored one 64x64 box at a time");

/// f19: block scales on 192×128 tiles, three consumer warpgroups, the scales staged as f15's.
pub const F19: Step = {
    let mut s = three_consumers(variant(F15, "fp8_gemm_v19", "f19", F19_DYN_SMEM,
                                        "block scales on 192x128 tiles: f18's three consumers (setmaxnreg 24/160) with f15's staged scales, each consumer promoting its 64x128"));
    s.kernel.ptx = PtxCheck {
        has: &["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 0", "fma.rn.f32", "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
               "ld.shared.f32", "st.shared.f32", "bar.warp.sync", "setmaxnreg.inc.sync.aligned.u32 160", "setmaxnreg.dec.sync.aligned.u32 24", "bar.sync 	3, 128"],
        lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.global", "wgmma.mma_async.sync.aligned.m64n256k16", "release.cluster.shared::cluster"],
        count: &[], at_least: &[],
    };
    s.tile = (F17_BM, F19_BN);
    s
};

/// f20: f19 with h10's stream-K tail.
pub const F20: Step = {
    let mut s = variant(F19, "fp8_gemm_v20", "f20", F20_DYN_SMEM,
                        "f19 with h10's stream-K tail: a last wave at most a third full spread over every CTA by K, promoted partials summed by each tile's last contributor");
    s.stream_k = true;
    // f19's and f16's: three consumers, scales from the stage, partials through global memory as f32,
    // the ticket on named barrier 4 over the 384 consumer threads.
    s.kernel.ptx = PtxCheck {
        has: &["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "fma.rn.f32", "ld.shared.f32", "st.shared.f32", "setmaxnreg.inc.sync.aligned.u32 160",
               "bar.sync 	4, 384", "atom.acq_rel.gpu.global.add.u32", "st.global.v4.f32", "ld.global.cg.v4.f32"],
        lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.global.b16", "st.local", "wgmma.mma_async.sync.aligned.m64n256k16", "release.cluster.shared::cluster"],
        count: &[], at_least: &[],
    };
    s
};

/// What f21's PTX holds: f1's `wgmma`, the cluster shape, the distributed-shared-memory reads, the
/// cluster barriers, the consumers' meeting before the partial overwrites the ring, its 8-byte stores,
/// C's 8-byte global stores; no workspace, counters or `trap`, no C staging or TMA store, and no global
/// loads but the two scales (`ld.global.b32`).
macro_rules! f21_ptx {
    ($reqn:literal) => {
        PtxCheck {
            has: &[$reqn, "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "mapa.shared::cluster.u32", "ld.shared::cluster.v4.f32",
                   "barrier.cluster.arrive.release", "barrier.cluster.wait.acquire", "bar.sync \t1, 256", "st.shared.v2.u32", "st.global.b64"],
            lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "atom", "ld.global.cg", "ld.global.v", "st.local", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
                     "release.cluster.shared::cluster"],
            count: &[], at_least: &[],
        }
    };
}

/// f21 in clusters of `cluster` CTAs.
const fn f21(name: &'static str, label: &'static str, cluster: u32, ptx: PtxCheck, about: &'static str) -> Step {
    let mut s = gemm(name, label, F21_DYN_SMEM, &[], (BM, F1_BN), Scaling::PerTensor, false, about);
    s.kernel.ptx = ptx;
    s.cluster = cluster;
    s.cluster_split = true;
    s
}

/// f21 in clusters of 2 … 8 CTAs (`[i]`: clusters of [`F21_CLUSTERS`]`[i]`): f12's per-tensor tiles with
/// K split over the CTAs of a cluster, the partials summed through distributed shared memory (HGEMM h8).
pub const F21: [Step; 7] = [
    f21("fp8_gemm_v21_x2", "f21x2", 2, f21_ptx!(".reqnctapercluster 2, 1, 1"),
        "f12's per-tensor 128x256 tiles with K split over a cluster of 2 CTAs, the partials summed through distributed shared memory (h8)"),
    f21("fp8_gemm_v21_x3", "f21x3", 3, f21_ptx!(".reqnctapercluster 3, 1, 1"), "f21 in clusters of 3 (K split 3 ways)"),
    f21("fp8_gemm_v21_x4", "f21x4", 4, f21_ptx!(".reqnctapercluster 4, 1, 1"), "f21 in clusters of 4 (K split 4 ways)"),
    f21("fp8_gemm_v21_x5", "f21x5", 5, f21_ptx!(".reqnctapercluster 5, 1, 1"), "f21 in clusters of 5 (K split 5 ways)"),
    f21("fp8_gemm_v21_x6", "f21x6", 6, f21_ptx!(".reqnctapercluster 6, 1, 1"), "f21 in clusters of 6 (K split 6 ways)"),
    f21("fp8_gemm_v21_x7", "f21x7", 7, f21_ptx!(".reqnctapercluster 7, 1, 1"), "f21 in clusters of 7 (K split 7 ways)"),
    f21("fp8_gemm_v21_x8", "f21x8", 8, f21_ptx!(".reqnctapercluster 8, 1, 1"), "f21 in clusters of 8 (K split 8 ways)"),
];

/// f21's cluster sizes (= splits of K), as HGEMM h8's.
pub const F21_CLUSTERS: [u32; 7] = layout::hopper::tma_hgemm::H8_CLUSTERS;

/// f22: per tensor on 64×64 tiles computed transposed (the weights on `wgmma`'s M side, the activation
/// tile on its N side), one consumer warpgroup, 8 stages of 16 KiB, C staged with `stmatrix.trans`.
pub const F22: Step = {
    let mut s = gemm("fp8_gemm_v22", "f22", F22_DYN_SMEM, &[], (F22_TILE, F22_TILE), Scaling::PerTensor, false,
                     "per tensor on 64x64 tiles computed transposed (weights on wgmma's M side): one consumer warpgroup, 8 x 16 KiB stages, C by stmatrix.trans and TMA");
    s.kernel.block_threads = 256;
    s.kernel.launch_bounds = bounds_min(256, 1);
    s.kernel.ptx = PtxCheck {
        has: &["wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
               "setmaxnreg.inc.sync.aligned.u32 232"],
        lacks: LACKS, count: &[], at_least: &[],
    };
    s
};

/// f25: per tensor on cuBLASLt's 32-row tile (128 weight rows × 32 activation rows computed transposed),
/// a 10-deep ring of 20 KiB stages, one CTA per tile, C by 16-bit global stores (the kernel takes C's
/// pointer: [`Step::cluster_split`] with clusters of one).
pub const F25: Step = {
    let mut s = gemm("fp8_gemm_v25", "f25", F25_DYN_SMEM, &[], (F25_ROWS, F25_WEIGHT_ROWS), Scaling::PerTensor, false,
                     "per tensor on 32x128 tiles computed transposed (cuBLASLt's at 32 rows): 10 x 20 KiB stages, one CTA per tile, C by global stores");
    s.kernel.block_threads = 256;
    s.kernel.launch_bounds = bounds_min(256, 1);
    s.cluster_split = true;
    s.kernel.ptx = PtxCheck {
        has: &["wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 1", "cp.async.bulk.tensor.2d.shared::cluster.global",
               "st.global.b16", "setmaxnreg.inc.sync.aligned.u32 232"],
        lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "atom", "st.local", "stmatrix", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
                 "release.cluster.shared::cluster", "barrier.cluster"],
        count: &[], at_least: &[],
    };
    s
};

/// f26: f25 on 64 activation rows (`m64n64k32`, 9 stages of 24 KiB) — an experiment: 1.08–1.18× the best
/// other step at 33–56 rows, 0.65–0.95× f22 at 64 (session 86, call 3); no rule chooses it.
pub const F26: Step = {
    let mut s = gemm("fp8_gemm_v26", "f26", F26_DYN_SMEM, &[], (F26_ROWS, F25_WEIGHT_ROWS), Scaling::PerTensor, false,
                     "per tensor on 64x128 tiles computed transposed: f25 on 64 activation rows, 9 x 24 KiB stages, one CTA per tile, C by global stores");
    s.kernel.block_threads = 256;
    s.kernel.launch_bounds = bounds_min(256, 1);
    s.cluster_split = true;
    s.kernel.ptx = PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 1", "cp.async.bulk.tensor.2d.shared::cluster.global",
                                     "st.global.b16", "setmaxnreg.inc.sync.aligned.u32 232"],
                              lacks: F25.kernel.ptx.lacks, count: &[], at_least: &[] };
    s
};

/// f28: per tensor on 64 × 128 tiles (cuBLASLt's at 128–256-row few-tile shapes) in cluster pairs of vertically
/// adjacent tiles sharing the weight box by TMA multicast, two consumer warpgroups of 64 weight columns each
/// (`m64n64k32`), 8 stages of 24 KiB, C by TMA stores. The few-tile choice's candidate above 64 rows since session
/// 112 ([`F28_COST`]): 256×4096×4096 12.3 µs on an H100, 1.08× cuBLASLt's default mode, where f27n128 took 14.9.
pub const F28: Step = Step {
    cluster: 2,
    ..gemm("fp8_gemm_v28", "f28", layout::fp8::tiles::F28_DYN_SMEM, F28_PTX, (layout::fp8::tiles::F28_ROWS, layout::fp8::tiles::F28_BN), Scaling::PerTensor, false,
           "per tensor on 64x128 tiles in cluster pairs sharing the weight box by multicast: two consumers of 64 columns, 8 x 24 KiB stages, C by TMA")
};
/// What f28's PTX holds: its `wgmma`, the cluster's shape and multicast ([`CLUSTER_PTX`]'s pieces), the TMA store.
const F28_PTX: &[&str] = &["wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", ".reqnctapercluster 2, 1, 1", "multicast::cluster",
                           "mbarrier.arrive.shared::cluster.b64", "barrier.cluster.arrive.release", "barrier.cluster.wait.acquire",
                           "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "setmaxnreg.inc.sync.aligned.u32 232"];

/// f23: f22's 64×64 tiles for block scales, not transposed (A's rows on `wgmma`'s M side: two A scales a
/// thread a K tile), each K tile's sums promoted with its scales while the next K tile's `wgmma`s run, the
/// scales copied beside each stage by the producer warp's 32 lanes (`cp.async`, each lane's arrival
/// triggered when its copies land), C staged and stored by TMA.
pub const F23: Step = {
    let mut s = gemm("fp8_gemm_v23", "f23", F23_DYN_SMEM, &[], (F22_TILE, F22_TILE), Scaling::Block, true,
                     "block scales on f22's 64x64 tiles (A's rows on wgmma's M side): one consumer warpgroup, 8 x 16 KiB stages with their scales staged by the producer warp, each K tile promoted while the next one's wgmmas run, C by TMA");
    s.kernel.block_threads = 256;
    s.kernel.launch_bounds = bounds_min(256, 1);
    s.kernel.ptx = PtxCheck {
        has: &["wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", "wgmma.wait_group.sync.aligned 1", "fma.rn.f32", "ld.shared.f32", "cp.async.ca.shared.global",
               "cp.async.mbarrier.arrive.noinc.shared::cta.b64", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "setmaxnreg.inc.sync.aligned.u32 232"],
        // LACKS but `ld.shared` (the scales' slot, as f15 reads its scales).
        lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "trap", "st.global", "wgmma.mma_async.sync.aligned.m64n256k16", "release.cluster.shared::cluster"],
        count: &[], at_least: &[],
    };
    s
};

/// f27: f12's CTA on 128 × 192, 320 or 384 tiles ([`layout::fp8::tiles::F27_WIDTHS`]): the width whose tile
/// count fills the SMs' rounds best, next to f12/f14's 256. B comes in two TMA boxes a stage beyond 256 rows.
pub const F27: [Step; 3] = [
    f27(0, "fp8_gemm_v27_n192", "f27n192", &["wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3", "setmaxnreg.inc.sync.aligned.u32 232"],
        "f12's CTA on 128x192 tiles (4 stages): fuller rounds where 128x256 tiles leave the last one mostly empty"),
    f27(1, "fp8_gemm_v27_n320", "f27n320", &["wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3",
                                            "setmaxnreg.inc.sync.aligned.u32 232"],
        "f12's CTA on 128x320 tiles (3 stages, m64n256k32 + m64n64k32; cuBLASLt's tile at 1024x5120x5120)"),
    f27(2, "fp8_gemm_v27_n384", "f27n384", &["wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3", "setmaxnreg.inc.sync.aligned.u32 232"],
        "f12's CTA on 128x384 tiles (3 stages, two m64n192k32 a K step)"),
];

/// f27n128: f27 on 128 × 128 tiles (session 106) — twice f12's tiles where 128×256 ones leave most SMs idle. Its own
/// `Step`, not in [`F27`] (whose widths the wave model weighs over full rounds): the few-tile choice of
/// [`wgmma_step_by`] weighs it by f14's cost with [`F27_N128_K_TILE`] (session 108).
pub const F27_N128: Step = f27(3, "fp8_gemm_v27_n128", "f27n128", &["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "setmaxnreg.inc.sync.aligned.u32 232"],
                                "f12's CTA on 128x128 tiles (6 stages): twice f12's tiles at few-tile shapes, no K split");

const fn f27(i: usize, name: &'static str, label: &'static str, has: &'static [&'static str], about: &'static str) -> Step {
    let bn = layout::fp8::tiles::F27_WIDTHS[i];
    let mut s = gemm(name, label, layout::fp8::tiles::f27_dyn_smem(bn), has, (BM, bn), Scaling::PerTensor, false, about);
    // LACKS, and no local memory (192 accumulators a thread at 384 columns).
    s.kernel.ptx.lacks = &["ldmatrix", "ld.shared", "mma.sync", "cp.async.cg", "trap", "st.global", "wgmma.mma_async.sync.aligned.m64n256k16",
                           "release.cluster.shared::cluster", "st.local", "ld.local"];
    s
}

/// The ladder, in order.
pub const STEPS: &[Step] = &[F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11, F12, F13, F14, F15, F16, F17, F18, F19, F20, F21[0], F21[1], F21[2], F21[3], F21[4],
                             F21[5], F21[6], F22, F23, F25, F26, F27[0], F27[1], F27[2], F27_N128, F28];

/// Threads per block of the quantize kernels (`kernels_gpu::fp8::quantize::BLOCK`).
pub const QUANT_BLOCK: u32 = 256;

const fn quant(name: &'static str, ptx: PtxCheck, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Fp8, step: "-", target: Target::Sm90a, block_threads: QUANT_BLOCK, launch_bounds: None, dyn_smem_bytes: 0, about, ptx }
}

/// The quantization kernels and the reference's helpers.
pub const KERNELS: &[KernelInfo] = &[
    quant("fp8_amax_f32", PtxCheck::has(&["red.relaxed.gpu.global.max.u32", "shfl.sync.bfly.b32"]), "max |x| of n f32 (as u32 bits, atomic max)"),
    quant("fp8_quantize_tensor_f32", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32"]), "per-tensor e4m3: s = amax/448, q = e4m3(x/s)"),
    quant("fp8_quantize_1x128_f32", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "shfl.sync.bfly.b32"]), "A's block e4m3: one scale per 1x128 row segment (one warp each)"),
    quant("fp8_quantize_128x128_f32", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "bar.sync"]), "B's block e4m3: one scale per 128x128 block (one CTA each)"),
    quant("fp8_amax_f16", PtxCheck::has(&["red.relaxed.gpu.global.max.u32", "cvt.f32.f16"]), "max |x| of n f16"),
    quant("fp8_quantize_tensor_f16", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "cvt.f32.f16"]), "per-tensor e4m3 from f16"),
    quant("fp8_quantize_1x128_f16", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "cvt.f32.f16"]), "A's block e4m3 from f16"),
    quant("fp8_quantize_128x128_f16", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "cvt.f32.f16"]), "B's block e4m3 from f16"),
    quant("fp8_amax_bf16", PtxCheck::has(&["red.relaxed.gpu.global.max.u32", "shl.b32"]), "max |x| of n bf16"),
    quant("fp8_quantize_tensor_bf16", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "shl.b32"]), "per-tensor e4m3 from bf16"),
    quant("fp8_quantize_1x128_bf16", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "shl.b32"]), "A's block e4m3 from bf16"),
    quant("fp8_quantize_128x128_bf16", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "shl.b32"]), "B's block e4m3 from bf16"),
    quant("fp8_dequantize_f32", PtxCheck::has(&["cvt.rn.f16x2.e4m3x2"]), "x' = q * s in f32 (the reference's inputs)"),
    quant("fp8_f32_to_bf16", PtxCheck::has(&["cvt.rn.bf16x2.f32"]), "rounds the f32 reference to bf16"),
    quant("fp8_quantize_weights_bf16", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "shl.b32"]),
          "FP8 weights for bf16 activations: e4m3 with a power-of-two scale per 128x128 block"),
    quant("fp8_quantize_weights_f16", PtxCheck::has(&["cvt.rn.satfinite.e4m3x2.f32", "cvt.f32.f16"]), "FP8 weights for f16 activations (f16's scale range)"),
    quant("fp8_dequantize_weights_t_bf16", PtxCheck::has(&["cvt.rn.f16x2.e4m3x2", "cvt.rn.bf16x2.f32", "bar.sync"]),
          "FP8 weights (NxK) dequantized and transposed to KxN bf16, the 16-bit GEMMs' B"),
    quant("fp8_dequantize_weights_t_f16", PtxCheck::has(&["cvt.rn.f16x2.e4m3x2", "cvt.rn.f16x2.f32", "bar.sync"]), "as above, into f16"),
    quant("fp8_dequantize_packed_weights_t_bf16", PtxCheck::has(&["cvt.rn.f16x2.e4m3x2", "cvt.rn.bf16x2.f32", "bar.sync"]),
          "packed FP8 weights (step w5's layout) dequantized and transposed to KxN bf16"),
    quant("fp8_dequantize_packed_weights_t_f16", PtxCheck::has(&["cvt.rn.f16x2.e4m3x2", "cvt.rn.f16x2.f32", "bar.sync"]), "as above, into f16"),
    quant("fp8_pack_weights", PtxCheck::has(&["ld.global.nc.v4.u32", "st.global.v4.u32"]),
          "FP8 weights (NxK) rewritten in the order w5's lanes load them: each 32-row x 64-deep warp step 2 KiB contiguous"),
];

/// The most splits of K a w1 launch takes (its last block sums every split's partial at once).
pub const MAX_SPLITS: usize = 16;

/// The weight-only steps' splits of K and their depth for `n × k` on `sms` SMs whose weights stream from DRAM
/// at `stream_bytes_per_us`: the count whose time a split model says is least (ties to more splits), among those whose
/// blocks fit one wave of two a SM (what w1's 128 registers a thread allow) and leave each warp two 64-deep
/// steps a split, at most [`MAX_SPLITS`]. The model: a block streams its 32 rows × `k_split` at no more than
/// [`W1_BLOCK_BYTES_PER_US`], the grid all `n × k` bytes at no more than `stream_bytes_per_us`, and a split
/// adds [`W1_SPLIT_FIXUP_US`] (the partials' stores, the tile's ticket, the last block's sum); a split must win by
/// [`W1_SPLIT_MARGIN`]. So K is split
/// only where few tiles each stream a deep K slower than the DRAM would take it all (32 tiles × 4096 deep:
/// four ways), never to fill the SMs alone (session 107's rule — as many splits as fill the wave — measured
/// 1.00–1.20× slower than unsplit at 20 of 34 decode shapes on an H100). Returns `(splits, k_split)` with
/// `(splits − 1) · k_split < k`.
///
/// One wave, not more: every block streams the same bytes, so a second, partial wave of splits runs
/// while most SMs idle (w1 split 1×4096×4096 three ways, 384 blocks on 264 slots: 30% of the copy rate).
pub fn w1_splits(n: usize, k: usize, sms: u32, stream_bytes_per_us: f64) -> (u32, u32) {
    let tiles = n.div_ceil(layout::fp8::weights::ROWS as usize).max(1);
    let step_k = layout::fp8::weights::STEP_K as usize;
    let steps = k.div_ceil(step_k).max(1);
    let fit = ((2 * sms as usize) / tiles).max(1);
    let most = (steps / (2 * layout::fp8::weights::WARPS as usize)).clamp(1, MAX_SPLITS).min(fit);
    let all_us = (n * k) as f64 / stream_bytes_per_us;
    let time = |s: usize| {
        let k_split = steps.div_ceil(s) * step_k;
        let fixup = if s > 1 { W1_SPLIT_FIXUP_US } else { 0.0 };
        fixup + (layout::fp8::weights::ROWS as f64 * k_split as f64 / W1_BLOCK_BYTES_PER_US).max(all_us)
    };
    // Among the split counts, the least time, ties to more splits: where the DRAM's floor holds several counts
    // level, the one whose blocks sit furthest under it comes nearest it (8×2048×8192: four ways 12.38 µs, two
    // 13.55). Taken only if it beats unsplit by more than the model's error (`W1_SPLIT_MARGIN`).
    let mut best = 1;
    for s in 2..=most {
        if best == 1 || time(s) <= time(best) {
            best = s;
        }
    }
    let splits = if best > 1 && time(best) < W1_SPLIT_MARGIN * time(1) { best } else { 1 };
    let k_split = steps.div_ceil(splits) * step_k;
    ((k.div_ceil(k_split)) as u32, k_split as u32)
}

/// How fast one weight-only block streams its own rows of weights, bytes a µs (its eight warps' loads in
/// flight): fitted with [`W1_SPLIT_FIXUP_US`] to fw2 at 34 decode shapes of 1–16 rows, 32–256 tiles, each
/// unsplit and split 2 and 4 ways (H100, `results/2026-12-05-h100-session108`; rms error 5%; 4×1024×4096 unsplit
/// 8.75 µs, four ways 7.62).
pub const W1_BLOCK_BYTES_PER_US: f64 = 23.0e3;

/// What splitting K adds to a weight-only launch, µs: the partials to global memory, the tile's ticket, the last
/// block's sum (2×4096×2048: 7.61 µs unsplit, 9.09 split two ways with each block's stream halved; fitted with
/// [`W1_BLOCK_BYTES_PER_US`]).
pub const W1_SPLIT_FIXUP_US: f64 = 2.0;

/// The share of the DRAM's peak (`DeviceInfo::dram_peak_bytes_per_us`) the weight-only kernels stream at: fw2
/// 2.4e6 bytes a µs of an H100's 3.35e6 (0.72, session 108's fit), 3.7e6 of an H200's ~4.9e6 (0.75, [`FW2_COST`]).
pub const W1_STREAM_OF_PEAK: f64 = 0.75;

/// How much faster the split model must find a split than unsplit before [`w1_splits`] takes it: its error on the
/// 34 shapes it was fitted to (rms 5%), so a split the model barely prefers (16×2048×4096: two ways 0.94× the
/// modelled unsplit time, measured 1.07× slower) is not taken. With it and ties to more splits the pick was within
/// 5% of the fastest at 34 of 34 for stream rates of 2.5e6–3.7e6 bytes a µs (without: 31).
pub const W1_SPLIT_MARGIN: f64 = 0.93;

/// The rate [`w1_splits`] takes the weights to stream at on a GPU whose DRAM peaks at `dram_peak_bytes_per_us`:
/// [`W1_STREAM_OF_PEAK`] of it, or [`FW2_COST`]'s rate where the driver did not say.
pub fn w1_stream_bytes_per_us(dram_peak_bytes_per_us: Option<f64>) -> f64 {
    dram_peak_bytes_per_us.map_or(FW2_COST.bytes_per_us, |p| W1_STREAM_OF_PEAK * p)
}

/// [`w1_splits`] with `splits` asked for (a sweep's: `runtime::tuning::w1_fixed_splits`): at most
/// [`MAX_SPLITS`] and no more than K's 64-deep steps, each split a whole number of steps, none empty.
/// Returns `(splits, k_split)` with `(splits − 1) · k_split < k`.
pub fn w1_splits_forced(k: usize, splits: u32) -> (u32, u32) {
    let steps = k.div_ceil(layout::fp8::weights::STEP_K as usize).max(1);
    let want = (splits as usize).clamp(1, MAX_SPLITS).min(steps);
    let k_split = steps.div_ceil(want) * layout::fp8::weights::STEP_K as usize;
    (k.div_ceil(k_split) as u32, k_split as u32)
}

/// The weight-only kernels' split of K for `n × k` on a GPU of `sms` SMs whose DRAM peaks at `dram_peak_bytes_per_us`
/// (`DeviceInfo`'s): [`w1_splits`] at [`w1_stream_bytes_per_us`], or a sweep's forced count ([`w1_splits_forced`],
/// `KERNEL_LAB_W1_SPLITS`).
pub fn w1_splits_for(n: usize, k: usize, sms: u32, dram_peak_bytes_per_us: Option<f64>) -> (u32, u32) {
    crate::runtime::tuning::w1_fixed_splits()
        .map_or_else(|| w1_splits(n, k, sms, w1_stream_bytes_per_us(dram_peak_bytes_per_us)), |s| w1_splits_forced(k, s))
}

/// Token tiles (8 tokens each) of the weight-only decode kernels, smallest first.
pub const W1_TOKEN_TILES: [u32; 3] = [1, 2, 4];

const fn w1(name: &'static str, label: &'static str, nt: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { name, family: Family::Fp8, step: label, target: Target::Sm90a, block_threads: layout::fp8::weights::THREADS,
                 launch_bounds: bounds_min(layout::fp8::weights::THREADS, 2), dyn_smem_bytes: layout::fp8::weights::smem_bytes(nt),
                 about: "FP8 weight-only decode: e4m3 weights (power-of-two block scales) widened in registers, 16-bit mma.sync, no staging; split-K with a last-block sum; PDL",
                 ptx: PtxCheck { has, lacks: &["ld.local", "st.local", "ldmatrix", "cp.async", "trap"], count: &[],
                                 at_least: &[("griddepcontrol.wait", 1), ("griddepcontrol.launch_dependents", 1)] } }
}

const W1_HAS_BF16: &[&str] = &["ld.global.nc.L1::no_allocate.v4.u32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "prmt.b32", "mul.rn.bf16x2",
                               "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64"];
/// On f16 activations the weights widen by `cvt.rn.f16x2.e4m3x2` (session 74) and the activations need no `prmt`.
const W1_HAS_F16: &[&str] = &["ld.global.nc.L1::no_allocate.v4.u32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "cvt.rn.f16x2.e4m3x2", "mul.rn.f16x2",
                              "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64"];

/// The most rows of A [`FW1`] takes: w1's 8- and 16-token kernels stream the weights at the same rate
/// as at one token (8×28672×4096: 40.6 µs against 40.3 at 1, H200, session 54: `git show 72953c1:results/2026-11-29-h200-session54/README.md`);
/// its 32-token kernel took 1.5× as long (61.6 µs), about what a 128-row `wgmma` tile costs at any M.
pub const FW1_MAX_M: usize = 16;
const _: () = assert!(FW1_MAX_M == 16, "fw2's kernels (and the routes' choice of them) cover 8 and 16 tokens");

/// fw1: per-tensor FP8 for a few rows of A (decode) without `wgmma` tiles of 128 rows, of which one
/// token would use one: A's e4m3 bytes widened to bf16 with the product's scale folded in
/// (`fp8_widen_per_tensor_bf16`, M×K elements), then the weight-only decode kernel (w1, bf16) streams
/// B's bytes with a power-of-two scale for every block (`kernel_lab::fp8::Fp8Gemm`). `promotes`: its
/// 16-bit `mma.sync` sums in f32 every 16 of K.
/// Its kernel is the first of the two (`fp8_widen_per_tensor_bf16`, one of the quantize kernels' grid);
/// the second is w1's bf16 kernel for the token count ([`WEIGHT_ONLY`]).
pub const FW1: Step = weight_only_step(KernelInfo {
    name: "fp8_widen_per_tensor_bf16", family: Family::Fp8, step: "fw1", target: Target::Sm90a, block_threads: QUANT_BLOCK, launch_bounds: None, dyn_smem_bytes: 0,
    about: "per tensor, 9-16 rows: A widened to bf16 with the scales folded in (this kernel), then w1 streams B (e4m3, power-of-two block scales) through mma.sync",
    ptx: PtxCheck { has: &["cvt.rn.f16x2.e4m3x2", "cvt.rn.bf16x2.f32"], lacks: &["ld.local", "st.local", "trap"], count: &[], at_least: &[] },
});

/// A weight-only route's step (fw1, fw2): per tensor, up to [`FW1_MAX_M`] rows, its first kernel `kernel`.
const fn weight_only_step(kernel: KernelInfo) -> Step {
    Step { kernel, tile: (FW1_MAX_M as u32, layout::fp8::weights::ROWS), scaling: Scaling::PerTensor, promotes: true, cluster: 1, stream_k: false, scale_map: false,
           weight_only: true, cluster_split: false }
}

/// The most rows of A the per-tensor choice gives [`FW2`] (above, up to [`FW1_MAX_M`], [`FW1`]): all of
/// its kernels' 16. fw2 widens A in every block (⌈N/32⌉ · splits of them), fw1 once, so fw2's extra work
/// grows with M; but since its e4m3 activations are widened where the MMAs use them (session 59: no
/// `prmt` round trip, no wait on the load), fw2 beat fw1 at every 12–16-row shape measured (H200,
/// session 59, `git show 73f7877:results/2026-11-29-h200-session59/README.md`; µs, fw2 / fw1): 12×4096×4096 10.4 / 11.1, 16×4096×14336 25.1 /
/// 25.8, 16×28672×4096 43.4 / 45.5. Before (session 58, call 5) fw1 led at 9–16 rows by 2–17 points.
pub const FW2_MAX_M: usize = 16;

/// fw2: fw1 without the widening launch — w1's body reading A's e4m3 bytes itself, both operands
/// widened in registers to f16 (`cvt.rn.f16x2.e4m3x2`, exact: e4m3 fits f16; session 74) for f16 MMAs,
/// the weights unscaled, the per-tensor
/// scales `sa·sb` applied to the f32 sums before the one rounding to bf16. Its kernel here is the
/// 8-token one (`fp8_fw2_t8`); [`WEIGHT_ONLY`] holds the 16-token one.
pub const FW2: Step = weight_only_step(w1("fp8_fw2_t8", "fw2", 1, FW2_HAS));

/// fw2 and fwb widen both e4m3 operands to f16 (`cvt.rn.f16x2.e4m3x2`, session 74) for f16 MMAs.
const FW2_HAS: &[&str] = &["ld.global.nc.L1::no_allocate.v4.u32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "cvt.rn.f16x2.e4m3x2",
                           "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64"];

/// fwb: fw2 for **block-scaled** operands (A one f32 per 1×128 of a row, B one per 128×128 block) —
/// the block scales' decode route, where the `wgmma` steps' 128-row tiles would carry 1–16 rows of A.
/// Each 64-deep warp step's sums start from zero and are added to the running f32 sums times the
/// step's `sb · sa[token]` (one FMA an accumulator a step; a step lies in one scale block), so the result
/// is the block-scaled product in f32 before the one rounding to bf16 (no power-of-two restriction on
/// the scales: the weights go unscaled through f16, as fw2's). Its kernel here is the 8-token one
/// (`fp8_fwb_t8`); [`WEIGHT_ONLY`] holds the 16-token one.
pub const FWB: Step = Step { scaling: Scaling::Block, ..weight_only_step(w1("fp8_fwb_t8", "fwb", 1, FWB_HAS)) };

const FWB_HAS: &[&str] = &["ld.global.nc.L1::no_allocate.v4.u32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "cvt.rn.f16x2.e4m3x2", "fma.rn.f32",
                           "ld.global.nc.s32", "atom.acq_rel.gpu.global.add.u32", "ld.global.cg.u64"];

/// The most rows of A the block-scaled choice gives [`FWB`]: its kernels' 16.
pub const FWB_MAX_M: usize = 16;

/// The weight-only routes (not `wgmma` steps, so not in [`STEPS`]), in ladder order: fw1 and fw2 per
/// tensor, fwb block-scaled.
pub const WEIGHT_ONLY_ROUTES: [&Step; 3] = [&FW1, &FW2, &FWB];

/// The weight-only decode kernels (`kernels-gpu/src/fp8/steps/w1_weight_only.rs`; w5, w1 on packed
/// weights: `w5_packed_weights.rs`), by token tiles and activation type: `kernel_lab::fp8_weights`
/// launches them.
pub const WEIGHT_ONLY: &[KernelInfo] = &[
    w1("fp8_w1_t8_bf16", "w1-t8", 1, W1_HAS_BF16), w1("fp8_w1_t16_bf16", "w1-t16", 2, W1_HAS_BF16), w1("fp8_w1_t32_bf16", "w1-t32", 4, W1_HAS_BF16),
    w1("fp8_w1_t8_f16", "w1-t8-f16", 1, W1_HAS_F16), w1("fp8_w1_t16_f16", "w1-t16-f16", 2, W1_HAS_F16), w1("fp8_w1_t32_f16", "w1-t32-f16", 4, W1_HAS_F16),
    w1("fp8_fw2_t16", "fw2-t16", 2, FW2_HAS), w1("fp8_fwb_t16", "fwb-t16", 2, FWB_HAS),
    w1("fp8_w5_t8_bf16", "w5-t8", 1, W1_HAS_BF16), w1("fp8_w5_t16_bf16", "w5-t16", 2, W1_HAS_BF16), w1("fp8_w5_t32_bf16", "w5-t32", 4, W1_HAS_BF16),
    w1("fp8_w5_t8_f16", "w5-t8-f16", 1, W1_HAS_F16), w1("fp8_w5_t16_f16", "w5-t16-f16", 2, W1_HAS_F16), w1("fp8_w5_t32_f16", "w5-t32-f16", 4, W1_HAS_F16),
];

/// f9's speed per unit of work against f3's where both fill their last wave: measured 1.05–1.08× at
/// 8192³ and 4096×28672×8192 (H100, `results/2026-11-23-h100-session8/call2-f9`, the two shapes whose
/// tile counts are within 3% of whole waves for both).
pub const F9_SPEED_PER_WORK: f64 = 1.07;

/// f15's speed per unit of work against f3's where both fill their last wave: 1.20× at 8192³ and 1.13×
/// at 4096×28672×8192, geometric mean 1.16 (H100, `results/2026-11-25-h100-session17/call1-fp8-f15`;
/// f15 against f9 there: 1.11× / 1.06×).
pub const F15_SPEED_PER_WORK: f64 = 1.16;

/// Whether f15 (A's scales through a tensor map of ⌈K/128⌉ rows of M f32, row stride 4M bytes: a
/// multiple of 16) takes `m` rows.
pub fn scale_map_takes(m: usize) -> bool {
    m % 4 == 0
}

/// f19's speed per unit of work against f3's: f15's ([`F15_SPEED_PER_WORK`]) × 1.05, the geometric mean
/// of `ab f15 f19` over the six sweep shapes with f19's extra round at 4096×28672 divided out (1.035–
/// 1.080× at five shapes, 0.990× at 4096×28672×8192 where f19 runs 38 rounds to f15's 37: H100,
/// `git show 10af122:results/2026-11-26-h100-session23/call3-f19`).
pub const F19_SPEED_PER_WORK: f64 = F15_SPEED_PER_WORK * 1.05;

/// The block-scaled step for `m × n × k` on `sms` SMs: [`FWB`] up to [`FWB_MAX_M`] rows; above,
/// whichever of f3 (128×128 tiles), the 128×192
/// step and f19 (192×128, three consumers) the wave model says finishes first: rounds of persistent
/// tiles (`⌈tiles / sms⌉`, the last round as long as a full one) × tile area / the step's speed per
/// unit of work ([`F15_SPEED_PER_WORK`], [`F9_SPEED_PER_WORK`], [`F19_SPEED_PER_WORK`]). Wider tiles
/// do more per shared-memory byte but come in fewer, coarser rounds: 4096³ is 1024 f3 tiles (7.8 rounds
/// of 132) but 704 f9 tiles (5.3 rounds, the sixth mostly idle). The 128×192 step is f15 where it takes
/// `m` ([`scale_map_takes`]; run as f16, f15 with the stream-K tail, whether or not its tail streams:
/// where nothing streams f16's body measured 1.015–1.022× f15's, `ab` in 12 rounds at 2048×4096×11008,
/// 8192³ and 4096×28672×8192, `git show 10af122:results/2026-11-26-h100-session26/call5-fp8-ab/…`), else f9; f19
/// needs the same M % 4 as f15, and must beat the others by [`THREE_CONSUMER_MARGIN`]. Ties go to the
/// earlier step. With f9 it picks the faster of f3/f9 at five
/// of the six measured shapes (the sixth within 3%); f15 measured faster than f3 at all six (1.06–1.20×,
/// call 1 of session 17), f16 1.05–1.07× f15 at 4096³ and 1.03–1.05× at 2048×14336×4096 where it
/// streams, and f19 1.035–1.080× f15 at five of the six (session 23): the model picks f19 there, and f15
/// at 4096×28672×8192, run as f16 (f19's 38 rounds against f15's 37 leave it 2.2% ahead in the model,
/// under the margin; `ab` measured f19 0.990× f15 and 0.952× f16 there, 0.965× f16 in session 26).
pub fn block_step_for(m: usize, n: usize, k: usize, sms: u32) -> &'static Step {
    block_step_by(&SHIPPED, m, n, k, sms)
}

/// [`block_step_for`] with `costs`' measured few-tile costs (f3's, f23's).
pub fn block_step_by(costs: &Fp8Costs, m: usize, n: usize, k: usize, sms: u32) -> &'static Step {
    if m <= FWB_MAX_M && FWB.rejects(m, n, k).is_none() {
        return &FWB;
    }
    let time = |st: &Step, speed: f64| st.wave_time(m, n, sms, speed);
    let (wide, speed) = if scale_map_takes(m) { (&F15, F15_SPEED_PER_WORK) } else { (&F9, F9_SPEED_PER_WORK) };
    let mut best = (&F3, time(&F3, 1.0));
    if wide.rejects(m, n, k).is_none() && time(wide, speed) < best.1 {
        best = (wide, time(wide, speed));
    }
    if F19.rejects(m, n, k).is_none() && time(&F19, F19_SPEED_PER_WORK) < THREE_CONSUMER_MARGIN * best.1 {
        best = (&F19, time(&F19, F19_SPEED_PER_WORK));
    }
    // Few tiles: f3's 128×128 tiles fill under one round of the SMs, so the shape is bound by how few
    // SMs pull data; f23's 64×64 tiles (4× as many) where `TileCost` says they finish first.
    if best.0 == &F3 && F3.tiles(m, n) < sms as u64 && F23.rejects(m, n, k).is_none() {
        let (kt, ab) = ((k as u64).div_ceil(layout::fp8::tiles::BK as u64) as f64, ((m + n) * k) as f64);
        if costs.f23.time_us(F23.tiles(m, n), sms as u64, kt, ab) < costs.f3.time_us(F3.tiles(m, n), sms as u64, kt, ab) {
            return &F23;
        }
    }
    match best.0 {
        b if b == &F15 => &F16,
        b if b == &F19 && f20_tail_pays(m, n, k, sms) => &F20,
        b => b,
    }
}

/// What streaming f20's tail costs, in rounds of whole tiles: the partials' stores, the tickets and the
/// last contributor's adds. Fitted to `ab f19 f20` (H100, `git show 10af122:results/2026-11-26-h100-session23/call4-f20`):
/// 4096³ gained 4.3% with a third-full sixth round ((1 − 1/3 − c) / 6 → c = 0.41), 2048×11008×4096 4.6%
/// with a sixth-full eighth ((1 − 1/6 − c) / 8 → c = 0.46).
pub const F20_FIXUP_ROUNDS: f64 = 0.45;

/// Whether f20's stream-K tail is worth streaming on `m × n × k`: it streams at all (h10's rule,
/// [`stream_k_tail_of`]), and the idle share of the last round it saves, less [`F20_FIXUP_ROUNDS`],
/// is at least 1% of the run's rounds. At the sweep shapes: 4096³ (+4.5% predicted, +4.3% measured),
/// 2048×11008×4096 (+4.8%, +4.6%), 2048×14336×4096 (+2.2%; measured −0.6% in `ab`, 5/8 rounds won, and
/// +2.4 points of cuBLASLt in the same call's table) stream; 4096×28672×8192 (+0.6%; measured −0.7%)
/// does not.
pub fn f20_tail_pays(m: usize, n: usize, k: usize, sms: u32) -> bool {
    let tail = stream_k_tail_of(&F20, m, n, k, sms);
    let grid = F20.grid(m, n, sms);
    let rounds = F20.tiles(m, n).div_ceil(grid.max(1) as u64) as f64;
    tail > 0 && (1.0 - tail as f64 / grid as f64 - F20_FIXUP_ROUNDS) / rounds >= 0.01
}

/// How much faster than the two-consumer step the wave model must find a three-consumer one (f18, f19)
/// before the library takes it: their speed per unit of work is not uniform across shapes, and where the
/// model had them within 1–2.2% they lost in `ab` (4096×28672×8192: f18 0.988× f14 and f19 0.952× f16 in
/// 12 rounds, `git show 10af122:results/2026-11-26-h100-session23/call5-final`).
pub const THREE_CONSUMER_MARGIN: f64 = 0.97;

/// f18's speed per unit of work against f14's where the waves are accounted for: `kernel-lab ab f14
/// f18` over the six sweep shapes divided by the ratio of their useful tile-wave fractions gives
/// 1.007–1.044, geometric mean 1.02 (H100, `git show 10af122:results/2026-11-26-h100-session23/call2-f18`).
pub const F18_SPEED_PER_WORK: f64 = 1.02;

/// The per-tensor step for `m × n × k` on `sms` SMs. Up to [`F25_ROWS`] rows of A, [`F25`] where its
/// [`F25_COST`] beats the other route's time by [`F25_MARGIN`]: [`FW2_COST`] up to [`FW2_MAX_M`] rows, and
/// above, [`wgmma_step_for`]'s pick at its modelled time but no faster than [`NARROW_A_BYTES_PER_US`] lets
/// A and B stream. Otherwise [`FW2`] up to [`FW2_MAX_M`] rows, [`FW1`] up to [`FW1_MAX_M`] (none since both
/// are 16: fw1 stays the autotuner's candidate), and above, [`wgmma_step_for`].
pub fn per_tensor_step_for(m: usize, n: usize, k: usize, sms: u32, resident: [u32; 7]) -> &'static Step {
    per_tensor_step_by(&SHIPPED, m, n, k, sms, resident)
}

/// [`per_tensor_step_for`] with `costs`' measured costs (f14's, f22's, f25's, fw2's).
pub fn per_tensor_step_by(costs: &Fp8Costs, m: usize, n: usize, k: usize, sms: u32, resident: [u32; 7]) -> &'static Step {
    let kt = (k as u64).div_ceil(layout::fp8::tiles::BK as u64) as f64;
    let ab = ((m + n) * k) as f64;
    let f25_us = (m <= F25_ROWS as usize && F25.rejects(m, n, k).is_none()).then(|| costs.f25.time_us(F25.tiles(m, n), sms as u64, kt, ab));
    // The margin is for weights the bench's repeated launches keep in the L2 (fw2 and the `wgmma` steps then beat
    // their DRAM-fitted costs, f25 does not); weights beyond it stream from DRAM for every route.
    let margin = if (n as u64).saturating_mul(k as u64) <= costs.l2_bytes { F25_MARGIN } else { 1.0 };
    let f25_beats = |other_us: f64| f25_us.is_some_and(|t| t < margin * other_us);
    if m <= FW2_MAX_M {
        return if f25_beats(costs.fw2.time_us(m, ab)) { &F25 } else { &FW2 };
    }
    if m <= FW1_MAX_M {
        return &FW1;
    }
    let (pick, pick_us) = wgmma_step_by(costs, m, n, k, sms, resident);
    if f25_beats(pick_us.max(costs.f22.fixed_us + ab / NARROW_A_BYTES_PER_US)) { &F25 } else { pick }
}

/// The per-tensor `wgmma` step for `m × n × k` (more than [`FW1_MAX_M`] rows) on `sms` SMs and its
/// modelled time in µs: f14 (128×256 tiles) or f18 (192×192, three consumers), whichever the wave model
/// of [`block_step_for`] says finishes first — rounds of persistent tiles × tile area / speed per unit of
/// work ([`F18_SPEED_PER_WORK`]), f18 only by [`THREE_CONSUMER_MARGIN`]. Of the six sweep shapes it gives
/// f18 2048×11008 (638 tiles = 4.83 rounds of 132 against f14's 688 = 5.21; measured 1.09× and 1.05× f14),
/// f14 the other five (4096×28672: 25 rounds against 28, 1.0% apart in the model; measured 1.009× and
/// 0.988×; elsewhere f18 0.90–0.99×). f14's stream-K tail is not in the model: it measured 1.00–1.03× f12
/// (sessions 16, 18). The time of f14 and f18 is [`F14_COST`]'s for f14's tiles (f18's is not measured).
///
/// Where f14 is the pick and its tiles fill less than one round of the SMs, the time model of
/// [`TileCost`] chooses among f14, f27n192 (where its tiles fit one round), f27n128 (since session 108), f21 (K
/// split over a cluster, at the size [`f21_splits`] finds), f28 (64×128 tiles in cluster pairs, above 64 rows; since
/// session 112) and f22 (64×64 tiles computed transposed). `resident[i]`: clusters of [`F21_CLUSTERS`]`[i]` CTAs the GPU holds
/// at once ([`crate::fp8::f21_resident`]).
pub fn wgmma_step_for(m: usize, n: usize, k: usize, sms: u32, resident: [u32; 7]) -> (&'static Step, f64) {
    wgmma_step_by(&SHIPPED, m, n, k, sms, resident)
}

/// [`wgmma_step_for`] with `costs`' measured few-tile costs (f14's, f22's).
pub fn wgmma_step_by(costs: &Fp8Costs, m: usize, n: usize, k: usize, sms: u32, resident: [u32; 7]) -> (&'static Step, f64) {
    let kt = (k as u64).div_ceil(layout::fp8::tiles::BK as u64) as f64;
    let ab = ((m + n) * k) as f64;
    let t14 = costs.f14.time_us(F14.tiles(m, n), sms as u64, kt, ab);
    let time = |st: &Step, speed: f64| st.wave_time(m, n, sms, speed);
    if time(&F18, F18_SPEED_PER_WORK) < THREE_CONSUMER_MARGIN * time(&F14, 1.0) {
        return (&F18, t14);
    }
    if F14.tiles(m, n) >= sms as u64 {
        // f27's widths where their tile counts fill the rounds better, by the same wave model.
        let w14 = time(&F14, 1.0);
        let best = F27.iter().zip(costs.f27_speed).filter(|(st, _)| st.rejects(m, n, k).is_none()).map(|(st, speed)| (st, time(st, speed)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        return match best {
            Some((st, w)) if w < F27_MARGIN * w14 => (st, t14 * w / w14),
            _ => (&F14, t14),
        };
    }
    // Few tiles: f14, f27's 192-wide tiles where they fit one round (f14's cost, its K tile three quarters
    // as long), f27n128 (half as long), f21 at its best cluster size (f14's costs plus its overhead per wave,
    // in f14's K tiles), or f22, whichever `TileCost` says finishes first (ties to the earlier).
    let mut best = (&F14, t14);
    // Weights beyond the L2 from DRAM no faster than the fastest streaming step, f25 (f14's cost has no
    // floor: its 128×256 tiles are bound by their own K tiles first); within it, none.
    let beyond_l2 = (n as u64).saturating_mul(k as u64) > costs.l2_bytes;
    // The floor the f27 widths, f21 and f28 take: f25's DRAM rate beyond the L2, none within it.
    let streamed = if beyond_l2 { costs.f25.dram_bytes_per_us } else { f64::INFINITY };
    let narrower = |share: f64| TileCost { k_tile_us: costs.f14.k_tile_us * share, k_tile_full_us: costs.f14.k_tile_full_us * share,
                                           dram_bytes_per_us: streamed, ..costs.f14 };
    // f27n128 before n192: where the weights stream from DRAM both sit at the same floor (equal times; ties go to the
    // earlier), and the narrower tiles put more CTAs' loads in flight toward it — n128 1.01–1.06× n192's speed at the four
    // such shapes timed (H100: 128×13824×5120 in sessions 112 twice, 96 and 128×14336×4096 in session 113).
    if F27_N128.rejects(m, n, k).is_none() {
        let t = narrower(F27_N128_K_TILE).time_us(F27_N128.tiles(m, n), sms as u64, kt, ab);
        if t < best.1 {
            best = (&F27_N128, t);
        }
    }
    let narrow = &F27[0];
    if narrow.tiles(m, n) <= sms as u64 && narrow.rejects(m, n, k).is_none() {
        let t = narrower(F27_N192_K_TILE).time_us(narrow.tiles(m, n), sms as u64, kt, ab);
        if t < best.1 {
            best = (narrow, t);
        }
    }
    let (splits, est) = f21_split_estimate(m, n, k, sms, resident);
    if let Some(st) = f21_for(splits) {
        // Beyond the L2 the f27 widths' and f28's floor too: f21's K split streams the same weights from DRAM
        // (session 112, H100: 128×13824×5120 37.5 µs where its split alone said 20.1; f28 32.9).
        let t = costs.f21.time_us(est).max(costs.f21.fixed_us + ab / streamed);
        if t < best.1 {
            best = (st, t);
        }
    }
    // f28 where A has two of its 64-row tile rows or more: with one, a pair's second CTA has no rows, and it ran
    // 1.2–1.5× its time at 128 rows (64×4096×2048 9.6 µs, 128×4096×2048 8.2; session 112, H100).
    if m > F28.tile.0 as usize && F28.rejects(m, n, k).is_none() {
        let cost = TileCost { dram_bytes_per_us: if beyond_l2 { streamed } else { costs.f28.dram_bytes_per_us }, ..costs.f28 };
        let t = cost.time_us(F28.cta_tiles(m, n), sms as u64, kt, ab);
        if t < best.1 {
            best = (&F28, t);
        }
    }
    let t22 = costs.f22.time_us(F22.tiles(m, n), sms as u64, kt, ab);
    if t22 < best.1 {
        best = (&F22, t22);
    }
    best
}

/// f27's speed per unit of work against f14's over full rounds, by width (192, 320, 384): 8192³ on an H200,
/// f14 863 µs, f27n192 870, f27n320 931, f27n384 935 (session 90, call 2; medians of 3 processes).
pub const F27_SPEED_PER_WORK: [f64; 3] = [0.99, 0.93, 0.92];

/// How much faster the wave model must find an f27 width than f14 before the choice takes it: f14 streams
/// a short last round's tail by K, which the model does not count, and at 1–2% apart the two measured
/// even (8192³: n192 1% ahead in the model, 0.99× f14 measured; 1024×11008×4096 1% behind, 1.00×).
/// Where the model had f27 5% or more ahead it measured 1.05–1.27× (session 90, call 2).
pub const F27_MARGIN: f64 = 0.95;

/// f27n192's K tile against f14's in the few-tile cost (three quarters of the columns): 512×4608×3072
/// 17.1 µs against f14's 20.8, 1024×2560×3072 17.9 / 20.9, 4096×768×3072 18.6 / 22.3 (session 90, call 2)
/// — f14's `TileCost` with its K-tile terms × 0.75 predicts 16.2 / 19.5 at the first. Floored by f25's DRAM
/// rate: at 64×22016×4096 (90 MB) n192 took 33.5 µs against f22's 28.2 where the K tiles alone said 19.5 /
/// 19.7 (call 3); with the floor (22.5 µs + 6.1) f22 stays the pick there. Only for weights beyond the L2
/// (`Fp8Costs::l2_bytes`): 128×16384×2048's 32 MiB stay in it and n192 took them at 4.5 TB/s (13.6 µs against
/// f21x2's 14.5; call 4 had the floor everywhere and went back to f21x2, 0.82× cuBLASLt). Since session 108 the choice
/// takes f27n128 there ([`F27_N128_K_TILE`]: 10.6 µs modelled against n192's 12.8; not timed at that shape).
pub const F27_N192_K_TILE: f64 = 0.75;

/// f27n128's K tile against f14's in the few-tile cost: half the columns, so half the `wgmma` work a K tile, as
/// [`F27_N192_K_TILE`] is three quarters (the width's share, not a fit). Checked on an H100 (session 107's call,
/// `results/2026-12-05-h100-session108`) at 16 few-tile shapes of 64–4096 rows: within 8% of f27n128's time at the
/// ten whose weights stay in the L2 (256×4096×4096 15.1 µs predicted, 14.8 measured; 512×3072×4096 15.1 / 16.1),
/// the fastest step at 8 of them (1.08–1.18× the choice's pick before, where that was f22, f21x2 or f14).
pub const F27_N128_K_TILE: f64 = 0.5;

/// How fast f14, f21 and f22 stream A and B from DRAM where A has at most 32 rows, bytes a µs: 2.9–3.3 TB/s
/// on 32-row shapes of 117–235 MB (H200, `results/2026-12-02-h200-session85`), against cuBLASLt's and f25's
/// 4.0–4.3. (f22 at 64 rows reached 3.8–4.2: the floor is for the narrow case only.)
pub const NARROW_A_BYTES_PER_US: f64 = 3.0e6;

/// f25's few-row cost, fitted to 15 shapes of 8–32 rows (H200, `results/2026-12-02-h200-session86` call 1,
/// medians of 3 processes; rms error 6.8%): 3.8 µs, 0.15 µs a 20 KiB K tile of one CTA alone rising to 0.35
/// with every SM running one (one CTA a tile: `tiles` CTAs), A and B from DRAM at 4.0 TB/s (32×28672×8192
/// 61.7 µs, 32×16000×8192 35.3, 24×14336×4096 19.3, 16×14336×3584 17.4).
pub const F25_COST: TileCost = TileCost { fixed_us: 3.8, k_tile_us: 0.15, k_tile_full_us: 0.35, dram_bytes_per_us: 4.0e6 };

/// How much faster [`F25_COST`] must find f25 than the other route before the choice takes it. The bench
/// launches a shape's GEMM on the same buffers, so weights that fit the L2 stay there: fw2 then runs at
/// 0.81–0.94× of [`FW2_COST`] (fitted beyond the L2; sessions 84 and 86: 16×8192×3072 9.0 µs against 11.1,
/// 16×6144×4096 9.5 / 11.1, 16×5120×5120 10.6 / 11.4, 8×5120×8192 13.2–14.5 / 15.5) while f25's 24–48 CTAs,
/// bound by their own pull rate, do not gain (16×6144×4096 10.9 against [`F25_COST`]'s 10.9; on another card
/// 9.5, session 86 call 2). Only for weights within the L2 ([`Fp8Costs::l2_bytes`]; session 89): beyond it every
/// route streams them from DRAM and f25 is weighed straight (2×13824×5120 f25 22.6 µs against fw2's 24.5,
/// 4×28672×8192 64.4 / 67.1, 32×5120×13824 25.0 against f22's 29.5: the margin had kept the slower route).
pub const F25_MARGIN: f64 = 0.90;

/// A weight-only route's time: a fixed cost, then A and B streamed at `bytes_per_us`, slowed by `per_row`
/// a row of A (fw2 widens A's rows in every block).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowStreamCost {
    /// µs a launch costs beyond streaming.
    pub fixed_us: f64,
    /// Bytes of A and B a µs with one row of A (less `per_row`).
    pub bytes_per_us: f64,
    /// The time's growth a row of A.
    pub per_row: f64,
}

impl RowStreamCost {
    /// The time of `m` rows reading `ab_bytes` of A and B.
    pub fn time_us(self, m: usize, ab_bytes: f64) -> f64 {
        self.fixed_us + ab_bytes / self.bytes_per_us * (1.0 + self.per_row * m as f64)
    }
}

/// fw2's cost (H200, session 84's sample, `results/2026-12-02-h200-session84` call 1, medians of 3 processes):
/// 3.8 µs, 3.7 TB/s, 0.4% slower a row — fitted to its 18 shapes of 1–16 rows with more than 60 MB of weights
/// (rms error 3.9%; 16×32000×4096 41.2 µs, 1×28672×8192 66.8, 8×57344×8192 122.6) with the fixed cost its six
/// shapes under 8 MB allow (0.92–1.12× the cost, 16×1152×768 4.5 µs; 1.33× at 1×768×3072). Shapes whose weights
/// stay in the L2 between the bench's launches run faster than it says ([`F25_MARGIN`]).
pub const FW2_COST: RowStreamCost = RowStreamCost { fixed_us: 3.8, bytes_per_us: 3.7e6, per_row: 0.004 };

/// The FP8 choice's measured costs — f14's, f22's and f25's few-tile costs and fw2's stream for the
/// per-tensor choice, f3's and f23's for block scales — and the f21 cluster residency they were measured
/// with. [`Fp8Costs::shipped`]: the H200's constants below; `kernel-lab calibrate --dtype fp8` measures them
/// on the GPU in hand (`crate::fp8::calibrate`), and plans use that where it is kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Fp8Costs {
    /// `calibrated on …` or `shipped: …`.
    pub source: String,
    /// The SM count they were measured with.
    pub sms: u32,
    /// Clusters of each f21 size (2 … 8) the GPU held at once (`crate::fp8::f21_resident`), for evaluating
    /// the choice away from the GPU.
    pub f21_resident: [u32; 7],
    /// The L2's bytes: weights within it stay there between launches ([`F25_MARGIN`]).
    pub l2_bytes: u64,
    /// f14's few-tile cost ([`F14_COST`]).
    pub f14: TileCost,
    /// f21's: its cluster split's estimate ([`f21_splits`], in K tiles of one CTA) priced (shipped: f14's fixed
    /// cost and K tile, as session 72 fitted the estimate).
    pub f21: SplitCost,
    /// f22's ([`F22_COST`]).
    pub f22: TileCost,
    /// f28's ([`F28_COST`]; its tiles counted as its CTAs walk them, [`Step::cta_tiles`]).
    pub f28: TileCost,
    /// f25's ([`F25_COST`]).
    pub f25: TileCost,
    /// f3's, block scales ([`F3_COST`]).
    pub f3: TileCost,
    /// f23's, block scales ([`F23_COST`]).
    pub f23: TileCost,
    /// fw2's ([`FW2_COST`]).
    pub fw2: RowStreamCost,
    /// f27's speed per unit of work against f14's by width (192, 320, 384) in the wave model
    /// ([`F27_SPEED_PER_WORK`] shipped; `kernel-lab calibrate` times the four over full rounds:
    /// `crate::fp8::calibrate::f27_speeds`).
    pub f27_speed: [f64; 3],
}

/// The L2 of the H200 the shipped costs were measured on (`CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`: 62,914,560 bytes,
/// 60 MiB, as session 89's calibrations recorded it).
pub const H200_L2_BYTES: u64 = 60 << 20;

/// The configurations whose costs [`Fp8Costs`] holds, as its text form names them.
pub const FP8_COSTED: [&str; 8] = ["f14", "f21", "f22", "f25", "f3", "f23", "fw2", "f28"];

/// f21's time: a fixed cost and the time of one CTA's K tile, over its cluster split's estimate in K tiles
/// (`layout::hopper::tma_hgemm::cluster_split_estimate`: rounds of resident clusters × (the split's K tiles +
/// [`F21_OVERHEAD_K_TILES`])).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitCost {
    /// µs a launch costs beyond its K tiles.
    pub fixed_us: f64,
    /// µs a K tile of the estimate.
    pub k_tile_us: f64,
}

impl SplitCost {
    /// The time of an estimate of `est` K tiles.
    pub fn time_us(self, est: u64) -> f64 {
        self.fixed_us + self.k_tile_us * est as f64
    }
}

/// f21's estimate in K tiles at cluster size `splits` (one of [`F21_CLUSTERS`]) on `m × n × k` with `resident`
/// clusters of each size at once; `None` for a size not built or not resident.
pub fn f21_estimate_at(splits: u32, m: usize, n: usize, k: usize, resident: [u32; 7]) -> Option<u64> {
    let i = F21_CLUSTERS.iter().position(|&c| c == splits)?;
    let r = resident[i] as u64;
    if r == 0 {
        return None;
    }
    let kt = (k as u64).div_ceil(layout::fp8::tiles::BK as u64);
    Some(F14.tiles(m, n).div_ceil(r) * (kt.div_ceil(splits as u64) + F21_OVERHEAD_K_TILES as u64))
}

/// The shipped constants (the H200's).
pub static SHIPPED: std::sync::LazyLock<Fp8Costs> = std::sync::LazyLock::new(|| Fp8Costs::shipped("NVIDIA H200"));

impl Fp8Costs {
    /// The shipped costs: the H200's, named as such on any other GPU, where `kernel-lab calibrate` measures its
    /// own. An H100's own (session 111, with the calibration's shapes within its L2) ranked with these on its
    /// few-tile and corpus timings but changed 12 picks of two fresh draws for 1.044× their time (0.91–1.20×:
    /// f22 for f25 at 32×10240×8192, f14 for f27n192 at 512×28672×4096, fw2 for f25 at 2×10240×8192), so the
    /// H200's stay shipped for it too.
    pub fn shipped(name: &str) -> Fp8Costs {
        let source = if name.contains("H200") { "shipped: H200".to_string() } else { format!("shipped: H200 (not measured on {name}: run `kernel-lab calibrate`)") };
        Fp8Costs { source, sms: 132, f21_resident: [66, 39, 30, 22, 17, 15, 15], l2_bytes: H200_L2_BYTES, f14: F14_COST, f21: SplitCost { fixed_us: F14_COST.fixed_us, k_tile_us: F14_COST.k_tile_us }, f22: F22_COST, f28: F28_COST, f25: F25_COST, f3: F3_COST, f23: F23_COST, fw2: FW2_COST,
                   f27_speed: F27_SPEED_PER_WORK }
    }

    /// [`Fp8Costs::shipped`] on a GPU whose L2 holds `l2_bytes`: the measured constants stay the H200's, but
    /// which weights stay in the L2 between launches (f25's margin) and which stream from DRAM (the f27
    /// widths', f21's and f28's DRAM floor) is this GPU's fact, not the H200's 60 MiB (session 113: on an
    /// H100's 50 MiB, 256×4096×14336's 56 MiB of weights were priced as resident and f21x3 picked, 1.14× the
    /// time of f28).
    pub fn shipped_on(name: &str, l2_bytes: u64) -> Fp8Costs {
        let mut c = Fp8Costs::shipped(name);
        if l2_bytes != c.l2_bytes {
            c.source = format!("{} with this GPU's L2 of {:.1} MiB", c.source, l2_bytes as f64 / (1u64 << 20) as f64);
            c.l2_bytes = l2_bytes;
        }
        c
    }

    /// The tile costs by name ([`FP8_COSTED`] but fw2).
    pub fn tile_cost_mut(&mut self, name: &str) -> Option<&mut TileCost> {
        match name {
            "f14" => Some(&mut self.f14),
            "f22" => Some(&mut self.f22),
            "f28" => Some(&mut self.f28),
            "f25" => Some(&mut self.f25),
            "f3" => Some(&mut self.f3),
            "f23" => Some(&mut self.f23),
            _ => None,
        }
    }

    /// The text form: `# key value` header lines, a line per tile cost (`name fixed_us k_tile_us
    /// k_tile_full_us dram_gbps`, `inf` for no DRAM floor), then f21's, fw2's (`fw2 fixed_us gbps per_row`) and
    /// f27's speeds (`f27 n192 n320 n384`).
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let r = self.f21_resident.map(|x| x.to_string()).join(" ");
        let mut out = format!("# source {}\n# sms {}\n# l2_bytes {}\n# f21_resident {r}\n# step\tfixed_us\tk_tile_us\tk_tile_full_us\tdram_gbps (fw2: fixed_us, gbps, per_row)\n", self.source.replace('\n', " "), self.sms, self.l2_bytes);
        for (name, c) in [("f14", self.f14), ("f22", self.f22), ("f25", self.f25), ("f3", self.f3), ("f23", self.f23), ("f28", self.f28)] {
            let dram = if c.dram_bytes_per_us.is_finite() { format!("{:.0}", c.dram_bytes_per_us / 1e3) } else { "inf".into() };
            let _ = writeln!(out, "{name}\t{:.3}\t{:.4}\t{:.4}\t{dram}", c.fixed_us, c.k_tile_us, c.k_tile_full_us);
        }
        let _ = writeln!(out, "f21\t{:.3}\t{:.4}", self.f21.fixed_us, self.f21.k_tile_us);
        let _ = writeln!(out, "fw2\t{:.3}\t{:.0}\t{:.5}", self.fw2.fixed_us, self.fw2.bytes_per_us / 1e3, self.fw2.per_row);
        let _ = writeln!(out, "f27\t{:.4}\t{:.4}\t{:.4}", self.f27_speed[0], self.f27_speed[1], self.f27_speed[2]);
        out
    }

    /// Reads [`Fp8Costs::to_text`]'s form (every configuration once); `what` names the source in errors.
    pub fn parse(text: &str, what: &str) -> Result<Fp8Costs, String> {
        let bad = |line: usize, why: String| format!("{what}:{line}: {why}");
        let mut c = Fp8Costs { source: String::new(), sms: 0, ..Fp8Costs::shipped("H200") };
        let mut seen = [false; FP8_COSTED.len()];
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(h) = line.strip_prefix("# ") {
                let (key, value) = h.split_once(' ').unwrap_or((h, ""));
                match key {
                    "source" => c.source = value.to_string(),
                    "sms" => c.sms = value.trim().parse().map_err(|_| bad(i + 1, format!("`sms` needs a count, got `{value}`")))?,
                    "l2_bytes" => c.l2_bytes = value.trim().parse().map_err(|_| bad(i + 1, format!("`l2_bytes` needs a count, got `{value}`")))?,
                    "f21_resident" => {
                        let v: Vec<u32> = value.split_whitespace().map(|x| x.parse().map_err(|_| bad(i + 1, format!("f21_resident: `{x}` is not a count")))).collect::<Result<_, _>>()?;
                        c.f21_resident = v.try_into().map_err(|_| bad(i + 1, "f21_resident needs 7 counts (clusters of 2 … 8)".into()))?;
                    }
                    _ => {}
                }
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let num = |v: &str| v.parse::<f64>().ok().filter(|x| !x.is_nan() && *x >= 0.0).ok_or_else(|| bad(i + 1, format!("`{v}` is not a non-negative number")));
            if f[0] == "f27" {
                // f27's speeds (optional: files from before session 92 keep the shipped ones).
                let [_, a, b, c3] = f.as_slice() else { return Err(bad(i + 1, format!("`{line}`: expected f27, then its speed at widths 192, 320, 384"))) };
                let v = [num(a)?, num(b)?, num(c3)?];
                if v.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
                    return Err(bad(i + 1, "f27's speeds must be positive and finite".into()));
                }
                c.f27_speed = v;
                continue;
            }
            let idx = FP8_COSTED.iter().position(|n| *n == f[0]).ok_or_else(|| bad(i + 1, format!("`{}` is not one of {}", f[0], FP8_COSTED.join(", "))))?;
            seen[idx] = true;
            if f[0] == "f21" {
                let [_, fixed, kt] = f.as_slice() else { return Err(bad(i + 1, format!("`{line}`: expected f21, fixed_us, k_tile_us"))) };
                c.f21 = SplitCost { fixed_us: num(fixed)?, k_tile_us: num(kt)? };
            } else if f[0] == "fw2" {
                let [_, fixed, gbps, per_row] = f.as_slice() else { return Err(bad(i + 1, format!("`{line}`: expected fw2, fixed_us, gbps, per_row"))) };
                let gbps = num(gbps)?;
                if gbps <= 0.0 || !gbps.is_finite() {
                    return Err(bad(i + 1, "fw2's gbps must be positive and finite".into()));
                }
                c.fw2 = RowStreamCost { fixed_us: num(fixed)?, bytes_per_us: gbps * 1e3, per_row: num(per_row)? };
            } else {
                let [name, fixed, kt, ktf, dram] = f.as_slice() else { return Err(bad(i + 1, format!("`{line}`: expected step, fixed_us, k_tile_us, k_tile_full_us, dram_gbps"))) };
                let dram = if *dram == "inf" { f64::INFINITY } else { num(dram)? * 1e3 };
                if dram <= 0.0 {
                    return Err(bad(i + 1, "dram_gbps must be positive (`inf`: no floor)".into()));
                }
                let cost = TileCost { fixed_us: num(fixed)?, k_tile_us: num(kt)?, k_tile_full_us: num(ktf)?, dram_bytes_per_us: dram };
                *c.tile_cost_mut(name).expect("a tile cost's name") = cost;
            }
        }
        if c.sms == 0 {
            return Err(format!("{what}: needs `# sms`"));
        }
        // A file from before f21 had its own cost (session 89's first calibrations) prices it as they did: f14's
        // fixed cost and K tile.
        let f21 = FP8_COSTED.iter().position(|&n| n == "f21").expect("f21 is costed");
        if !seen[f21] {
            (c.f21, seen[f21]) = (SplitCost { fixed_us: c.f14.fixed_us, k_tile_us: c.f14.k_tile_us }, true);
        }
        // A file from before f28 (session 112) keeps its shipped cost, as such a file's maker never timed it.
        let f28 = FP8_COSTED.iter().position(|&n| n == "f28").expect("f28 is costed");
        seen[f28] = true;
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(format!("{what}: no constants for {}", FP8_COSTED[i]));
        }
        Ok(c)
    }
}

/// A step's time on few tiles, as measured (H200, `results/2026-12-01-h200-session72`, calls 1, 3 and 9;
/// block scales `results/2026-12-01-h200-session73`): a fixed cost, then the larger of two: per round of
/// CTAs (one per SM) and per 128-deep K tile the time one CTA takes alone (`k_tile_us`, bound by how fast
/// one SM pulls its stage from L2) rising to `k_tile_full_us` when every SM pulls at once (the L2's rate
/// shared), in proportion to the SMs busy; or A's and B's bytes read once from DRAM at `dram_bytes_per_us`
/// (the weights of a wide, shallow-M shape: 16×14336×4096 reads 59 MB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileCost {
    /// µs a launch of one K tile costs beyond its K loop (launch, prologue, epilogue, grid end).
    pub fixed_us: f64,
    /// µs per K tile of a CTA with the GPU to itself.
    pub k_tile_us: f64,
    /// µs per K tile of each CTA when every SM runs one.
    pub k_tile_full_us: f64,
    /// The rate at which A and B stream from DRAM, bytes a µs (`f64::INFINITY`: not measured, no floor).
    pub dram_bytes_per_us: f64,
}

impl TileCost {
    /// The time of `tiles` tiles of `kt` K tiles each on `sms` SMs, one CTA an SM, reading `ab_bytes` of A
    /// and B.
    pub fn time_us(self, tiles: u64, sms: u64, kt: f64, ab_bytes: f64) -> f64 {
        let sms = sms.max(1);
        let busy = tiles.min(sms) as f64 / sms as f64;
        let per = self.k_tile_us + (self.k_tile_full_us - self.k_tile_us) * busy;
        self.fixed_us + (tiles.div_ceil(sms) as f64 * kt * per).max(ab_bytes / self.dram_bytes_per_us)
    }
}

/// f14's few-tile cost: 6.1 µs and 0.56 µs a 48 KiB K tile of one CTA (one 128×256 tile: 6.7 µs with 1 K tile,
/// 23.9 with 32, call 4; 128×1024×1024, 8 K tiles: 10.6; 64×2048×4096, 32: 24.1, call 1), the same with
/// every SM busy (its per-SM rate, ~44 bytes a cycle, is below the L2's share).
pub const F14_COST: TileCost = TileCost { fixed_us: 6.1, k_tile_us: 0.56, k_tile_full_us: 0.56, dram_bytes_per_us: f64::INFINITY };

/// f22's: 4.3 µs and 0.10 µs a 16 KiB K tile alone (128×1024×1024, 32 tiles of 8 K tiles: 5.1 µs; ×2048: 5.9,
/// call 9), 0.16 µs with every SM busy (256×8192×3072, 512×5120×5120 and 4096×1024×1024 at 4–8 rounds: 0.158–
/// 0.163 µs a K tile a round, ~13 TB/s from L2).
/// Its DRAM term is left out (session 72 fitted it without; on session 73's 22 block-scaled shapes its
/// per-tensor times fit 4.2 + 0.12–0.18 µs with a 3.0 TB/s floor, so the per-tensor picks stay as checked).
pub const F22_COST: TileCost = TileCost { fixed_us: 4.3, k_tile_us: 0.10, k_tile_full_us: 0.16, dram_bytes_per_us: f64::INFINITY };

/// f28's few-tile cost, counting its tiles as its CTAs walk them ([`Step::cta_tiles`]): 6.0 µs, 0.105 µs a 24 KiB
/// K tile of one CTA alone rising to 0.235 with every SM running one — fitted to its 26 timings at 64–1024 rows
/// (H100, `results/2026-12-06-h100-session112`, medians of 3 processes; rms error 9.6%; 256×4096×4096 13.4 µs
/// predicted, 12.3 measured). An H100's, not the H200's like the other shipped costs: f28 was first timed there.
pub const F28_COST: TileCost = TileCost { fixed_us: 6.0, k_tile_us: 0.105, k_tile_full_us: 0.235, dram_bytes_per_us: f64::INFINITY };

/// f3's few-tile cost (block scales, 128×128 tiles, 32 KiB K tiles, the promotion after each K tile's
/// `wgmma`s): 4.8 µs, 0.39 µs a K tile alone rising to 0.52 with every SM busy, A and B from DRAM at 3.0 TB/s —
/// fitted to 22 few-tile shapes (seed 75's 18 with 17–2048 rows and four of 12–16 rows; H200,
/// `results/2026-12-01-h200-session73` call 3, medians of 3 processes; rms error 3.6%).
pub const F3_COST: TileCost = TileCost { fixed_us: 4.8, k_tile_us: 0.39, k_tile_full_us: 0.52, dram_bytes_per_us: 3.0e6 };

/// f23's, fitted to the same 22 shapes: 4.0 µs, 0.18–0.22 µs a 16 KiB K tile, 3.0 TB/s (rms error 8.5%; its
/// worst 16×5120×8192, 22.6 µs against 18.0 predicted).
pub const F23_COST: TileCost = TileCost { fixed_us: 4.0, k_tile_us: 0.18, k_tile_full_us: 0.22, dram_bytes_per_us: 3.0e6 };

/// f21's fixed cost beyond f14's, in 128-deep K tiles of one CTA (each moves a 48 KiB stage, as an
/// HGEMM 64-deep one does): the partial tile's stores, the cluster barrier and the sum of 128 KiB over
/// distributed shared memory. Measured (H200, `results/2026-12-01-h200-session72`, call 1, medians of
/// three processes): f14 costs ~6.1 µs plus 0.56 µs a K tile of one CTA (10.6 µs at 128×1024×1024, 8 K
/// tiles; 24.1 µs at 64×2048×4096, 32), and f21 costs that plus 4.4–4.9 K tiles (f21x8 10.8 µs with 4 K
/// tiles a split, f21x4 10.0 µs with 2): 5. HGEMM h8's constant, 8
/// ([`layout::hopper::tma_hgemm::H8_OVERHEAD_K_TILES`]), was the prediction: with it the pick was within 5%
/// of the fastest f14/f21 size at 14 of the 17 shapes measured, with 5 (and splits of 2 K tiles) at 17.
pub const F21_OVERHEAD_K_TILES: u32 = 5;

/// The fewest K tiles f21 gives a split: 2 (256×2048×1024's best split was 4 ways of 2 K tiles, 1.04× f14;
/// h8 keeps 4, `layout::hopper::tma_hgemm::H8_MIN_K_TILES`).
pub const F21_MIN_K_TILES: u32 = 2;

/// Splits of K (= cluster size) for f21 on `m × n × k`, 1 where f14's persistent grid should run:
/// `layout::hopper::tma_hgemm::cluster_splits` on f14's tiles (128×256) and 128-deep K tiles, with
/// [`F21_OVERHEAD_K_TILES`] and [`F21_MIN_K_TILES`].
pub fn f21_splits(m: usize, n: usize, k: usize, sms: u32, resident: [u32; 7]) -> u32 {
    f21_split_estimate(m, n, k, sms, resident).0
}

/// [`f21_splits`] and its estimate in f14's K tiles of one CTA (`cluster_split_estimate`).
fn f21_split_estimate(m: usize, n: usize, k: usize, sms: u32, resident: [u32; 7]) -> (u32, u64) {
    let tiles = F14.tiles(m, n).min(u32::MAX as u64) as u32;
    let kt = (k as u64).div_ceil(layout::fp8::tiles::BK as u64).min(u32::MAX as u64) as u32;
    layout::hopper::tma_hgemm::cluster_split_estimate(tiles, kt, sms, resident, F21_OVERHEAD_K_TILES, F21_MIN_K_TILES)
}

/// The f21 step for `splits` (= cluster size), `None` for a size it is not built for.
pub fn f21_for(splits: u32) -> Option<&'static Step> {
    F21_CLUSTERS.iter().position(|&c| c == splits).map(|i| &F21[i])
}

/// The stream-K tail a stream-K step runs on `m × n × k` with `sms` SMs (its persistent grid as
/// `Step::grid` gives it; `layout::hopper::tma_hgemm::stream_k_tail`): what `fp8::Fp8Gemm` computes.
pub fn stream_k_tail_of(step: &Step, m: usize, n: usize, k: usize, sms: u32) -> u32 {
    let tiles = step.tiles(m, n).min(u32::MAX as u64) as u32;
    let k_tiles = (k as u64).div_ceil(layout::fp8::tiles::BK as u64).min(u32::MAX as u64) as u32;
    layout::hopper::tma_hgemm::stream_k_tail(tiles, step.grid(m, n, sms), k_tiles)
}

#[cfg(test)]
mod tests {
    use super::*;
    /// The CPU tests' cluster residency: an H100's, as measured for h8 (f21's twin in threads and
    /// shared memory).
    const R: [u32; 7] = layout::hopper::tma_hgemm::H100_H8_RESIDENT;

    #[test]
    fn shipped_costs_on_a_gpu_take_its_l2() {
        let (h200, h100) = (Fp8Costs::shipped_on("NVIDIA H200", H200_L2_BYTES), Fp8Costs::shipped_on("NVIDIA H100 80GB HBM3", 50 << 20));
        assert_eq!(h200, Fp8Costs::shipped("NVIDIA H200"), "the H200's own L2 changes nothing");
        assert_eq!(h100.l2_bytes, 50 << 20);
        assert!(h100.source.contains("50.0 MiB"), "{}", h100.source);
        assert_eq!(Fp8Costs { l2_bytes: H200_L2_BYTES, source: h200.source.clone(), ..h100.clone() }, h200, "only the L2 (and the source) differ");
        // Weights between the two L2s (4096 × 14336 = 56 MiB): streamed from DRAM on the smaller one, so no
        // few-tile pick there is priced below its price with them resident; weights within both priced alike.
        for m in [64, 96, 128, 256] {
            let (on100, on200) = (wgmma_step_by(&h100, m, 14336, 4096, 132, R).1, wgmma_step_by(&h200, m, 14336, 4096, 132, R).1);
            assert!(on100 >= on200, "{m}x14336x4096: {on100} µs with 50 MiB of L2 < {on200} with 60");
            assert_eq!(wgmma_step_by(&h100, m, 4096, 4096, 132, R), wgmma_step_by(&h200, m, 4096, 4096, 132, R), "{m}x4096x4096");
        }
    }

    #[test]
    fn few_block_scaled_tiles_take_f23_where_its_measured_cost_is_lower() {
        // Session 73, call 3 (H200, medians of 3 processes, µs f3 / f23): f23 where f3's 128×128 tiles leave
        // most SMs idle (32×8192×8192 34.1 / 25.4, 128×3584×7168 28.6 / 15.1, 32×2048×8192 31.3 / 15.8,
        // 256×1024×1024 8.2 / 5.5), f3 where f23's 64×64 tiles need several rounds (512×4096×14336: 512 tiles,
        // 67.9 / 122.3; 256×8192×4096: 31.9 / 21.1) or fill the SMs about as f3 does (128×12288×4096 22.9 /
        // 26.9).
        for (m, n, k, want) in [(32, 8192, 8192, "f23"), (128, 3584, 7168, "f23"), (32, 2048, 8192, "f23"), (256, 1024, 1024, "f23"), (512, 4096, 14336, "f3"),
                                (256, 8192, 4096, "f3"), (128, 12288, 4096, "f3")] {
            assert_eq!(block_step_for(m, n, k, 132).kernel.step, want, "{m}x{n}x{k}");
        }
        // Where f3's tiles fill a round the wave model's choice stands (f23 is never weighed).
        assert!(block_step_for(4096, 4096, 4096, 132) != &F23);
        assert!(F23.rejects(17, 100, 64).is_some() && F23.rejects(17, 104, 64).is_none() && F23.scaling == Scaling::Block);
    }

    /// f27's widths where their tiles fill the rounds better than f14's by F27_MARGIN, f14 where the two are
    /// within it. Session 90, call 2 (H200, medians of 3 processes, µs f14 / the pick): 1024×5120×5120 59.4 /
    /// n320 47.3, 768×6144×4096 48.8 / n320 38.2, 2048×3072×4096 52.6 / n192 43.7, 4096×3584×4096 115.1 / n192
    /// 109.7, 2048×5120×4096 83.7 / n320 77.2; few tiles 4096×768×3072 22.3 / n192 18.6, 512×4608×3072 20.8 /
    /// 17.1; f14 kept at 8192³ (863 / n192 870), 4096³ (116 / 131), 1024×11008×4096 (89.5 / 89.5),
    /// and f18 at 2048×11008×4096 (f14 167, n192 173; f18 the sweep's pick). 768×6144×4096 (f14 48.8, n320 38.2) stays f18's, whose 192×192 tiles fill one
    /// round too (128 tiles; the model weighs f18 first, not timed there).
    #[test]
    fn f27_takes_the_widths_whose_tiles_fill_the_rounds() {
        for (m, n, k, want) in [(1024, 5120, 5120, "f27n320"), (768, 6144, 4096, "f18"), (2048, 3072, 4096, "f27n192"), (4096, 3584, 4096, "f27n192"),
                                (2048, 5120, 4096, "f27n320"), (4096, 768, 3072, "f27n192"), (512, 4608, 3072, "f27n192"), (256, 10240, 8192, "f27n192"), (64, 22016, 4096, "f22"), (128, 16384, 2048, "f27n128"), (1000, 5096, 1040, "f27n320"),
                                (8192, 8192, 8192, "f14"),
                                (4096, 4096, 4096, "f14"), (1024, 11008, 4096, "f14"), (2048, 11008, 4096, "f18")] {
            assert_eq!(per_tensor_step_for(m, n, k, 132, R).kernel.step, want, "{m}x{n}x{k}");
        }
        // Over a grid of shapes: an f27 pick runs the shape, and with more than a round of f14's tiles its
        // wave time is within the margin of f14's; the block choice never takes f27.
        for m in [65, 200, 512, 777, 1024, 1500, 2048, 3000, 4096, 8192] {
            for n in [256, 640, 1000, 2048, 3072, 4608, 5120, 7168, 11008, 14336] {
                for k in [128, 1024, 4096] {
                    let st = per_tensor_step_for(m, n, k, 132, R);
                    assert!(st.rejects(m, n, k).is_none(), "{m}x{n}x{k}: {} cannot run it", st.kernel.step);
                    if let Some(i) = F27.iter().position(|f| f == st) {
                        if F14.tiles(m, n) >= 132 {
                            assert!(st.wave_time(m, n, 132, F27_SPEED_PER_WORK[i]) < F27_MARGIN * F14.wave_time(m, n, 132, 1.0), "{m}x{n}x{k}");
                        } else {
                            assert!(i == 0 && st.tiles(m, n) <= 132, "{m}x{n}x{k}: {}", st.kernel.step);
                        }
                    }
                    assert!(!F27.contains(block_step_for(m, n, k, 132)));
                }
            }
        }
    }

    /// F25_MARGIN holds only for weights within the L2 (the bench keeps them there, fw2 beats its DRAM cost): beyond
    /// it f25 is weighed straight. Session 89's held-out shapes (H200, 3 processes, µs f25 / fw2): 2×13824×5120 22.6
    /// / 24.5, 4×28672×8192 64.4 / 67.1, 16×13824×5120 22.3 / 26.4 (all beyond 60 MiB); within it session 86's
    /// 16×5120×5120 12.5 / 10.7 and 8×5120×8192 17.5 / 13.2 stay fw2's.
    #[test]
    fn the_f25_margin_applies_to_weights_within_the_l2() {
        for (m, n, k, want) in [(2, 13824, 5120, "f25"), (4, 28672, 8192, "f25"), (16, 13824, 5120, "f25"), (16, 5120, 5120, "fw2"), (8, 5120, 8192, "fw2")] {
            assert_eq!(per_tensor_step_for(m, n, k, 132, R).kernel.step, want, "{m}x{n}x{k}");
        }
        // The same shape on a part whose L2 holds its weights keeps the margin.
        let big_l2 = Fp8Costs { l2_bytes: 1 << 30, ..Fp8Costs::shipped("H200") };
        let (m, n, k) = (2, 13824, 5120);
        let t25 = F25_COST.time_us(F25.tiles(m, n), 132, (k / 128) as f64, ((m + n) * k) as f64);
        let tw2 = FW2_COST.time_us(m, ((m + n) * k) as f64);
        assert!(t25 < tw2 && t25 > F25_MARGIN * tw2, "{t25} vs {tw2}");
        assert_eq!(per_tensor_step_by(&big_l2, m, n, k, 132, R).kernel.step, "fw2");
    }

    #[test]
    fn a_few_rows_take_the_weight_only_routes() {
        // Above them, 17×4096×4096 (16 tiles of 128×256, 32 K tiles): f22's 64 small tiles (`TileCost`).
        for (m, want) in [(1, "fw2"), (8, "fw2"), (9, "fw2"), (16, "fw2"), (17, "f22")] {
            assert_eq!(per_tensor_step_for(m, 4096, 4096, 132, R).kernel.step, want, "{m} rows");
        }
        assert!(FW2.rejects(16, 4096, 4096).is_none() && FW1.rejects(16, 4096, 4096).is_none());
        assert!(FW2.rejects(17, 4096, 4096).is_some() && FW1.rejects(17, 4096, 4096).is_some());
        // The TMA steps' rules still hold for them (K % 16, N % 8).
        assert!(FW2.rejects(1, 4096, 4100).is_some() && FW1.rejects(1, 4100, 4096).is_some());
        // Block scales: fwb up to its 16 rows (any N and K the rules take), a `wgmma` step above.
        for (m, n, k) in [(1, 4096, 4096), (16, 28672, 4096), (4, 5120, 2560), (9, 8, 16)] {
            assert_eq!(block_step_for(m, n, k, 132).kernel.step, "fwb", "{m}x{n}x{k}");
        }
        assert!(!block_step_for(17, 4096, 4096, 132).weight_only);
        assert!(FWB.rejects(16, 4096, 4096).is_none() && FWB.rejects(17, 4096, 4096).is_some());
        assert_eq!(FWB.scaling, Scaling::Block);
        // Where fwb refuses (K off 16) the block choice falls through to a step that says why as well.
        assert!(block_step_for(1, 4096, 4100, 132).rejects(1, 4096, 4100).is_some());
    }

    #[test]
    fn the_block_step_follows_the_wave_model() {
        // The measured shapes: f19's tiles at all six (session 23 call 3: 1.035–1.080× f15 at five, 0.990×
        // at 4096×28672, where it runs one round more), f20 where their stream-K tail streams (a last
        // round at most a third full: 44, 22, 44 tiles) and pays; the 128×192 tiles at 4096×28672, where f19
        // runs a round more and the model's 2.2% lead is under the margin (measured 0.990× f15, 0.952× f16),
        // run as f16 (1.017× f15 there with nothing streamed, session 26).
        for (m, n, want) in [(4096, 4096, "f20"), (8192, 8192, "f19"), (2048, 11008, "f20"), (2048, 14336, "f20"), (4096, 28672, "f16"), (2048, 4096, "f19")] {
            assert_eq!(block_step_for(m, n, 4096, 132).kernel.step, want, "{m}x{n}");
        }
        assert_eq!([(4096, 4096), (2048, 11008), (2048, 14336), (4096, 28672)].map(|(m, n)| stream_k_tail_of(&F20, m, n, 4096, 132)), [44, 22, 44, 44]);
        // Where neither f15 nor f19 takes M, f3 against f9 as measured in session 8 (call 2): f3 at 4096³,
        // 2048×11008, 2048×14336 (here with M one row short of those), f9 at 8192³ and 4096×28672.
        for (m, n, want) in [(4095, 4096, "f3"), (8191, 8192, "f9"), (2047, 11008, "f3"), (2047, 14336, "f3"), (4095, 28672, "f9")] {
            assert_eq!(block_step_for(m, n, 4096, 132).kernel.step, want, "{m}x{n}");
        }
        // One tile either way: f3 (the smallest tile wastes least).
        assert_eq!(block_step_for(100, 100, 4096, 132).kernel.step, "f3");
        assert_eq!(block_step_for(101, 100, 4096, 132).kernel.step, "f3");
        // Equal rounds for f15 and f19 (264 tiles of each, 2 rounds, nothing to stream): f19, faster per
        // unit of work.
        assert_eq!(block_step_for(128 * 132, 128 * 3, 4096, 132).kernel.step, "f19");
        // f19 one round more than f15 out of two: 256×8640 is 2 × 45 = 90 f15 tiles (1 round) against
        // 2 × 68 = 136 f19 tiles (2 rounds): the 128×192 tiles, run as f16 with nothing to stream.
        assert_eq!(block_step_for(256, 8640, 4096, 132).kernel.step, "f16");
        assert_eq!(stream_k_tail_of(&F16, 256, 8640, 4096, 132), 0);
        // The stream-K tail as Fp8Gemm computes it: 4096³ streams 44 tiles on 132 SMs, none on 176.
        assert_eq!((stream_k_tail_of(&F16, 4096, 4096, 4096, 132), stream_k_tail_of(&F16, 4096, 4096, 4096, 176)), (44, 0));
    }

    #[test]
    fn the_per_tensor_step_follows_the_wave_model() {
        // The six sweep shapes (session 23 calls 2 and 5, `ab f14 f18`): f18 where f14's 128×256 tiles leave
        // a last wave mostly empty (2048×11008: 1.09×, 1.05×); at 4096×28672 the model has f18 1.0% ahead,
        // under the margin (measured 1.009× and 0.988×).
        for (m, n, want) in [(4096, 4096, "f14"), (8192, 8192, "f14"), (2048, 11008, "f18"), (2048, 4096, "f14"), (2048, 14336, "f14"), (4096, 28672, "f14")] {
            assert_eq!(per_tensor_step_for(m, n, 4096, 132, R).kernel.step, want, "{m}x{n}");
        }
        // One 128×256 tile: f22's four 64×64 ones, with short or long K (4.5 µs against f14's 7.2 at 2 K
        // tiles; 7.6 against f21x8's 11.1 and f14's 24.0 at 32).
        assert_eq!(per_tensor_step_for(100, 100, 256, 132, R).kernel.step, "f22");
        assert_eq!(per_tensor_step_for(100, 100, 4096, 132, R).kernel.step, "f22");
        // 192-multiple shapes in whole rounds of both: f18's 132 tiles (192·12 × 192·11) in one round
        // against f14's 18 × 9 = 162 in two.
        assert_eq!(per_tensor_step_for(192 * 12, 192 * 11, 4096, 132, R).kernel.step, "f18");
        assert_eq!((F18.kernel.block_threads, F18.grid(2048, 11008, 132), F18.b_box_rows(), F17.kernel.block_threads), (512, 132, 192, 512));
    }

    #[test]
    fn f21_splits_k_where_few_tiles_have_enough_of_it() {
        // 128×4096×4096: 16 tiles of 32 K tiles; f14 runs one round of 32; clusters of 7 and 8 (15
        // resident on the H100: two waves) 2·(5 + 5) = 20 and 2·(4 + 5) = 18, of 6 (17 resident, one
        // wave) 6 + 5 = 11, of 5 (22) 7 + 5 = 12.
        assert_eq!(f21_splits(128, 4096, 4096, 132, R), 6);
        // 256×2048×1024 (16 tiles of 8 K tiles): 4 splits of 2, 2 + 5 = 7 against f14's 8 (measured
        // 1.04× f14, session 72).
        assert_eq!(f21_splits(256, 2048, 1024, 132, R), 4);
        // Too little K to split (4 K tiles: 2 splits estimate 2 + 5 = 7 > 4), or enough tiles to fill
        // the SMs: f14.
        assert_eq!(f21_splits(256, 2048, 512, 132, R), 1);
        assert_eq!(f21_splits(4096, 4096, 4096, 132, R), 1);
        // Never a split under F21_MIN_K_TILES K tiles, never a size without residency.
        for (m, n, k) in [(17, 4096, 4096), (128, 768, 1536), (512, 14336, 4096), (64, 256, 65536), (1000, 1000, 100_000), (300, 300, 384)] {
            let s = f21_splits(m, n, k, 132, R);
            if s > 1 {
                assert!((k as u32).div_ceil(128) / s >= F21_MIN_K_TILES, "{m}x{n}x{k}: {s}");
            }
            assert_eq!(f21_splits(m, n, k, 132, [0; 7]), 1, "{m}x{n}x{k} with no cluster resident");
        }
        // The grid is every tile's cluster; B's box holds all 256 rows; sizes map to their steps.
        assert_eq!((F21[2].grid(256, 768, 30), F21[2].b_box_rows(), F21[2].cluster), (24, 256, 4));
        assert_eq!(F21.map(|s| s.cluster), F21_CLUSTERS);
        assert!(f21_for(1).is_none() && f21_for(9).is_none() && f21_for(5) == Some(&F21[3]));
        assert!(F21.iter().all(|s| s.rejects(256, 768, 1536).is_none() && s.rejects(256, 764, 1536).is_some()));
    }

    #[test]
    fn few_tiles_take_the_fastest_of_f14_f21_f22_f27n128_f28_by_their_measured_costs() {
        // Session 72's measured shapes (H200, call 9 and call 1, × cuBLASLt): f22 where its small tiles fit
        // about one round (256×768×1536: 1.05×, f21x4 0.58×; 128×3072×4096: 1.02×), f21 where K is deep and
        // f22 needs two rounds (128×5120×6912: 160 tiles; model f21x5 15.1 µs, f22 21.6, f14 36.3; measured
        // f21x5 16.7, f22 21.3, f14 37.1), f14 where f22 needs many rounds (256×16384×2048: 1024 tiles, 8
        // rounds; f14 15.1 against 24.8; measured 17.7 against 26.0). 512×4096×11008 (f21x2 until session 108): f27n128,
        // 128 tiles at half f14's K tile (its 512×3072×4096 16.1 µs against f21x2's 19.1 on an H100).
        // Session 112 (H100, 3 processes): f28 where its pairs' tiles make about one round of the SMs — 256×4096×4096
        // 12.3 µs (f27n128 14.9, f22 16.3), 128×8192×3072 10.3 (f27n128 12.5), held out 128×5120×3072 9.8 (f21x5 13.6),
        // 512×2048×4096 13.0 (f22 16.4) —, not at 64 rows (64×8192×3072: f22 12.9, f28 14.9) nor where its tiles make
        // two rounds (512×3072×8192: f27n128 29.4, f28 35.5).
        for (m, n, k, want) in [(256, 768, 1536, "f22"), (128, 3072, 4096, "f22"), (128, 4096, 4096, "f22"), (128, 5120, 6912, "f21x5"), (256, 16384, 2048, "f14"),
                                (512, 4096, 11008, "f27n128"), (256, 4096, 4096, "f28"), (128, 8192, 3072, "f28"), (128, 5120, 3072, "f28"), (512, 2048, 4096, "f28"),
                                (64, 8192, 3072, "f22"), (512, 3072, 8192, "f27n128"),
                                // Beyond the L2 f21 takes the same DRAM floor as the f27 widths and f28 (session 112: f21x3
                                // 36.3 µs at 128×8192×8192, f28 30.5; f21x2 40.2 at 128×15360×5120, f28 35.3).
                                (128, 8192, 8192, "f28"), (128, 15360, 5120, "f28")] {
            assert_eq!(per_tensor_step_for(m, n, k, 132, R).kernel.step, want, "{m}x{n}x{k}");
        }
        // f28's CTAs walk whole pairs of tile rows: 64 rows take a pair, 130 rows two.
        assert_eq!((F28.cta_tiles(64, 256), F28.cta_tiles(128, 256), F28.cta_tiles(130, 129), F28.tiles(130, 129)), (4, 4, 8, 6));
        assert_eq!(F28.cta_tiles(130, 129), F28.grid(130, 129, u32::MAX) as u64);
        // The cost model's own properties: more K never costs less; more SMs never cost more.
        for (tiles, kt) in [(1u64, 1.0), (64, 8.0), (200, 32.0), (1024, 112.0)] {
            for c in [F14_COST, F22_COST, F3_COST, F23_COST, F28_COST] {
                // A and B's bytes grow with K as the K tiles do (≈ 1 MB a K tile: a DRAM-bound case for f3, f23).
                let (ab, ab1) = (1e6 * kt, 1e6 * (kt + 1.0));
                assert!(c.time_us(tiles, 132, kt + 1.0, ab1) > c.time_us(tiles, 132, kt, ab) && c.time_us(tiles, 264, kt, ab) <= c.time_us(tiles, 132, kt, ab)
                        && c.time_us(tiles, 132, kt, 2.0 * ab) >= c.time_us(tiles, 132, kt, ab), "{c:?} {tiles} {kt}");
            }
        }
        // f22 takes any shape the TMA steps take; its grid is persistent over 64×64 tiles.
        assert!(F22.rejects(1, 8, 16).is_none() && F22.rejects(17, 100, 64).is_some());
        // f25: one CTA per 32×128 tile (not persistent, no cluster), boxes of 32 rows of A and 128 of B.
        assert_eq!((F25.grid(32, 28672, 132), F25.grid(33, 100, 132), F25.b_box_rows(), F25.tile.0, F25.kernel.block_threads, F25.cluster), (224, 2, 128, 32, 256, 1));
        assert!(F25.cluster_split && F25.rejects(32, 28672, 8192).is_none() && F25.rejects(32, 100, 64).is_some());
        // f26: f25's CTA on 64 activation rows (boxes of 64 rows of A, 128 of B).
        assert_eq!((F26.grid(64, 28672, 132), F26.grid(65, 100, 132), F26.b_box_rows(), F26.tile.0, F26.cluster), (224, 2, 128, 64, 1));
        assert_eq!((F22.grid(128, 1024, 132), F22.grid(4096, 4096, 132), F22.b_box_rows(), F22.kernel.block_threads), (32, 132, 64, 256));
    }

    #[test]
    fn up_to_32_rows_f25_where_its_measured_cost_beats_the_other_route() {
        // Session 86, call 1 (H200, medians of 3 processes, µs f25 / other): f25 where the weights stream
        // beyond a round of f22's or fw2's tiles (32×28672×8192 61.7 / f22 84.7, 32×16000×8192 35.3 / 48.7,
        // 32×64128×3072 55.3 / 70.8, 32×11008×4096 12.3 / 21.5, 24×14336×4096 19.3 / 25.2, 16×14336×3584 17.4 /
        // fw2 20.1); the other where f25's 24–48 CTAs leave most SMs idle (32×3072×4096 9.6 / 9.3, 32×3584×7168
        // 13.7 / 13.3, 8×5120×8192 17.5 / fw2 13.2, 16×5120×5120 12.5 / 10.7, 16×3072×3072 8.8 / 8.1,
        // 16×6144×4096 10.9 / 9.5) or where A has more rows than its tile (48×4096×4096 10.9 / 8.2).
        for (m, n, k, want) in [(32, 28672, 8192, "f25"), (32, 16000, 8192, "f25"), (32, 64128, 3072, "f25"), (32, 11008, 4096, "f25"), (24, 14336, 4096, "f25"),
                                (16, 14336, 3584, "f25"), (32, 3072, 4096, "f22"), (32, 3584, 7168, "f22"), (8, 5120, 8192, "fw2"), (16, 5120, 5120, "fw2"),
                                (16, 3072, 3072, "fw2"), (16, 6144, 4096, "fw2"), (48, 4096, 4096, "f22")] {
            assert_eq!(per_tensor_step_for(m, n, k, 132, R).kernel.step, want, "{m}x{n}x{k}");
        }
        // f25 only where it takes the shape (N % 8), and never above its 32 rows.
        assert_eq!(per_tensor_step_for(32, 28676, 8192, 132, R).kernel.step, "f14");
        assert!((33..=64).all(|m| per_tensor_step_for(m, 28672, 8192, 132, R) != &F25));
        // The costs' own properties: more bytes never cost less, more rows never make fw2 faster.
        for ab in [1e6, 5e7, 1e9] {
            assert!(FW2_COST.time_us(16, ab) > FW2_COST.time_us(1, ab) && FW2_COST.time_us(8, 2.0 * ab) > FW2_COST.time_us(8, ab));
            assert!(F25_COST.time_us(224, 132, 64.0, 2.0 * ab) >= F25_COST.time_us(224, 132, 64.0, ab));
        }
    }

    #[test]
    fn shape_rules_name_the_constraint_and_grids_are_persistent() {
        assert!(F1.rejects(1, 8, 16).is_none() && F2.rejects(1000, 4096, 4096).is_none());
        let e = F15.rejects(130, 264, 400).unwrap();
        assert!(e.contains("M must be a multiple of 4") && e.contains("130x264x400"), "{e}");
        assert!(F15.rejects(132, 264, 400).is_none() && F9.rejects(130, 264, 400).is_none());
        let e = F1.rejects(64, 64, 40).unwrap();
        assert!(e.contains("K must be a multiple of 16") && e.contains("64x64x40"), "{e}");
        let e = F2.rejects(64, 100, 64).unwrap();
        assert!(e.contains("N must be a multiple of 8"), "{e}");
        assert_eq!(F1.grid(4096, 4096, 132), 132);
        assert_eq!(F1.grid(128, 512, 132), 2);
        assert_eq!(F2.grid(129, 129, 132), 4);
        // Clusters of 2: one per pair of tile rows, never more than fit at once, always whole clusters.
        assert_eq!(F5.grid(8192, 8192, 66), 132);
        assert_eq!(F5.grid(8192, 8192, 64), 128);
        assert_eq!(F5.grid(384, 256, 66), 4); // 3 tile rows: 2 pairs, the second half empty
        assert_eq!(F6.grid(1, 8, 66), 2);
        assert_eq!((F5.b_box_rows(), F6.b_box_rows(), F1.b_box_rows()), (128, 64, 256));
        assert!(F2.promotes && !F1.promotes);
    }
}
