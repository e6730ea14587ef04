#![cfg(lab_sm90)]
//! FP8 step f20: f19 with **HGEMM h10's stream-K tail** (as f16 gave f15 one).
//!
//! Diff from f19: the body is `hgemm::stream_k::stream_k_wide!` in its three-consumer form (`@body3`:
//! `warp_specialized!`'s `consumers:` arm, the ticket on named barrier 4 over the 384 consumer threads)
//! — whole 192×128 tiles for every full wave, then the partial last wave's K iterations spread evenly
//! over all CTAs, each segment's promoted f32 partial written to a workspace slot (three consumers × 64
//! × 128 f32, in `stream_k::Partial`'s two-box layout) and summed by the tile's last contributor — with
//! f19's producer stage (`tall::issue_block_stage`, the B scale loaded before the empty-barrier wait as
//! the macro's `prefetch`), f19's K loop (`tall::consume_block`) and f19's epilogue. Which tail is
//! streamed is h10's rule (`layout::hopper::tma_hgemm::stream_k_tail`: a last wave at most a third full,
//! every CTA getting at least one K tile of it).
//!
//! Why: f19's tiles come in the same waves as f15's, and where the last is nearly empty f19 stays at
//! 93–95% of cuBLASLt's block mode (session 23 call 3): 4096³ is 704 tiles = 5 waves + 44,
//! 2048×11008×4096 946 = 7 + 22, 2048×14336×4096 1232 = 9 + 44, 4096×28672×8192 4928 = 37 + 44. All four
//! stream here; f15's 2048×11008 tail of 4 tiles did not (4 × 32 K tiles < 132 CTAs).
//!
//! Prediction (before any run): **1.04–1.07× f19 at 4096³** (f16 gave f15 1.064–1.067× on the same 44-tile
//! tail), 1.02–1.06× at 2048×11008×4096 and 2048×14336×4096 (22 and 44 tail tiles over 132 CTAs: 6 and
//! 3 contributors per tile, each adding 96 KiB partials), ~1.01× at 4096×28672×8192 (one round in 38),
//! 1.00× where nothing streams (8192³, 2048×4096×11008).
//!
//! Measured (H100, session 23 call 4, `kernel-lab ab f19 f20`, 8 rounds): **1.043× at 4096³** (8/8),
//! **1.046× at 2048×11008×4096** (7/8), 0.994× at 2048×14336×4096 (5/8), 0.993× at 4096×28672×8192 (2/8),
//! 0.994–0.998× where nothing streams. Half the prediction held: the two shapes whose last round is
//! idlest gained as predicted; at 10 and 38 rounds the saving is a small share and the fix-up eats it.
//! A fix-up cost of ~0.45 rounds fits both gains (`host::steps::fp8::F20_FIXUP_ROUNDS`), and the library
//! streams only where the predicted saving is ≥ 1% (`f20_tail_pays`). Correct on its first run: FP8
//! tests 9/9 (`f20_streams_the_tail_and_matches_f19`: 756×5368×528, 36 tail tiles over 132 CTAs, three
//! runs on one plan, 1.8e-3 against f64 and ≤ 1.7e-7 against f19); `--check` exit 0; memcheck /
//! synccheck 0; racecheck the B scale slot's `STS` / `LDS` pair as in f15 and f19. Same call, % of
//! cuBLASLt's block mode: 101.2% at 2048×11008×4096, 100.0% at 4096³, 100.7% at 2048×14336×4096.
use crate::fp8::tall::{block_scale_b, consume_block, issue_block_stage};
use crate::hgemm::stream_k::stream_k_wide;
use crate::hgemm::tma_store::store_tile_of;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use crate::fp8::tile::Accumulators;
use layout::fp8::tiles::{BK, F17_BM, F17_CONSUMERS, F19_BN, F19_C_STAGE_BYTES, F19_CONSUMER_REGS, F19_PRODUCER_REGS, F19_STAGE_BYTES, F19_STAGES};

/// `C = dequant(A) · dequant(B)ᵀ` (bf16) as f19, the last `tail` tiles' K iterations spread over every
/// CTA.
///
/// # Safety
/// As `fp8_gemm_v19` (tensor maps of A, B, C and A's scales with f19's boxes; `sb`; 512 threads; a 1-D
/// grid), with `F20_DYN_SMEM` bytes of dynamic shared memory; `tail` ≤ the tiles and < the grid, and
/// `tail · ⌈k/128⌉ ≥` the grid when not 0; when `tail > 0`, `ws` holds `(grid + tail) · 128 · 256` f32
/// (16-byte aligned) and `count` `tail` u32 that are zero at launch (the kernel leaves them zero),
/// neither used by a concurrent launch.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v20(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, tmap_sa: *const TensorMap,
                                              _sa: *const f32, sb: *const f32, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, tail: u32) {
    // SAFETY: the ring, the staged scales and the epilogue as f19 (`fp8::tall`), the tail as h10
    // (`hgemm_tma_v10`'s proof, the body `hgemm::stream_k::stream_k_wide!`): producer and consumers walk
    // the same whole tiles and then the same segments, so ring indices agree and every stage use is
    // released once by each of the 12 consumer warps; the producer's B scale is loaded for the stage it
    // then issues; a `tail` the launch contract does not allow is treated as 0; workspace slots and
    // counters in bounds (three consumers' 64×128 partials fill 6144 of a slot's 8192 float4); a CTA
    // reads a slot only after the ticket of every contributor of the tile.
    unsafe {
        stream_k_wide! {
            @body3 registers: (F19_PRODUCER_REGS, F19_CONSUMER_REGS);
            stages: F19_STAGES, stage_bytes: F19_STAGE_BYTES, tile: (F17_BM, F19_BN, BK), staging: F19_C_STAGE_BYTES;
            maps: (tmap_a, tmap_b); ws: ws, count: count; shape: (m, n, k), tail: tail;
            prefetch: |_tm, tn, kt| block_scale_b(sb, tn, kt, k);
            issue: |s_stage, full, tm, tn, kt, b| issue_block_stage(s_stage, full, b, tmap_a, tmap_b, tmap_sa, tm, tn, kt);
            acc: [[f32; 32]; 2];
            consume: |ring, it, kts, _tm, _tn, mh, warp, lane| consume_block(ring, &mut it, kts, mh, warp, lane);
            store: |r_acc, s_c, row0, n0, mh, leader, warp, lane| {
                store_tile_of::<2, F17_CONSUMERS>(tmap_c, s_c, row0, n0, mh, leader, || r_acc.stage(s_c, warp, lane))
            };
        }
    }
}

// 512 threads, one CTA per SM (as f19).
launch_bounds!(fp8_gemm_v20, 512, 1);
