//! The attention ladder (issue 17, `kernels-gpu/src/attention/`): a1, the unfused baseline's softmax
//! between two cuBLAS GEMMs; a2, FlashAttention-2 with `mma.sync`. One kernel per (head dim, element
//! type) where the kernel is specialized for them.
use layout::attention::{A11_BQ, A11_MT, A11_WARPS, BKV, a11_bkv, flash_smem_of, query_rows, threads};

use super::{Family, KernelInfo, PtxCheck, Target, bounds, gemm::Elem};

/// How a step computes attention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Kind {
    /// S = QKᵀ (cuBLAS, f32) → this softmax kernel → P (16-bit) → O = PV (cuBLAS).
    Unfused,
    /// One fused kernel; S and P stay on chip.
    Flash,
}

/// One attention kernel.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Name, label, block, shared memory, PTX checks.
    pub kernel: KernelInfo,
    /// How it computes attention.
    pub kind: Kind,
    /// The head dimension it takes (`None`: any, the unfused path).
    pub head_dim: Option<u32>,
    /// The element type of Q, K, V, O.
    pub elem: Elem,
    /// Query rows per block of a fused kernel (its grid: `(⌈L / rows⌉, B·H)`); 0 for the softmax.
    pub query_rows: u32,
    /// Q, K and V reach the kernel as TMA tensor maps (a6: `(tmap_q, tmap_k, tmap_v, o, lse, l, scale,
    /// causal)`), not as pointers.
    pub tma: bool,
    /// One CTA per SM walks the query tiles (a12; TMA only): grid `(layout::attention::a12_grid(L, B·H,
    /// SMs), 1)` and one more parameter, the heads (`…, causal, heads)`).
    pub persistent: bool,
    /// CTAs per cluster (a15: 2, persistent; 1 otherwise): the grid is that many CTAs per walk
    /// (`layout::attention::a12_grid_of` over the clusters that fit at once).
    pub cluster: u32,
    /// The blocks walk groups of heads, longest query tiles first (a17): grid
    /// `layout::attention::a17_grid(L, D, B·H, rows)`, three-dimensional, the same parameters.
    pub grouped: bool,
}

impl PartialEq for Step {
    fn eq(&self, o: &Self) -> bool {
        self.kernel.name == o.kernel.name
    }
}

const fn softmax(name: &'static str, label: &'static str, elem: Elem, has: &'static [&'static str]) -> Step {
    Step {
        kernel: KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm80, block_threads: 128, launch_bounds: bounds(128),
                             dyn_smem_bytes: 0, about: "unfused: S = QK^T and O = PV by cuBLAS, this row softmax between them (S f32 and P in global memory)",
                             ptx: PtxCheck { has, lacks: &["mma.sync", "ld.shared"], count: &[], at_least: &[] } },
        kind: Kind::Unfused, head_dim: None, elem, query_rows: 0, tma: false, persistent: false, cluster: 1, grouped: false,
    }
}

const FA2_HAS_F16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                               "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "cp.async.cg.shared.global", "ex2.approx.ftz.f32", "shfl.sync.bfly.b32"];
const FA2_HAS_BF16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                                "cp.async.cg.shared.global", "ex2.approx.ftz.f32", "cvt.rn.bf16x2.f32"];

/// A fused step: `warps` warps of `m_tiles` m-tiles (16 query rows each) per warp, as the kernel's
/// `flash::<E, D, WARPS, MT, CHAINS>` takes them, with key/value tiles of `BKV` rows; rows, threads and
/// shared memory follow from those.
const fn fused(name: &'static str, label: &'static str, d: u32, warps: u32, m_tiles: u32, elem: Elem, has: &'static [&'static str], about: &'static str) -> Step {
    fused_bkv(name, label, d, warps, m_tiles, BKV, elem, has, about)
}

/// [`fused`] with key/value tiles of `bkv` rows (a11: `a11_bkv(d)`).
#[allow(clippy::too_many_arguments)]
const fn fused_bkv(name: &'static str, label: &'static str, d: u32, warps: u32, m_tiles: u32, bkv: u32, elem: Elem, has: &'static [&'static str],
                   about: &'static str) -> Step {
    let rows = query_rows(warps, m_tiles);
    Step {
        kernel: KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm80, block_threads: threads(warps), launch_bounds: bounds(threads(warps)),
                             dyn_smem_bytes: flash_smem_of(rows, bkv, d), about, ptx: PtxCheck { has, lacks: &["st.shared", "ld.global.f32"], count: &[], at_least: &[] } },
        kind: Kind::Flash, head_dim: Some(d), elem, query_rows: rows, tma: false, persistent: false, cluster: 1, grouped: false,
    }
}

const A2_ABOUT: &str = "FlashAttention-2: 64 query rows per block, 16 per warp; K/V tiles of 64 through swizzled shared memory (cp.async, 2 stages); S, P in registers";
const A3_ABOUT: &str = "a2 with 128 query rows per block (8 warps): each K/V tile serves twice the rows";
const A4_ABOUT: &str = "a2's 4 warps with 32 query rows each (two m-tiles; D = 64): each V fragment feeds two mma";

const fn fa2(name: &'static str, label: &'static str, d: u32, elem: Elem, has: &'static [&'static str]) -> Step {
    fused(name, label, d, 4, 1, elem, has, A2_ABOUT)
}

const fn fa2_wide(name: &'static str, label: &'static str, d: u32, elem: Elem, has: &'static [&'static str]) -> Step {
    fused(name, label, d, 8, 1, elem, has, A3_ABOUT)
}

/// a1 on f16.
pub const A1: Step = softmax("attn_softmax_f16", "a1", Elem::F16, &["ex2.approx.ftz.f32", "shfl.sync.bfly.b32", "cvt.rn.f16x2.f32"]);
/// a1 on bf16.
pub const A1_BF16: Step = softmax("attn_softmax_bf16", "a1-bf16", Elem::Bf16, &["ex2.approx.ftz.f32", "shfl.sync.bfly.b32", "cvt.rn.bf16x2.f32"]);
/// a2, head dim 64, f16.
pub const A2_D64: Step = fa2("attn_fa2_d64_f16", "a2-d64", 64, Elem::F16, FA2_HAS_F16);
/// a2, head dim 128, f16.
pub const A2_D128: Step = fa2("attn_fa2_d128_f16", "a2-d128", 128, Elem::F16, FA2_HAS_F16);
/// a2, head dim 64, bf16.
pub const A2_D64_BF16: Step = fa2("attn_fa2_d64_bf16", "a2-d64-bf16", 64, Elem::Bf16, FA2_HAS_BF16);
/// a2, head dim 128, bf16.
pub const A2_D128_BF16: Step = fa2("attn_fa2_d128_bf16", "a2-d128-bf16", 128, Elem::Bf16, FA2_HAS_BF16);

/// a3, head dim 64, f16.
pub const A3_D64: Step = fa2_wide("attn_fa2q128_d64_f16", "a3-d64", 64, Elem::F16, FA2_HAS_F16);
/// a3, head dim 128, f16.
pub const A3_D128: Step = fa2_wide("attn_fa2q128_d128_f16", "a3-d128", 128, Elem::F16, FA2_HAS_F16);
/// a3, head dim 64, bf16.
pub const A3_D64_BF16: Step = fa2_wide("attn_fa2q128_d64_bf16", "a3-d64-bf16", 64, Elem::Bf16, FA2_HAS_BF16);
/// a3, head dim 128, bf16.
pub const A3_D128_BF16: Step = fa2_wide("attn_fa2q128_d128_bf16", "a3-d128-bf16", 128, Elem::Bf16, FA2_HAS_BF16);

