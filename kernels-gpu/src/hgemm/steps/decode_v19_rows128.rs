#![cfg(lab_sm90)]
//! Decode-ladder step d19 — d7 on tiles of **128 activation rows** (`wgmma.m64n128k16`), the splits of
//! K summed in the accumulators' own order and written by TMA stores.
//!
//! Why: at 256×4096×14336 (the sweep's only row under 0.90× in sessions 25–26, bf16 after a
//! compute-heavy shape) d7 runs 128 CTAs of 64 rows × 128 columns, each consumer warpgroup issuing
//! `wgmma.m64n64k16` on a 64-column weight box and the stage's 64-row activation box. `ncu`
//! (`results/2026-11-26-h100-session27/call2`): 52.1 µs at 1.73 GHz with no unit saturated — tensor
//! pipe 71%, L2 75%, DRAM 73% — and cuBLAS's `nvjet_sm90_tst_128x64_64x8_1x2` (the same tile, clusters
//! of 2) 60 µs with the L2 at 90%. Every byte of a d7 stage feeds 64 rows of MMAs: each 8 KiB weight
//! box is read from the L2 once per 64-row tile row (4 times at M = 256) and each stage's shared memory
//! is written 24 KiB and read 32 KiB by the `wgmma`s per 1 MFLOP.
//!
//! Diff from d7 (`decode_swapped::decode::<E, 1, true>`):
//! * the tile is 128 rows × 128 columns ([`D19_ROWS`]): a stage is the 128-row activation box (16 KiB)
//!   and the two weight boxes, 32 KiB; the ring has 6 stages beside 32 KiB of staging;
//! * each consumer warpgroup runs `wgmma.m64n128k16` on its weight box and all 128 rows (64
//!   accumulators a thread: `decode_swapped::consume` on `[[f32; 32]; 2]`) — twice the MMA work per
//!   weight byte and per shared-memory byte of d7's stage;
//! * with half as many tiles the grid needs splits of K sooner (`persistent_splits`: 2 at
//!   256×4096×K), so the split tiles get d7's epilogue too: each split writes its 64 sums a thread in
//!   the accumulators' order (16 `st.global.v4`, a warp's 512 contiguous bytes), the last CTA of the
//!   tile to take a ticket adds every split's in split order (its own from registers: the result does
//!   not depend on which CTA finishes last), converts, stages two 64×64 boxes per warpgroup with
//!   `stmatrix.trans` and stores them by TMA (`tma_store::store_tile_rows`); d7 and d3 wrote split
//!   tiles with 16-bit stores;
//! * ragged M and N as d7: the last tile's activation box moved up to end at M, a weight box that would
//!   reach past N moved left to end at N, and the staged rows and columns rotated so the previous
//!   tile's fall past M or N, where the TMA store clips them — across d19's two row boxes
//!   (`layout::hopper::tma_hgemm::d19_staging_row`, `tma_store::stage_c_rows128_trans`). The first form
//!   left the box in place with its rows ≥ M zero-filled: 257×4096² ran at 68% of cuBLAS (`call5`).
//!
//! Prediction (before running): per CTA a stage's MMAs take ~512 tensor cycles against ~640 cycles of
//! shared-memory traffic (32 KiB written by the TMA, 48 KiB read by the two warpgroups' `wgmma`s),
//! against d7's ~256 / ~437 per half the work: with 2 splits of 112 K tiles at 256×4096×14336, ~72 k
//! cycles against d7's ~98 k, and the weights read from the L2 twice instead of four times. Capped by
//! the DRAM (125 MB in ≥ 41 µs at the copy's ~3.05 TB/s): **1.10–1.20× d7 at 256×4096×14336** (47–43
//! µs), ≈ 1.05–1.15× at 512×4096² and 256×4096² (2 splits of 32 K tiles), below d7 at M = 128 (one
//! tile row of 128 and 4 splits: more partials than d7 writes none of).
//!
//! Measured (H100, `results/2026-11-26-h100-session27/call3`, `call4`; `ab` against d7, 8 rounds, f16 /
//! bf16): **where the tiles split K, slower** — 256×4096×14336 0.95–0.97× (`ncu`: 51.6 µs at 1.77 GHz,
//! d7 52.1 at 1.73, the same 70% tensor pipe; the shared-memory bound of the prediction was not what
//! held d7), 256×4096² 0.77–0.79×, 1024³ 0.61–0.65×: two splits cost ~5 µs of partial sums, ticket and
//! fences (issuing the 16 loads of a partial together changed nothing). **Where they do not and d7's
//! 64-row tiles take more than one round, faster**: 384×4096² 1.17–1.18×, 512×4096² 1.15–1.17×,
//! 512×4096×14336 1.20×, 384×4096×11008 1.26–1.36×, 256×14336×4096 1.17–1.19×. So the gain is d7's
//! partial second round, not bytes per MMA; the entry point takes d19 only where its tiles fill one
//! wave with no split (`gemm::d19_fits`).
//! Ragged M (`call6`): with the box moved up and the rows rotated, 257×4096² went from 68% to 90.8% of
//! cuBLAS, 1.16–1.17× d7 at 257, 300, 448 and 500 rows.
use super::decode_rows128::{PARTIAL_F32, add_into, partial_at, produce_units, store_rows128};
use super::decode_swapped::consume;
use super::elem::{Bf16, Elem16, F16};
use super::split_k::{Units, last_split, reset_counter};
use super::tma_warp_specialized::warp_specialized;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    global::{ld_global_cg_v4_f32, st_global_v4_f32},
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_wait_group0},
};
use crate::util::unroll::{unroll2, unroll8};
use layout::hopper::tma_hgemm::{BK, C_BOX_BYTES, D19_ROWS as ROWS, D19_STAGE_BYTES, D19_STAGES, D19_STAGING_BYTES, D3_COLS as COLS};

