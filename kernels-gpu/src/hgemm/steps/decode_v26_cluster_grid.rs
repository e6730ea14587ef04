#![cfg(lab_sm90)]
//! Decode step d26 — d16's CTA (one consumer warpgroup, 64×64 whole-K tiles of `Cᵀ`, 12 stages of a
//! 64-row activation box and one weight box) in **2-D clusters** of `CM × CN` CTAs on a `CM × CN`
//! block of tiles: the `CN` CTAs of a cluster row share the activation box, the `CM` CTAs of a cluster
//! column the weight box, each box loaded once and multicast into every CTA that reads it.
//!
//! Why: where M is 128–512 and the 64×64 tiles leave SMs idle, d9/d16 reach 0.77–0.82× cuBLAS
//! (session 75's corpus sample). `ncu` at 128×3072×4096: cuBLAS's `nvjet_sm90_hsh_64x64_64x13_4x2`
//! runs the same 64×64 tiles and 96 CTAs as d9, in clusters of 4 × 2, in 0.77× d9's time (11.4 against
//! 14.8 µs). d9's K tile takes ~300 cycles (the cost model's `kblock_us`, 0.154 µs), ~16 KiB an SM at
//! ~54 B a cycle, where its four `m64n64k16` take ~256: the SM's intake sets the pace. Shared as
//! cuBLAS shares them, an SM's own L2 requests fall from 16 KiB a K tile to 8/4 + 8/2 = 6 KiB (4 × 2),
//! 8 KiB (2 × 2).
//!
//! Diff from d16: the cluster (`.reqnctapercluster CM·CN`), rank `r` at `(r / CN, r % CN)` taking tile
//! `(CM·um + r / CN, CN·un + r % CN)` of cluster tile `(um, un)`; in each stage the activation box is
//! loaded by the row's CTA `kt mod CN` and multicast along the row, the weight box by the column's CTA
//! `kt mod CM` and multicast down the column (whole boxes in turn: the tensor maps stay d16's), every
//! CTA's full barrier still expecting both boxes' bytes; the consumers release each stage in every CTA
//! of their row and column (the empty barriers count `4·(CM + CN − 1)` warps); the producer ends with
//! the ring's drain (d11's tail); no early first stages (a peer may multicast only after the cluster
//! barrier that publishes the barriers' initialization). A tile past M or N is walked (its loads feed
//! the peers) and stores nothing.
//!
//! Prediction (before running): at 128×3072×4096 (4 × 2, 12 clusters) the K tile falls from ~300 to
//! the MMAs' ~256–270 cycles and the fixed cost rises by the cluster launch and barrier (~0.5 µs):
//! 14.8 → ~13 µs (~0.88× cuBLAS); at 128×2048×2048 (2 × 2, 16 clusters) 9.4 → ~8.5 µs. If the SM's
//! intake of multicast bytes is what binds (each SM still receives 16 KiB a K tile), no gain at all.
use super::decode_swapped::{SwappedTile, consume_releasing};
use super::decode_whole_k::Rows64;
use super::elem::{Bf16, Elem16, F16};
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::warp_specialized;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    cluster::cluster_ctarank,
    cluster_dims,
    mbarrier::mbarrier_arrive_expect_tx,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_tensor_2d_g2s_multicast},
};
use layout::hopper::tma_hgemm::{B_BOX_BYTES, BK, D3_ROWS as ROWS, D4_COLS as COLS, D4_STAGE_BYTES, D4_STAGES, decode_a_box_row0, decode_a_box_rows};

/// Bytes of the activation box at the start of a stage (64 rows of 128 bytes).
const A_BYTES: u32 = D4_STAGE_BYTES - B_BOX_BYTES;

/// The cluster masks of rank `(i_m, i_n)` in a `CM × CN` cluster: its row's CTAs (same `i_m`: they
/// share the activation box) and its column's (same `i_n`: the weight box).
#[inline(always)]
fn peers<const CM: u32, const CN: u32>(i_m: u32, i_n: u32) -> (u32, u32) {
    let row = ((1u32 << CN) - 1) << (CN * i_m);
    let mut col = 0u32;
    let mut j = 0;
    while j < CM {
        col |= 1 << (i_n + CN * j);
        j += 1;
    }
    (row, col)
}