/// a4 (D = 64 only), f16: 128 query rows per block as 4 warps × 32.
pub const A4_D64: Step = fused("attn_fa2m2_d64_f16", "a4-d64", 64, 4, 2, Elem::F16, FA2_HAS_F16, A4_ABOUT);
/// a4 (D = 64 only), bf16.
pub const A4_D64_BF16: Step = fused("attn_fa2m2_d64_bf16", "a4-d64-bf16", 64, 4, 2, Elem::Bf16, FA2_HAS_BF16, A4_ABOUT);

const A5_ABOUT: &str = "a2 with the per-tile row max and sum as four independent chains joined by a tree (ILP)";
/// a5, head dim 64, f16.
pub const A5_D64: Step = fused("attn_fa2c4_d64_f16", "a5-d64", 64, 4, 1, Elem::F16, FA2_HAS_F16, A5_ABOUT);
/// a5, head dim 128, f16.
pub const A5_D128: Step = fused("attn_fa2c4_d128_f16", "a5-d128", 128, 4, 1, Elem::F16, FA2_HAS_F16, A5_ABOUT);
/// a5, head dim 64, bf16.
pub const A5_D64_BF16: Step = fused("attn_fa2c4_d64_bf16", "a5-d64-bf16", 64, 4, 1, Elem::Bf16, FA2_HAS_BF16, A5_ABOUT);
/// a5, head dim 128, bf16.
pub const A5_D128_BF16: Step = fused("attn_fa2c4_d128_bf16", "a5-d128-bf16", 128, 4, 1, Elem::Bf16, FA2_HAS_BF16, A5_ABOUT);

const A6_ABOUT: &str = "Hopper: TMA K/V ring, wgmma for S = QK^T and for O += PV with P in registers, 1 producer + 2 consumer warpgroups (128 query rows)";
const A6_HAS: &[&str] = &["wgmma.mma_async.sync.aligned.m64n128k16.f32.", "cp.async.bulk.tensor.2d.shared::cluster.global", "setmaxnreg.inc.sync.aligned.u32 232",
                          "mbarrier.try_wait.parity", "ex2.approx.ftz.f32", "shfl.sync.bfly.b32"];

/// a6: the Hopper step (TMA + `wgmma`), sm_90a.
const fn a6(name: &'static str, label: &'static str, d: u32, elem: Elem) -> Step {
    hopper(name, label, d, elem, layout::attention::A6_STAGES, A6_ABOUT)
}

/// A Hopper step (a6–a10) with a ring of `stages` K/V stages.
const fn hopper(name: &'static str, label: &'static str, d: u32, elem: Elem, stages: u32, about: &'static str) -> Step {
    Step {
        kernel: KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm90a, block_threads: 384, launch_bounds: super::bounds_min(384, 1),
                             dyn_smem_bytes: layout::attention::a6_smem(d, stages), about,
                             ptx: PtxCheck { has: A6_HAS, lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "ld.shared", "st.shared", "trap"], count: &[], at_least: &[] } },
        kind: Kind::Flash, head_dim: Some(d), elem, query_rows: layout::attention::A6_BQ, tma: true, persistent: false, cluster: 1, grouped: false,
    }
}

const A12_ABOUT: &str = "a9 as a persistent kernel: one CTA per SM walks pairs of query tiles (longest with shortest), its K/V ring running on into the next tile";

/// a12: a9's body, persistent (`a12_smem`: Q's empty barrier after Q).
const fn a12(name: &'static str, label: &'static str, d: u32, elem: Elem) -> Step {
    let base = hopper(name, label, d, elem, layout::attention::A7_STAGES, A12_ABOUT);
    Step { kernel: KernelInfo { dyn_smem_bytes: layout::attention::a12_smem(d), ..base.kernel }, persistent: true, ..base }
}
const A15_ABOUT: &str = "a12 in clusters of 2 CTAs (adjacent query tiles of one head) sharing every K/V stage by TMA multicast: half the K/V bytes from L2";
const A15_HAS: &[&str] = &["wgmma.mma_async.sync.aligned.m64n128k16.f32.", ".reqnctapercluster 2, 1, 1", "multicast::cluster", "mbarrier.arrive.shared::cluster.b64",
                           "%cluster_ctarank", "barrier.cluster.arrive.relaxed", "setmaxnreg.inc.sync.aligned.u32 232", "mbarrier.try_wait.parity"];

/// a15: a12 in clusters of 2 sharing K/V by multicast (the same shared memory; no last cluster
/// barrier: the producer's tail).
const fn a15(name: &'static str, label: &'static str, d: u32, elem: Elem) -> Step {
    let base = a12(name, label, d, elem);
    let ptx = PtxCheck { has: A15_HAS, lacks: &["ldmatrix", "mma.sync", "cp.async.cg", "ld.shared", "st.shared", "trap", "barrier.cluster.arrive.release"], ..base.kernel.ptx };
    Step { kernel: KernelInfo { about: A15_ABOUT, ptx, ..base.kernel }, cluster: layout::attention::A15_CLUSTER, ..base }
}
/// a6, head dim 64, f16.
pub const A6_D64: Step = a6("attn_a6_d64_f16", "a6-d64", 64, Elem::F16);
/// a6, head dim 128, f16.
pub const A6_D128: Step = a6("attn_a6_d128_f16", "a6-d128", 128, Elem::F16);
/// a6, head dim 64, bf16.
pub const A6_D64_BF16: Step = a6("attn_a6_d64_bf16", "a6-d64-bf16", 64, Elem::Bf16);
/// a6, head dim 128, bf16.
pub const A6_D128_BF16: Step = a6("attn_a6_d128_bf16", "a6-d128-bf16", 128, Elem::Bf16);

const A7_ABOUT: &str = "a6 with the next tile's S = QK^T issued before this tile's softmax (FA3's intra-warpgroup overlap)";
/// a7 (a6 with the next S issued before the softmax), head dim 64, f16.
pub const A7_D64: Step = hopper("attn_a7_d64_f16", "a7-d64", 64, Elem::F16, layout::attention::A7_STAGES, A7_ABOUT);
/// a7, head dim 128, f16.
pub const A7_D128: Step = hopper("attn_a7_d128_f16", "a7-d128", 128, Elem::F16, layout::attention::A7_STAGES, A7_ABOUT);
/// a7, head dim 64, bf16.
pub const A7_D64_BF16: Step = hopper("attn_a7_d64_bf16", "a7-d64-bf16", 64, Elem::Bf16, layout::attention::A7_STAGES, A7_ABOUT);
/// a7, head dim 128, bf16.
pub const A7_D128_BF16: Step = hopper("attn_a7_d128_bf16", "a7-d128-bf16", 128, Elem::Bf16, layout::attention::A7_STAGES, A7_ABOUT);

const A8_ABOUT: &str = "a7 with the two consumer warpgroups taking turns at the tensor cores (named barriers: FA3's ping-pong)";
/// a8 (a7 with ping-pong warpgroups), head dim 64, f16.
pub const A8_D64: Step = hopper("attn_a8_d64_f16", "a8-d64", 64, Elem::F16, layout::attention::A7_STAGES, A8_ABOUT);
/// a8, head dim 128, f16.
pub const A8_D128: Step = hopper("attn_a8_d128_f16", "a8-d128", 128, Elem::F16, layout::attention::A7_STAGES, A8_ABOUT);
/// a8, head dim 64, bf16.
pub const A8_D64_BF16: Step = hopper("attn_a8_d64_bf16", "a8-d64-bf16", 64, Elem::Bf16, layout::attention::A7_STAGES, A8_ABOUT);
/// a8, head dim 128, bf16.
pub const A8_D128_BF16: Step = hopper("attn_a8_d128_bf16", "a8-d128-bf16", 128, Elem::Bf16, layout::attention::A7_STAGES, A8_ABOUT);

