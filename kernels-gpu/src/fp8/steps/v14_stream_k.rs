#![cfg(lab_sm90)]
//! FP8 step f14 — f12 (f1 with four stages) with HGEMM h10's **stream-K tail**: the partial last wave's
//! tiles are not run whole by a few CTAs while the rest wait; their K iterations are spread evenly over
//! every CTA, and each tile's last contributor sums the partials and stores it.
//!
//! Why: in session 16's call 1 f12/f13 reached 101–106% of cuBLASLt's default per-tensor FP8 at five of
//! the six sweep shapes, and 95–97% at 2048×11008×4096 — 688 tiles of 128×256 on 132 CTAs, five full
//! waves and a sixth of 28 tiles (21% of a wave) while 104 SMs idle. It is the shape where h10 gained
//! 1.05–1.06× over h6s4 on f16 (`results/2026-11-23-h100-session15/call4-h10`, `call5`): an FP8 tile is
//! the same 128×256 of f32 accumulators, so the schedule, the slots and the ticket carry over as they
//! are (`layout::hopper::tma_hgemm::stream_k_*`, CPU-tested there; the slot stores and adds in
//! `hgemm::stream_k`, moved out of h10's file, h10's PTX unchanged).
//!
//! Diff from f12 (h10's body, not `fp8::wide`'s, whose walk is h6's):
//! * the host passes `tail` = `stream_k_tail(tiles, grid, ⌈K/128⌉)` (0 unless the last wave is at most a
//!   third full), a workspace of `grid + tail` slots and `tail` zeroed counters;
//! * (the body is `hgemm::stream_k::stream_k_wide!`, h10's, with f12's stage loads and K loop plugged
//!   in) every CTA walks its whole tiles `g, g + G, … < tiles − tail` as f12, then its range of the tail's
//!   `tail · ⌈K/128⌉` K iterations in one or two segments; a segment's scaled partial (the per-tensor
//!   scale is linear, so scaling the parts and summing equals scaling the sum) goes to its slot, the
//!   consumers take a ticket (`hgemm::split_k::last_split`), and the last contributor adds the others'
//!   slots and writes C through f12's two-half TMA-store epilogue, then resets the counter.
//!
//! Prediction (before running): 2048×11008×4096 1.04–1.06× f12 (h10's gain; an FP8 K tile is as long in
//! time as half an f16 one, so the partials' fixed cost weighs about twice as much): ≈ 100–102% of Lt's
//! default mode; every other sweep shape streams nothing (tails over a third of a wave, or none) and runs
//! f12's schedule: 1.00×.
//!
//! Measured (H100, `results/2026-11-25-h100-session16/call3-fp8-f14`, f12 / f14 in one run, % of
//! cuBLASLt fast-accumulation · default mode): **2048×11008×4096 93.5 · 97.0% → 95.4 · 97.6%**
//! (≈ 1.01–1.02×: the prediction's 1.04–1.06× missed), **4096×28672×8192 (a 15% tail, 3584 tiles)
//! 98.8 · 102.3% → 101.6 · 105.7%** (≈ 1.03×; not predicted: I had missed that this shape streams);
//! the shapes that stream nothing within ±2–6 points of f12 (the single samples' spread: 4096³ 101.4 →
//! 99.7% fast-accum, 2048×14336×4096 103.7 → 109.8% default). Correct on its first run: the GPU test
//! `f14_streams_the_tail_and_matches_f12` (500×10744×528: 168 tiles, a tail of 36 spread over 132
//! CTAs, 2–4 contributors a tile; three runs on one plan) and `--check` at 500×11000×520 under
//! compute-sanitizer memcheck / racecheck / synccheck: 0 errors (call 4 for the test, call 3 for the
//! sanitizers). SASS: 8 `QGMMA.64x256x32` (whole tiles and segments), no `LDL`/`STL`.
//! Why less than h10's 1.05–1.06×: not profiled. One candidate: with FP8 at the power limit the
//! partial last wave of f12 runs its 28 tiles at a higher clock than the full waves, so it costs less
//! than 28/132 of a wave's time, and streaming wins back less.
use crate::fp8::tile::issue_stage;
use crate::fp8::wide::{PerTensor, WideLoop};
use crate::fp8::block_scaled::Scales;
use crate::hgemm::elem::Bf16;
use crate::hgemm::stream_k::stream_k_wide;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::fp8::tiles::{BK, BM, F1_BN as BN, F1_STAGE_BYTES as STAGE_BYTES, F12_STAGES as STAGES};

/// `C = qA · qBᵀ · sa · sb` (bf16) as f12, the last `tail` tiles' K iterations spread over every CTA.
///
/// # Safety
/// As `fp8_gemm_v12` (tensor maps of A, B and C; one f32 scale each; 384 threads, `F14_DYN_SMEM` bytes of
/// dynamic shared memory, a 1-D grid); `tail` ≤ the tiles and < the grid, and `tail · ⌈k/128⌉ ≥` the grid
/// when not 0; when `tail > 0`, `ws` holds `(grid + tail) · 128 · 256` f32 (16-byte aligned) and `count`
/// `tail` u32 that are zero at launch (the kernel leaves them zero), neither used by a concurrent launch.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v14(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, scale_a: *const f32,
                                              scale_b: *const f32, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, tail: u32) {
    // SAFETY: the ring and epilogue as f12, the tail as h10 (`hgemm_tma_v10`'s proof, the body
    // `hgemm::stream_k::stream_k_wide!` shared with it): producer and consumers walk the same whole tiles
    // and then the same segments, so ring indices agree and every stage use is released once per
    // consumer warp; a `tail` the launch contract does not allow is treated as 0; workspace slots and
    // counters in bounds; a CTA reads a slot only after the ticket of every contributor of the tile.
    // Scales: one f32 each (the per-tensor contract); a segment's partial is scaled before it is
    // summed (the scale is linear).
    unsafe {
        stream_k_wide! {
            stages: STAGES, stage_bytes: STAGE_BYTES, tile: (BM, BN, BK);
            maps: (tmap_a, tmap_b, tmap_c); ws: ws, count: count; shape: (m, n, k), tail: tail;
            issue: |s_stage, full, tm, tn, kt| issue_stage::<BN, 1>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt, 0);
            consume: |ring, it, kts, tm, tn, mh, warp, lane| {
                let sc = Scales::new(scale_a, scale_b, m, n, k, tm * BM + 64 * mh + 16 * warp + lane / 4, tn * BN);
                PerTensor::consume::<1>(ring, &mut it, kts, mh, sc)
            };
            elem: Bf16;
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v14, 384, 1);
