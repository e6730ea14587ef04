#![cfg(lab_sm90)]
//! FP8 step f2: **block scaling with promotion** (DeepGEMM's scheme): A has one f32 scale per 1×128 row
//! segment along K, B one per 128×128 block ([`layout::fp8`]: `sa[kb · M + m]`, `sb[nb · ⌈K/128⌉ + kb]`).
//!
//! Diff from f1:
//! * the C tile is 128×128 (each consumer 64×128, `wgmma.m64n128k32`): the tile's columns are one
//!   scale block of B, so one `sb` per K block; and the consumer needs two sets of accumulators, 64
//!   registers each, where f1's one set of 128 already filled the budget;
//! * per 128-deep K block (= one stage = one scale block), the four `wgmma`s start from zero
//!   (`scale-d = 0` on the first) into `r_blk`; while they run, each thread loads the scales of its two
//!   rows and the tile's `sb`; after `wait_group 0`, `r_acc += r_blk · (sa[row] · sb)` — 64 FFMAs in
//!   f32, the **promotion**: the tensor core's reduced-precision accumulation never spans more than 128
//!   of K, so the error no longer grows with K;
//! * six 32 KiB stages; C staged as two 64×64 bf16 boxes per consumer.
//!
//! The price: `wait_group 0` every stage (the promotion reads the block's sums), so a consumer's
//! tensor-core work no longer overlaps its own FFMAs — the two consumer warpgroups interleave instead —
//! and 128-wide tiles move 1.5× the shared-memory bytes per MMA of f1's 256-wide ones.
//!
//! Prediction: ~0.80–0.90× f1 at 4096³–8192³ (DeepGEMM reaches ~1.2× CUTLASS with many more tricks:
//! TMA multicast, unaligned block N, FFMA interleaving in SASS).
//!
//! Measured (H100): 735–811 TFLOP/s, 67–80% of cuBLASLt's block mode, 0.6–0.68× f1. README.
use crate::fp8::block_scaled::{ConsumeTile, Scales, block_scaled, issue, promote, retire_all};
use crate::hgemm::tma_warp_specialized::Ring;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::F2_BN;

/// `C[m][n] = Σ_kb sa[kb][m] · sb[n/128][kb] · Σ_{k in kb} qA[m][k] · qB[n][k]`: tensor maps as
/// [`super::v1_per_tensor::fp8_gemm_v1`]'s with B's box 128 rows; `sa` (⌈K/128⌉ · M f32) and `sb`
/// (⌈N/128⌉ · ⌈K/128⌉ f32) in the layouts of [`layout::fp8`].
///
/// # Safety
/// As `fp8_gemm_v1`, with `sa` and `sb` readable arrays of those lengths and `F2_DYN_SMEM` bytes of
/// dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v2(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof in `fp8::block_scaled`; this step's K loop below).
    unsafe { block_scaled::<Serial, F2_BN, 1>(tmap_a, tmap_b, tmap_c, sa, sb, m, n, k) }
}

/// f2's K loop: per stage, four `m64n128k32` into a fresh `r_blk` (the first with `scale-d = 0`), the
/// block's scales loaded meanwhile, `wait_group 0`, the stage released, then `r_acc += r_blk · scale`.
struct Serial;

impl ConsumeTile for Serial {
    type Acc = [[f32; 32]; 2];
    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 2] {
        let mut r_acc = [[0f32; 32]; 2];
        let mut r_blk = [[0f32; 32]; 2];
        // SAFETY: forwarded to the caller; `r_blk` is pinned around the fence and the wait.
        unsafe {
            for kt in 0..k_tiles {
                issue(ring, *it, mh, &mut r_blk, || ());
                let scale = sc.of_block(kt);
                retire_all::<_, CLUSTER>(ring, *it, &mut r_blk);
                *it += 1;
                promote(&mut r_acc, &r_blk, scale);
            }
        }
        r_acc
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v2, 384, 1);