const A9_ABOUT: &str = "a7 with the exponentials not waiting for the row max and O rescaled only when a row's max moves by more than 2^8 (FA4's lazy rescaling)";
/// a9 (a7 with lazy rescaling), head dim 64, f16.
pub const A9_D64: Step = hopper("attn_a9_d64_f16", "a9-d64", 64, Elem::F16, layout::attention::A7_STAGES, A9_ABOUT);
/// a9, head dim 128, f16.
pub const A9_D128: Step = hopper("attn_a9_d128_f16", "a9-d128", 128, Elem::F16, layout::attention::A7_STAGES, A9_ABOUT);
/// a9, head dim 64, bf16.
pub const A9_D64_BF16: Step = hopper("attn_a9_d64_bf16", "a9-d64-bf16", 64, Elem::Bf16, layout::attention::A7_STAGES, A9_ABOUT);
/// a9, head dim 128, bf16.
pub const A9_D128_BF16: Step = hopper("attn_a9_d128_bf16", "a9-d128-bf16", 128, Elem::Bf16, layout::attention::A7_STAGES, A9_ABOUT);

const A10_ABOUT: &str = "a9 with each head's query tiles launched longest first (causal: the last wave holds short blocks)";
/// a10 (a9, longest query tiles first), head dim 64, f16.
pub const A10_D64: Step = hopper("attn_a10_d64_f16", "a10-d64", 64, Elem::F16, layout::attention::A7_STAGES, A10_ABOUT);
/// a10, head dim 128, f16.
pub const A10_D128: Step = hopper("attn_a10_d128_f16", "a10-d128", 128, Elem::F16, layout::attention::A7_STAGES, A10_ABOUT);
/// a10, head dim 64, bf16.
pub const A10_D64_BF16: Step = hopper("attn_a10_d64_bf16", "a10-d64-bf16", 64, Elem::Bf16, layout::attention::A7_STAGES, A10_ABOUT);
/// a10, head dim 128, bf16.
pub const A10_D128_BF16: Step = hopper("attn_a10_d128_bf16", "a10-d128-bf16", 128, Elem::Bf16, layout::attention::A7_STAGES, A10_ABOUT);

const A11_ABOUT: &str = "FlashAttention-2's own tiles on mma.sync: 4 warps x 32 query rows, K/V tiles of 128 keys (D 64) or 64 (D 128), S of both m-tiles in one k-loop (each K and V fragment feeds four mma)";

const A16_ABOUT: &str = "a11 with each head's query tiles launched longest first (causal: the last wave holds short blocks; a10's change on FA2's tiles)";

/// a16: a11 with the query tiles of each head in reverse order.
const fn a16(name: &'static str, label: &'static str, d: u32, elem: Elem, has: &'static [&'static str]) -> Step {
    let base = a11(name, label, d, elem, has);
    Step { kernel: KernelInfo { about: A16_ABOUT, ..base.kernel }, ..base }
}

/// a11: FA2's forward tiles (`A11_WARPS` warps × `A11_MT` m-tiles, `a11_bkv(d)` keys per tile).
const fn a11(name: &'static str, label: &'static str, d: u32, elem: Elem, has: &'static [&'static str]) -> Step {
    let mut step = fused_bkv(name, label, d, A11_WARPS, A11_MT, a11_bkv(d), elem, has, A11_ABOUT);
    // Q, K and V as for `fused_bkv`, then the running row sums (16 B per thread, `st.shared`).
    step.kernel.dyn_smem_bytes = layout::attention::a11_smem(d);
    step.kernel.ptx.lacks = &["ld.global.f32"];
    assert!(step.query_rows == A11_BQ && step.kernel.dyn_smem_bytes == flash_smem_of(A11_BQ, a11_bkv(d), d) + layout::attention::A11_SUMS_BYTES);
    step
}
/// a11, head dim 64 (128-key tiles), f16.
pub const A11_D64: Step = a11("attn_a11_d64_f16", "a11-d64", 64, Elem::F16, FA2_HAS_F16);
/// a11, head dim 128 (64-key tiles), f16.
pub const A11_D128: Step = a11("attn_a11_d128_f16", "a11-d128", 128, Elem::F16, FA2_HAS_F16);
/// a11, head dim 64, bf16.
pub const A11_D64_BF16: Step = a11("attn_a11_d64_bf16", "a11-d64-bf16", 64, Elem::Bf16, FA2_HAS_BF16);
/// a11, head dim 128, bf16.
pub const A11_D128_BF16: Step = a11("attn_a11_d128_bf16", "a11-d128-bf16", 128, Elem::Bf16, FA2_HAS_BF16);

/// a16 (a11, longest query tiles first), head dim 64, f16.
pub const A16_D64: Step = a16("attn_a16_d64_f16", "a16-d64", 64, Elem::F16, FA2_HAS_F16);
/// a16, head dim 128, f16.
pub const A16_D128: Step = a16("attn_a16_d128_f16", "a16-d128", 128, Elem::F16, FA2_HAS_F16);
/// a16, head dim 64, bf16.
pub const A16_D64_BF16: Step = a16("attn_a16_d64_bf16", "a16-d64-bf16", 64, Elem::Bf16, FA2_HAS_BF16);
/// a16, head dim 128, bf16.
pub const A16_D128_BF16: Step = a16("attn_a16_d128_bf16", "a16-d128-bf16", 128, Elem::Bf16, FA2_HAS_BF16);

const A17_ABOUT: &str = "a11 with the longest query tiles of a whole group of heads first (heads grouped so their K and V fit half the L2; a16 orders each head alone)";

/// a17: a11 launched on the grouped grid.
const fn a17(name: &'static str, label: &'static str, d: u32, elem: Elem, has: &'static [&'static str]) -> Step {
    let base = a11(name, label, d, elem, has);
    Step { kernel: KernelInfo { about: A17_ABOUT, ..base.kernel }, grouped: true, ..base }
}
/// a17 (a11, longest tiles of a group of heads first), head dim 64, f16.
pub const A17_D64: Step = a17("attn_a17_d64_f16", "a17-d64", 64, Elem::F16, FA2_HAS_F16);
/// a17, head dim 128, f16.
pub const A17_D128: Step = a17("attn_a17_d128_f16", "a17-d128", 128, Elem::F16, FA2_HAS_F16);
/// a17, head dim 64, bf16.
pub const A17_D64_BF16: Step = a17("attn_a17_d64_bf16", "a17-d64-bf16", 64, Elem::Bf16, FA2_HAS_BF16);
/// a17, head dim 128, bf16.
pub const A17_D128_BF16: Step = a17("attn_a17_d128_bf16", "a17-d128-bf16", 128, Elem::Bf16, FA2_HAS_BF16);

/// a12 (a9, persistent), head dim 64, f16.
pub const A12_D64: Step = a12("attn_a12_d64_f16", "a12-d64", 64, Elem::F16);
/// a12, head dim 128, f16.
pub const A12_D128: Step = a12("attn_a12_d128_f16", "a12-d128", 128, Elem::F16);
/// a12, head dim 64, bf16.
pub const A12_D64_BF16: Step = a12("attn_a12_d64_bf16", "a12-d64-bf16", 64, Elem::Bf16);
/// a12, head dim 128, bf16.
pub const A12_D128_BF16: Step = a12("attn_a12_d128_bf16", "a12-d128-bf16", 128, Elem::Bf16);

