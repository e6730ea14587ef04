#![cfg(lab_sm90)]
//! FP8 step f25 — per tensor at **32 activation rows**: cuBLASLt's tile for them (`ncu`, session 85:
//! `nvjet_sm90_qqtst_128x32_128x10`), 128 weight rows × 32 activation rows computed transposed, a
//! **10-deep ring** of 20 KiB stages (160 KiB of weights in flight an SM), one CTA per tile.
//!
//! Why: beyond the L2, f22 and f14 stream 32-row shapes' weights at 2.9–3.3 TB/s where cuBLASLt reaches
//! 4.0–4.3 (session 85, call 1); `ncu` at 32×28672×8192: cuBLASLt's kernel at 84% of the DRAM's peak with
//! 128×32 tiles and ten 128-deep stages (221 KB of shared memory a CTA), f22's grouped and prefetching
//! variants at 55–57%. Neither asking for each row's bytes in larger pieces (f22g4, 0.81–0.96× f22) nor L2
//! prefetches 16 K tiles ahead (f22p16, 0.88–1.00×) helped: what differs is the bytes a CTA holds in
//! flight in shared memory (f22: 8 stages × 8 KiB of weights, 64 KiB) and that no byte of the stage is a
//! zero-filled activation row (f22's 64-row box at 32 rows: half).
//!
//! Diff from f22: a stage is one 128-row weight box (16 KiB) and a 32-row activation box (4 KiB); the one
//! consumer warpgroup issues `m64n32k32` on each 64-row half of the weight box (two 16-register
//! accumulators); 10 stages; one CTA per tile (a grid of every tile, not persistent); C by 16-bit global
//! stores of the scaled pairs (the 32×128 tile of C is 8 KiB).
//!
//! Prediction (H200, before the run): the weights at ~4 TB/s like cuBLASLt's kernel — 32×28672×8192 ~60 µs
//! (f22 85.6, cuBLASLt 60.3), 32×11008×4096 ~15 (f22 20.9, cuBLASLt 12.6), 32×16000×8192 ~37 (f22 48.8).
//!
//! Measured (H200, session 86, medians of 3 processes, `results/2026-12-02-h200-session86`): 32×28672×8192
//! 61.7 µs (f22 84.7, cuBLASLt 59.1), 32×11008×4096 12.3 (f22 21.5), 32×16000×8192 35.3 (f22 48.7): 0.93–1.13×
//! cuBLASLt at the 32-row shapes beyond a round of its tiles, where f22 and f14 ran 0.59–0.85×. Its tiles walk
//! the weights once per 32-row tile row, so above 32 rows beyond the L2 it reads them ⌈M/32⌉ times.
//!
//! **f26** (this file's second kernel): the same on **64 activation rows** (`m64n64k32`, 9 stages of 24 KiB:
//! 144 KiB of weights in flight), for 33–64 rows, where f25 reads the weights twice and f14's 128×256 tiles
//! stream them at ~3.1 TB/s (64×32000×4096 42.3 µs, 0.91× cuBLASLt; session 84's sample). *Predicted*
//! (before its first run): the weights at f25's ~4 TB/s, 64×32000×4096 ~37 µs, 64×128256×3072 ~103 (f14 113.8).
//! Measured (session 86, call 3): 42.8 and 120.0 µs — at 64 rows f22's 64×64 tiles already stream at 3.6–3.8 TB/s
//! (40.4, 107.6) and f26 is 0.65–0.95× f22; it leads only at 33–56 rows (33×16000×8192 39.2 against f14's 46.2,
//! 40×28672×8192 67.2 against 73.5, 56×11008×4096 14.3 against f22's 15.4). An experiment: no rule chooses it.
use crate::hgemm::{elem::{Bf16, Elem16}, tma_warp_specialized::warp_specialized};
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::{unroll2, unroll8, unroll16};
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    thread::{block_idx_x, lane_id},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s},
    wgmma::{FlatWgmma, wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n32k32_f32_e4m3, wgmma_m64n64k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::tiles::{BK, F25_ROWS, F25_STAGE_BYTES, F25_STAGES, F25_WEIGHT_ROWS as W, F26_ROWS, F26_STAGE_BYTES, F26_STAGES};
use layout::fragment::WgmmaAcc;
use layout::hopper::WgmmaDesc;

/// Bytes of the weight box at the start of a stage (128 rows × 128 B); the activation box follows.
const W_BYTES: u32 = W * BK;

/// The kernel `$name` on tiles of `$r` activation rows × 128 weight rows: a ring of `$stages` stages of
/// `$stage_bytes`, `$mma` (`m64n{$r}k32`) into two accumulators of `$regs` f32 each (`$fence` their
/// operand fence), the epilogue's register pairs walked by `$unroll` (`$regs / 2` of them).
macro_rules! swapped_deep_ring {
    ($name:ident, $r:expr, $stages:expr, $stage_bytes:expr, $mma:ident, $fence:path, $regs:literal, $unroll:ident) => {
        /// `C = (*scale_a · *scale_b) · qA · qBᵀ` (bf16) on tiles of C computed transposed (the module doc).
        ///
        /// # Safety
        /// Tensor maps (in global memory) of qA (M×K e4m3, box of the tile's activation rows × 128 B) and qB
        /// (N×K e4m3, box 128 rows × 128 B), both `SWIZZLE_128B`; `scale_a`, `scale_b` one readable f32 each;
        /// `g_c` of m·n writable bf16; 256 threads, the step's dynamic shared memory (`F25_DYN_SMEM`,
        /// `F26_DYN_SMEM`), a 1-D grid of exactly `⌈m/rows⌉·⌈n/128⌉` CTAs.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_a: *const TensorMap, tmap_b: *const TensorMap, scale_a: *const f32, scale_b: *const f32,
                                               g_c: *mut u16, m: u32, n: u32, k: u32) {
            const R: u32 = $r;
            // SAFETY: the ring protocol of `warp_specialized!` (one consumer warpgroup: the empty barriers count
            // its 4 warps): the producer and the consumer walk the same K tiles of the CTA's one tile, so ring
            // indices agree; every stage is issued once and released once per consumer warp after its `wgmma`s
            // retired (wait_group 1, then 0 at the end). The stage's boxes are 16 KiB and R·128 B at 1024-aligned
            // offsets inside it; the transaction counts both whole boxes (the TMA counts zero-filled bytes beyond
            // the tensors' edges). C: each thread writes only elements of its tile inside M×N (checked); the
            // scales are one f32 each.
            unsafe {
                warp_specialized! {
                    consumers: 1, registers: (40, 232);
                    ring: let (ring, _) = ($stages, $stage_bytes, 0);
                    thread: tid, warpgroup: wg;
                    setup: {
                        // >= 1: `t % tiles_n` cannot trap (the host never sends n = 0).
                        let tiles_n = n.div_ceil(W).max(1);
                        let t = block_idx_x();
                        // Consecutive CTAs share the activation tile and walk the weights.
                        let (tn, tm) = (t % tiles_n, t / tiles_n);
                        let k_tiles = k.div_ceil(BK);
                    }
                    tensor_maps: (tmap_a, tmap_b);
                    producer: {
                        for kt in 0..k_tiles {
                            let (s_stage, full, _, _) = ring.at(kt);
                            ring.wait_empty(kt);
                            mbarrier_arrive_expect_tx(full, $stage_bytes);
                            cp_async_bulk_tensor_2d_g2s(s_stage, tmap_b, (kt * BK) as i32, (tn * W) as i32, full);
                            cp_async_bulk_tensor_2d_g2s(s_stage + W_BYTES, tmap_a, (kt * BK) as i32, (tm * R) as i32, full);
                        }
                    }
                    consumer(_mh): {
                        let (warp, lane) = ((tid / 32) % 4, lane_id());
                        let mut acc = [[0f32; $regs]; 2];
                        for kt in 0..k_tiles {
                            ring.wait_full(kt);
                            let s_stage = ring.at(kt).0;
                            let d_x = WgmmaDesc::K_MAJOR_SW128.advance(s_stage + W_BYTES);
                            let (d_w0, d_w1) = (WgmmaDesc::K_MAJOR_SW128.advance(s_stage), WgmmaDesc::K_MAJOR_SW128.advance(s_stage + W_BYTES / 2));
                            $fence(&mut acc[0]);
                            $fence(&mut acc[1]);
                            wgmma_fence();
                            for ks in 0..BK / 32 {
                                $mma(&mut acc[0], d_w0.advance(32 * ks).0, d_x.advance(32 * ks).0, true);
                                $mma(&mut acc[1], d_w1.advance(32 * ks).0, d_x.advance(32 * ks).0, true);
                            }
                            wgmma_commit_group();
                            wgmma_wait_group::<1>();
                            $fence(&mut acc[0]);
                            $fence(&mut acc[1]);
                            if kt > 0 {
                                ring.release_cluster::<1>(kt - 1);
                            }
                        }
                        wgmma_wait_group::<0>();
                        $fence(&mut acc[0]);
                        $fence(&mut acc[1]);
                        if k_tiles > 0 {
                            ring.release_cluster::<1>(k_tiles - 1);
                        }
                        let s = *scale_a * *scale_b;
                        // Constant half and pair indices (unrolled) keep the accumulators in registers.
                        let [a0, a1] = &acc;
                        unroll2!(h => {
                            let a = if h == 0 { a0 } else { a1 };
                            $unroll!(p => {
                                // Accumulator (c, r): weight row c of the half, activation row r (and r + 1).
                                let (c, r) = WgmmaAcc::<R>::warp_lane_rc(warp, lane, 2 * p);
                                let (row, col) = (tm * R + r, tn * W + 64 * h + c);
                                if col < n {
                                    let v = Bf16::pack(a[2 * p as usize] * s, a[2 * p as usize + 1] * s);
                                    if row < m {
                                        *g_c.add(row as usize * n as usize + col as usize) = v as u16;
                                    }
                                    if row + 1 < m {
                                        *g_c.add((row + 1) as usize * n as usize + col as usize) = (v >> 16) as u16;
                                    }
                                }
                            });
                        });
                    }
                }
            }
        }

        // 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
        launch_bounds!($name, 256, 1);
    };
}

swapped_deep_ring!(fp8_gemm_v25, F25_ROWS, F25_STAGES, F25_STAGE_BYTES, wgmma_m64n32k32_f32_e4m3, FlatWgmma::fence_operand, 16, unroll8);
swapped_deep_ring!(fp8_gemm_v26, F26_ROWS, F26_STAGES, F26_STAGE_BYTES, wgmma_m64n64k32_f32_e4m3, wgmma_fence_operand, 32, unroll16);