/// Stage `kt` of tile `(tm, tn)` for the CTA at `(i_m, i_n)` of its cluster: its full barrier `bar`
/// expects the activation box and the weight box; the activation box is issued here if `kt mod CN =
/// i_n` (multicast along the row, `row`), the weight box if `kt mod CM = i_m` (down the column, `col`).
///
/// # Safety
/// One thread (the producer); the stage at `s_stage` (`D4_STAGE_BYTES`, 1024-aligned) is free in every
/// CTA of the row and the column (their consumers released it), at the same offset in each, as `bar`
/// is; the maps as [`hgemm_decode_v26_2x4`] says.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn issue<const CM: u32, const CN: u32>(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, (tm, tn): (u32, u32),
                                              kt: u32, (i_m, i_n): (u32, u32), (row, col): (u32, u32)) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller; the activation box (≤ 64 rows of 128 B) fits the stage's first
    // `A_BYTES`, the weight box its 1024-aligned rest; a multicast writes the same offsets in every CTA
    // of its mask, each of which expects these bytes on its own `bar`.
    unsafe {
        mbarrier_arrive_expect_tx(bar, decode_a_box_rows(m) * BK * 2 + B_BOX_BYTES);
        if kt % CN == i_n {
            let r0 = decode_a_box_row0(m, tm * ROWS) as i32;
            if CN == 1 {
                cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, r0, bar);
            } else {
                cp_async_bulk_tensor_2d_g2s_multicast(s_stage, tmap_a, k0, r0, bar, row as u16);
            }
        }
        if kt % CM == i_m {
            let c0 = (tn * COLS) as i32;
            if CM == 1 {
                cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES, tmap_b, c0, k0, bar);
            } else {
                cp_async_bulk_tensor_2d_g2s_multicast(s_stage + A_BYTES, tmap_b, c0, k0, bar, col as u16);
            }
        }
    }
}

