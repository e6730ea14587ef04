#![cfg(lab_sm90)]
//! Decode step d16 — d15's CTA (one consumer warpgroup, the first stages issued before the block
//! barrier) on d9's **64-row** activation tiles, for 16 < M ≤ 64.
//!
//! Why: d13–d15 took ~1.3 µs off a launch at M ≤ 16 by sizing the activation tile to 16 rows,
//! dropping the second consumer's exchange and issuing the first loads early. At 16 < M ≤ 64 the
//! tile has to be 64 rows (a 16-row tile would read the weights once per 16 rows), but the other two
//! changes apply: d9 runs 64×4096² at 78% of a copy of the weights (cuBLAS 82%).
//!
//! Diff from d15: d4's stage (a 64-row activation box, 8 KiB, and the weight box: 16 KiB, 12 stages),
//! `m64n64k16` into 32 accumulators, the K loop of d3 (one `wgmma` group in flight, `consume` with one
//! consumer's weight box), the 16 pairs of d4's epilogue stored straight from the accumulators.
//!
//! Prediction (before running): d9's fixed cost less ~0.8–1.0 µs (the exchange of 32 values and its
//! two named barriers, the late first loads): 64×4096² 16.7 → ~15.8 µs (≈ 1.05× d9, 78% → ~83% of the
//! copy), 32×4096² likewise, 64×4096×14336 1.01–1.02×; slower if one warpgroup cannot keep up with
//! four `m64n64k16` per 8 KiB stage.
//!
//! Measured (H100, `results/2026-11-26-h100-session24/call11`, d9 and d16 alternately, two rounds):
//! **1.00–1.02× d9, far below the prediction**: 64×4096×64 5.88 → 5.55 µs, 64×4096² 17.10 → 17.03 µs
//! (78.0–78.3% → 78.4–78.5% of the copy), 32×4096² 79.0% (d9 77.7–78.3%), 17 / 48 × 4096² 78.7–79.4%
//! (78.1–79.2%), 32 / 64 × 4096×14336 94.4–94.7% (92.8–93.6%). With 64 activation rows the exchange is
//! not what d9 pays: at one K tile d16 still takes 5.5 µs where d15 takes 4.5 at M = 16, so the cost
//! follows the tile's 64 rows (the 8 KiB activation box in every stage, 32 stores a thread). Chosen in
//! d9's place for 16 < M ≤ 64 (`gemm::default_step`): never slower at the eight shapes measured.
use super::decode_v3_tma_swapped::{consume, issue_stage, place, store_pair};
use super::elem::{Bf16, Elem16, F16};
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::warp_specialized;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::TensorMap,
};
use crate::util::unroll::{unroll2, unroll8};
use layout::hopper::tma_hgemm::{BK, D3_ROWS as ROWS, D4_COLS as COLS, D4_STAGE_BYTES as STAGE_BYTES, D4_STAGES as STAGES, decode_a_box_row0};

/// `C = A · B` (f16) as d15 on 64-row activation tiles.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × `decode_a_box_rows(m)` rows) and B (K×N f16, box 64 N × 64 K),
/// both `SWIZZLE_128B`; `g_c` of m·n f16; 256 threads, `D16_DYN_SMEM` bytes; a 1-D grid of at most
/// ⌈m/64⌉·⌈n/64⌉ CTAs; launched with or without programmatic stream serialization.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v16`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v16`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v16_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// The body of d16 for inputs and output of type `E`.
///
/// # Safety
/// As [`hgemm_decode_v16`].
#[inline(always)]
unsafe fn decode<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    crate::prim::sync::griddepcontrol_launch_dependents();
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: as d15's body. Each stage holds the activation box and one weight box (`issue_stage::<1>`,
    // d4's 16 KiB stage); the consumer's `consume` (d3's loop, weight box 0, no cluster) releases every
    // stage once its group retired, the 4 consumer warps being the empty barriers' count. The first
    // `early` stages are issued by thread 0 after it initialized and fenced the barriers, and the
    // producer loop starts after them. C addresses are checked in `store_pair`.
    unsafe {
        warp_specialized! {
            consumers: 1, registers: (40, 232), first: {
                if block_idx_x() < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(block_idx_x(), tiles_m, tiles_n);
                    let mut kt = 0;
                    while kt < early {
                        let (s_stage, full, _, _) = ring.at(kt);
                        issue_stage::<1>(s_stage, full, tmap_a, tmap_b, m, tm * ROWS, tn * COLS, kt);
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
                        issue_stage::<1>(s_stage, full, tmap_a, tmap_b, m, tm * ROWS, tn * COLS, kt);
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
                    let r_acc = consume::<E, 1>(ring, &mut it, k_tiles, 0);
                    let (row0, col0) = (tm * ROWS, tn * COLS);
                    let a_row0 = decode_a_box_row0(m, row0); // accumulator column r is row a_row0 + r
                    unroll2!(h => { unroll8!(q => {
                        let p = 8 * h + q;
                        let (c, r) = place(warp, lane, p);
                        store_pair::<E>(g_c, m, n, row0, a_row0 + r, col0 + c, r_acc[2 * p as usize], r_acc[2 * p as usize + 1]);
                    })});
                    tile += grid_dim_x();
                }
            }
        }
    }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v16, 256, 1);
launch_bounds!(hgemm_decode_v16_bf16, 256, 1);
