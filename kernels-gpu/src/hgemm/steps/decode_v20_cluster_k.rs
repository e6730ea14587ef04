#![cfg(lab_sm90)]
//! Decode-ladder step d20 — d19 with each tile's K split over a **cluster of 2 CTAs**, the halves added
//! through distributed shared memory instead of a global workspace.
//!
//! Why: where d19's 128×128 tiles are too few for the SMs (64 at 256×4096×K) it splits K in two, and
//! the split costs it ~5 µs a launch (`results/2026-11-26-h100-session27/call7`, `ncu` at 256×4096²:
//! 32.2 k active cycles a CTA for 32 K tiles, against 40.1 k for the 64 K tiles of 512×4096² without a
//! split — ~12 k cycles beyond the K loop's share, tensor pipe 49% against 79%): 64 KiB of partial sums
//! per CTA written to global memory, a `fence.acq_rel.gpu` behind them, the ticket's atomic round trip,
//! a second fence, and the last CTA's 64 KiB read back from the L2. d7 splits nothing there and stays
//! ahead (256×4096² 1.3×, 256×4096×14336 1.03–1.05×).
//!
//! Diff from d19 (`decode_rows128` holds what both run: the stage load, the sums' layout, the epilogue):
//! * the two CTAs of a cluster take one tile, rank r its K tiles `h8_k_range(k_tiles, r, 2)`: a grid of
//!   2 · tiles (`Grid::ClusterSplitK`), each ring its own (`cluster_local`);
//! * after the K loops every thread of both CTAs meets at a cluster barrier (both rings are idle: every
//!   stage's `wgmma`s retired, every TMA load landed), rank 1's consumers write their 64 sums a thread
//!   into rank 0's ring with `st.shared::cluster.v4` (a warp's 512 contiguous bytes: `partial_at`),
//!   a second cluster barrier publishes them, and rank 0 adds them to its own in rank order and stores
//!   the tile by TMA as d19 does; rank 1 stores nothing;
//! * no workspace, no counters, no global fences.
//!
//! Prediction (before running): the ~12 k cycles of d19's split become two cluster barriers and 64 KiB
//! over the SM-to-SM network (~2–3 k cycles): at 256×4096² ~25 k cycles against d7's 28 k, **1.05–1.15×
//! d7** (d19 0.77×); at 256×4096×14336 **1.03–1.08× d7** (d19's K loop matched d7's in `ncu`, 51.6
//! against 52.1 µs, and loses its split's ~2–4 µs); 1024³ still below d7 (8 K tiles a CTA: the fixed
//! cost of a 128-row tile dominates; d19 0.61×).
//!
//! Measured (H100, `results/2026-11-26-h100-session27/call8`; `ab`, 8 rounds): **wrong** — against d19
//! 1.00× at 256×4096² and **0.87× at 256×4096×14336**; against d7 0.78–0.80× at 256×4096², 0.85–0.87×
//! at 256×4096×14336, 0.64–0.65× at 1024³; faster only at 128-row shapes where d7's tiles split or take
//! two rounds (128×4096² 1.15× d7, 1.03× d19). `ncu` at 256×4096×14336: 62.5–63.2 µs at 1.71–1.72 GHz,
//! 95–98 k active cycles a CTA, tensor pipe 57–59% (d19 with its global split: 51.6 µs, 69–71%). So the
//! ~12 k cycles d19's split costs are not its partial sums' round trip through the L2: with that gone
//! the K loop itself ran slower in clusters. Correct (`--check` at ten shapes, f16 and bf16; memcheck,
//! synccheck 0 errors; racecheck's one report is in cuBLAS's `nvjet` kernel). Kept as a measured
//! negative; the entry point does not choose it.
use super::decode_rows128::{add_into, issue, partial_at, store_rows128};
use super::decode_swapped::consume;
use super::elem::{Bf16, Elem16, F16};
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::warp_specialized;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    cluster::{cluster_ctarank, cluster_sync, mapa_shared_cluster, st_shared_cluster_v4_f32},
    cluster_dims,
    shared::ld_shared_v4_f32,
    thread::{block_idx_x, lane_id},
    tma::{TensorMap, cp_async_bulk_wait_group0},
};
use crate::util::unroll::{unroll2, unroll8};
use layout::hopper::tma_hgemm::{BK, C_BOX_BYTES, D19_ROWS as ROWS, D19_STAGE_BYTES, D19_STAGES, D19_STAGING_BYTES, D3_COLS as COLS, h8_k_range};

/// CTAs per cluster: the splits of K.
const CLUSTER: u32 = 2;

