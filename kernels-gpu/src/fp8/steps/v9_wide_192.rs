#![cfg(lab_sm90)]
//! FP8 step f9: f3 on **128×192 tiles** — the widest block-scaled tile whose two accumulator sets fit.
//!
//! Diff from f3: each consumer's K block is four `wgmma.m64n192k32` into 96 fresh registers (three
//! 64-column blocks), promoted into 96 f32 accumulators — 192 of the 232 registers `setmaxnreg` gives
//! (two sets of 256 columns would need 256: f7 had to promote 128-column halves one after the other).
//! A tile's 192 columns straddle two 128-column scale blocks of B, so each K block has two B scales:
//! the first block's for columns 0–63, the second's for 128–191, and columns 64–127 take the first
//! where the tile starts a scale block (`n0 % 128 == 0`) and the second otherwise
//! (`layout::fp8::tiles::f9_mid_block_is_first`, CPU-tested column by column). Four 40 KiB stages.
//!
//! Why: f8 showed that f3's promotion is already hidden; what grows with the tile is the work per
//! shared-memory byte. Per K block a 128×`BN` tile writes `128·(128 + BN)` bytes by TMA and its `wgmma`s
//! read `2 · 4 · 32·(64 + BN)` more (A's half and all of B per consumer); at 128 B/cycle that is 640
//! cycles against 512 of MMA at `BN` = 128 (shared memory the bound: 1.25×), 812 against 768 at 192
//! (1.06×), 1000 against 1024 at 256 (f1: tensor-bound). ncu: f3 spends ~876 cycles per K block.
//!
//! Prediction: at f3's efficiency against its bound, 1.18× f3 per unit of work; less wave and ragged
//! waste — 4096³ has 704 tiles (5.3 waves of 132, against f3's 7.8) and N = 4096 is 21⅓ tiles wide —
//! so ~1.05× f3 at 4096³ and 1.1–1.2× at the larger shapes (~970–1050 TFLOP/s, ≈ cuBLASLt's block
//! mode).
//!
//! Measured (H100, session 8 calls 2–3): 1.09–1.11× f3 at 8192³ and 4096×28672×8192 (994–1050 TFLOP/s,
//! 88–91% of cuBLASLt's block mode), 0.94–1.03× at the others — about 1.07× per unit of work where both
//! fill their waves, not 1.18×, and less where the coarser tiles leave a mostly idle last wave. L2
//! throughput fell from 74% to 57% (ncu, 4096³). The library picks f3 or f9 per shape
//! (`host::steps::fp8::block_step_for`). README.
use crate::fp8::block_scaled::{Wide192, block_scaled};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::F9_BN;

/// [`super::v2_block_scaled::fp8_gemm_v2`] on 128×192 tiles: `tmap_b`'s box 192 rows, C staged as three
/// 64×64 boxes per consumer, `F9_DYN_SMEM` bytes of dynamic shared memory.
///
/// # Safety
/// As `fp8_gemm_v2`, with those boxes and that shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v9(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof and this step's K loop, `Wide192`, in `fp8::block_scaled`).
    unsafe { block_scaled::<Wide192, F9_BN, 1>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v9, 384, 1);