/// The body of d19 for element type `E` (the file's doc).
///
/// # Safety
/// As [`hgemm_decode_v19`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn decode_rows128<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, ws: *mut f32, count: *mut u32, m: u32,
                                    n: u32, k: u32, splits: u32) {
    // SAFETY: the ring protocol is d3's (both roles walk the same units and K tiles, so their ring
    // indices agree; each stage is released once per consumer warp after the `wgmma`s reading it
    // retired). Workspace: slice (split, tile) is `PARTIAL_F32` f32 at `(split·tiles + tile)·PARTIAL_F32`,
    // inside the `splits · tiles · 128 · 128` f32 the launch provides; every thread writes its own 16
    // float4s of its unit's slice before the ticket (`last_split`: fence, barrier 3 over the 256
    // consumer threads, acq_rel ticket), and the last CTA reads the other slices only after acquiring
    // it; each slice is written once per launch. C: only by TMA stores of the tile's own boxes (the
    // TMA clips rows ≥ M and columns ≥ N), issued after the staging writes were fenced to the async
    // proxy, the staging area rewritten only after the previous stores read it (`store_tile_rows`).
    unsafe {
        warp_specialized! {
            ring: let (ring, s_extra) = (D19_STAGES, D19_STAGE_BYTES, D19_STAGING_BYTES + 16);
            thread: tid, warpgroup: wg;
            setup: {
                let s_flag = s_extra + D19_STAGING_BYTES;
                let (tiles_m, tiles_n) = (m.div_ceil(ROWS), n.div_ceil(COLS));
                let g = Units::new(tiles_m, tiles_n, k, BK, splits);
                let (tiles, splits, units) = (g.tiles, g.splits, g.units);
                let (u0, u_step) = (block_idx_x(), grid_dim_x());
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce_units::<1>(ring, ROWS, tmap_a, tmap_b, m, n, (u0, u_step), g, 0);
            }
            consumer(mh): {
                let (warp, lane, t) = ((tid / 32) % 4, lane_id(), tid % 128);
                let c = tid - 128; // this thread among the 256 consumer threads
                let s_c = s_extra + mh * (2 * C_BOX_BYTES);
                let mut it = 0u32;
                let mut u = u0;
                while u < units {
                    let (tm, tn, split, kt0, kt1) = g.unit(u);
                    let (row0, col0) = (tm * ROWS, tn * COLS + 64 * mh);
                    let mut r_acc: [[f32; 32]; 2] = consume::<E, _, 1>(ring, &mut it, kt1 - kt0, mh);
                    let mut store = splits == 1;
                    if splits > 1 {
                        let tile = tm * tiles_n + tn;
                        let own = ws.add((split * tiles + tile) as usize * PARTIAL_F32);
                        unroll2!(h => { unroll8!(q => {
                            let a = &r_acc[h as usize];
                            let e = 4 * q as usize;
                            st_global_v4_f32(own.add(partial_at(8 * h + q, c)), [a[e], a[e + 1], a[e + 2], a[e + 3]]);
                        })});
                        let counter = count.add(tile as usize);
                        if last_split(counter, splits, s_flag, tid, 128) {
                            // Every split's sums in split order, this CTA's own from its registers;
                            // another split's 16 loads issued together (one L2 round trip), then added.
                            let mut r_sum = [[0.0f32; 32]; 2];
                            let mut sp = 0;
                            while sp < splits {
                                if sp == split {
                                    add_into(&mut r_sum, &r_acc);
                                } else {
                                    let slice = ws.add((sp * tiles + tile) as usize * PARTIAL_F32);
                                    let mut r_other = [[0.0f32; 32]; 2];
                                    unroll2!(h => { unroll8!(q => {
                                        let v = ld_global_cg_v4_f32(slice.add(partial_at(8 * h + q, c)));
                                        let (o, e) = (&mut r_other[h as usize], 4 * q as usize);
                                        (o[e], o[e + 1], o[e + 2], o[e + 3]) = (v[0], v[1], v[2], v[3]);
                                    })});
                                    add_into(&mut r_sum, &r_other);
                                }
                                sp += 1;
                            }
                            r_acc = r_sum;
                            if tid == 128 {
                                reset_counter(counter);
                            }
                            store = true;
                        }
                        // The flag is rewritten by the next unit's ticket only after all 256 consumer
                        // threads met at barrier 3 again, so each has read it.
                    }
                    if store {
                        store_rows128::<E>(&r_acc, tmap_c, s_c, m, n, row0, col0, mh, warp, lane, t == 0);
                    }
                    u += u_step;
                }
                if t == 0 {
                    // The TMA stores have finished before the CTA (and its staging boxes) goes away.
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

/// d7 on 128-row tiles (the file's doc): `C (M×N) = A (M×K) · B (K×N)`, f16, f32 accumulation.
///
/// # Safety
/// sm_90a; 384 threads, `D19_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of at most `splits ·
/// ⌈M/128⌉ · ⌈N/128⌉` CTAs; `tmap_a` describes A (M×K f16, box `decode_box_rows(M, 128)` rows × 64,
/// `SWIZZLE_128B`), `tmap_b` B (K×N, box 64 × 64, `SWIZZLE_128B`), `tmap_c` C (M×N, box 64 × 64,
/// `SWIZZLE_128B`), all in device memory and valid for the launch; `ws` holds `splits · ⌈M/128⌉·128 ·
/// ⌈N/128⌉·128` f32 (16-byte aligned) and `count` one counter per 128×128 tile, zero (each tile's last
/// CTA resets it); `1 ≤ splits ≤ 16`. `g_c` (C by pointer, the shared argument list of d7) is not used.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v19(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, _g_c: *mut u16,
                                                   ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded (the body's proof).
    unsafe { decode_rows128::<F16>(tmap_a, tmap_b, tmap_c, ws, count, m, n, k, splits) }
}

/// [`hgemm_decode_v19`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v19`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v19_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, _g_c: *mut u16,
                                                        ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode_rows128::<Bf16>(tmap_a, tmap_b, tmap_c, ws, count, m, n, k, splits) }
}

launch_bounds!(hgemm_decode_v19, 384, 1);
launch_bounds!(hgemm_decode_v19_bf16, 384, 1);
