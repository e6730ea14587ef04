//! d21's transposed tile of any height (introduced by d21, whose file explains it): the body of d21 —
//! d19's persistent split-K CTA on tiles of `2·NH` activation rows, C stored as one box per warpgroup —
//! generic over the cluster (`CLUSTER = 2`: d22, the weight boxes shared by multicast). Used by d21 and
//! d22; the stage loads and the producer are `decode_rows128`'s.
use super::decode_rows128::{partial_at, produce_units};
use super::decode_swapped::{RowsAcc, consume};
use super::elem::Elem16;
use super::split_k::{Units, last_split, reset_counter};
use super::tma_store::{stage_c_rows_trans, store_tile_box};
use super::tma_warp_specialized::warp_specialized;
use crate::util::unroll::{unroll4, unroll32};
use crate::prim::{
    global::{ld_global_cg_v4_f32, st_global_v4_f32},
    cluster::cluster_ctarank,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_wait_group0},
    wgmma::FlatWgmma,
};
use layout::hopper::tma_hgemm::{BK, D3_COLS as COLS, d7_weight_box_col, d21_stage_bytes, d21_staging_bytes, d21_stages, decode_box_row0};

/// The body of d21 for element type `E` and tiles of `2·NH` rows (`steps/decode_v21_rows.rs`'s doc);
/// with `CLUSTER = 2`, d22's: the two CTAs of a cluster walk the same units of *cluster tiles* (two vertically adjacent
/// tiles, the same weight columns and K range), CTA `rank` taking tile row `2·tm2 + rank` and loading
/// its own activation box and weight box `rank`, multicast into both; a CTA whose tile row lies past M
/// (`⌈M/rows⌉` odd) still loads its share and stores nothing. The producer ends with `Ring::drain`
/// (d11's tail) instead of a last cluster barrier.
///
/// # Safety
/// As `hgemm_decode_v21_r96` (`steps/decode_v21_rows.rs`), with `2·NH` for 96; with `CLUSTER = 2` (d22)
/// a cluster launch of 2 CTAs along x, whose grid may hold clusters with no unit (an odd `⌈M/rows⌉`
/// rounds the cluster tiles up).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn decode_rows<E: Elem16, const NH: usize, const CLUSTER: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                                                ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32)
where
    [f32; NH]: FlatWgmma,
{
    let rows = 2 * NH as u32;
    // SAFETY: the ring protocol is d3's (both roles walk the same units and K tiles, so their ring
    // indices agree; each stage is released once per consumer warp after the `wgmma`s reading it
    // retired). Workspace: slice (split, tile) is `256·NH` f32 at `(split·own_tiles + tile)·256·NH`
    // (`own_tiles = ⌈M/rows⌉·⌈N/128⌉`, `tile < own_tiles`), inside the `splits · own_tiles · rows · 128` f32 the
    // launch provides; every thread writes its own NH/4
    // float4s of its unit's slice before the ticket (`last_split`: fence, barrier 3 over the 256
    // consumer threads, acq_rel ticket), and the last CTA reads the slices only after acquiring it;
    // each slice is written once per launch. C: only by TMA stores of the tile's own box per warpgroup
    // (the TMA clips rows ≥ M and columns ≥ N), issued after the staging writes were fenced to the
    // async proxy, the staging box rewritten only after the previous store read it (`store_tile_box`).
    // Cluster (d22): both CTAs walk the same units and K tiles, so their rings agree stage for stage;
    // each stage is filled by both producers and released by all 16 consumer warps of the pair
    // (`consume::<_, _, 2>`) before either refills it; each producer's tail (`drain`) keeps its CTA
    // alive until no peer can arrive on its barriers or multicast into it (d11's proof). A tile row
    // past M stores nothing and takes no counter (its index would lie outside `count`).
    unsafe {
        warp_specialized! {
            cluster: CLUSTER, producer_threads: 1, final_sync: false;
            ring: let (ring, s_extra) = (d21_stages(rows), d21_stage_bytes(rows), d21_staging_bytes(rows) + 16);
            thread: tid, warpgroup: wg;
            setup: {
                let s_flag = s_extra + d21_staging_bytes(rows);
                let (tiles_m, tiles_n) = (m.div_ceil(rows), n.div_ceil(COLS));
                // Cluster tiles: CLUSTER tile rows each (d21: the tiles themselves); the workspace and
                // the counters are the tiles'.
                let g = Units::new(tiles_m.div_ceil(CLUSTER), tiles_n, k, BK, splits);
                let own_tiles = if CLUSTER == 1 { g.tiles } else { tiles_m * tiles_n };
                let (splits, units) = (g.splits, g.units);
                let rank = if CLUSTER > 1 { cluster_ctarank() } else { 0 };
                let (u0, u_step) = (block_idx_x() / CLUSTER, grid_dim_x() / CLUSTER);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let end = produce_units::<CLUSTER>(ring, rows, tmap_a, tmap_b, m, n, (u0, u_step), g, rank);
                if CLUSTER > 1 {
                    ring.drain(end);
                }
            }
            consumer(mh): {
                let (warp, lane, t) = ((tid / 32) % 4, lane_id(), tid % 128);
                let c = tid - 128; // this thread among the 256 consumer threads
                let s_c = s_extra + mh * (rows * 128);
                let mut it = 0u32;
                let mut u = u0;
                while u < units {
                    let (tm2, tn, split, kt0, kt1) = g.unit(u);
                    let tm = CLUSTER * tm2 + rank;
                    let (row0, col0) = (tm * rows, tn * COLS + 64 * mh);
                    let RowsAcc(mut r_acc) = consume::<E, RowsAcc<NH>, CLUSTER>(ring, &mut it, kt1 - kt0, mh);
                    // d21: every tile row lies inside M (the check folds away).
                    let inside = CLUSTER == 1 || tm < tiles_m;
                    let mut store = splits == 1 && inside;
                    if splits > 1 && inside {
                        let tile = tm * tiles_n + tn;
                        let slice_of = |sp: u32| ws.add((sp * own_tiles + tile) as usize * (256 * NH));
                        let own = slice_of(split);
                        unroll32!(q => {
                            if (q as usize) < NH / 4 {
                                let e = 4 * q as usize;
                                st_global_v4_f32(own.add(partial_at(q, c)), [r_acc[e], r_acc[e + 1], r_acc[e + 2], r_acc[e + 3]]);
                            }
                        });
                        let counter = count.add(tile as usize);
                        if last_split(counter, splits, s_flag, tid, 128) {
                            // Every split's sums in split order, this CTA's own read back too.
                            r_acc = [0.0f32; NH];
                            let mut sp = 0;
                            while sp < splits {
                                let slice = slice_of(sp);
                                // One float4 of loads after another, all issued before the adds
                                // (one L2 round trip a split).
                                let mut r_part = [0.0f32; NH];
                                unroll32!(q => {
                                    if (q as usize) < NH / 4 {
                                        let v = ld_global_cg_v4_f32(slice.add(partial_at(q, c)));
                                        let e = 4 * q as usize;
                                        (r_part[e], r_part[e + 1], r_part[e + 2], r_part[e + 3]) = (v[0], v[1], v[2], v[3]);
                                    }
                                });
                                unroll32!(q => {
                                    if (q as usize) < NH / 4 {
                                        unroll4!(i => {
                                            let e = (4 * q + i) as usize;
                                            r_acc[e] += r_part[e];
                                        });
                                    }
                                });
                                sp += 1;
                            }
                            if tid == 128 {
                                reset_counter(counter);
                            }
                            store = true;
                        }
                        // The flag is rewritten by the next unit's ticket only after all 256 consumer
                        // threads met at barrier 3 again, so each has read it.
                    }
                    if store {
                        let (row_shift, col_shift) = (row0 - decode_box_row0(m, row0, rows), (col0 - d7_weight_box_col(n, col0)) & 63);
                        store_tile_box(tmap_c, s_c, row0, col0, mh, t == 0, || {
                            stage_c_rows_trans::<E, NH>(&r_acc, s_c, warp, lane, row_shift, col_shift);
                        });
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

/// The entry points of one tile height, f16 and bf16: `decode_rows_entries!(CLUSTER, rows, NH, f16_name,
/// bf16_name)` — d21's (`CLUSTER = 1`) or d22's (`2`: `.reqnctapercluster 2, 1, 1` added), written once.
/// Expands in a step file that imports `decode_rows`, `Bf16`, `F16`, `TensorMap` and `launch_bounds`
/// (d22 also `cluster_dims`).
macro_rules! decode_rows_entries {
    (1, $rows:literal, $nh:literal, $f16:ident, $bf16:ident) => {
        $crate::hgemm::decode_rows::decode_rows_entries!(@fns 1, $nh, $f16, $bf16,
            #[doc = concat!("d19 on tiles of ", $rows, " activation rows (the file's doc): `C (M×N) = A (M×K) · B (K×N)`, f16, f32 accumulation.")]
            ///
            /// # Safety
            #[doc = concat!("sm_90a; 384 threads, `d21_dyn_smem(", $rows, ")` bytes of dynamic shared memory, a 1-D grid of at most `splits · ⌈M/", $rows, "⌉ · ⌈N/128⌉` CTAs;")]
            #[doc = concat!("`tmap_a` describes A (M×K, box `decode_box_rows(M, ", $rows, ")` rows × 64, `SWIZZLE_128B`), `tmap_b` B (K×N, box 64 × 64,")]
            #[doc = concat!("`SWIZZLE_128B`), `tmap_c` C (M×N, box ", $rows, " rows × 64, `SWIZZLE_128B`), all in device memory and valid for the launch;")]
            #[doc = concat!("`ws` holds `splits · ⌈M/", $rows, "⌉·", $rows, " · ⌈N/128⌉·128` f32 (16-byte aligned) and `count` one counter per tile, zero (each tile's")]
            /// last CTA resets it); `1 ≤ splits ≤ 16`. `g_c` (C by pointer, d7's argument list) is not used.
        );
    };
    (2, $rows:literal, $nh:literal, $f16:ident, $bf16:ident) => {
        cluster_dims!($f16, 2);
        cluster_dims!($bf16, 2);
        $crate::hgemm::decode_rows::decode_rows_entries!(@fns 2, $nh, $f16, $bf16,
            #[doc = concat!("d21 on ", $rows, "-row tiles in clusters of 2 sharing the weight boxes by multicast (the file's doc), f16.")]
            ///
            /// # Safety
            #[doc = concat!("As `hgemm_decode_v21_r", $rows, "`, launched in clusters of 2 CTAs along x (`.reqnctapercluster 2, 1, 1`; the grid's x even,")]
            /// at most `2 · splits · ⌈⌈M/rows⌉/2⌉ · ⌈N/128⌉` CTAs: clusters beyond the units get none).
        );
    };
    (@fns $cluster:literal, $nh:literal, $f16:ident, $bf16:ident, $(#[$doc:meta])*) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $f16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, _g_c: *mut u16, ws: *mut f32,
                                               count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
            // SAFETY: forwarded (the body's proof).
            unsafe { decode_rows::<F16, $nh, $cluster>(tmap_a, tmap_b, tmap_c, ws, count, m, n, k, splits) }
        }

        #[doc = concat!("[`", stringify!($f16), "`] on bf16.")]
        ///
        /// # Safety
        #[doc = concat!("As [`", stringify!($f16), "`], the tensor maps describing bf16 matrices.")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, _g_c: *mut u16, ws: *mut f32,
                                                count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
            // SAFETY: forwarded.
            unsafe { decode_rows::<Bf16, $nh, $cluster>(tmap_a, tmap_b, tmap_c, ws, count, m, n, k, splits) }
        }

        launch_bounds!($f16, 384, 1);
        launch_bounds!($bf16, 384, 1);
    };
}
pub(crate) use decode_rows_entries;