/// a15 (a12 in clusters of 2 sharing K/V by multicast), head dim 64, f16.
pub const A15_D64: Step = a15("attn_a15_d64_f16", "a15-d64", 64, Elem::F16);
/// a15, head dim 128, f16.
pub const A15_D128: Step = a15("attn_a15_d128_f16", "a15-d128", 128, Elem::F16);
/// a15, head dim 64, bf16.
pub const A15_D64_BF16: Step = a15("attn_a15_d64_bf16", "a15-d64-bf16", 64, Elem::Bf16);
/// a15, head dim 128, bf16.
pub const A15_D128_BF16: Step = a15("attn_a15_d128_bf16", "a15-d128-bf16", 128, Elem::Bf16);

/// Every attention kernel, in ladder order.
pub const STEPS: &[Step] = &[A1, A1_BF16, A2_D64, A2_D128, A2_D64_BF16, A2_D128_BF16, A3_D64, A3_D128, A3_D64_BF16, A3_D128_BF16, A4_D64, A4_D64_BF16,
                             A5_D64, A5_D128, A5_D64_BF16, A5_D128_BF16, A6_D64, A6_D128, A6_D64_BF16, A6_D128_BF16,
                             A7_D64, A7_D128, A7_D64_BF16, A7_D128_BF16, A8_D64, A8_D128, A8_D64_BF16, A8_D128_BF16,
                             A9_D64, A9_D128, A9_D64_BF16, A9_D128_BF16, A10_D64, A10_D128, A10_D64_BF16, A10_D128_BF16,
                             A11_D64, A11_D128, A11_D64_BF16, A11_D128_BF16,
                             A12_D64, A12_D128, A12_D64_BF16, A12_D128_BF16, A15_D64, A15_D128, A15_D64_BF16, A15_D128_BF16,
                             A16_D64, A16_D128, A16_D64_BF16, A16_D128_BF16, A17_D64, A17_D128, A17_D64_BF16, A17_D128_BF16];

/// The first step (in ladder order) of `kind` for head dim `d` and element type `elem`, if any.
pub fn find(kind: Kind, d: u32, elem: Elem) -> Option<&'static Step> {
    all_of(kind, d, elem).next()
}

/// Every step of `kind` for head dim `d` and element type `elem`, in ladder order.
pub fn all_of(kind: Kind, d: u32, elem: Elem) -> impl Iterator<Item = &'static Step> {
    STEPS.iter().filter(move |s| s.kind == kind && s.elem == elem && s.head_dim.is_none_or(|h| h == d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_dtype_and_head_dim_has_one_step_of_each_kind() {
        for elem in [Elem::F16, Elem::Bf16] {
            for d in [64, 128] {
                assert_eq!(find(Kind::Flash, d, elem).unwrap().head_dim, Some(d));
                assert_eq!(find(Kind::Unfused, d, elem).unwrap().elem, elem);
            }
            assert!(find(Kind::Flash, 96, elem).is_none());
        }
        assert!(A2_D128.kernel.dyn_smem_bytes > 48 * 1024 && A3_D128.kernel.dyn_smem_bytes <= 113 * 1024);
        assert_eq!(all_of(Kind::Flash, 128, Elem::F16).map(|s| s.kernel.step).collect::<Vec<_>>(), ["a2-d128", "a3-d128", "a5-d128", "a6-d128", "a7-d128", "a8-d128", "a9-d128", "a10-d128", "a11-d128", "a12-d128", "a15-d128", "a16-d128", "a17-d128"]);
        assert_eq!(all_of(Kind::Flash, 64, Elem::Bf16).map(|s| s.kernel.step).last(), Some("a17-d64-bf16"));
        // Only a17 walks the grouped grid, and it is a11's kernel in every other respect.
        assert!(STEPS.iter().all(|s| s.grouped == s.kernel.step.starts_with("a17-")));
        assert_eq!((A17_D64.kernel.dyn_smem_bytes, A17_D128.query_rows), (A11_D64.kernel.dyn_smem_bytes, A11_D128.query_rows));
        assert_eq!((A6_D128.kernel.dyn_smem_bytes, A6_D64.kernel.dyn_smem_bytes), (1024 + 2 * 65536 + 32768 + 32, 1024 + 2 * 32768 + 16384 + 32));
        assert_eq!(A7_D128.kernel.dyn_smem_bytes, 1024 + 3 * 65536 + 32768 + 48);
        assert_eq!(A12_D128.kernel.dyn_smem_bytes, A7_D128.kernel.dyn_smem_bytes + 8);
        assert!(STEPS.iter().all(|s| !s.persistent || s.tma));
        // Clusters only on persistent steps (the walk is per cluster); a15 is a12 with the same shared memory.
        assert!(STEPS.iter().all(|s| s.cluster == 1 || (s.persistent && s.cluster == layout::attention::A15_CLUSTER)));
        assert_eq!((A15_D128.kernel.dyn_smem_bytes, A15_D128.cluster, A15_D64_BF16.cluster), (A12_D128.kernel.dyn_smem_bytes, 2, 2));
        assert_eq!(A3_D64.kernel.block_threads, 256);
        assert_eq!((A4_D64.kernel.block_threads, A4_D64.query_rows, A4_D64.kernel.dyn_smem_bytes), (128, 128, A3_D64.kernel.dyn_smem_bytes));
        // a11: a4's block (4 warps × 32 rows) with FA2's key tiles: Q 128 × D plus 2 stages of K and V of
        // 128 (D = 64) or 64 keys (D = 128).
        assert_eq!((A11_D64.kernel.block_threads, A11_D64.query_rows, A11_D64.kernel.dyn_smem_bytes), (128, 128, 2 * (128 * 64 + 4 * 128 * 64) + 2048));
        assert_eq!((A11_D128_BF16.kernel.target, A11_D128_BF16.query_rows, A11_D128_BF16.kernel.dyn_smem_bytes), (Target::Sm80, 128, 2 * (128 * 128 + 4 * 64 * 128) + 2048));
    }
}

const DECODE_ABOUT: &str = "decode (ad1): grouped heads of one K/V head in one m-tile, keys split across CTAs (flash-decoding), 4 warps on their own cp.async rings, contiguous or paged cache";
const DECODE_HAS_F16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global", "ex2.approx.ftz.f32"];
const DECODE_HAS_BF16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global"];

const fn decode(name: &'static str, label: &'static str, d: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm80, block_threads: threads(layout::attention::DECODE_WARPS),
                 launch_bounds: bounds(threads(layout::attention::DECODE_WARPS)), dyn_smem_bytes: layout::attention::decode_smem(d), about: DECODE_ABOUT,
                 ptx: PtxCheck { has, lacks: &["trap", "ld.local", "st.local"], count: &[], at_least: &[] } }
}

const DECODE2_ABOUT: &str = "decode (ad2): ad1 with the split-KV combine in the decode grid: the last CTA of each (sequence, K/V head) merges its splits";
const DECODE2_HAS: &[&str] = &["atom.acq_rel.gpu.global.add.u32", "fence.acq_rel.gpu", "ld.global.cg.v4.f32", "cp.async.cg.shared.global"];

const fn decode2(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { about: DECODE2_ABOUT, ptx: PtxCheck { has: DECODE2_HAS, lacks: &["trap", "ld.local", "st.local"], count: &[], at_least: &[] }, ..decode(name, label, d, &[]) }
}

const DECODE3_ABOUT: &str = "decode (ad3): ad2 reading the length and its first tiles' older keys before the PDL wait (`CacheReady::AtLaunch`)";

const fn decode3(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { about: DECODE3_ABOUT, ..decode2(name, label, d) }
}

const DECODE2P_ABOUT: &str = "decode (ad2p): ad2 with a paged tile's table entry read one tile ahead of its copies (paged caches)";

const fn decode2p(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { about: DECODE2P_ABOUT, ..decode2(name, label, d) }
}

