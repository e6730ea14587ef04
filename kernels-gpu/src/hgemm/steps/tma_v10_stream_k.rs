#![cfg(lab_sm90)]
//! Hopper step h10 — h6s4 with a **stream-K tail**: the partial last wave's tiles are not run whole by
//! a few CTAs while the rest wait; their K iterations are spread evenly over every CTA.
//!
//! Why: 2048×11008×4096 has 688 tiles of 128×256 for 132 CTAs — five full waves and a sixth of 28
//! tiles, during which 104 SMs idle: at best 5.2 / 6 = 87% of the machine, and h6s4 measured 90–94%
//! of cuBLAS there (session 15, `call3-sweep`). 8192³ (2048 tiles: 15 waves + 68) and 4096³ (512: 3 +
//! 116) lose less, 3% at most.
//!
//! Diff from h6s4 (`layout::hopper::tma_hgemm::stream_k_*`, the rules CPU-tested there):
//! * the host passes `tail` = [`stream_k_tail`](layout::hopper::tma_hgemm::stream_k_tail) (tiles mod
//!   CTAs when there is a full wave before it and every CTA gets a K tile of it; else 0);
//! * every CTA first walks its whole tiles `g, g + G, … < tiles − tail` as h6s4, then its range
//!   `[⌊g·I/G⌋, ⌊(g+1)·I/G⌋)` of the tail's `I = tail · k_tiles` K iterations: one or two *segments*,
//!   each a run of K tiles of one tail tile;
//! * a segment's f32 partial goes to its slot of a workspace (`stream_k_slot`: the segment that
//!   starts a tile takes slot `G + t`, one starting inside it slot `g`), each thread's 32 `float4` at
//!   `[slot][warpgroup][float4 q][thread]` (a warp writes 512 contiguous bytes per store); the two
//!   consumer warpgroups fence and take a ticket on the tile's counter (h7's `last_split`), and the
//!   CTA that arrives last adds the other contributors' slots (`stream_k_inner_ctas`) to its
//!   registers and writes C through h6s4's TMA-store epilogue, then resets the counter. One launch;
//!   nobody waits for anybody (a ticket, not a spin), so the order the CTAs run in cannot hang it.
//!
//! Prediction (before running): at 2048×11008×4096 the sixth wave shrinks from a whole tile (64 K
//! tiles) to 13–14 K tiles plus a 128 KiB partial written and up to ~5 read back: ~1.10× h6s4 there
//! (≈ 100% of cuBLAS); 8192³ 1.01–1.02× (the tail is half a wave); 4096³ and 4000³ ≈ 1.00× (the tail
//! is 88% of a wave: 0.12 of a tile to win against the partials' traffic).
//!
//! Measured (H100, `results/2026-11-23-h100-session15/call4-h10`, `ab` against h6s4, 8 rounds, every
//! tail streamed): **2048×11008×4096 1.05×** (tail 21% of a wave; 99.9% of cuBLAS against h6s4's 95%
//! in the same call), **8192³ 1.01×** (52%), but 2048×14336×4096 0.95× (79%), 4000³ 0.90× and 4096³
//! 0.89× (88%) — and 0.83× at the test shape 1100×4000×1000, whose 1–2 K tiles a CTA are mostly
//! overhead. Half of the prediction held: the tail's idle SMs are won back, but streaming a nearly
//! full wave costs far more than its partials' bytes — every CTA starts its range at another K
//! offset, so the lockstep in K that lets concurrent tiles share A's and B's panels in L2 is lost
//! (not profiled). A second call (`call5`) gave 1.06× at 2048×11008×4096 and 0.98× at 8192³: a half
//! wave gains nothing. So `stream_k_tail` streams only tails of at most a third of a wave
//! (`STREAM_K_MAX_FILL`; with a larger or no tail h10 runs h6s4's schedule), and the `gemm` entry
//! point takes h10 exactly where it streams (`gemm::h10_streams`), h6s4 elsewhere.
use super::elem::{Bf16, Elem16, F16};
use super::stream_k::stream_k_wide;
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES};
use super::tma_wide_tile::{consume_wide_tile, issue_wide_stage};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::hopper::tma_hgemm::H9S4_STAGES as STAGES;

/// `C = A · B` (f16) as h6s4, the last `tail` tiles' K iterations spread over every CTA.
///
/// # Safety
/// As `hgemm_tma_v6_s4` (tensor maps of A, B and C, 384 threads, `H9S4_DYN_SMEM` + 16 bytes of dynamic
/// shared memory, a 1-D grid); `tail` ≤ the tiles and < the grid, and `tail · ⌈k/64⌉ ≥` the grid when
/// not 0; when `tail > 0`, `ws` holds `(grid + tail) · 128 · 256` f32 (16-byte aligned) and `count`
/// `tail` u32 that are zero at launch (the kernel leaves them zero), neither used by a concurrent launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v10(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, ws: *mut f32,
                                                count: *mut u32, m: u32, n: u32, k: u32, tail: u32) {
    // SAFETY: forwarded.
    unsafe { stream_k::<F16>(tmap_a, tmap_b, tmap_c, ws, count, m, n, k, tail) }
}

/// [`hgemm_tma_v10`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v10`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v10_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, ws: *mut f32,
                                                     count: *mut u32, m: u32, n: u32, k: u32, tail: u32) {
    // SAFETY: forwarded.
    unsafe { stream_k::<Bf16>(tmap_a, tmap_b, tmap_c, ws, count, m, n, k, tail) }
}

/// The body of h10 for inputs and output of type `E`.
///
/// # Safety
/// As [`hgemm_tma_v10`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn stream_k<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, ws: *mut f32, count: *mut u32,
                              m: u32, n: u32, k: u32, tail: u32) {
    // SAFETY: the main loop as h6s4: producer and consumers walk the same whole tiles and then the same
    // segments (`stream_k_range` / `_segment` of the same `g`, `G`, `tail`), so their ring indices agree
    // and every stage use is released once per consumer warp. A `tail` the launch contract does not
    // allow is treated as 0 (every tile whole), so no range is empty or longer than a tile and the
    // iteration indices fit u32 (`stream_k_tests` checks every tail the guard admits). Workspace:
    // slot < G + tail (`stream_k_slot`), every place inside its slot (`partial_at_of`), 16-byte aligned
    // (the base is, slots are multiples of 16 bytes); counters `count[t]`, t < tail. The last-arriving
    // protocol is h7's (`last_split`: fence, named barrier 3 over the 256 consumer threads, acq_rel
    // ticket, flag in shared memory after a second barrier, fence, L2 loads): a CTA reads a slot only
    // after the ticket of every contributor of the tile, each taken after its stores; the number of
    // contributors is computed alike by all (`stream_k_inner_ctas` + 1). Epilogue as h6s4. Named
    // barrier 3 is passed the same number of times by all 256 consumer threads (segments are
    // CTA-uniform). The body is `hgemm::stream_k::stream_k_wide!` (shared with FP8's f14).
    unsafe {
        stream_k_wide! {
            stages: STAGES, stage_bytes: STAGE_BYTES, tile: (BM, BN, BK);
            maps: (tmap_a, tmap_b, tmap_c); ws: ws, count: count; shape: (m, n, k), tail: tail;
            issue: |s_stage, full, tm, tn, kt| issue_wide_stage(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt);
            consume: |ring, it, kts, tm, tn, mh, warp, lane| consume_wide_tile::<E, [[f32; 32]; 4], 1>(ring, &mut it, kts, mh);
            elem: E;
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_tma_v10, 384, 1);
launch_bounds!(hgemm_tma_v10_bf16, 384, 1);
