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
//! The body lives in `fp8/wide.rs` (f5 runs it in clusters, f7 with block scales), its K loop in `fp8/tile.rs`.
//!
//! The whole of K is summed in the tensor core's accumulators (what cuBLASLt calls fast accumulation).
//! Hopper's FP8 `wgmma` adds its products into the accumulators at reduced precision (DeepSeek-V3
//! §3.3.2: ~14 bits), so the error grows with K: f2 and the family's `--promotion` table show by how much.
//!
//! Prediction: at 4096³–8192³ h6 ran at ~98% of cuBLAS f16 (~700 TFLOP/s on an H100); with the same
//! bytes per stage and twice the MMA rate per byte, f1 should reach ~1.7–1.9× h6's rate, i.e. about
//! 1150–1300 TFLOP/s: ~0.9–1.0× cuBLASLt's fast-accumulation FP8.
//!
//! Measured (H100, interleaved with cuBLASLt 13.1): 1086–1342 TFLOP/s, 94–107% of its fast-accumulation
//! FP8 and 99–114% of its default (promoted) mode over the sweep; ncu: tensor pipe 79.5% busy. README.
use crate::fp8::wide::{PerTensor, wide};
use crate::launch_bounds::launch_bounds;
use layout::fp8::tiles::F1_STAGES;
use crate::prim::tma::TensorMap;

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
    // SAFETY: forwarded (the proof is the shared body's, `fp8::wide`).
    unsafe { wide::<PerTensor, 1, F1_STAGES>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v1, 384, 1);
