#![cfg(lab_sm90)]
//! Decode step d15 — d14 with its **first stages issued by thread 0 right after it initializes the
//! ring**, before the block barrier, instead of by the producer after it.
//!
//! Why: in a decode launch the first weight box's DRAM latency is on the critical path, and d14's
//! producer issues it only after the block barrier, `setmaxnreg.dec` and its first tile's coordinates
//! (a division): ~200–300 cycles in which no weight byte is in flight. d14 reads 1×4096² at 84.1–84.4%
//! of a copy of the weights; 85% needs ~0.15 µs less.
//!
//! Diff from d14: `warp_specialized! { consumers: 1, registers: (40, 232), first: { … }; … }`. In that
//! block thread 0 (the producer thread) computes its first tile and issues its first `min(STAGES,
//! K tiles)` stages; the producer loop then starts after them. Sound because the same thread
//! initialized the barriers and fenced the initialization for the async proxy before issuing, and
//! the consumers touch the barriers only after the block barrier.
//!
//! Prediction (before running): 0.1–0.15 µs less per launch at every K: 1 / 16 × 4096² ~1.007–1.01× d14
//! (84.3% → ~85% of the copy); nothing else changes.
//!
//! Measured (H100, `results/2026-11-26-h100-session24/call8`, against d14 in the same call, two rounds
//! each): 1×4096² 15.52–15.57 → **15.33–15.36 µs: 84.9–85.0% of the copy** (d14 83.9–84.0%), 16×4096²
//! 84.1–84.6% (83.5–83.6%), 8×4096² 84.2% (84.2%), 1 / 16 × 4096×14336 96.2–97.0% (95.6–96.2%), 1×4096×64
//! 4.48–4.59 µs (4.59–4.67); bf16 84.9 / 84.0 / 96.7%. As predicted at M = 1 (1.012×), less at M = 8–16.
//! memcheck / synccheck / racecheck 0 / 0 / 0 (racecheck's one report in that run is inside cuBLAS's
//! `nvjet` kernel). The entry point's step for M ≤ 16 where d4's tiles fit one wave (`gemm::d15_fits`).
use super::decode_v14_one_consumer::{consume, issue_stage};
use super::decode_v3_tma_swapped::store_pair;
use super::elem::{Bf16, Elem16, F16};
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::warp_specialized;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::TensorMap,
};
use crate::util::unroll::unroll4;
use layout::fragment::WgmmaAcc;
use layout::hopper::tma_hgemm::{BK, D4_COLS as COLS, D13_ROWS as ROWS, D13_STAGE_BYTES as STAGE_BYTES, D14_STAGES as STAGES, decode_box_row0};

/// `C = A · B` (f16) as d14, the first stages issued before the block barrier.
///
/// # Safety
/// As `hgemm_decode_v14` (256 threads, `D14_DYN_SMEM` bytes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v15(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v15`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v15`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v15_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// The body of d15 for inputs and output of type `E`.
///
/// # Safety
/// As [`hgemm_decode_v15`].
#[inline(always)]
unsafe fn decode<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    crate::prim::sync::griddepcontrol_launch_dependents();
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: as d14's body. The first `early` stages of this CTA's first tile are issued by thread 0
    // (the producer thread) after it initialized and fenced the barriers and before anyone else uses
    // them; they are the stages the producer loop would have issued first (running indices 0 ..
    // early, all on their first use: nothing to wait for), and the loop starts after them.
    unsafe {
        warp_specialized! {
            consumers: 1, registers: (40, 232), first: {
                if block_idx_x() < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(block_idx_x(), tiles_m, tiles_n);
                    let mut kt = 0;
                    while kt < early {
                        let (s_stage, full, _, _) = ring.at(kt);
                        issue_stage(s_stage, full, tmap_a, tmap_b, m, tm * ROWS, tn * COLS, kt);
                        kt += 1;
                    }
                }
            };
            ring: let (ring, _) = (STAGES, STAGE_BYTES, 0);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(ROWS), n.div_ceil(COLS));
                let k_tiles = k.div_ceil(BK);
                let early = if k_tiles < STAGES { k_tiles } else { STAGES };
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let (mut it, mut skip) = (early, early); // the first tile's first stages are in flight
                let mut tile = block_idx_x();
                while tile < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let mut kt = skip;
                    while kt < k_tiles {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        issue_stage(s_stage, full, tmap_a, tmap_b, m, tm * ROWS, tn * COLS, kt);
                        it += 1;
                        kt += 1;
                    }
                    skip = 0;
                    tile += grid_dim_x();
                }
            }
            consumer(_mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let mut it = 0u32;
                let mut tile = block_idx_x();
                while tile < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let r_acc = consume::<E>(ring, &mut it, k_tiles);
                    let (row0, col0) = (tm * ROWS, tn * COLS);
                    let a_row0 = decode_box_row0(m, row0, ROWS); // accumulator column r is row a_row0 + r
                    unroll4!(p => {
                        let (c, r) = WgmmaAcc::<{ ROWS }>::warp_lane_rc(warp, lane, 2 * p);
                        store_pair::<E>(g_c, m, n, row0, a_row0 + r, col0 + c, r_acc[2 * p as usize], r_acc[2 * p as usize + 1]);
                    });
                    tile += grid_dim_x();
                }
            }
        }
    }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v15, 256, 1);
launch_bounds!(hgemm_decode_v15_bf16, 256, 1);
