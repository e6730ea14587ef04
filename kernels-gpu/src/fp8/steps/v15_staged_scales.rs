#![cfg(lab_sm90)]
//! FP8 step f15: f9 with **each K block's scales delivered into its stage by the producer**.
//!
//! Diff from f9: f9's consumers fetch the next block's scales themselves — per thread and K block two
//! `LDG`s of `sa` (its two rows), two of `sb` (the tile's two B scale blocks) and their address
//! arithmetic, issued under the block's `QGMMA`s. f15 gives each stage a 1 KiB slot after A and B
//! (`layout::fp8::tiles::SCALE_SLOT_BYTES`): the producer loads the tile's 128 A scales of the block
//! with one more TMA box (`sa` seen as ⌈K/128⌉ rows of M f32: row `kb`'s 128 values from the tile's
//! first row, 512 bytes, announced with `mbarrier.expect_tx` before the stage's own `arrive.expect_tx`;
//! the map's row stride, 4M bytes, must be a multiple of 16, so f15 takes M % 4 == 0) and writes the
//! two B scales with `st.shared` before that arrival (whose release publishes them). A consumer reads
//! its four values with `ld.shared` right after the full barrier and multiplies them at the promotion,
//! as f9: no global loads are left in the consumers' K loop. (DeepGEMM stages its A scales by TMA the
//! same way.)
//!
//! Why: in f9's per-instruction stall samples (H100, session 13 call 4, 8192×8192×4096) the next
//! block's scale loads held ~20% of the consumer warps' samples, most as *dispatch* stalls on one
//! `LDG` (1404 of 1713), while the tensor pipe was 67% busy.
//!
//! Prediction: if those issue slots come back to the `QGMMA` issue and the promotion, 1.04–1.08× f9 at
//! every shape (the share of the stall samples, less what the `LDS`s cost); if the dispatch stall was a
//! symptom of the in-flight `QGMMA`s rather than of the loads, ~1.00×.
//!
//! Measured (H100, session 17): **1.055–1.125× f9** at the six sweep shapes (`kernel-lab ab`, call 9;
//! 1.04–1.10× for a variant in call 6), above the prediction; 84–97% of cuBLASLt's block mode (f9:
//! 80–89%, same run). The first version read A's scales through a 1-D map whose boxes start at
//! `kb · M + m0`: off 16 bytes when M % 4 ≠ 0, and those boxes fault (`ILLEGAL_INSTRUCTION`). README.
use crate::fp8::block_scaled::block_scaled_staged;
use crate::fp8::staged::Staged192;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::F9_BN;

/// [`super::v9_wide_192::fp8_gemm_v9`] with the scales staged: `tmap_sa` is a tensor map over `sa` as
/// `⌈K/128⌉` rows of `M` f32 (row stride `4M` bytes, so M % 4 == 0; box 1 row × 128, no swizzle, zero
/// fill), `F15_DYN_SMEM` bytes of dynamic shared memory.
///
/// # Safety
/// As `fp8_gemm_v9`, with that map over the same `sa` and that shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v15(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, tmap_sa: *const TensorMap,
                                              sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof in `fp8::block_scaled`; this step's producer and K loop in
    // `fp8::staged`).
    unsafe { block_scaled_staged::<Staged192, F9_BN, 1>(tmap_a, tmap_b, tmap_c, tmap_sa, sa, sb, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v15, 384, 1);
