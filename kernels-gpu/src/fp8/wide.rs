//! The wide CTA of the FP8 steps f1, f5 and f7 (introduced by f1, whose file explains it): h6's
//! warp-specialized persistent kernel on e4m3 over 128×256 tiles with the bf16 TMA-store epilogue, for
//! one CTA or a cluster of `CLUSTER` sharing B (f5), written once; a step supplies its consumers' K loop
//! ([`WideLoop`]): f1's keeps all of K in the tensor core and applies the per-tensor scale at the end
//! ([`PerTensor`]), f7's promotes each K block with its block scales.
use super::block_scaled::Scales;
use super::tile::{TileWalk, consume_wide, produce};
use crate::hgemm::tma_warp_specialized::Ring;
use crate::hgemm::{elem::Bf16, tma_store::store_wide_tile};
use crate::prim::{
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_wait_group0},
};
use layout::fp8::tiles::{BK, BM, F1_BN as BN, F1_STAGE_BYTES as STAGE_BYTES};
use layout::hopper::tma_hgemm::{C_BOX_BYTES, wide_staged_boxes};

/// `acc · s`, element by element.
#[inline(always)]
fn scaled(acc: &[f32; 32], s: f32) -> [f32; 32] {
    core::array::from_fn(|i| acc[i] * s)
}

/// A consumer warpgroup's K loop over one 128×256 tile: returns rows `64·mh ..` × 256 columns, scaled,
/// having released every stage use it consumed (in every CTA of a cluster of `CLUSTER`); advances `it`
/// by `k_tiles`.
pub(super) trait WideLoop {
    /// # Safety
    /// All 128 threads of a consumer warpgroup; the ring initialized; the producer issues the same
    /// tiles; `sc` as the step's scales require; `CLUSTER` as `Ring::release_cluster` requires.
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 4];
}

/// f1's loop: all of K in the tensor core's accumulators ([`consume_wide`]), then `· sa[0] · sb[0]`.
pub(super) struct PerTensor;

impl WideLoop for PerTensor {
    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 4] {
        // SAFETY: forwarded to the caller; the per-tensor scales are one f32 each.
        unsafe {
            let r_acc = consume_wide::<CLUSTER>(ring, it, k_tiles, mh);
            let s = sc.per_tensor();
            let [acc0, acc1, acc2, acc3] = &r_acc;
            [scaled(acc0, s), scaled(acc1, s), scaled(acc2, s), scaled(acc3, s)]
        }
    }
}

/// The wide kernel body with K loop `L`: `C = qA · qBᵀ` scaled as `L` does, with `sa`, `sb` as the
/// step's kernel states (one f32 each for [`PerTensor`]), in clusters of `CLUSTER` CTAs, with `STAGES`
/// stages (f1, f5, f7: 3 and the whole result staged at once; f12, f13: 4 and two halves, as h6s4).
///
/// # Safety
/// As `fp8_gemm_v1` (per tensor) or `fp8_gemm_v7` (block scales); with `CLUSTER > 1`, a cluster launch
/// of that size (the kernel's `.reqnctapercluster`), a grid that is a multiple of it, and `tmap_b`'s box
/// `256 / CLUSTER` rows.
#[inline(always)]
pub(super) unsafe fn wide<L: WideLoop, const CLUSTER: u32, const STAGES: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                                              tmap_c: *const TensorMap, sa: *const f32, sb: *const f32, m: u32, n: u32,
                                                                              k: u32) {
    // C boxes a consumer stages at once (4 with 3 stages, 2 with 4: `wide_staged_boxes`), and its area.
    let staged = wide_staged_boxes(STAGES);
    let staging = staged * C_BOX_BYTES;
    // SAFETY: the ring protocol and the epilogue as h6 (same proof: every stage use is issued once by
    // its producer and released once by each consumer warp — of every CTA of the cluster — after its
    // `wgmma`s retired; a staging tile is rewritten only after its previous TMA store finished reading
    // it); scale reads as the loop states; the cluster barriers of `warp_specialized!` bracket every remote
    // access.
    unsafe {
        crate::hgemm::tma_warp_specialized::warp_specialized! {
            cluster: CLUSTER;
            ring: let (ring, s_cstage) = (STAGES, STAGE_BYTES, 2 * staging);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce::<BN, CLUSTER>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<CLUSTER>::new(tiles_m, tiles_n) {
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    // This thread's two accumulator rows (fragment rows g and g + 8 of its warp's 16).
                    let row = row0 + 16 * warp + lane / 4;
                    let r_acc = L::consume::<CLUSTER>(ring, &mut it, k_tiles, mh, Scales::new(sa, sb, m, n, k, row, n0));
                    store_wide_tile::<Bf16>(&r_acc, tmap_c, s_cstage + mh * staging, staged, row0, n0, mh, tid % 128 == 0, warp, lane);
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}
