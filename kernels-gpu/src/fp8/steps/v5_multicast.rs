#![cfg(lab_sm90)]
//! FP8 step f5: f1 in **clusters of two CTAs sharing B through TMA multicast**.
//!
//! Diff from f1: the two CTAs of a cluster compute vertically adjacent 128×256 tiles (rows 2p and
//! 2p + 1, the same columns), so they need the same B tile. Each loads its own A and *half* of B (128
//! of the 256 N rows) with a multicast TMA load that writes the half into both CTAs' stage and signals
//! both full barriers; each CTA's `expect_tx` still counts the whole stage. A stage may be refilled
//! only when both CTAs' consumers are done with it, so each consumer warp arrives on the empty barrier
//! of both CTAs (`mapa` + `mbarrier.arrive.release.cluster`), and the empty barriers count 16 warps.
//! Cluster barriers after the barrier initialization and before exit keep every remote access inside
//! both CTAs' lifetimes. The kernel declares `.reqnctapercluster 2, 1, 1`, so an ordinary launch forms
//! the clusters; the host sizes the grid by `cuOccupancyMaxActiveClusters`.
//!
//! Why: f1 moves `M·K·N/256 + N·K·M/128` bytes from L2 (6.4 GB at 8192³; 7.3 TB/s at its 0.88 ms,
//! about what the H100's L2 delivers), so f1 is bound by L2 bandwidth, not the tensor cores. Sharing B
//! cuts it to `M·K·N/256 + N·K·M/256` (4.3 GB).
//!
//! Prediction: 1.15–1.3× f1 at 4096³–8192³, i.e. ≥ 1.0× cuBLASLt's fast-accumulation FP8.
//!
//! Measured: −12% to +5% of f1 (1075–1269 TFLOP/s; 93–114% of cuBLASLt fast-accumulation): f1 is
//! tensor-bound, not L2-bound (ncu: tensor pipe 79.5%), so the premise was wrong. The first version ran
//! at half speed: `.release.cluster` on the remote arrivals put a `MEMBAR.ALL.GPU` before each. README.
use crate::fp8::wide::{PerTensor, wide};
use crate::launch_bounds::launch_bounds;
use layout::fp8::tiles::F1_STAGES;
use crate::prim::{cluster_dims, tma::TensorMap};

/// [`super::v1_per_tensor::fp8_gemm_v1`] in clusters of two (`tmap_b`'s box 128 rows × 128 B: one CTA's
/// half of a B tile).
///
/// # Safety
/// As `fp8_gemm_v1`, with a grid that is a multiple of 2 (the clusters) and `tmap_b`'s box 128 rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v5(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             scale_a: *const f32, scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the proof is the shared body's, `fp8::wide`).
    unsafe { wide::<PerTensor, 2, F1_STAGES>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v5, 384, 1);
cluster_dims!(fp8_gemm_v5, 2);
