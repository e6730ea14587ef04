#![cfg(lab_sm90)]
//! FP8 step f22 — per tensor on **64×64 tiles computed transposed**: `Cᵀ = B · Aᵀ`, the weights (B,
//! N×K) on `wgmma`'s M side and a 64-row activation tile (A, M×K) on its N side, both K-major as 8-bit
//! `wgmma` wants them; one consumer warpgroup, an 8-deep ring of 16 KiB stages, C staged transposed
//! (`stmatrix.trans`) and stored by TMA.
//!
//! Why: a lone CTA pulls ~44 bytes a cycle from L2 (session 72: f14's 128×256 tile costs 0.555 µs a
//! 48 KiB K tile), so where f14's tiles are few its shapes are bound by how few SMs pull data, and f21's
//! split of K pays ~5 K tiles for its sum. cuBLASLt runs such shapes on 64 × 8–64 tiles with the operands
//! swapped, ~90 CTAs each with its whole K loop (`ncu`, session 72: 4.96 µs at 128×1024×1024 where f14
//! takes 10.3 and f21x4 9.3). f22 is that tile: 2 × 16 = 32 CTAs at 128×1024×1024, a third of f14's
//! bytes a K tile per CTA, an 8 KiB epilogue instead of 64 KiB.
//!
//! Prediction (H200, before the run): ~1.8–2 µs outside the SMs, ~0.3 µs of prologue, 0.19 µs a 16 KiB
//! K tile at f14's per-SM rate, ~0.2 µs of epilogue: 128×1024×1024 ~4.5–5.5 µs (0.9–1.1× cuBLASLt),
//! 256×768×1536 ~5–6 µs, 128×3072×4096 ~9 µs (f21x8: 12.8); where f14 fills the SMs f22 is slower (each
//! byte of A and B read 4× as often).
//!
//! Measured (H200, `results/2026-12-01-h200-session72` call 9, medians of 3 processes, × cuBLASLt per
//! tensor): 128×1024×1024 5.1 µs (1.08×), 256×768×1536 5.6 (1.05×), 128×3072×4096 8.4 (1.02×) — as
//! predicted; over 31 few-tile corpus shapes 0.80× where f14 had 0.52× and f21x4 0.55×. Slower where its
//! tiles need several rounds (4096×1024×1024: 0.81× against f14's 0.99×): the library weighs it with
//! measured costs (`steps::fp8::F22_COST`, 4.3 µs + 0.10–0.16 µs a K tile). Correct on the ragged-shape
//! test; compute-sanitizer memcheck, racecheck, synccheck: 0 errors.
use crate::hgemm::{elem::Bf16, tma_store::{stage_c_box_trans, store_tile}, tma_warp_specialized::warp_specialized};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_wait_group0},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::{BK, F22_STAGE_BYTES as STAGE_BYTES, F22_STAGES as STAGES, F22_TILE as T};
use layout::hopper::WgmmaDesc;

/// Bytes of the weight box at the start of a stage (64 rows × 128 B); the activation box follows.
const W_BYTES: u32 = T * BK;

/// `C = (*scale_a · *scale_b) · qA · qBᵀ` (bf16) on 64×64 tiles computed transposed.
///
/// # Safety
/// Tensor maps (in global memory) of qA (M×K e4m3, box 64 rows × 128 B), qB (N×K e4m3, box 64 rows ×
/// 128 B), both `SWIZZLE_128B`, and C (M×N bf16, box 64 × 64, `SWIZZLE_128B`); `scale_a`, `scale_b` one
/// readable f32 each; `m, n, k` the tensors' sizes; 256 threads, `F22_DYN_SMEM` bytes of dynamic shared
/// memory, a 1-D grid of at most one CTA per tile.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v22(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, scale_a: *const f32,
                                              scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: the ring protocol of `warp_specialized!` (one consumer warpgroup: the empty barriers count
    // its 4 warps): the producer and the consumer walk the same tiles (`t = block, block + grid, …`)
    // and K tiles, so ring indices agree; every stage use is issued once and released once per consumer
    // warp after its `wgmma`s retired (wait_group 1, then 0 at the tile's end). The stage's two boxes
    // are 8 KiB each at 1024-aligned offsets inside it; the transaction counts both whole boxes (the TMA
    // counts zero-filled bytes beyond the tensors' edges). The C staging box lies after the ring
    // (`s_c`, 1024-aligned: the ring's size is a multiple of 1024) and is rewritten only after the last
    // TMA store has read it (`store_tile`); the leader waits for its stores before the CTA exits. The
    // scales are one f32 each.
    unsafe {
        warp_specialized! {
            consumers: 1, registers: (40, 232);
            ring: let (ring, s_c) = (STAGES, STAGE_BYTES, layout::hopper::tma_hgemm::C_BOX_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                // >= 1: `t % tiles_n` cannot trap (the host never sends n = 0).
                let (tiles_m, tiles_n) = (m.div_ceil(T), n.div_ceil(T).max(1));
                let tiles = tiles_m * tiles_n;
                let k_tiles = k.div_ceil(BK);
                let (g, ctas) = (block_idx_x(), grid_dim_x());
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                let mut t = g;
                while t < tiles {
                    // Consecutive CTAs share the activation tile and walk the weights.
                    let (tn, tm) = (t % tiles_n, t / tiles_n);
                    for kt in 0..k_tiles {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        mbarrier_arrive_expect_tx(full, STAGE_BYTES);
                        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_b, (kt * BK) as i32, (tn * T) as i32, full);
                        cp_async_bulk_tensor_2d_g2s(s_stage + W_BYTES, tmap_a, (kt * BK) as i32, (tm * T) as i32, full);
                        it += 1;
                    }
                    t += ctas;
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let s = *scale_a * *scale_b;
                let mut it = 0u32;
                let mut t = g;
                while t < tiles {
                    let (tn, tm) = (t % tiles_n, t / tiles_n);
                    let mut acc = [0f32; 32];
                    for kt in 0..k_tiles {
                        ring.wait_full(it);
                        let s_stage = ring.at(it).0;
                        let (d_w, d_x) = (WgmmaDesc::K_MAJOR_SW128.advance(s_stage), WgmmaDesc::K_MAJOR_SW128.advance(s_stage + W_BYTES));
                        wgmma_fence_operand(&mut acc);
                        wgmma_fence();
                        for ks in 0..BK / 32 {
                            wgmma_m64n64k32_f32_e4m3(&mut acc, d_w.advance(32 * ks).0, d_x.advance(32 * ks).0, true);
                        }
                        wgmma_commit_group();
                        wgmma_wait_group::<1>();
                        wgmma_fence_operand(&mut acc);
                        if kt > 0 {
                            ring.release_cluster::<1>(it - 1);
                        }
                        it += 1;
                    }
                    wgmma_wait_group::<0>();
                    wgmma_fence_operand(&mut acc);
                    if k_tiles > 0 {
                        ring.release_cluster::<1>(it - 1);
                    }
                    let out: [f32; 32] = core::array::from_fn(|i| acc[i] * s);
                    store_tile::<1>(tmap_c, s_c, tm * T, tn * T, mh, tid % 128 == 0, || stage_c_box_trans::<Bf16>(&out, s_c, warp, lane, 0, 0));
                    t += ctas;
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v22, 256, 1);
