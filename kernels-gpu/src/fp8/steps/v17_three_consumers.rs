#![cfg(lab_sm90)]
//! FP8 step f17: per-tensor scales on **192×192 tiles with three consumer warpgroups** — the tile
//! cuBLASLt itself runs at 2048×11008×4096 (`nvjet_sm90_qqtst_192x192_128x4_2x1_v_bz_coopB`).
//!
//! Diff from f12: the CTA has 512 threads — the producer warpgroup and three consumers of 64 rows each
//! (`warp_specialized!`'s `consumers:` arm: empty barriers of 12 warps, `setmaxnreg` 40 / 152,
//! `layout::fp8::tiles::F17_CONSUMER_REGS`); a stage holds A's 192 rows and B's 192 rows (48 KiB, as
//! f12's); each consumer issues four `wgmma.m64n192k32` per stage into 96 accumulator registers
//! (`tile::consume_whole_k`, f1's loop) and stages its 64×192 result as three boxes at once
//! (`store_tile_of::<3, 3>`: named barriers 1–3). Three stages fit beside the 72 KiB of C staging, not
//! four. The body is `fp8::tall` (f18 runs it with four stages).
//!
//! Why: f14 trails cuBLASLt only at 2048×11008×4096 (97.6% of its default mode, session 16), and `ncu`
//! (session 18) put the loss in the last wave, not in the SMs' average time: 688 tiles of 128×256 are
//! 5.21 waves of 132, so the sixth runs 28 tiles and the stream-K tail recovers almost nothing (1.002×
//! f12). 638 tiles of 192×192 are 4.83 waves: a fifth wave 83% full. The useful fraction of the
//! tile-waves (M·N over waves · 132 · tile area) goes from 0.868 to 0.926. Per K block the shared-memory
//! traffic per MMA is f12's: the TMA writes (192 + 192) · 128 bytes and the three consumers' `wgmma`s read
//! 3 · (64 + 192) · 128, against f12's (128 + 256) · 128 and 2 · (64 + 256) · 128 for the same 36864 vs
//! 32768 outputs: 1152 against 1024 cycles at 128 B/cycle for 1.125× the work.
//!
//! Prediction (before any run): **1.04–1.07× f14 at 2048×11008×4096** (the wave fraction 1.067×, less up
//! to 3% for one stage fewer and three warpgroups' epilogue barriers), i.e. 101–104% of cuBLASLt's
//! default mode there; slower than f14 where 128×256 tiles fill their waves better (4096³: 0.862 against
//! 0.970 of the tile-waves useful, so ~0.89×), which is why the library picks between them by the same
//! wave arithmetic (`host::steps::fp8::per_tensor_step_for`).
//!
//! Measured (H100, session 23 call 1, `kernel-lab ab f14 f17`, 8 rounds): **0.991× f14 at
//! 2048×11008×4096** (2/8 rounds won), 0.83–0.93× at the five other sweep shapes. Correct on its first
//! run (FP8 tests 8/8 with f17 on every ragged shape, `--check`, memcheck / racecheck / synccheck 0),
//! 128 registers, no spill, 4 `QGMMA.64x192x32`. The waves came out as computed — 2048×11008 is where
//! f17 loses least — but per unit of work f17 runs at ~0.93–0.94× f14 (4096×28672×8192, whose waves
//! are within 0.5% for both: 0.928×; 8192³: 0.888× where the waves alone give 0.947×), so the prediction
//! missed: the 6.7% of waves is eaten by a slower tile. One suspect is the third stage (f12's fourth was
//! worth 1.01–1.07× f1): f18 tests it.
use crate::fp8::tall::tall;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::F17_STAGES;

/// `C (M×N, bf16) = scale_a · scale_b · qA · qBᵀ` over 192×192 tiles: `tmap_a` over A (M×K e4m3, box
/// 192 rows × 128), `tmap_b` over B (N×K e4m3, box 192 rows × 128), both `SWIZZLE_128B`; `tmap_c` over C
/// (M×N bf16, 64×64 boxes, `SWIZZLE_128B`); `scale_a`, `scale_b` one f32 each. 512 threads, a 1-D
/// persistent grid of at most one CTA per tile, `F17_DYN_SMEM` bytes of dynamic shared memory.
///
/// # Safety
/// The tensor maps describe those buffers with those boxes (the TMA zero-fills reads past M, N and K
/// and clips stores past M and N); the scale pointers are valid; the launch as stated.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v17(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                              scale_a: *const f32, scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the proof is the shared body's, `fp8::tall`).
    unsafe { tall::<F17_STAGES>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

// 512 threads, one CTA per SM: ptxas holds every thread to 128 registers at launch, and `setmaxnreg`
// moves them to the consumers.
launch_bounds!(fp8_gemm_v17, 512, 1);
