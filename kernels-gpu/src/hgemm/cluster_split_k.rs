//! Split-K inside a thread-block cluster, the partials summed through distributed shared memory
//! (introduced by h8, whose file explains it; FP8's f21 runs the same body on e4m3 stages): the kernel
//! body [`cluster_split_k!`] over 128×256 tiles, with the step's stage loads and K loop plugged in,
//! and the partial tile's stores and the cluster's sum ([`store_partial`], [`sum_rows`]).
//!
//! ```text
//! grid = tiles · S, clusters of S along x: tile = block / S, split = %cluster_ctarank
//! K loop    each CTA: K tiles h8_k_range(k_tiles, rank, S) into its own ring
//! partial   both consumer warpgroups meet (bar 1), store their f32 over the ring (h8_partial_byte)
//! sum       cluster barrier; CTA rank sums rows h8_rows(rank, S) over all S partials, in rank order
//! ```
use super::elem::Elem16;
use crate::prim::{
    cluster::{ld_shared_cluster_v4_f32, mapa_shared_cluster},
    shared::st_shared_v2_u32,
};
use layout::hopper::tma_hgemm::{c_fragment_rc, h8_partial_byte};

/// The cluster split-K body (h8, f21): CTA `rank` of each cluster of `$s` runs K tiles
/// `h8_k_range(⌈k/$bk⌉, rank, $s)` of tile `block / $s` (128×256, column-major tile order), its
/// consumers' accumulators become its partial tile over the ring, and after a cluster barrier it sums
/// rows `h8_rows(rank, $s)` of the tile over the cluster into C (`$g_c`, M×N of `$elem`, row-major).
///
/// `issue` runs in the producer thread for K tile `$kt` of tile `($tm, $tn)` (names both expressions
/// may use) into stage `$s_stage` with full barrier `$full`; `consume` in every consumer thread
/// of warpgroup `$mh`: `$kts` K tiles from the ring,
/// advancing `$it`, giving the `[[f32; 32]; 4]` of rows `64·$mh ..` of the tile (scaled as C needs:
/// the partials are summed as they are).
///
/// # Safety
/// Inside an `unsafe` block of a kernel whose contract is h8's: tensor maps of A and B for the issue
/// expression, `$g_c` of m·n writable elements with `n` a multiple of 4; 384 threads, a ring of
/// `$stages` stages of `$stage_bytes` (at least 128 KiB in all: the partial tile lies over it) in the
/// dynamic shared memory, a 1-D grid of exactly `⌈m/128⌉·⌈n/256⌉ · $s` CTAs in clusters of `$s`
/// (the kernel's `.reqnctapercluster`); the issue and consume expressions as `warp_specialized!`'s
/// producer and consumers require.
macro_rules! cluster_split_k {
    (
        splits: $s:expr, stages: $stages:expr, stage_bytes: $stage_bytes:expr, bk: $bk:expr;
        maps: ($tmap_a:expr, $tmap_b:expr); c: $g_c:expr; shape: ($m:expr, $n:expr, $k:expr);
        issue: |$s_stage:ident, $full:ident, $tm:ident, $tn:ident, $kt:ident| $issue:expr;
        consume: |$ring:ident, $it:ident, $kts:ident, $mh:ident| $consume:expr;
        elem: $elem:ty;
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            cluster_local: $s, consumer_meets: 1;
            ring: let ($ring, _) = ($stages, $stage_bytes, 0);
            thread: tid, warpgroup: wg;
            setup: {
                let tiles_m = $m.div_ceil(layout::hopper::tma_hgemm::BM).max(1); // >= 1: `tile % tiles_m` cannot trap (the host never sends m = 0)
                let tile = $crate::prim::thread::block_idx_x() / $s;
                let ($tm, $tn) = (tile % tiles_m, tile / tiles_m);
                let rank = $crate::prim::cluster::cluster_ctarank();
                let (kt0, kt1) = layout::hopper::tma_hgemm::h8_k_range($k.div_ceil($bk), rank, $s);
            }
            tensor_maps: ($tmap_a, $tmap_b);
            producer: {
                let mut $kt = kt0;
                while $kt < kt1 {
                    let it = $kt - kt0;
                    let ($s_stage, $full, _, _) = $ring.at(it);
                    $ring.wait_empty(it);
                    $issue;
                    $kt += 1;
                }
            }
            consumer($mh): {
                let mut $it = 0u32;
                let $kts = kt1 - kt0;
                let r_acc: [[f32; 32]; 4] = $consume;
                let s_part = $ring.at(0).0;
                $crate::prim::sync::sync_named(1, 256);
                let (warp, lane) = ((tid / 32) % 4, $crate::prim::thread::lane_id());
                // Constant block indices keep the accumulators in registers.
                let [acc0, acc1, acc2, acc3] = &r_acc;
                $crate::hgemm::cluster_split_k::store_partial(acc0, s_part, $mh, 0, warp, lane);
                $crate::hgemm::cluster_split_k::store_partial(acc1, s_part, $mh, 64, warp, lane);
                $crate::hgemm::cluster_split_k::store_partial(acc2, s_part, $mh, 128, warp, lane);
                $crate::hgemm::cluster_split_k::store_partial(acc3, s_part, $mh, 192, warp, lane);
                $crate::prim::cluster::cluster_sync();
                let (r0, r1) = layout::hopper::tma_hgemm::h8_rows(rank, $s);
                $crate::hgemm::cluster_split_k::sum_rows::<$elem, { $s }>(s_part, $g_c, $m, $n, $tm * layout::hopper::tma_hgemm::BM,
                                                                          $tn * layout::hopper::tma_hgemm::BN_WIDE, r0, r1, tid - 128);
            }
        }
    };
}
pub(crate) use cluster_split_k;

/// One 64×64 accumulator block of a consumer warpgroup (rows `64·mh ..`, columns `col0 ..`) into the
/// swizzled partial tile at `s_part`, one 8-byte store per fragment pair.
///
/// # Safety
/// `s_part` is 1024-aligned with 128 KiB of shared memory no one else accesses until the next barrier;
/// `col0 + 64 <= 256`.
#[inline(always)]
pub(crate) unsafe fn store_partial(acc: &[f32; 32], s_part: u32, mh: u32, col0: u32, warp: u32, lane: u32) {
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
pub(crate) unsafe fn sum_rows<E: Elem16, const S: u32>(s_part: u32, g_c: *mut u16, m: u32, n: u32, row0: u32, n0: u32, r0: u32, r1: u32, ct: u32) {
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
