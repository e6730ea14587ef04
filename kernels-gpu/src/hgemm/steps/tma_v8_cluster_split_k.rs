#![cfg(lab_sm90)]
//! Hopper step h8: **split-K inside a thread-block cluster, the partials summed through distributed
//! shared memory** (prefill, M = 64–512 on 4096-wide weights).
//!
//! h7 split K too, but its sum went through global memory: each split wrote a 128 KiB f32 partial and
//! the tile's *last* CTA read all of them back alone — up to 1 MiB through one SM's loads — which cost
//! more than the idle SMs had (0.77× h6 at 128×4096×4096). Here the `S` splits of a tile are the `S`
//! CTAs of one cluster (`S` = 2 … 8: `layout::hopper::tma_hgemm::h8_splits`), which the hardware
//! runs at once on one GPC. Each keeps its partial in its own shared memory, and after one cluster
//! barrier CTA `r` sums rows `⌊128·r/S⌋ ..` of the tile (`h8_rows`) from all `S` CTAs (`ld.shared::cluster`, over
//! the SM-to-SM network) and writes them to C: the reduction is spread over the cluster, never leaves
//! the GPC, and needs no workspace, no counter and no second launch.
//!
//! Diff from h5 (non-persistent, as h4: one CTA per (tile, split)):
//! * grid `tiles · S`, clusters of `S` along x: tile `block / S`, split = `%cluster_ctarank`, K tiles
//!   `layout::hopper::tma_hgemm::h8_k_range` (the splits differ by at most one tile);
//! * the warp-specialized CTA in its `cluster_local` form: each ring is the CTA's own, the producer
//!   warpgroup meets the consumers' one mid-kernel cluster barrier;
//! * epilogue: the two consumer warpgroups meet (both have retired their `wgmma`s), store their f32
//!   accumulators over the ring as the swizzled partial tile (`h8_partial_byte`: 2 wavefronts per
//!   8-byte fragment store, 8 unswizzled), cluster barrier, then each thread sums 16-byte row chunks
//!   over the cluster in rank order (deterministic) and stores 4 outputs (8 bytes) to C; the skeleton's
//!   last cluster barrier keeps every partial alive until all peers have read it.
//!
//! Prediction (H100, before the run): at 128×4096×4096 (16 tiles, S = 8) each CTA runs 8 of h6's
//! K tiles (~0.9 µs each at h6's per-SM rate) plus ~3 µs of fill and reduction: ~11–14 µs against h6's
//! 49 µs and cuBLAS's 28 µs — **~2× cuBLAS**; at 256×4096×4096 (S = 4, 16 K tiles a split) ~1.6×;
//! at 256×4096×14336 (S = 4, 56 K tiles) ~1.4× cuBLAS where h7 ran at 0.79×.
//!
//! Measured (H100, `results/2026-11-23-h100-session7/`): clusters of 8 ran as **two waves** — the GPU
//! holds only 15 clusters of 7 or 8 CTAs at once (a cluster lives on one GPC) — at 76% of cuBLAS. The
//! size is now chosen for one wave from the residency query: 128×4096×4096 in clusters of 4–6 at
//! 107–114% of cuBLAS (21 µs: 2.2× h6, not the 2× cuBLAS predicted — the fixed cost and the weights'
//! 32 MB from DRAM bound it, not the K loop), 256×4096×4096 in clusters of 3 at 98–104%, 256×4096×14336
//! at 89–103%. The fragment stores: 2 wavefronts each, 0 conflicts (`ncu`), as the bank model says.
use super::elem::{Bf16, Elem16, F16};
use super::tma::{BK, BM, BN_WIDE as BN, WIDE_STAGE_BYTES as STAGE_BYTES};
use super::tma_warp_specialized::warp_specialized;
use super::tma_wide_tile::{consume_wide_tile, issue_wide_stage};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    cluster::{cluster_ctarank, cluster_sync, ld_shared_cluster_v4_f32, mapa_shared_cluster},
    cluster_dims,
    shared::st_shared_v2_u32,
    sync::sync_named,
    thread::{block_idx_x, lane_id},
    tma::TensorMap,
};
use layout::hopper::tma_hgemm::{H8_STAGES as STAGES, c_fragment_rc, h8_k_range, h8_partial_byte, h8_rows};

