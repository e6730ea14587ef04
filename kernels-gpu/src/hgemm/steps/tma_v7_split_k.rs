#![cfg(lab_sm90)]
//! Hopper step h7: h5 with **split-K when the C tiles are fewer than the SMs** (prefill, M = 64–512).
//!
//! At 128×4096×4096 h6 has 16 tiles of 128×256 for 132 SMs: 116 SMs idle, and each busy one streams
//! 1/16 of the weights alone (54% of cuBLAS). h7 splits K into `splits` ranges
//! (`layout::hopper::tma_hgemm::h7_splits`: ⌊SMs / tiles⌋, at most 16): the persistent CTAs walk
//! (tile, split) units instead of tiles, the producer issuing only the unit's K tiles.
//!
//! Diff from h5:
//! * work unit `u` = tile `u % tiles`, split `u / tiles`; K tiles `kts·split .. min(kts·(split+1), k_tiles)`;
//! * epilogue with `splits == 1`: h5's (f16/bf16 pairs straight from the fragments);
//! * with `splits > 1`: each consumer thread stores its f32 accumulator pairs to the unit's slice of a
//!   workspace (`ws[split][row][col]`, rows and columns padded to whole tiles: no bounds checks), the
//!   CTA's 256 consumer threads fence and meet at named barrier 3, one takes a ticket on the tile's
//!   counter (acq_rel, as reduce v6), and the CTA that arrives last sums the splits' partials (all ≤ 16
//!   loads issued back to back, `ld.global.cg`) in the same fragment order and writes C, then resets the
//!   counter. One launch.
//!
//! Prediction: at M = 128–256 on 4096² weights the grid grows from 16–32 CTAs to 128, each streaming
//! 1/8–1/4 of a tile's K: ~1.6–1.8× h6 there (≈ 90% of cuBLAS); equal to h5 when tiles ≥ SMs.
use super::elem::{Bf16, Elem16, F16};
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES};
use super::tma_warp_specialized::warp_specialized;
use super::tma_wide_tile::{consume_wide_tile, issue_wide_stage};
use crate::launch_bounds::launch_bounds;
use super::split_k::{last_split, reset_counter, sum_splits, unit};
use crate::prim::{
    sync::sync_named,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::TensorMap,
};
use layout::hopper::tma_hgemm::{H7_STAGES as STAGES, c_fragment_rc};

/// `C = A · B` (f16) as h5, K split into `splits` ranges when the tiles are few.
///
/// # Safety
/// As h5 (tensor maps of A and B, `g_c` of m·n f16, 384 threads, `H7_DYN_SMEM` bytes), a 1-D grid of
/// at most `tiles · splits` CTAs, `1 <= splits <= 16`; when `splits > 1`, `ws` holds `splits ·
/// 128⌈m/128⌉ · 256⌈n/256⌉` f32 and `count` `⌈m/128⌉·⌈n/256⌉` u32 that are zero at launch (the kernel
/// leaves them zero), neither used by a concurrent launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v7(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                                               m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { split_k::<F16>(tmap_a, tmap_b, g_c, ws, count, m, n, k, splits) }
}

/// [`hgemm_tma_v7`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v7`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v7_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                                                    m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { split_k::<Bf16>(tmap_a, tmap_b, g_c, ws, count, m, n, k, splits) }
}

