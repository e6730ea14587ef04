#![cfg(lab_sm90)]
//! Attention step a6 (Hopper): **TMA loads and `wgmma` for both GEMMs, a producer warpgroup and two
//! consumer warpgroups** — the HGEMM ladder's h3/h4 machinery applied to FlashAttention.
//!
//! Diff from a2 (which is FlashAttention-2 on `mma.sync`):
//! * one CTA per 128 query rows: warpgroup 0 is the producer (one thread issues TMA loads), warpgroups
//!   1 and 2 each own 64 query rows (`hgemm::tma_warp_specialized::warp_specialized!`, the skeleton of
//!   h3–h6: `setmaxnreg` 40 / 232, full and empty mbarriers per stage);
//! * Q (with the first K/V stage's transaction), K and V tiles of 128 keys arrive by TMA as 128-row ×
//!   64-column `SWIZZLE_128B` boxes into a 2-stage ring — no `cp.async`, no `ldmatrix`: `wgmma` reads
//!   the swizzled tiles through descriptors;
//! * S = Q·Kᵀ: per K step of 16 head dims one `wgmma.m64n128k16` with both operands K-major (K stored
//!   `[key][d]` is Kᵀ's K-major form);
//! * the online softmax runs on the `wgmma` accumulator fragment, which per warp is `mma.sync`'s
//!   (rows g and g + 8, columns 8j + 2t): a2's code, on 16 n-tiles instead of 8;
//! * O += P·V: P **stays in registers** as the A operand of `wgmma … m64n{D}k16` (the register-A form:
//!   two packed n-tiles of S are one A fragment), V read MN-major from its boxes (`imm-trans-b = 1`,
//!   the h-ladder's B layout);
//! * a K/V stage is released after both GEMMs of the tile retired (`wait_group 0`): no overlap of the
//!   softmax with the tensor cores inside a warpgroup yet — only the two consumer warpgroups and the
//!   producer run concurrently (FA3's intra-warpgroup pipelining and ping-pong are the next steps).
//!
//! Key rows past `l` inside a tile (the 2-D tensor map spans all heads, so they hold the next head's
//! keys, or zeros after the last head) are masked to −∞ like the causal mask; query rows past `l` are
//! computed and not stored.
//!
//! Prediction (H100, before the run): the `mma.sync` steps are bound by shared-memory bandwidth
//! (`ldmatrix` of K and V per MMA; a2 at 196–257 TFLOP/s, tensor pipe 34–40%); `wgmma` reads operands
//! from shared memory without the register file and at twice `mma.sync`'s rate. With the softmax not
//! overlapped, expect ~1.4–1.8× a2 at D = 128 (≈ 350–450 TFLOP/s, about torch's FA2 and below cuDNN),
//! less at D = 64 (softmax work per FLOP doubles).
//!
//! Measured (H100, `results/2026-11-23-h100-session7/`): correct on its first GPU run; at D = 128
//! 337–417 TFLOP/s, **1.42–1.63× a2, 1.08–1.23× torch's FlashAttention-2** and 0.61–0.67× cuDNN in the
//! same call; at D = 64 0.97–1.02× a2 (below a4). `ncu`: tensor pipe active 41.9% of cycles.
use crate::hgemm::elem::{Bf16, F16};

/// Declares a Hopper attention entry (a6–a10) for one head dim, element type, `PIPELINE`, ring stages,
/// and (a8) `PINGPONG`, (a9) `LAZY`, (a10) `HEAVY_FIRST`; or (a12) a persistent one.
macro_rules! hopper_entry {
    ($name:ident, $e:ty, $d:literal, $pipeline:literal, $stages:expr) => {
        $crate::attention::v6_hopper_wgmma::hopper_entry!($name, $e, $d, $pipeline, $stages, false, false);
    };
    ($name:ident, $e:ty, $d:literal, $pipeline:literal, $stages:expr, $pingpong:literal) => {
        $crate::attention::v6_hopper_wgmma::hopper_entry!($name, $e, $d, $pipeline, $stages, $pingpong, false);
    };
    ($name:ident, $e:ty, $d:literal, $pipeline:literal, $stages:expr, $pingpong:literal, $lazy:literal) => {
        $crate::attention::v6_hopper_wgmma::hopper_entry!($name, $e, $d, $pipeline, $stages, $pingpong, $lazy, false);
    };
    ($name:ident, $e:ty, $d:literal, $pipeline:literal, $stages:expr, $pingpong:literal, $lazy:literal, $heavy_first:literal) => {
        /// Attention forward (a6–a10, module docs): `o` (`[B·H][L][D]`) and the natural log-sum-exp
        /// `lse` (`[B·H][L]`) from Q, K, V given as TMA tensor maps.
        ///
        /// # Safety
        /// `tmap_q`, `tmap_k`, `tmap_v`: 2-D tensor maps (in global memory) of `B·H·l` rows × D
        /// 16-bit elements, boxes of 128 rows × 64 elements, `SWIZZLE_128B`; `o` and `lse` hold
        /// `B·H·l·D` and `B·H·l` writable elements; grid `(⌈l/128⌉, B·H)`, 384 threads,
        /// `layout::attention::a6_smem(D, stages)` bytes of dynamic shared memory; `l ≥ 1`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
            // SAFETY: forwarded (`heads` is read only by the persistent body).
            unsafe { $crate::attention::hopper::attention::<$e, $d, $pipeline, { $stages }, $pingpong, $lazy, $heavy_first, false, 1>(tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal, 0) }
        }
        // 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
    // a12: a9's body, persistent (one more parameter: the heads).
    ($name:ident, $e:ty, $d:literal, persistent) => {
        /// Attention forward, persistent (a12, module docs): as the a6–a10 entries, over `heads` heads
        /// (the tensor maps' `B·H`), with any number of CTAs (one per SM).
        ///
        /// # Safety
        /// As the a6–a10 entries, with grid `(n, 1)`, `n ≥ 1`, `heads ≥ 1` and
        /// `layout::attention::a12_smem(D)` bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32, heads: u32) {
            // SAFETY: forwarded.
            unsafe { $crate::attention::hopper::attention::<$e, $d, true, { layout::attention::A7_STAGES }, false, true, false, true, 1>(tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal, heads) }
        }
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
    // a15: a12 in clusters of 2 sharing every K/V stage by TMA multicast (same parameters).
    ($name:ident, $e:ty, $d:literal, persistent_cluster) => {
        /// Attention forward, persistent, in clusters of 2 (a15, module docs): as a12's entry, the
        /// two CTAs of a cluster computing adjacent query tiles of one head.
        ///
        /// # Safety
        /// As a12's entry, with the grid's `n` even (clusters of 2: `.reqnctapercluster`).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32, heads: u32) {
            // SAFETY: forwarded.
            unsafe {
                $crate::attention::hopper::attention::<$e, $d, true, { layout::attention::A7_STAGES }, false, true, false, true, { layout::attention::A15_CLUSTER }>(
                    tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal, heads)
            }
        }
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
        $crate::prim::cluster_dims!($name, 2);
    };
}
pub(crate) use hopper_entry;

hopper_entry!(attn_a6_d64_f16, F16, 64, false, layout::attention::A6_STAGES);
hopper_entry!(attn_a6_d128_f16, F16, 128, false, layout::attention::A6_STAGES);
hopper_entry!(attn_a6_d64_bf16, Bf16, 64, false, layout::attention::A6_STAGES);
hopper_entry!(attn_a6_d128_bf16, Bf16, 128, false, layout::attention::A6_STAGES);
