#![cfg(lab_sm90)]
//! Decode step d5 — d4 with **K split over a cluster of two CTAs**, the halves added through
//! distributed shared memory.
//!
//! Why: d4 runs 1–64 × 4096² in ~20 µs whatever M, on 64 CTAs (one per 64-column tile), and 128×4096²
//! in 16 µs on 128 (`results/2026-11-23-h100-session9/call9-box`): at M ≤ 64 it is short of CTAs
//! streaming the weights, not of bandwidth per CTA. d3 found the CTAs by splitting K through global
//! memory and lost more in the tail than it gained. Here the two halves of a tile's K are the two CTAs
//! of one cluster (h8's idea on d4's tile): 128 CTAs at N = 4096, and the sum never leaves the GPC.
//!
//! Diff from d4 (non-persistent, as h8: one tile per cluster):
//! * grid `tiles · 2`, clusters of 2: tile `block / 2`, K tiles `h8_k_range(k_tiles, rank, 2)`;
//! * the warp-specialized CTA in its `cluster_local` form with 4-warp empty barriers; the producer
//!   warpgroup meets the consumers' one cluster barrier;
//! * epilogue: as d4, warpgroup 0 of each CTA holds its CTA's sum; rank 1's writes it over ring stage 0
//!   (free: every stage was consumed before named barrier 3) as rows of 128 bytes per thread, groups
//!   XOR-swizzled (`layout::hopper::tma_hgemm::d5_peer_byte`, conflict-free `v4`); one cluster barrier;
//!   rank 0's warpgroup 0 reads it (`mapa` + `ld.shared::cluster.v4`), adds, writes C. The skeleton's
//!   last cluster barrier keeps rank 1 alive until then.
//!
//! Prediction (before running): 1–64 × 4096² at d4's 128-CTA speed, ~16 µs: **~1.0–1.05× cuBLAS**
//! (d2 91–94% at M ≤ 16, d4 81% at 64).
//!
//! Measured (H100, held, `results/2026-11-23-h100-session9/call10-d5`): **slower than d4** — 22 µs at
//! 1–64 × 4096² (70–79% of cuBLAS; d4 20 µs, 80–89%), 95–99% at 4096×14336 (d4 102–105%); better only
//! where d4 has very few tiles (1×2048×8192: 78% against 62%). d4's 16 µs at M = 128 did not come
//! from its CTA count. Kept as a measured step; not chosen.
use super::decode_swapped::{issue_stage, place, store_pair};
use super::decode_whole_k::{add_warpgroups, consume};
use super::elem::{Bf16, Elem16, F16};
use super::tma_warp_specialized::warp_specialized;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    cluster::{cluster_ctarank, cluster_sync, ld_shared_cluster_v4_f32, mapa_shared_cluster},
    cluster_dims,
    shared::st_shared_v4_f32,
    thread::{block_idx_x, lane_id},
    tma::TensorMap,
};
use crate::util::unroll::{unroll2, unroll8};
use layout::hopper::tma_hgemm::{BK, D3_ROWS as ROWS, D4_COLS as COLS, D4_EXCHANGE_BYTES as EXCHANGE_BYTES, D4_STAGE_BYTES as STAGE_BYTES,
                                D4_STAGES as STAGES, D5_CLUSTER as CLUSTER, d5_peer_byte, decode_a_box_row0, h8_k_range};

/// `C = A · B` (f16) with 64×64 tiles, each tile's K split over the two CTAs of a cluster.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × `decode_a_box_rows(m)` rows) and B (K×N f16, box 64 N × 64 K),
/// both `SWIZZLE_128B`; `g_c` of m·n f16; 384 threads, `D4_DYN_SMEM` bytes; a 1-D grid of exactly
/// ⌈m/64⌉·⌈n/64⌉ × 2 CTAs (clusters of 2, compiled in).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v5(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v5`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v5`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v5_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// The body of d5 for inputs and output of type `E`.
///
/// # Safety
/// As [`hgemm_decode_v5`].
#[inline(always)]
unsafe fn decode<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: the K loop as d4's (the producer and both consumers walk the CTA's K tiles kt0 .. kt1;
    // each stage use consumed and released by one warpgroup). The exchange as d4's (named barrier 3
    // between warpgroup 1's writes and warpgroup 0's reads). Ring stage 0 is rewritten by rank 1's
    // warpgroup 0 only after named barrier 3, when both warpgroups have retired every `wgmma` and every
    // TMA load has landed (each was waited for). Rank 0 reads it between the cluster barrier that
    // follows the writes (release/acquire) and the skeleton's last one, which no CTA passes before all
    // reads are done; every thread of both CTAs passes both (`consumer_meets: 1`). Addresses: the peer
    // tile < 16 KiB ≤ one stage; C stores checked in `store_pair`.
    unsafe {
        warp_specialized! {
            cluster_local: CLUSTER, consumer_meets: 1, empty_arrivals: 4;
            ring: let (ring, s_exchange) = (STAGES, STAGE_BYTES, EXCHANGE_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                let tiles_m = m.div_ceil(ROWS).max(1); // >= 1: `tile % tiles_m` cannot trap
                let tile = block_idx_x() / CLUSTER;
                let (tm, tn) = (tile % tiles_m, tile / tiles_m);
                let rank = cluster_ctarank();
                let (kt0, kt1) = h8_k_range(k.div_ceil(BK), rank, CLUSTER);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut kt = kt0;
                while kt < kt1 {
                    let it = kt - kt0;
                    let (s_stage, full, _, _) = ring.at(it);
                    ring.wait_empty(it);
                    issue_stage::<1>(s_stage, full, tmap_a, tmap_b, m, tm * ROWS, tn * COLS, kt);
                    kt += 1;
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let t = tid % 128;
                let mut r_acc: [f32; 32] = consume::<E, _>(ring, 0, kt1 - kt0, mh);
                add_warpgroups(&mut r_acc, s_exchange, mh, t);
                let s_peer = ring.at(0).0;
                if mh == 0 {
                    if rank == 1 {
                        unroll8!(g => {
                            let i = 4 * g as usize;
                            st_shared_v4_f32(s_peer + d5_peer_byte(t, g), [r_acc[i], r_acc[i + 1], r_acc[i + 2], r_acc[i + 3]]);
                        });
                    }
                }
                cluster_sync();
                if mh == 0 && rank == 0 {
                    unroll8!(g => {
                        let i = 4 * g as usize;
                        let v = ld_shared_cluster_v4_f32(mapa_shared_cluster(s_peer + d5_peer_byte(t, g), 1));
                        r_acc[i] += v[0];
                        r_acc[i + 1] += v[1];
                        r_acc[i + 2] += v[2];
                        r_acc[i + 3] += v[3];
                    });
                    let (row0, col0) = (tm * ROWS, tn * COLS);
                    let a_row0 = decode_a_box_row0(m, row0); // accumulator column r is row a_row0 + r
                    unroll2!(h => { unroll8!(q => {
                        let p = 8 * h + q;
                        let (c, r) = place(warp, lane, p);
                        store_pair::<E>(g_c, m, n, row0, a_row0 + r, col0 + c, r_acc[2 * p as usize], r_acc[2 * p as usize + 1]);
                    })});
                }
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`; clusters of 2.
launch_bounds!(hgemm_decode_v5, 384, 1);
launch_bounds!(hgemm_decode_v5_bf16, 384, 1);
cluster_dims!(hgemm_decode_v5, 2);
cluster_dims!(hgemm_decode_v5_bf16, 2);
