#![cfg(lab_sm90)]
//! FP8 step f19: block scales on **192×128 tiles with three consumer warpgroups** — f18's CTA with
//! f15's staged scales and f3's promotion.
//!
//! Diff from f15: the CTA is f18's (512 threads, producer + three consumers of 64 rows, `setmaxnreg`
//! 40 / 152) and the tile is 192×128 instead of 128×192: each consumer issues four
//! `wgmma.m64n128k32` per stage into 64 fresh registers and promotes them into 64 (f3's width, one B
//! scale block per tile); each stage carries the K block's 192 A scales (one TMA box) and the tile's
//! one B scale (written by the producer) in its 1 KiB slot (`layout::fp8::tiles::F19_SCALE_SLOT_B`);
//! four stages of 41 KiB beside three 16 KiB C staging areas. The body is `fp8::tall::tall_block_scaled`.
//!
//! Why: in f9's and f15's loop both consumer warpgroups wait for the same full barrier, issue together
//! and promote together; while both promote no `QGMMA` is queued (session 13's stall table: promotion
//! and pre-issue ~30% of a consumer's samples, the tensor pipe ~33% idle). f8 (turns) and f4 (two block
//! sets) tried to break that lockstep with two warpgroups and lost. A third warpgroup is the other way:
//! while two promote, the third's `QGMMA`s can run. f18 showed the three-consumer CTA itself costs
//! nothing per unit of work (1.01–1.04× f14).
//!
//! Against it: per K block the 192×128 tile's `wgmma`s read 3 · (64 + 128) · 128 bytes of shared
//! memory and the TMA writes (192 + 128) · 128 — 112 KiB against f15's 104 KiB for the same 24576
//! outputs (+8%); the waves are the same as f15's at the six sweep shapes (tile counts within 3%).
//!
//! Prediction (before any run): **1.00–1.08× f15** at the six sweep shapes (the promotion overlap, up to
//! the ~10% the tensor pipe sits idle beyond f14's, less the extra shared-memory traffic); below 1.0
//! if the consumers' shared-memory reads, not their lockstep, bound f15.
//!
//! Measured (H100, session 23 call 3, `kernel-lab ab f15 f19`, 8 rounds): **1.035–1.080× f15 at five
//! of the six sweep shapes** (8/8 rounds each) and 0.990× at 4096×28672×8192 (1/8; there f19 runs 38
//! rounds of 132 to f15's 37) — inside the prediction. `ncu` at 8192×8192×4096 (one launch): 405 µs
//! against f15's 434, tensor pipe 82.2% of active cycles against 77.3%, issue slots 43% against 35%,
//! shared-memory wavefronts +13%. Same call, % of cuBLASLt's block mode: 103.2% at 8192³, 97.3% at
//! 2048×14336×4096, 95.3% at 2048×11008×4096, 93.7% at 4096³, 93.1% at 2048×4096×11008, 90.6% at
//! 4096×28672×8192 (f15 there 96.1%, in a call whose `ab` had them within 1%). Correct on its first run
//! (FP8 tests 8/8 with f19 on every ragged shape M % 4 == 0 allows; `--check` exit 0); 0 spills with
//! `setmaxnreg` 24 / 160 (at f18's 40 / 152 ptxas spilled 24 bytes); memcheck / synccheck 0; racecheck
//! reports the B scale's `st.shared` (producer) against its `ld.shared` (consumers), the same
//! mbarrier-ordered pair it reports in f15 (README, session 17). The library takes f19 (or f20) where
//! the wave model has it ≥ 3% ahead (`block_step_for`): five of the six sweep shapes, not
//! 4096×28672×8192 (re-measured on the final code: 0.952× f16 there, 1.032× at 2048×4096×11008).
use crate::fp8::tall::tall_block_scaled;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

/// `C = dequant(A) · dequant(B)ᵀ` (bf16) with block scales over 192×128 tiles: tensor maps as
/// `fp8_gemm_v15`'s but with A's box 192 rows, B's 128 rows and `tmap_sa`'s box 192 values; `sa` is not
/// read (its map is), `sb` as f15's. 512 threads, a 1-D persistent grid of at most one CTA per tile,
/// `F19_DYN_SMEM` bytes of dynamic shared memory.
///
/// # Safety
/// As `fp8_gemm_v15`, with those boxes, threads and shared memory.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v19(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, tmap_sa: *const TensorMap,
                                              _sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the proof is the body's, `fp8::tall::tall_block_scaled`).
    unsafe { tall_block_scaled(tmap_a, tmap_b, tmap_c, tmap_sa, sb, m, n, k) }
}

// 512 threads, one CTA per SM (as f17).
launch_bounds!(fp8_gemm_v19, 512, 1);