const DECODE5_ABOUT: &str = "decode (ad5): ad2 with a warp's page-table entries read once, one a lane, beside the length, and shuffled to its copies (paged caches)";

const fn decode5(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { about: DECODE5_ABOUT, ..decode2(name, label, d) }
}

const fn decode_helper(name: &'static str, label: &'static str, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm80, block_threads: 256, launch_bounds: bounds(256), dyn_smem_bytes: 0, about,
                 ptx: PtxCheck { has: &[], lacks: &["trap", "ld.local", "st.local"], count: &[], at_least: &[] } }
}

/// The decode kernels (issue 49; `kernel_lab::attention::decode`): steps ad1, ad2, ad3, ad2p and ad5 per head dim and
/// element type, ad1's split-KV combine and the KV-cache append. Not in [`STEPS`]: they take a KV cache, not the
/// prefill family's `[B·H][L][D]` problems.
pub const DECODE: &[KernelInfo] = &[
    decode("attn_decode_d64_f16", "ad1-d64", 64, DECODE_HAS_F16), decode("attn_decode_d96_f16", "ad1-d96", 96, DECODE_HAS_F16),
    decode("attn_decode_d128_f16", "ad1-d128", 128, DECODE_HAS_F16), decode("attn_decode_d256_f16", "ad1-d256", 256, DECODE_HAS_F16),
    decode("attn_decode_d64_bf16", "ad1-d64-bf16", 64, DECODE_HAS_BF16), decode("attn_decode_d96_bf16", "ad1-d96-bf16", 96, DECODE_HAS_BF16),
    decode("attn_decode_d128_bf16", "ad1-d128-bf16", 128, DECODE_HAS_BF16), decode("attn_decode_d256_bf16", "ad1-d256-bf16", 256, DECODE_HAS_BF16),
    decode2("attn_decode2_d64_f16", "ad2-d64", 64), decode2("attn_decode2_d96_f16", "ad2-d96", 96),
    decode2("attn_decode2_d128_f16", "ad2-d128", 128), decode2("attn_decode2_d256_f16", "ad2-d256", 256),
    decode2("attn_decode2_d64_bf16", "ad2-d64-bf16", 64), decode2("attn_decode2_d96_bf16", "ad2-d96-bf16", 96),
    decode2("attn_decode2_d128_bf16", "ad2-d128-bf16", 128), decode2("attn_decode2_d256_bf16", "ad2-d256-bf16", 256),
    decode3("attn_decode3_d64_f16", "ad3-d64", 64), decode3("attn_decode3_d96_f16", "ad3-d96", 96),
    decode3("attn_decode3_d128_f16", "ad3-d128", 128), decode3("attn_decode3_d256_f16", "ad3-d256", 256),
    decode3("attn_decode3_d64_bf16", "ad3-d64-bf16", 64), decode3("attn_decode3_d96_bf16", "ad3-d96-bf16", 96),
    decode3("attn_decode3_d128_bf16", "ad3-d128-bf16", 128), decode3("attn_decode3_d256_bf16", "ad3-d256-bf16", 256),
    decode2p("attn_decode2p_d64_f16", "ad2p-d64", 64), decode2p("attn_decode2p_d96_f16", "ad2p-d96", 96),
    decode2p("attn_decode2p_d128_f16", "ad2p-d128", 128), decode2p("attn_decode2p_d256_f16", "ad2p-d256", 256),
    decode2p("attn_decode2p_d64_bf16", "ad2p-d64-bf16", 64), decode2p("attn_decode2p_d96_bf16", "ad2p-d96-bf16", 96),
    decode2p("attn_decode2p_d128_bf16", "ad2p-d128-bf16", 128), decode2p("attn_decode2p_d256_bf16", "ad2p-d256-bf16", 256),
    decode5("attn_decode5_d64_f16", "ad5-d64", 64), decode5("attn_decode5_d96_f16", "ad5-d96", 96),
    decode5("attn_decode5_d128_f16", "ad5-d128", 128), decode5("attn_decode5_d256_f16", "ad5-d256", 256),
    decode5("attn_decode5_d64_bf16", "ad5-d64-bf16", 64), decode5("attn_decode5_d96_bf16", "ad5-d96-bf16", 96),
    decode5("attn_decode5_d128_bf16", "ad5-d128-bf16", 128), decode5("attn_decode5_d256_bf16", "ad5-d256-bf16", 256),
    decode_helper("attn_decode_combine_f16", "ad1-combine", "decode's split-KV combine: the splits' outputs weighted by their log-sum-exps (f16 out)"),
    decode_helper("attn_decode_combine_bf16", "ad1-combine-bf16", "decode's split-KV combine (bf16 out)"),
    decode_helper("attn_kv_append", "kv-append", "new K/V rows written into a contiguous or paged cache at each sequence's end"),
];

const PREFILL_ABOUT: &str = "a10 on packed sequences of different lengths (cu_seqlens), grouped-query heads, the causal mask bottom-right; head dim 96 in the 128 kernel";
const PREFILL_HAS: &[&str] = &["wgmma.mma_async.sync.aligned.m64n128k16.f32.", "cp.async.bulk.tensor.3d.shared::cluster.global.tile", "ld.global.nc.s32",
                               "setmaxnreg.inc.sync.aligned.u32"];

const fn prefill(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm90a, block_threads: 384, launch_bounds: super::bounds_min(384, 1),
                 dyn_smem_bytes: layout::attention::a6_smem(d, layout::attention::A7_STAGES), about: PREFILL_ABOUT,
                 ptx: PtxCheck { has: PREFILL_HAS, lacks: &["trap", "ld.local", "st.local", "mma.sync", "cp.async.bulk.tensor.2d"], count: &[], at_least: &[] } }
}

const PREFILL_D256_ABOUT: &str = "a19 at head dim 256: 64-key tiles (S by m64n64k16, P·V by m64n256k16 with P in registers), K and V as separate ring entries";
const PREFILL_D256_HAS: &[&str] = &["wgmma.mma_async.sync.aligned.m64n64k16.f32.", "wgmma.mma_async.sync.aligned.m64n256k16.f32.",
                                    "cp.async.bulk.tensor.3d.shared::cluster.global.tile", "ld.global.nc.s32", "setmaxnreg.inc.sync.aligned.u32"];

const fn prefill_d256(name: &'static str, label: &'static str) -> KernelInfo {
    KernelInfo { dyn_smem_bytes: layout::attention::a24_smem(), about: PREFILL_D256_ABOUT,
                 ptx: PtxCheck { has: PREFILL_D256_HAS, lacks: &["trap", "ld.local", "st.local", "mma.sync", "cp.async.bulk.tensor.2d", "m64n128k16"], count: &[],
                                 at_least: &[] },
                 ..prefill(name, label, 256) }
}

const fn prefill_d256_persistent(name: &'static str, label: &'static str) -> KernelInfo {
    KernelInfo { dyn_smem_bytes: layout::attention::a25_smem(),
                 about: "a24 persistent: one CTA per SM walks the host's (sequence, query tile, head) units in the host's order (UnitOrder) by a snake; the K/V ring runs on across units",
                 ..prefill_d256(name, label) }
}

const fn prefill_d256_keys80(name: &'static str, label: &'static str) -> KernelInfo {
    KernelInfo { dyn_smem_bytes: layout::attention::a28_smem(),
                 about: "a25 with 80-key tiles (FlashAttention-3's 128 x 80 at D = 256): S by m64n80k16, P·V five m64n256k16 K-steps, 40 KiB K and V ring entries",
                 ptx: PtxCheck { has: &["wgmma.mma_async.sync.aligned.m64n80k16.f32.", "wgmma.mma_async.sync.aligned.m64n256k16.f32.",
                                        "cp.async.bulk.tensor.3d.shared::cluster.global.tile", "ld.global.nc.s32", "setmaxnreg.inc.sync.aligned.u32"],
                                 lacks: &["trap", "ld.local", "st.local", "mma.sync", "cp.async.bulk.tensor.2d", "m64n128k16", "m64n64k16"], count: &[], at_least: &[] },
                 ..prefill_d256_persistent(name, label) }
}