/// The body of d20 for element type `E` (the file's doc).
///
/// # Safety
/// As [`hgemm_decode_v20`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn decode_cluster_k<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: each CTA's ring is d19's protocol on its own K range (the producer and both consumer
    // warpgroups walk the same K tiles; every stage released by all 8 consumer warps). The exchange:
    // rank 0's ring (its first 64 KiB, two stages) is written by rank 1 only after the first cluster
    // barrier, which every thread of both CTAs passes after its K loop — rank 0's consumers have waited
    // for every stage's TMA load and retired every `wgmma` (`consume` ends with `wait_group 0`), its
    // producer has issued its last load — and read by rank 0 only after the second, whose
    // release/acquire orders rank 1's `st.shared::cluster` before the reads; each of rank 1's 256
    // consumer threads writes its own 16 disjoint 16-byte pieces (`partial_at` < 64 KiB ≤ two stages).
    // Rank 1 reads nothing remote; the skeleton's last cluster barrier keeps both CTAs alive until every
    // access is done (`consumer_meets: 2`: the producer warpgroup meets both barriers after its block).
    // C: only rank 0's TMA stores, as d19's.
    unsafe {
        warp_specialized! {
            cluster_local: CLUSTER, consumer_meets: 2;
            ring: let (ring, s_extra) = (D19_STAGES, D19_STAGE_BYTES, D19_STAGING_BYTES + 16);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(ROWS), n.div_ceil(COLS));
                let (tm, tn) = persistent_tile(block_idx_x() / CLUSTER, tiles_m, tiles_n);
                let rank = cluster_ctarank();
                let (kt0, kt1) = h8_k_range(k.div_ceil(BK), rank, CLUSTER);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                let mut kt = kt0;
                while kt < kt1 {
                    ring.wait_empty(it);
                    let (s_stage, full, _, _) = ring.at(it);
                    issue(ROWS, s_stage, full, tmap_a, tmap_b, m, n, tm * ROWS, tn * COLS, kt);
                    it += 1;
                    kt += 1;
                }
            }
            consumer(mh): {
                let (warp, lane, t) = ((tid / 32) % 4, lane_id(), tid % 128);
                let c = tid - 128; // this thread among the 256 consumer threads
                let mut it = 0u32;
                let mut r_acc: [[f32; 32]; 2] = consume::<E, _, 1>(ring, &mut it, kt1 - kt0, mh);
                let s_sums = ring.at(0).0; // rank 0's first two stages, idle after the first barrier
                cluster_sync();
                if rank == 1 {
                    let peer = mapa_shared_cluster(s_sums, 0);
                    unroll2!(h => { unroll8!(q => {
                        let (a, e) = (&r_acc[h as usize], 4 * q as usize);
                        st_shared_cluster_v4_f32(peer + 4 * partial_at(8 * h + q, c) as u32, [a[e], a[e + 1], a[e + 2], a[e + 3]]);
                    })});
                }
                cluster_sync();
                if rank == 0 {
                    let mut r_peer = [[0.0f32; 32]; 2];
                    unroll2!(h => { unroll8!(q => {
                        let v = ld_shared_v4_f32(s_sums + 4 * partial_at(8 * h + q, c) as u32);
                        let (o, e) = (&mut r_peer[h as usize], 4 * q as usize);
                        (o[e], o[e + 1], o[e + 2], o[e + 3]) = (v[0], v[1], v[2], v[3]);
                    })});
                    add_into(&mut r_acc, &r_peer); // rank 0's sums + rank 1's: the order is fixed
                    let s_c = s_extra + mh * (2 * C_BOX_BYTES);
                    store_rows128::<E>(&r_acc, tmap_c, s_c, m, n, tm * ROWS, tn * COLS + 64 * mh, mh, warp, lane, t == 0);
                    if t == 0 {
                        // The TMA stores have finished before the CTA (and its staging boxes) goes away.
                        cp_async_bulk_wait_group0();
                    }
                }
            }
        }
    }
}

/// d19 with each 128×128 tile's K split over a cluster of 2 CTAs (the file's doc): `C (M×N) = A (M×K) ·
/// B (K×N)`, f16, f32 accumulation.
///
/// # Safety
/// sm_90a; 384 threads, `D19_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of `2 · ⌈M/128⌉ ·
/// ⌈N/128⌉` CTAs in clusters of 2 (`.reqnctapercluster`); the tensor maps as d19's: `tmap_a` A (M×K,
/// box `decode_box_rows(M, 128)` rows × 64), `tmap_b` B (K×N, box 64 × 64), `tmap_c` C (M×N, box 64 ×
/// 64), all `SWIZZLE_128B`, in device memory and valid for the launch. The arguments after `tmap_c`
/// are d7's list; `g_c`, `ws`, `count` and `splits` are not used (the cluster is the split).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v20(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, _g_c: *mut u16,
                                                   _ws: *mut f32, _count: *mut u32, m: u32, n: u32, k: u32, _splits: u32) {
    // SAFETY: forwarded (the body's proof).
    unsafe { decode_cluster_k::<F16>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_decode_v20`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v20`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v20_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, _g_c: *mut u16,
                                                        _ws: *mut f32, _count: *mut u32, m: u32, n: u32, k: u32, _splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode_cluster_k::<Bf16>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

// 384 threads, one CTA per SM; clusters of 2.
launch_bounds!(hgemm_decode_v20, 384, 1);
launch_bounds!(hgemm_decode_v20_bf16, 384, 1);
cluster_dims!(hgemm_decode_v20, 2);
cluster_dims!(hgemm_decode_v20_bf16, 2);
