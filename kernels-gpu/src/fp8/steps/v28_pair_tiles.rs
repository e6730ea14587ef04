#![cfg(lab_sm90)]
//! FP8 step f28 — per tensor on **64 × 128 tiles in cluster pairs**: 64 activation rows (A, `wgmma`'s M)
//! × 128 weight columns (B), each consumer warpgroup 64 of the columns (`m64n64k32`, 32 accumulators), the
//! two CTAs of a cluster on vertically adjacent tiles sharing the weight box by TMA multicast (each loads 64
//! of its 128 rows into both: `tile::issue_stage_rows` with `CLUSTER = 2`, f5's scheme), 8 stages of 24 KiB,
//! C staged and stored by TMA.
//!
//! Why (session 111, H100): at 128–256-row few-tile shapes the choice's steps run 0.74–0.85× cuBLASLt's
//! default mode (256×4096×4096: f27n128 15.0 µs, f22 16.6, cuBLASLt 13.3). `ncu` of cuBLASLt there: 128 CTAs
//! of 384 threads in clusters of 2 at every one of four such shapes, its tile sized so the tiles make one
//! round (`nvjet_sm90_qqtst_64x128_128x8_2x1` at 256×4096×4096: 4 × 32 tiles, 8 stages), SM throughput
//! 25–35%. f26 has the tile and the grid (one consumer warpgroup, one CTA a tile, no multicast, C by global
//! stores) and ran 17.0 µs: its K tile is not tensor-bound (eight `m64n64k32`, ~0.14 µs, against ~0.39
//! measured) but bound by the 24 KiB each SM pulls from the L2 a K tile. A pair sharing the weight box pulls
//! 16 KiB a CTA and K tile.
//!
//! Prediction (before any run, H100): if the L2's pull bounds the K tile, 0.39 × 16/24 ≈ 0.26 µs a K tile:
//! 256×4096×4096 (32 K tiles, 128 CTAs) ~12.5–13.5 µs (0.98–1.06× cuBLASLt), 128×8192×3072 ~10–11 µs
//! (f27n128 12.6, cuBLASLt 10.5); where the tiles take two rounds (512×3072×8192: 192 CTAs) no better than
//! f27n128.
use crate::fp8::tile::{TileWalk, b_desc_after, produce_rows};
use crate::hgemm::{elem::Bf16, tma_store::{stage_c_box, store_tile}, tma_warp_specialized::warp_specialized};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    cluster_dims,
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_wait_group0},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::{BK, F28_BN as BN, F28_ROWS as ROWS, F28_STAGE_BYTES, F28_STAGES};
use layout::hopper::{WgmmaDesc, tma_hgemm::C_BOX_BYTES};

/// CTAs a cluster: two vertically adjacent tiles sharing the weight box.
const CLUSTER: u32 = 2;
/// Bytes of a consumer warpgroup's 64 weight rows in a stage's weight box.
const HALF_B: u32 = 64 * BK;

/// `C = (*scale_a · *scale_b) · qA · qBᵀ` (bf16) on 64×128 tiles in cluster pairs.
///
/// # Safety
/// A cluster launch of 2 CTAs (`.reqnctapercluster`) whose grid is a multiple of 2; tensor maps (in global
/// memory) of qA (M×K e4m3, box 64 rows × 128 B), qB (N×K e4m3, box 64 rows × 128 B), both `SWIZZLE_128B`,
/// and C (M×N bf16, box 64 × 64, `SWIZZLE_128B`); `scale_a`, `scale_b` one readable f32 each; `m, n, k` the
/// tensors' sizes; 384 threads, `F28_DYN_SMEM` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v28(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, scale_a: *const f32,
                                              scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: f5's ring in a cluster (`warp_specialized!`'s `cluster:` arm: empty barriers counting both CTAs'
    // 8 consumer warps, the cluster barriers around the walk): the producer and both consumers of each CTA walk
    // the same tiles (`TileWalk::<2>`, a rank past the last tile row still walking its pair's tiles: its loads
    // zero-filled, its stores clipped) and K tiles, so ring indices agree in both CTAs; every stage use is
    // issued once by each producer (its A box, its half of the weight box to both CTAs, one transaction of the
    // whole 24 KiB announced: `issue_stage_rows`) and released once by each consumer warp of both CTAs after
    // its `wgmma`s retired (wait_group 1, then 0 at the tile's end). A consumer's weight rows are the box's
    // 64-row half at `HALF_B · mh`, 1024-aligned, inside the stage. Each consumer's C staging box is its own
    // 8 KiB after the ring (`s_c + mh · C_BOX_BYTES`), rewritten only after its last TMA store read it
    // (`store_tile`); each leader waits for its stores before the CTA exits. The scales are one f32 each.
    unsafe {
        warp_specialized! {
            cluster: CLUSTER;
            ring: let (ring, s_c) = (F28_STAGES, F28_STAGE_BYTES, 2 * C_BOX_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(ROWS), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce_rows::<ROWS, BN, CLUSTER>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let s = *scale_a * *scale_b;
                let s_cw = s_c + mh * C_BOX_BYTES;
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<CLUSTER>::new(tiles_m, tiles_n) {
                    let mut acc = [0f32; 32];
                    for kt in 0..k_tiles {
                        ring.wait_full(it);
                        let s_stage = ring.at(it).0;
                        let (d_a, d_b) = (WgmmaDesc::K_MAJOR_SW128.advance(s_stage), b_desc_after::<ROWS>(s_stage + mh * HALF_B));
                        wgmma_fence_operand(&mut acc);
                        wgmma_fence();
                        for ks in 0..BK / 32 {
                            wgmma_m64n64k32_f32_e4m3(&mut acc, d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, true);
                        }
                        wgmma_commit_group();
                        wgmma_wait_group::<1>();
                        wgmma_fence_operand(&mut acc);
                        if kt > 0 {
                            ring.release_cluster::<CLUSTER>(it - 1);
                        }
                        it += 1;
                    }
                    wgmma_wait_group::<0>();
                    wgmma_fence_operand(&mut acc);
                    if k_tiles > 0 {
                        ring.release_cluster::<CLUSTER>(it - 1);
                    }
                    let out: [f32; 32] = core::array::from_fn(|i| acc[i] * s);
                    store_tile::<1>(tmap_c, s_cw, tm * ROWS, tn * BN + 64 * mh, mh, tid % 128 == 0, || stage_c_box::<Bf16>(&out, s_cw, warp, lane));
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v28, 384, 1);
cluster_dims!(fp8_gemm_v28, 2);