const fn prefill_d256_cross_unit(name: &'static str, label: &'static str) -> KernelInfo {
    KernelInfo { about: "a28 with each unit's first S and softmax under the last unit's last P·V (the next unit's Q loaded once this unit's last S retired)",
                 ..prefill_d256_keys80(name, label) }
}

const fn prefill_persistent(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { dyn_smem_bytes: layout::attention::a12_smem(d),
                 about: "a19 persistent (a26): one CTA per SM walks the host's (sequence, query tile, head) units in the host's order (UnitOrder) by a snake; the K/V ring runs on across units",
                 ..prefill(name, label, d) }
}

const fn prefill_d96(name: &'static str, label: &'static str) -> KernelInfo {
    KernelInfo { about: "a26 at head dim 96: S over the head's 96 dims (six m64n128k16 K-steps, a26 eight over the head zero-filled to 128); layout, P·V and epilogue a26's",
                 ..prefill_persistent(name, label, 128) }
}

const fn prefill_pingpong(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { about: "a26 with its consumer warpgroups taking turns at the tensor cores (a27: a8's named-barrier turns on the lazy softmax)",
                 ..prefill_persistent(name, label, d) }
}

const PREFILL_MMA_ABOUT: &str = "a19's prefill (packed sequences, grouped heads, the causal mask bottom-right, head dim 96 in the 128 kernel) on a11's FlashAttention-2 tiles (mma.sync, sm_80): the library's prefill off Hopper";

const fn prefill_mma(name: &'static str, label: &'static str, d: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm80, block_threads: threads(layout::attention::A11_WARPS),
                 launch_bounds: bounds(threads(layout::attention::A11_WARPS)), dyn_smem_bytes: layout::attention::a11_smem(d), about: PREFILL_MMA_ABOUT,
                 ptx: PtxCheck { has, lacks: &["trap", "ld.local", "st.local", "wgmma", "cp.async.bulk"], count: &[], at_least: &[] } }
}
const PREFILL_MMA_HAS_F16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global",
                                       "ld.global.nc.s32"];
const PREFILL_MMA_HAS_BF16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global",
                                        "ld.global.nc.s32"];

/// The prefill kernels (issue 49; `kernel_lab::attention::prefill`): steps a19 and a26 (persistent) per
/// kernel width (64; 128, which also serves head dim 96), a27 (a26 with ping-pong turns) at 64 and element type, and a24 / a25 (persistent) /
/// a28 (a25 with 80-key tiles) at head dim 256, a29 (a26 with S over 96 head dims) at 96; a33 off Hopper (`mma.sync`). Not in [`STEPS`]: they
/// take packed variable-length batches with grouped heads (`cu_seqlens`, 3-D tensor maps), not the
/// fixed-length family's `[B·H][L][D]` problems.
pub const PREFILL: &[KernelInfo] = &[
    prefill("attn_a19_d64_f16", "a19-d64", 64), prefill("attn_a19_d128_f16", "a19-d128", 128),
    prefill("attn_a19_d64_bf16", "a19-d64-bf16", 64), prefill("attn_a19_d128_bf16", "a19-d128-bf16", 128),
    prefill_persistent("attn_a26_d64_f16", "a26-d64", 64), prefill_persistent("attn_a26_d128_f16", "a26-d128", 128),
    prefill_persistent("attn_a26_d64_bf16", "a26-d64-bf16", 64), prefill_persistent("attn_a26_d128_bf16", "a26-d128-bf16", 128),
    prefill_pingpong("attn_a27_d64_f16", "a27-d64", 64), prefill_pingpong("attn_a27_d64_bf16", "a27-d64-bf16", 64),
    prefill_d256("attn_a24_d256_f16", "a24-d256"), prefill_d256("attn_a24_d256_bf16", "a24-d256-bf16"),
    prefill_d256_persistent("attn_a25_d256_f16", "a25-d256"), prefill_d256_persistent("attn_a25_d256_bf16", "a25-d256-bf16"),
    prefill_d256_keys80("attn_a28_d256_f16", "a28-d256"), prefill_d256_keys80("attn_a28_d256_bf16", "a28-d256-bf16"),
    prefill_d96("attn_a29_d96_f16", "a29-d96"), prefill_d96("attn_a29_d96_bf16", "a29-d96-bf16"),
    prefill_d256_cross_unit("attn_a31_d256_f16", "a31-d256"), prefill_d256_cross_unit("attn_a31_d256_bf16", "a31-d256-bf16"),
    prefill_mma("attn_a33_d64_f16", "a33-d64", 64, PREFILL_MMA_HAS_F16), prefill_mma("attn_a33_d128_f16", "a33-d128", 128, PREFILL_MMA_HAS_F16),
    prefill_mma("attn_a33_d64_bf16", "a33-d64-bf16", 64, PREFILL_MMA_HAS_BF16), prefill_mma("attn_a33_d128_bf16", "a33-d128-bf16", 128, PREFILL_MMA_HAS_BF16),
    prefill_mma("attn_a33_d96_f16", "a33-d96", 128, PREFILL_MMA_HAS_F16), prefill_mma("attn_a33_d96_bf16", "a33-d96-bf16", 128, PREFILL_MMA_HAS_BF16),
];

const BACKWARD_ABOUT: &str = "backward (b1): FlashAttention-2's on mma.sync — a CTA per 128 keys and K/V head walks every query tile of its group's heads; dK, dV in registers, dQ by f32 atomics";
const BACKWARD_HAS_F16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global",
                                    "red.relaxed.gpu.global.add.f32", "ex2.approx.ftz.f32"];
const BACKWARD_HAS_BF16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global",
                                     "red.relaxed.gpu.global.add.f32"];

const fn backward(name: &'static str, label: &'static str, d: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm80, block_threads: threads(layout::attention::BWD_WARPS),
                 launch_bounds: super::bounds_min(threads(layout::attention::BWD_WARPS), 1), dyn_smem_bytes: layout::attention::bwd_smem(d), about: BACKWARD_ABOUT,
                 ptx: PtxCheck { has, lacks: &["trap", "ld.local", "st.local"], count: &[], at_least: &[] } }
}

const BACKWARD_B5_ABOUT: &str = "backward (b5): b1 on FlashAttention-2's warp layout — Sᵀ, dPᵀ by 4 × 2 warps of 32 × 32, Pᵀ and dSᵀ through shared memory, dV, dK by 4 × 2 warps of 32 keys × D/2, dQ by 2 × 4 warps of 32 queries × D/4; dQ by f32 atomics";

const fn backward_b5(name: &'static str, label: &'static str, d: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { about: BACKWARD_B5_ABOUT, dyn_smem_bytes: layout::attention::bwd5_smem(d), ..backward(name, label, d, has) }
}

const BACKWARD_B6_ABOUT: &str = "backward (b6): b5 adding dQ into padded 64-row tile blocks in the order its reductions leave the registers (FlashAttention-2's dQ accumulator): each warp's f32 atomic 128 consecutive bytes";

const fn backward_b6(name: &'static str, label: &'static str, d: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { about: BACKWARD_B6_ABOUT, ..backward_b5(name, label, d, has) }
}

const BACKWARD_B7_ABOUT: &str = "backward (b7): b6 with its CTAs longest first — key blocks slowest in the order the GPU starts them, heads and sequences fastest (with the causal mask a key block's work falls with its index)";