/// The body of d26 for element type `E` in `CM × CN` clusters of `C = CM·CN` CTAs (the file's doc).
///
/// # Safety
/// As [`hgemm_decode_v26_2x4`], with `CM × CN` for 2 × 4.
#[inline(always)]
unsafe fn decode_grid<E: Elem16, const CM: u32, const CN: u32, const C: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32,
                                                                             k: u32) {
    const { assert!(C == CM * CN && C <= 8 && C > 1, "a cluster of CM × CN CTAs, at most 8 (the portable cluster size)") };
    crate::prim::sync::griddepcontrol_launch_dependents();
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: every CTA of a cluster walks the same cluster tiles (`u0, u0 + u_step, …`, the grid a
    // multiple of CM·CN) and K tiles, so all their rings agree stage for stage. A stage is written only
    // by the producers of the CTA's row (activation box) and column (weight box), each after its own
    // `wait_empty`, which counts the releases of every consumer warp of *its* row and column — the CTAs
    // it writes into — so no box lands in a stage still being read; every CTA's full barrier takes its
    // own producer's `expect_tx` of both boxes (one arrival), so a phase completes only when both boxes
    // landed, whoever loaded them (a peer's bytes arriving first leave the count transiently negative,
    // as PTX allows). Consumers release each stage in every CTA of their row and column, `4·(CM + CN −
    // 1)` warps a barrier, the count the ring was initialized with. The cluster barrier at the start
    // publishes every CTA's barrier initialization before any peer arrives on it or multicasts into it;
    // each producer's `drain` keeps its CTA alive until no peer can (d11's proof). C addresses are
    // checked by `Rows64::store` (rows in `row0 .. m`, columns below n: a tile past M or N stores nothing).
    unsafe {
        warp_specialized! {
            consumers: 1, registers: (40, 232), cluster: C, empty_arrivals: 4 * (CM + CN - 1);
            ring: let (ring, _) = (D4_STAGES, D4_STAGE_BYTES, 0);
            thread: tid, warpgroup: wg;
            setup: {
                let rank = cluster_ctarank();
                let at = (rank / CN, rank % CN);
                let masks = peers::<CM, CN>(at.0, at.1);
                let (units_m, units_n) = (m.div_ceil(ROWS).div_ceil(CM), n.div_ceil(COLS).div_ceil(CN));
                let units = units_m * units_n;
                let k_tiles = k.div_ceil(BK);
                let (u0, u_step) = (block_idx_x() / C, grid_dim_x() / C);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                let mut u = u0;
                while u < units {
                    let (um, un) = persistent_tile(u, units_m, units_n);
                    let tile = (CM * um + at.0, CN * un + at.1);
                    let mut kt = 0;
                    while kt < k_tiles {
                        ring.wait_empty(it);
                        let (s_stage, full, _, _) = ring.at(it);
                        issue::<CM, CN>(s_stage, full, tmap_a, tmap_b, m, tile, kt, at, masks);
                        it += 1;
                        kt += 1;
                    }
                    u += u_step;
                }
                ring.drain(it);
            }
            consumer(_mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let mut it = 0u32;
                let mut u = u0;
                while u < units {
                    let (um, un) = persistent_tile(u, units_m, units_n);
                    let (tm, tn) = (CM * um + at.0, CN * un + at.1);
                    let r_acc = consume_releasing::<E, [f32; 32], C>(ring, &mut it, k_tiles, 0, masks.0 | masks.1);
                    <Rows64 as SwappedTile<E>>::store(&r_acc, g_c, m, n, tm * ROWS, tn * COLS, warp, lane);
                    u += u_step;
                }
            }
        }
    }
}

/// The entry points of one cluster shape, f16 and bf16: `d26_entries!(CM, CN, cluster size, f16_name,
/// bf16_name)`.
macro_rules! d26_entries {
    ($cm:literal, $cn:literal, $size:literal, $f16:ident, $bf16:ident) => {
        #[doc = concat!("`C = A · B` (f16) as d16 in clusters of ", $cm, " × ", $cn, " CTAs sharing the activation and weight boxes by multicast (the file's doc).")]
        ///
        /// # Safety
        /// Tensor maps of A (M×K f16, box 64 K × `decode_box_rows(m, 64)` rows) and B (K×N f16, box 64 N × 64 K),
        /// both `SWIZZLE_128B`; `g_c` of m·n f16; 256 threads, `D16_DYN_SMEM` bytes; a cluster launch
        #[doc = concat!("(`.reqnctapercluster ", $size, "`) of a 1-D grid of ", $size, " · min(units, ⌊SMs / ", $size, "⌋) CTAs at most, one cluster tile")]
        #[doc = concat!("(unit) being ", $cm, " × ", $cn, " tiles of 64×64: units = ⌈⌈M/64⌉/", $cm, "⌉ · ⌈⌈N/64⌉/", $cn, "⌉; launched with or without programmatic")]
        /// stream serialization.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $f16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded (d16's stage and ring, `D16_DYN_SMEM`).
            unsafe { decode_grid::<F16, $cm, $cn, $size>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        #[doc = concat!("[`", stringify!($f16), "`] on bf16.")]
        ///
        /// # Safety
        #[doc = concat!("As [`", stringify!($f16), "`], the tensor maps describing bf16 matrices.")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { decode_grid::<Bf16, $cm, $cn, $size>(tmap_a, tmap_b, g_c, m, n, k) }
        }

        cluster_dims!($f16, $size);
        cluster_dims!($bf16, $size);
        // 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
        launch_bounds!($f16, 256, 1);
        launch_bounds!($bf16, 256, 1);
    };
}

d26_entries!(2, 4, 8, hgemm_decode_v26_2x4, hgemm_decode_v26_2x4_bf16);
d26_entries!(2, 2, 4, hgemm_decode_v26_2x2, hgemm_decode_v26_2x2_bf16);
