#![cfg(lab_sm90)]
//! FP8 step f1: HGEMM h6 on e4m3 inputs with **per-tensor scales** (`C = sa · sb · qA · qBᵀ`, bf16 out).
//!
//! Diff from h6 (`hgemm/steps/tma_v6_tma_store.rs`):
//! * B is stored N×K (K-major), because 8-bit `wgmma` has no transpose: B's stage is one TMA box of
//!   256 N rows × 128 bytes, read through the same K-major descriptor as A (h6: four MN-major 64×64 f16
//!   boxes);
//! * a stage is 128 deep in K (128 e4m3 = 128 bytes, one swizzle span; h6: 64 f16), the same 48 KiB;
//! * `wgmma.m64n256k32.f32.e4m3.e4m3`: each instruction covers K = 32, twice h6's K per byte moved, at
//!   twice the tensor-core rate;
//! * epilogue: the accumulators are multiplied by `sa · sb` (two f32 read once per CTA) before h6's
//!   bf16 staging and TMA stores.
//!
//! The whole of K is summed in the tensor core's accumulators (what cuBLASLt calls fast accumulation).
//! Hopper's FP8 `wgmma` adds its products into the accumulators at reduced precision (DeepSeek-V3
//! §3.3.2: ~14 bits), so the error grows with K: f2 and the family's `--promotion` table show by how much.
//!
//! Prediction: at 4096³–8192³ h6 ran at ~98% of cuBLAS f16 (~700 TFLOP/s on an H100); with the same
//! bytes per stage and twice the MMA rate per byte, f1 should reach ~1.7–1.9× h6's rate, i.e. about
//! 1150–1300 TFLOP/s: ~0.9–1.0× cuBLASLt's fast-accumulation FP8.
use crate::fp8::tile::{a_desc, b_desc, produce};
use crate::hgemm::{
    elem::Bf16,
    tma_persistent::persistent_tile,
    tma_store::{consumer_barrier, stage_c_box},
    tma_warp_specialized::{Ring, warp_specialized},
};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    mbarrier::fence_proxy_async_shared_cta,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_commit_group, cp_async_bulk_tensor_2d_s2g, cp_async_bulk_wait_group0, cp_async_bulk_wait_group_read0},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n256k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::{BK, BM, F1_BN as BN, F1_C_STAGE_BYTES as C_STAGE_BYTES, F1_STAGE_BYTES as STAGE_BYTES, F1_STAGES as STAGES};

/// `C = (*scale_a · *scale_b) · qA · qBᵀ`: qA M×K e4m3 (`tmap_a`, box 128 rows × 128 B), qB N×K e4m3
/// (`tmap_b`, box 256 rows × 128 B), C M×N bf16 (`tmap_c`, box 64 × 64), all `SWIZZLE_128B`.
///
/// # Safety
/// The tensor maps (in global memory) describe live tensors of those shapes (C writable); `scale_a`,
/// `scale_b` point to one readable f32 each; `m, n, k` are the tensors' sizes; launched with 384 threads,
/// a 1-D grid of at most one CTA per tile, and `F1_DYN_SMEM` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v1(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             scale_a: *const f32, scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: the ring protocol and the epilogue as h6 (same proof: every stage use is issued once by
    // the producer and released once by each consumer warp after its `wgmma`s retired; a staging tile
    // is rewritten only after its previous TMA store finished reading it); the scales are read once.
    unsafe {
        warp_specialized! {
            ring: let (ring, s_cstage) = (STAGES, STAGE_BYTES, 2 * C_STAGE_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let tiles = tiles_m * tiles_n;
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce::<BN>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let scale = *scale_a * *scale_b;
                let mut it = 0u32;
                let mut tile = block_idx_x();
                while tile < tiles {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let r_acc = consume_tile(ring, &mut it, k_tiles, mh);
                    let s_c = s_cstage + mh * C_STAGE_BYTES;
                    let leader = tid % 128 == 0;
                    if leader {
                        cp_async_bulk_wait_group_read0();
                    }
                    consumer_barrier(mh);
                    // One call per block with a constant accumulator reference (a loop over the blocks put
                    // them in local memory: 512-byte stack frame).
                    let [acc0, acc1, acc2, acc3] = &r_acc;
                    stage_c_box::<Bf16>(&scaled(acc0, scale), s_c, warp, lane);
                    stage_c_box::<Bf16>(&scaled(acc1, scale), s_c + 8192, warp, lane);
                    stage_c_box::<Bf16>(&scaled(acc2, scale), s_c + 2 * 8192, warp, lane);
                    stage_c_box::<Bf16>(&scaled(acc3, scale), s_c + 3 * 8192, warp, lane);
                    fence_proxy_async_shared_cta();
                    consumer_barrier(mh);
                    if leader {
                        for nb in 0..4 {
                            cp_async_bulk_tensor_2d_s2g(tmap_c, (n0 + 64 * nb) as i32, row0 as i32, s_c + nb * 8192);
                        }
                        cp_async_bulk_commit_group();
                    }
                    tile += grid_dim_x();
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

/// `acc · s`, element by element.
#[inline(always)]
fn scaled(acc: &[f32; 32], s: f32) -> [f32; 32] {
    core::array::from_fn(|i| acc[i] * s)
}

/// One consumer warpgroup's K loop over a tile (as `hgemm::tma_wide_tile::consume_wide_tile`, with
/// four `m64n256k32` per stage): rows `64·mh ..` × 256 columns, one `wgmma` group in flight, each stage
/// released after the next one's group is committed and the older retired. Advances `it` by `k_tiles`.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; the ring initialized; the producer issues the same tiles.
#[inline(always)]
unsafe fn consume_tile(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32) -> [[f32; 32]; 4] {
    let mut r_acc = [[0f32; 32]; 4];
    // SAFETY: forwarded to the caller; the accumulators are pinned around every fence and wait.
    unsafe {
        for kt in 0..k_tiles {
            ring.wait_full(*it);
            let s_stage = ring.at(*it).0;
            let (d_a, d_b) = (a_desc(s_stage, mh), b_desc(s_stage));
            for acc in r_acc.iter_mut() {
                wgmma_fence_operand(acc);
            }
            wgmma_fence();
            for ks in 0..BK / 32 {
                wgmma_m64n256k32_f32_e4m3(&mut r_acc, d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, true);
            }
            wgmma_commit_group();
            wgmma_wait_group::<1>();
            for acc in r_acc.iter_mut() {
                wgmma_fence_operand(acc);
            }
            if kt > 0 {
                ring.release(*it - 1);
            }
            *it += 1;
        }
        wgmma_wait_group::<0>();
        for acc in r_acc.iter_mut() {
            wgmma_fence_operand(acc);
        }
        if k_tiles > 0 {
            ring.release(*it - 1);
        }
    }
    r_acc
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v1, 384, 1);