/// Declares the f16 and bf16 entries of h8 for clusters of `$s` CTAs.
macro_rules! h8_entries {
    ($($s:literal: $f16:ident, $bf16:ident;)*) => {$(
        /// `C = A · B` (f16) with K split over a cluster of CTAs, the partials summed through
        /// distributed shared memory (module doc).
        ///
        /// # Safety
        /// Tensor maps of A (M×K) and B (K×N) as h5's, `g_c` of m·n writable 16-bit elements, `n` a
        /// multiple of 8 (the TMA rule); 384 threads, `H8_DYN_SMEM` bytes of dynamic shared memory, a
        /// 1-D grid of exactly `⌈m/128⌉·⌈n/256⌉` × the cluster size CTAs.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $f16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { cluster_split_k::<F16, $s>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        /// The bf16 twin.
        ///
        /// # Safety
        /// As the f16 entry, the tensor maps describing bf16 matrices.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { cluster_split_k::<Bf16, $s>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        // 384 threads, one CTA per SM (without both directives ptxas ignores `setmaxnreg`).
        launch_bounds!($f16, 384, 1);
        launch_bounds!($bf16, 384, 1);
        cluster_dims!($f16, $s);
        cluster_dims!($bf16, $s);
    )*};
}

h8_entries! {
    2: hgemm_tma_v8_x2, hgemm_tma_v8_x2_bf16;
    3: hgemm_tma_v8_x3, hgemm_tma_v8_x3_bf16;
    4: hgemm_tma_v8_x4, hgemm_tma_v8_x4_bf16;
    5: hgemm_tma_v8_x5, hgemm_tma_v8_x5_bf16;
    6: hgemm_tma_v8_x6, hgemm_tma_v8_x6_bf16;
    7: hgemm_tma_v8_x7, hgemm_tma_v8_x7_bf16;
    8: hgemm_tma_v8_x8, hgemm_tma_v8_x8_bf16;
}

/// The body of h8 for inputs and output of type `E` in clusters of `S` CTAs.
///
/// # Safety
/// As the entries.
#[inline(always)]
unsafe fn cluster_split_k<E: Elem16, const S: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: the K loop as h4's (producer and consumers walk the same K tiles `kt0 .. kt1` of this
    // CTA's ring; every stage use is released once per consumer warp). The partial tile overwrites the
    // ring only after both consumer warpgroups met at named barrier 1, i.e. after every `wgmma` of the
    // CTA retired (`consume_wide_tile` ends with `wait_group 0`) and every TMA load landed (each was
    // waited for); the barriers lie after the ring and are not touched. Peer reads happen between the
    // mid cluster barrier (every partial written, release/acquire) and the skeleton's last one (no CTA
    // exits or rewrites before all have read); every thread of every CTA passes both (producer
    // warpgroup: `consumer_meets: 1`). Every address: partial offsets < 128 KiB ≤ the ring; C stores
    // checked against m and n.
    unsafe {
        warp_specialized! {
            cluster_local: S, consumer_meets: 1;
            ring: let (ring, _) = (STAGES, STAGE_BYTES, 0);
            thread: tid, warpgroup: wg;
            setup: {
                let tiles_m = m.div_ceil(BM).max(1); // >= 1: `tile % tiles_m` cannot trap (the host never sends m = 0)
                let tile = block_idx_x() / S;
                let (tm, tn) = (tile % tiles_m, tile / tiles_m);
                let rank = cluster_ctarank();
                let (kt0, kt1) = h8_k_range(k.div_ceil(BK), rank, S);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut kt = kt0;
                while kt < kt1 {
                    let it = kt - kt0;
                    let (s_stage, full, _, _) = ring.at(it);
                    ring.wait_empty(it);
                    issue_wide_stage(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt);
                    kt += 1;
                }
            }
            consumer(mh): {
                let mut it = 0u32;
                let r_acc = consume_wide_tile::<E, [[f32; 32]; 4], 1>(ring, &mut it, kt1 - kt0, mh);
                let s_part = ring.at(0).0;
                sync_named(1, 256);
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                // Constant block indices keep the accumulators in registers.
                let [acc0, acc1, acc2, acc3] = &r_acc;
                store_partial(acc0, s_part, mh, 0, warp, lane);
                store_partial(acc1, s_part, mh, 64, warp, lane);
                store_partial(acc2, s_part, mh, 128, warp, lane);
                store_partial(acc3, s_part, mh, 192, warp, lane);
                cluster_sync();
                let (r0, r1) = h8_rows(rank, S);
                sum_rows::<E, S>(s_part, g_c, m, n, tm * BM, tn * BN, r0, r1, tid - 128);
            }
        }
    }
}