/// The body of h7 for inputs and output of type `E`.
///
/// # Safety
/// As [`hgemm_tma_v7`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn split_k<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                             m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: the main loop as h5 (both roles walk the same units and the same K tiles of each, so
    // their ring indices agree; every stage use is released once per consumer warp). Epilogue: every
    // address is inside C (checked) or inside the padded workspace (row < 128·tiles_m, col <
    // 256·tiles_n, split < splits); the last-CTA protocol as reduce v6 (fence, barrier, acq_rel
    // ticket, flag in shared memory read after a second barrier, L2 loads); named barrier 3 counts the
    // 256 consumer threads, which all reach it the same number of times (units are CTA-uniform).
    unsafe {
        warp_specialized! {
            // STAGES × 48 KiB stages, a 16-byte flag word, then the barrier rings.
            ring: let (ring, s_flag) = (STAGES, STAGE_BYTES, 16);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let tiles = (tiles_m * tiles_n).max(1); // >= 1: `u % tiles` cannot trap (the host never sends 0)
                let k_tiles = k.div_ceil(BK);
                let splits = if splits < 1 { 1 } else { splits };
                let kts = k_tiles.div_ceil(splits);
                let units = tiles * splits;
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                let mut u = block_idx_x();
                while u < units {
                    let (tm, tn, _, kt0, kt1) = unit(u, tiles, tiles_m, tiles_n, kts, k_tiles);
                    let mut kt = kt0;
                    while kt < kt1 {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        issue_wide_stage(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt);
                        it += 1;
                        kt += 1;
                    }
                    u += grid_dim_x();
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let (m_pad, n_pad) = ((tiles_m * BM) as usize, (tiles_n * BN) as usize);
                let mut it = 0u32;
                let mut u = block_idx_x();
                while u < units {
                    let (tm, tn, split, kt0, kt1) = unit(u, tiles, tiles_m, tiles_n, kts, k_tiles);
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    let r_acc = consume_wide_tile::<E, [[f32; 32]; 4], 1>(ring, &mut it, kt1 - kt0, mh);
                    let [acc0, acc1, acc2, acc3] = &r_acc;
                    if splits == 1 {
                        store_pairs::<E>(acc0, g_c, m, n, row0, n0, warp, lane);
                        store_pairs::<E>(acc1, g_c, m, n, row0, n0 + 64, warp, lane);
                        store_pairs::<E>(acc2, g_c, m, n, row0, n0 + 128, warp, lane);
                        store_pairs::<E>(acc3, g_c, m, n, row0, n0 + 192, warp, lane);
                    } else {
                        let slice = ws.add(split as usize * m_pad * n_pad);
                        store_partial(acc0, slice, n_pad, row0, n0, warp, lane);
                        store_partial(acc1, slice, n_pad, row0, n0 + 64, warp, lane);
                        store_partial(acc2, slice, n_pad, row0, n0 + 128, warp, lane);
                        store_partial(acc3, slice, n_pad, row0, n0 + 192, warp, lane);
                        let counter = count.add((tm * tiles_n + tn) as usize);
                        if last_split(counter, splits, s_flag, tid, 128) {
                            finish_block::<E>(ws, splits, m_pad * n_pad, n_pad, g_c, m, n, row0, n0, warp, lane);
                            finish_block::<E>(ws, splits, m_pad * n_pad, n_pad, g_c, m, n, row0, n0 + 64, warp, lane);
                            finish_block::<E>(ws, splits, m_pad * n_pad, n_pad, g_c, m, n, row0, n0 + 128, warp, lane);
                            finish_block::<E>(ws, splits, m_pad * n_pad, n_pad, g_c, m, n, row0, n0 + 192, warp, lane);
                            if tid == 128 {
                                reset_counter(counter);
                            }
                        }
                        // The flag is rewritten by the next unit's ticket only after every consumer
                        // thread has read it.
                        sync_named(3, 256);
                    }
                    u += grid_dim_x();
                }
            }
        }
    }
}

/// One 64×64 accumulator block to C at `(row0, col0)` as `E` pairs (h5's store, generic).
///
/// # Safety
/// `g_c` has `m·n` writable 16-bit elements, `n` even.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_pairs<E: Elem16>(acc: &[f32; 32], g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32, lane: u32) {
    for j in 0..8u32 {
        for half in 0..2u32 {
            let (r, c) = c_fragment_rc(warp, lane, j, half);
            let (row, col) = (row0 + r, col0 + c);
            if row < m && col < n {
                let i = (4 * j + 2 * half) as usize;
                // SAFETY: row < m, col + 1 < n (both even): inside C, 4-byte aligned.
                unsafe { *(g_c.add(row as usize * n as usize + col as usize) as *mut u32) = E::pack(acc[i], acc[i + 1]) };
            }
        }
    }
}

/// One 64×64 accumulator block's f32 pairs into a workspace slice (rows of `n_pad`), 8 bytes each.
///
/// # Safety
/// `slice` has `(row0 + 64) · n_pad` writable f32 past `col0 + 64`; `n_pad` even (8-byte alignment).
#[inline(always)]
unsafe fn store_partial(acc: &[f32; 32], slice: *mut f32, n_pad: usize, row0: u32, col0: u32, warp: u32, lane: u32) {
    for j in 0..8u32 {
        for half in 0..2u32 {
            let (r, c) = c_fragment_rc(warp, lane, j, half);
            let i = (4 * j + 2 * half) as usize;
            let bits = (acc[i].to_bits() as u64) | (acc[i + 1].to_bits() as u64) << 32;
            // SAFETY: inside the padded slice (caller), 8-byte aligned (even column, even n_pad).
            unsafe { *(slice.add((row0 + r) as usize * n_pad + (col0 + c) as usize) as *mut u64) = bits };
        }
    }
}

/// The last CTA's sum of one 64×64 block over the splits' slices, written to C as `E` pairs.
///
/// # Safety
/// `ws` holds `splits` slices of `slice_len` f32 (rows of `n_pad`), written by every split of this
/// tile before the ticket this CTA acquired; `g_c` as [`store_pairs`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn finish_block<E: Elem16>(ws: *mut f32, splits: u32, slice_len: usize, n_pad: usize, g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32,
                                  warp: u32, lane: u32) {
    for j in 0..8u32 {
        for half in 0..2u32 {
            let (r, c) = c_fragment_rc(warp, lane, j, half);
            let (row, col) = (row0 + r, col0 + c);
            if row < m && col < n {
                // SAFETY: every split wrote this pair before the acquired ticket (caller).
                let (x, y) = unsafe { sum_splits(ws, splits, slice_len, row as usize * n_pad + col as usize) };
                // SAFETY: as store_pairs.
                unsafe { *(g_c.add(row as usize * n as usize + col as usize) as *mut u32) = E::pack(x, y) };
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_tma_v7, 384, 1);
launch_bounds!(hgemm_tma_v7_bf16, 384, 1);
