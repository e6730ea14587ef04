#![cfg(lab_sm90)]
//! FP8 step f16: f15 with **HGEMM h10's stream-K tail** (as f14 gave f12 one).
//!
//! Diff from f15: the body is `hgemm::stream_k::stream_k_wide!` — whole 128×192 tiles for every full
//! wave, then the partial last wave's K iterations spread evenly over all CTAs, each segment's promoted
//! f32 partial written to a workspace slot and summed by the tile's last contributor — with f15's
//! producer stage (scales staged; the B pair loaded before the empty-barrier wait through the macro's
//! `prefetch`), f15's K loop and f15's three-box bf16 epilogue plugged in. A segment's partial is a sum
//! of promoted K blocks, so adding the partials is the same f32 sum in another order. Which tail is
//! streamed is h10's rule (`layout::hopper::tma_hgemm::stream_k_tail`: a last wave at most a third full,
//! every CTA getting at least one K tile of it).
//!
//! Why: f15 reaches 99.6% of cuBLASLt's block mode at 8192³, whose 2752 tiles are 20.8 waves of 132,
//! but 88–90% where its last wave is nearly empty: 2048×11008×4096 is 928 tiles = 7 waves + 4 tiles,
//! 2048×14336×4096 1200 = 9 waves + 12, 4096³ 704 = 5 waves + 44.
//!
//! Prediction: 1.08–1.12× f15 at 2048×11008×4096 and 2048×14336×4096 (the near-empty eighth/tenth
//! wave is 12%/10% of f15's time; h10 kept ~half of its 21%-tail's saving, f14 less), ~1.03× at 4096³
//! (a third-full tail), 1.00× where nothing is streamed (8192³, 2048×4096×11008: tails of 85% and 67%).
//!
//! Measured (H100, session 17, `kernel-lab ab`): **1.064–1.067× f15 at 4096³**, 1.01–1.05× at
//! 2048×14336×4096 (less than predicted: each of its 12 tail tiles is summed from ~11 contributors'
//! 96 KiB partials by its last one); 2048×11008×4096 is **not streamed** (4 tail tiles × 32 K tiles <
//! 132 CTAs: the rule's second condition, which the prediction overlooked), 1.01×; 1.00–1.02× where
//! nothing streams. The library takes f16 only where its tail streams. README.
use crate::fp8::block_scaled::{Accumulators, ConsumeTile, Scales};
use crate::fp8::staged::{Staged192, issue_staged_stage};
use crate::hgemm::stream_k::stream_k_wide;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::{BK, BM, F9_BN as BN, block_c_stage_bytes, staged_stage_bytes, staged_stages};

/// `C = dequant(A) · dequant(B)ᵀ` (bf16) as f15, the last `tail` tiles' K iterations spread over every
/// CTA.
///
/// # Safety
/// As `fp8_gemm_v15` (tensor maps of A, B, C and A's scales; the scale arrays; 384 threads; a 1-D grid),
/// with `F16_DYN_SMEM` bytes of dynamic shared memory; `tail` ≤ the tiles and < the grid, and `tail ·
/// ⌈k/128⌉ ≥` the grid when not 0; when `tail > 0`, `ws` holds `(grid + tail) · 128 · 256` f32 (16-byte
/// aligned) and `count` `tail` u32 that are zero at launch (the kernel leaves them zero), neither used by
/// a concurrent launch.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, tmap_sa: *const TensorMap,
                                              sa: *const f32, sb: *const f32, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, tail: u32) {
    // SAFETY: the ring, the staged scales and the epilogue as f15 (`fp8::staged`, `fp8::block_scaled`),
    // the tail as h10 (`hgemm_tma_v10`'s proof, the body `hgemm::stream_k::stream_k_wide!`): producer
    // and consumers walk the same whole tiles and then the same segments, so ring indices agree and
    // every stage use is released once per consumer warp; the producer's B pair is loaded for the
    // stage it then issues; a `tail` the launch contract does not allow is treated as 0; workspace
    // slots and counters in bounds (a 128×192 partial fills 24 of a slot's 32 float4 per thread); a CTA
    // reads a slot only after the ticket of every contributor of the tile.
    unsafe {
        stream_k_wide! {
            @body stages: staged_stages(BN), stage_bytes: staged_stage_bytes(BN), tile: (BM, BN, BK), staging: block_c_stage_bytes(BN);
            maps: (tmap_a, tmap_b); ws: ws, count: count; shape: (m, n, k), tail: tail;
            prefetch: |_tm, tn, kt| Scales::new(sa, sb, m, n, k, 0, tn * BN).load_b_pair(kt);
            issue: |s_stage, full, tm, tn, kt, b_pair| issue_staged_stage(s_stage, full, b_pair, tmap_a, tmap_b, tmap_sa, tm, tn, kt);
            acc: [[f32; 32]; 3];
            consume: |ring, it, kts, tm, tn, mh, warp, lane| {
                let sc = Scales::new(sa, sb, m, n, k, tm * BM + 64 * mh + 16 * warp + lane / 4, tn * BN);
                Staged192::consume::<1>(ring, &mut it, kts, mh, sc)
            };
            store: |r_acc, s_c, row0, n0, mh, leader, warp, lane| r_acc.store(tmap_c, s_c, row0, n0, mh, leader, warp, lane);
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v16, 384, 1);
