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
//! Diff from f12 (a body of its own: `fp8::wide`'s walk is h6's, not h10's):
//! * the host passes `tail` = `stream_k_tail(tiles, grid, ⌈K/128⌉)` (0 unless the last wave is at most a
//!   third full), a workspace of `grid + tail` slots and `tail` zeroed counters;
//! * every CTA walks its whole tiles `g, g + G, … < tiles − tail` as f12, then its range of the tail's
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
use crate::hgemm::split_k::{last_split, reset_counter};
use crate::hgemm::stream_k::{SLOT_F32, add_partial, store_partial};
use crate::hgemm::tma_persistent::persistent_tile;
use crate::hgemm::tma_store::store_wide_tile;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    sync::sync_named,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_wait_group0},
};
use layout::fp8::tiles::{BK, BM, F1_BN as BN, F1_STAGE_BYTES as STAGE_BYTES, F12_STAGES as STAGES};
use layout::hopper::tma_hgemm::{C_BOX_BYTES, stream_k_inner_ctas, stream_k_range, stream_k_segment, stream_k_slot, wide_staged_boxes};

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
    let staged = wide_staged_boxes(STAGES);
    let staging = staged * C_BOX_BYTES;
    // SAFETY: the ring and epilogue as f12, the tail as h10 (`hgemm_tma_v10`'s proof): producer and
    // consumers walk the same whole tiles and then the same segments (`stream_k_range` / `_segment` of
    // the same `g`, `G`, `tail`), so ring indices agree and every stage use is released once per consumer
    // warp. A `tail` the launch contract does not allow is treated as 0 (every tile whole), so no range is
    // empty or longer than a tile and the iteration indices fit u32. Workspace: slot < G + tail
    // (`stream_k_slot`), every place inside its slot (`hgemm::stream_k`), 16-byte aligned; counters
    // `count[t]`, t < tail; a CTA reads a slot only after the ticket of every contributor of the tile
    // (`last_split`: fence, named barrier 3 over the 256 consumer threads, acq_rel ticket, flag in shared
    // memory, fence, L2 loads). Named barrier 3 is passed the same number of times by all 256 consumer
    // threads (segments are CTA-uniform). Scales: one f32 each (the per-tensor contract).
    unsafe {
        crate::hgemm::tma_warp_specialized::warp_specialized! {
            // STAGES × 48 KiB stages, the two consumers' C staging (two halves each), a 16-byte flag, the rings.
            ring: let (ring, s_cstage) = (STAGES, STAGE_BYTES, 2 * staging + 16);
            thread: tid, warpgroup: wg;
            setup: {
                let s_flag = s_cstage + 2 * staging;
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let tiles = tiles_m * tiles_n;
                let k_tiles = k.div_ceil(BK);
                let (g, ctas) = (block_idx_x(), grid_dim_x());
                let iters = tail as u64 * k_tiles as u64;
                let tail = if tail < ctas && tail <= tiles && iters >= ctas as u64 && iters <= u32::MAX as u64 { tail } else { 0 };
                let whole = tiles - tail;
                let (lo, hi) = stream_k_range(g, ctas, tail, k_tiles);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                let mut t = g;
                while t < whole {
                    let (tm, tn) = persistent_tile(t, tiles_m, tiles_n);
                    for kt in 0..k_tiles {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        issue_stage::<BN, 1>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt, 0);
                        it += 1;
                    }
                    t += ctas;
                }
                let mut i = lo;
                while i < hi {
                    let (t, kt0, kt1) = stream_k_segment(i, hi, k_tiles);
                    let (tm, tn) = persistent_tile(whole + t, tiles_m, tiles_n);
                    for kt in kt0..kt1 {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        issue_stage::<BN, 1>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt, 0);
                        it += 1;
                    }
                    i += kt1 - kt0;
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let leader = tid % 128 == 0;
                let s_c = s_cstage + mh * staging;
                let mut it = 0u32;
                let mut t = g;
                while t < whole {
                    let (tm, tn) = persistent_tile(t, tiles_m, tiles_n);
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let sc = Scales::new(scale_a, scale_b, m, n, k, row0 + 16 * warp + lane / 4, n0);
                    let r_acc = PerTensor::consume::<1>(ring, &mut it, k_tiles, mh, sc);
                    store_wide_tile::<Bf16>(&r_acc, tmap_c, s_c, staged, row0, n0, mh, leader, warp, lane);
                    t += ctas;
                }
                let mut i = lo;
                while i < hi {
                    let (t, kt0, kt1) = stream_k_segment(i, hi, k_tiles);
                    let (tm, tn) = persistent_tile(whole + t, tiles_m, tiles_n);
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let sc = Scales::new(scale_a, scale_b, m, n, k, row0 + 16 * warp + lane / 4, n0);
                    let mut r_acc = PerTensor::consume::<1>(ring, &mut it, kt1 - kt0, mh, sc);
                    let own = stream_k_slot(g, ctas, t, kt0);
                    store_partial(&r_acc, ws.add(own as usize * SLOT_F32), mh, tid % 128);
                    let (first, end) = stream_k_inner_ctas(t, ctas, tail, k_tiles);
                    let counter = count.add(t as usize);
                    if last_split(counter, end - first + 1, s_flag, tid, 128) {
                        let start = ctas + t;
                        if start != own {
                            add_partial(&mut r_acc, ws.add(start as usize * SLOT_F32), mh, tid % 128);
                        }
                        let mut c = first;
                        while c < end {
                            if c != own {
                                add_partial(&mut r_acc, ws.add(c as usize * SLOT_F32), mh, tid % 128);
                            }
                            c += 1;
                        }
                        store_wide_tile::<Bf16>(&r_acc, tmap_c, s_c, staged, row0, n0, mh, leader, warp, lane);
                        if tid == 128 {
                            reset_counter(counter);
                        }
                    }
                    // As h10: every consumer thread meets here once per segment.
                    sync_named(3, 256);
                    i += kt1 - kt0;
                }
                if leader {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v14, 384, 1);