const fn backward_b7(name: &'static str, label: &'static str, d: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { about: BACKWARD_B7_ABOUT, ..backward_b5(name, label, d, has) }
}

const BACKWARD_B8_ABOUT: &str = "backward (b8, D = 64): b7 on 128-query tiles (FlashAttention-2's tiles there): Sᵀ, dPᵀ by 4 × 2 warps of 32 keys × 64 queries, dQ by 4 × 2 warps of 32 queries × 32 columns; 0.82× b7's ldmatrix traffic";

const fn backward_b8(name: &'static str, label: &'static str, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { about: BACKWARD_B8_ABOUT, dyn_smem_bytes: layout::attention::bwd_qt_smem(64, layout::attention::BWD8_BQ), ..backward(name, label, 64, has) }
}

/// b6's (and b8's) dQ conversion (`sm_80`).
const fn backward_b6dq(name: &'static str, label: &'static str) -> KernelInfo {
    decode_helper(name, label, "backward b6's dQ: scale × its f32 accumulator's tile blocks (the reductions' order), rounded, into Q's layout")
}

const BACKWARD_B2_ABOUT: &str = "backward (b2, deterministic): b1's dK/dV without dQ, and dQ by its own kernel — a CTA per 64 query rows recomputes S and dP over its keys, one thread sums each dQ element in order";
const BACKWARD_B2DQ_HAS_F16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global"];
const BACKWARD_B2DQ_HAS_BF16: &[&str] = &["mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "cp.async.cg.shared.global"];

const fn backward_b2kv(name: &'static str, label: &'static str, d: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { about: BACKWARD_B2_ABOUT,
                 ptx: PtxCheck { has, lacks: &["trap", "ld.local", "st.local", "red.relaxed.gpu.global.add.f32"], count: &[], at_least: &[] },
                 ..backward(name, label, d, has) }
}

const fn backward_b2dq(name: &'static str, label: &'static str, d: u32, has: &'static [&'static str]) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm80, block_threads: threads(layout::attention::BWD_DQ_WARPS),
                 launch_bounds: bounds(threads(layout::attention::BWD_DQ_WARPS)), dyn_smem_bytes: layout::attention::bwd_dq_smem(d), about: BACKWARD_B2_ABOUT,
                 ptx: PtxCheck { has, lacks: &["trap", "ld.local", "st.local", "red.relaxed.gpu.global.add.f32"], count: &[], at_least: &[] } }
}

const BACKWARD_B3_ABOUT: &str = "backward (b3, Hopper, deterministic): b2's two kernels on wgmma — Sᵀ, dPᵀ (dK/dV kernel) and S, dP (dQ kernel) read both operands from shared memory, P and dS stay in registers as the A of dV, dK, dQ";
const BACKWARD_B3_HAS: &[&str] = &["wgmma.mma_async.sync.aligned.m64n64k16.f32.", "cp.async.cg.shared.global", "fence.proxy.async.shared::cta"];

const fn backward_b3(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm90a, block_threads: 256, launch_bounds: super::bounds_min(256, 1),
                 dyn_smem_bytes: layout::attention::bwd_h_smem(d), about: BACKWARD_B3_ABOUT,
                 ptx: PtxCheck { has: BACKWARD_B3_HAS, lacks: &["trap", "ld.local", "st.local", "mma.sync", "red.relaxed.gpu.global.add.f32"], count: &[], at_least: &[] } }
}

const BACKWARD_B4_ABOUT: &str = "backward (b4, Hopper, atomic dQ): b3's dK/dV kernel also computes dQ = dS·K from dSᵀ written to shared memory (five products a tile for b3's seven); each warpgroup's f32 half of dQ goes to shared memory and into the accumulator by one bulk reduce-add; Q and dO by the TMA";
const BACKWARD_B4_HAS: &[&str] = &["wgmma.mma_async.sync.aligned.m64n64k16.f32.", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32", "cp.async.bulk.tensor.3d", "fence.proxy.async.shared::cta"];

const fn backward_b4(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm90a, block_threads: 256, launch_bounds: super::bounds_min(256, 1),
                 dyn_smem_bytes: layout::attention::bwd_h4_smem(d), about: BACKWARD_B4_ABOUT,
                 ptx: PtxCheck { has: BACKWARD_B4_HAS, lacks: &["trap", "ld.local", "st.local", "mma.sync", "red.relaxed.gpu.global.add"], count: &[], at_least: &[] } }
}

const BACKWARD_B9_ABOUT: &str = "backward (b9, Hopper, atomic dQ): b4 with a producer warpgroup issuing Q, dO (TMA) and the statistics onto full/empty barriers a stage, the two computing warpgroups at 240 registers by setmaxnreg (384 threads)";
const BACKWARD_B9_HAS: &[&str] = &["wgmma.mma_async.sync.aligned.m64n64k16.f32.", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32", "cp.async.bulk.tensor.3d",
                                   "setmaxnreg.inc.sync.aligned.u32 240", "setmaxnreg.dec.sync.aligned.u32 24", "cp.async.mbarrier.arrive.noinc.shared::cta.b64", "bar.sync \t3, 256"];

const fn backward_b9(name: &'static str, label: &'static str, d: u32) -> KernelInfo {
    KernelInfo { name, family: Family::Attention, step: label, target: Target::Sm90a, block_threads: 384, launch_bounds: super::bounds_min(384, 1),
                 dyn_smem_bytes: layout::attention::bwd_h4_smem(d), about: BACKWARD_B9_ABOUT,
                 ptx: PtxCheck { has: BACKWARD_B9_HAS, lacks: &["trap", "ld.local", "st.local", "mma.sync", "red.relaxed.gpu.global.add"], count: &[], at_least: &[] } }
}

/// b4's dQ conversion (in b4's `sm_90a` module; no Hopper instruction of its own).
const fn backward_b4dq(name: &'static str, label: &'static str) -> KernelInfo {
    KernelInfo { target: Target::Sm90a,
                 ..decode_helper(name, label, "backward b4's dQ: scale × its f32 accumulator's padded tile blocks, rounded, into Q's layout") }
}