/// One 64×64 accumulator block of a consumer warpgroup (rows `64·mh ..`, columns `col0 ..`) into the
/// swizzled partial tile at `s_part`, one 8-byte store per fragment pair.
///
/// # Safety
/// `s_part` is 1024-aligned with 128 KiB of shared memory no one else accesses until the next barrier;
/// `col0 + 64 <= 256`.
#[inline(always)]
unsafe fn store_partial(acc: &[f32; 32], s_part: u32, mh: u32, col0: u32, warp: u32, lane: u32) {
    for j in 0..8u32 {
        for half in 0..2u32 {
            let (r, c) = c_fragment_rc(warp, lane, j, half);
            let i = (4 * j + 2 * half) as usize;
            // SAFETY: row < 128, column < 256: inside the partial tile (caller); 8-byte aligned.
            unsafe { st_shared_v2_u32(s_part + h8_partial_byte(64 * mh + r, col0 + c), [acc[i].to_bits(), acc[i + 1].to_bits()]) };
        }
    }
}

/// Rows `r0 .. r1` of the tile summed over the cluster's `S` partials and written to C (tile origin
/// `(row0, n0)`) as `E`: consumer thread `ct` (0..256) takes chunk `ct % 64` (4 columns) of row
/// `r0 + ct / 64` in each pass of 4 rows; each warp reads 512 contiguous (swizzle-permuted) bytes of
/// a row and writes 256 contiguous bytes of C.
///
/// # Safety
/// Every CTA of the cluster has written its partial tile at `s_part` before a cluster barrier this
/// thread has passed, and none rewrites or exits before the next; `r1 <= 128`; `g_c` has `m·n`
/// elements, `n` a multiple of 4.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn sum_rows<E: Elem16, const S: u32>(s_part: u32, g_c: *mut u16, m: u32, n: u32, row0: u32, n0: u32, r0: u32, r1: u32, ct: u32) {
    let chunk = ct % 64;
    let mut r = r0 + ct / 64;
    while r < r1 {
        let at = s_part + h8_partial_byte(r, 4 * chunk);
        // All S loads in flight before the first add; summed in rank order (the same bits every run).
        let mut v = [[0f32; 4]; 8];
        let mut q = 0;
        while q < S {
            // SAFETY: inside peer q's partial tile (same offset in every CTA), written before the
            // barrier (caller); 16-byte aligned.
            v[q as usize] = unsafe { ld_shared_cluster_v4_f32(mapa_shared_cluster(at, q)) };
            q += 1;
        }
        let mut x = v[0];
        let mut q = 1;
        while q < S {
            for i in 0..4 {
                x[i] += v[q as usize][i];
            }
            q += 1;
        }
        let (row, col) = (row0 + r, n0 + 4 * chunk);
        if row < m && col < n {
            let bits = E::pack(x[0], x[1]) as u64 | (E::pack(x[2], x[3]) as u64) << 32;
            // SAFETY: row < m, col + 3 < n (n and col multiples of 4): inside C; 8-byte aligned
            // (row·n + col is a multiple of 4 elements).
            unsafe { *(g_c.add(row as usize * n as usize + col as usize) as *mut u64) = bits };
        }
        r += 4;
    }
}