/// The backward kernels (issue 50; `kernel_lab::attention::backward`): steps b1, b5, b6, b7 (b6's dQ conversion theirs) and b8 (D = 64, its own) per head dim and element
/// type, b2's (deterministic dQ) two kernels, b3's (b2 on Hopper's `wgmma`) two, b4 (b3's dK/dV kernel with dQ by atomics), the preprocessing (`D = rowsum(dO ∘ O)`, `log2(e) · LSE`) and dQ's conversion from its f32
/// accumulator. Not in [`STEPS`]: they take the forward's outputs and gradients, not a forward problem.
pub const BACKWARD: &[KernelInfo] = &[
    backward("attn_bwd_b1_d64_f16", "b1-d64", 64, BACKWARD_HAS_F16), backward("attn_bwd_b1_d128_f16", "b1-d128", 128, BACKWARD_HAS_F16),
    backward("attn_bwd_b1_d64_bf16", "b1-d64-bf16", 64, BACKWARD_HAS_BF16), backward("attn_bwd_b1_d128_bf16", "b1-d128-bf16", 128, BACKWARD_HAS_BF16),
    backward_b5("attn_bwd_b5_d64_f16", "b5-d64", 64, BACKWARD_HAS_F16), backward_b5("attn_bwd_b5_d128_f16", "b5-d128", 128, BACKWARD_HAS_F16),
    backward_b5("attn_bwd_b5_d64_bf16", "b5-d64-bf16", 64, BACKWARD_HAS_BF16), backward_b5("attn_bwd_b5_d128_bf16", "b5-d128-bf16", 128, BACKWARD_HAS_BF16),
    backward_b6("attn_bwd_b6_d64_f16", "b6-d64", 64, BACKWARD_HAS_F16), backward_b6("attn_bwd_b6_d128_f16", "b6-d128", 128, BACKWARD_HAS_F16),
    backward_b6("attn_bwd_b6_d64_bf16", "b6-d64-bf16", 64, BACKWARD_HAS_BF16), backward_b6("attn_bwd_b6_d128_bf16", "b6-d128-bf16", 128, BACKWARD_HAS_BF16),
    backward_b7("attn_bwd_b7_d64_f16", "b7-d64", 64, BACKWARD_HAS_F16), backward_b7("attn_bwd_b7_d128_f16", "b7-d128", 128, BACKWARD_HAS_F16),
    backward_b7("attn_bwd_b7_d64_bf16", "b7-d64-bf16", 64, BACKWARD_HAS_BF16), backward_b7("attn_bwd_b7_d128_bf16", "b7-d128-bf16", 128, BACKWARD_HAS_BF16),
    backward_b8("attn_bwd_b8_d64_f16", "b8-d64", BACKWARD_HAS_F16), backward_b8("attn_bwd_b8_d64_bf16", "b8-d64-bf16", BACKWARD_HAS_BF16),
    backward_b6dq("attn_bwd_b8dq_d64_f16", "b8dq-d64"), backward_b6dq("attn_bwd_b8dq_d64_bf16", "b8dq-d64-bf16"),
    backward_b6dq("attn_bwd_b6dq_d64_f16", "b6dq-d64"), backward_b6dq("attn_bwd_b6dq_d128_f16", "b6dq-d128"),
    backward_b6dq("attn_bwd_b6dq_d64_bf16", "b6dq-d64-bf16"), backward_b6dq("attn_bwd_b6dq_d128_bf16", "b6dq-d128-bf16"),
    backward_b2kv("attn_bwd_b2kv_d64_f16", "b2kv-d64", 64, BACKWARD_B2DQ_HAS_F16), backward_b2kv("attn_bwd_b2kv_d128_f16", "b2kv-d128", 128, BACKWARD_B2DQ_HAS_F16),
    backward_b2kv("attn_bwd_b2kv_d64_bf16", "b2kv-d64-bf16", 64, BACKWARD_B2DQ_HAS_BF16), backward_b2kv("attn_bwd_b2kv_d128_bf16", "b2kv-d128-bf16", 128, BACKWARD_B2DQ_HAS_BF16),
    backward_b2dq("attn_bwd_b2dq_d64_f16", "b2dq-d64", 64, BACKWARD_B2DQ_HAS_F16), backward_b2dq("attn_bwd_b2dq_d128_f16", "b2dq-d128", 128, BACKWARD_B2DQ_HAS_F16),
    backward_b2dq("attn_bwd_b2dq_d64_bf16", "b2dq-d64-bf16", 64, BACKWARD_B2DQ_HAS_BF16), backward_b2dq("attn_bwd_b2dq_d128_bf16", "b2dq-d128-bf16", 128, BACKWARD_B2DQ_HAS_BF16),
    backward_b3("attn_bwd_b3kv_d64_f16", "b3kv-d64", 64), backward_b3("attn_bwd_b3kv_d128_f16", "b3kv-d128", 128),
    backward_b3("attn_bwd_b3kv_d64_bf16", "b3kv-d64-bf16", 64), backward_b3("attn_bwd_b3kv_d128_bf16", "b3kv-d128-bf16", 128),
    backward_b3("attn_bwd_b3dq_d64_f16", "b3dq-d64", 64), backward_b3("attn_bwd_b3dq_d128_f16", "b3dq-d128", 128),
    backward_b3("attn_bwd_b3dq_d64_bf16", "b3dq-d64-bf16", 64), backward_b3("attn_bwd_b3dq_d128_bf16", "b3dq-d128-bf16", 128),
    backward_b3("attn_bwd_b3kvc_d64_f16", "b3kvc-d64", 64), backward_b3("attn_bwd_b3kvc_d128_f16", "b3kvc-d128", 128),
    backward_b3("attn_bwd_b3kvc_d64_bf16", "b3kvc-d64-bf16", 64), backward_b3("attn_bwd_b3kvc_d128_bf16", "b3kvc-d128-bf16", 128),
    backward_b3("attn_bwd_b3dqc_d64_f16", "b3dqc-d64", 64), backward_b3("attn_bwd_b3dqc_d128_f16", "b3dqc-d128", 128),
    backward_b3("attn_bwd_b3dqc_d64_bf16", "b3dqc-d64-bf16", 64), backward_b3("attn_bwd_b3dqc_d128_bf16", "b3dqc-d128-bf16", 128),
    backward_b4("attn_bwd_b4_d64_f16", "b4-d64", 64), backward_b4("attn_bwd_b4_d128_f16", "b4-d128", 128),
    backward_b4("attn_bwd_b4_d64_bf16", "b4-d64-bf16", 64), backward_b4("attn_bwd_b4_d128_bf16", "b4-d128-bf16", 128),
    backward_b4("attn_bwd_b4c_d64_f16", "b4c-d64", 64), backward_b4("attn_bwd_b4c_d128_f16", "b4c-d128", 128),
    backward_b4("attn_bwd_b4c_d64_bf16", "b4c-d64-bf16", 64), backward_b4("attn_bwd_b4c_d128_bf16", "b4c-d128-bf16", 128),
    backward_b9("attn_bwd_b9_d64_f16", "b9-d64", 64), backward_b9("attn_bwd_b9_d128_f16", "b9-d128", 128),
    backward_b9("attn_bwd_b9_d64_bf16", "b9-d64-bf16", 64), backward_b9("attn_bwd_b9_d128_bf16", "b9-d128-bf16", 128),
    backward_b9("attn_bwd_b9c_d64_f16", "b9c-d64", 64), backward_b9("attn_bwd_b9c_d128_f16", "b9c-d128", 128),
    backward_b9("attn_bwd_b9c_d64_bf16", "b9c-d64-bf16", 64), backward_b9("attn_bwd_b9c_d128_bf16", "b9c-d128-bf16", 128),
    backward_b4dq("attn_bwd_b4dq_d64_f16", "b4dq-d64"), backward_b4dq("attn_bwd_b4dq_d128_f16", "b4dq-d128"),
    backward_b4dq("attn_bwd_b4dq_d64_bf16", "b4dq-d64-bf16"), backward_b4dq("attn_bwd_b4dq_d128_bf16", "b4dq-d128-bf16"),
    decode_helper("attn_bwd_prep_d64_f16", "b1-prep-d64", "backward's rows: D = rowsum(dO ∘ O) and log2(e)·LSE (f16, D = 64)"),
    decode_helper("attn_bwd_prep_d128_f16", "b1-prep-d128", "backward's rows: D = rowsum(dO ∘ O) and log2(e)·LSE (f16, D = 128)"),
    decode_helper("attn_bwd_prep_d64_bf16", "b1-prep-d64-bf16", "backward's rows: D = rowsum(dO ∘ O) and log2(e)·LSE (bf16, D = 64)"),
    decode_helper("attn_bwd_prep_d128_bf16", "b1-prep-d128-bf16", "backward's rows: D = rowsum(dO ∘ O) and log2(e)·LSE (bf16, D = 128)"),
    decode_helper("attn_bwd_dq_f16", "b1-dq", "backward's dQ: scale × its f32 accumulator, rounded to f16"),
    decode_helper("attn_bwd_dq_bf16", "b1-dq-bf16", "backward's dQ: scale × its f32 accumulator, rounded to bf16"),
];
