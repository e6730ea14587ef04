//! d19's 128-row transposed tile (introduced by d19, whose file explains it): the stage load (a
//! 128-row activation box, d21's own height for d21, and two weight boxes, moved up or left where
//! they would reach past M or N), the layout of a thread's sums when they leave its registers
//! (`partial_at`: d19's and d21's split-K workspace, d20's transfer to the peer CTA), and the TMA-store
//! epilogue of a warpgroup's 128×64 result through two row boxes. Used by d19, d20, d21 and d22.
use super::elem::Elem16;
use super::split_k::Units;
use super::tma_warp_specialized::Ring;
use super::tma_store::{stage_c_rows128_trans, store_tile_rows};
use crate::prim::{
    mbarrier::mbarrier_arrive_expect_tx,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_tensor_2d_g2s_multicast},
};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::hopper::tma_hgemm::{B_BOX_BYTES, BK, D3_COLS as COLS, D19_ROWS, d7_weight_box_col, d21_a_bytes, decode_box_row0, decode_box_rows};

/// f32 of one (tile, split) partial in the workspace: 256 consumer threads × 64 sums.
pub(super) const PARTIAL_F32: usize = 256 * 64;

/// The activation box of the tile at rows `m0 ..` (`decode_box_row0(m, m0, rows)`: moved up to end at
/// row M where it would reach past it; `rows` 128 for d19 and d20, d21's height for d21) and the two
/// weight boxes of columns `n0 ..`, 64 each (a box that would reach past N moved left to end at N:
/// `d7_weight_box_col`) of K tile `kt` into the stage at `s_stage`, announced on `bar` as one
/// transaction of their bytes.
///
/// # Safety
/// One thread; the stage (`d21_stage_bytes(rows)`, 1024-aligned) is free; A's tensor map has boxes of
/// `decode_box_rows(m, rows)` rows × 64 columns, B's 64 × 64, both `SWIZZLE_128B`; `bar` is the
/// stage's full barrier.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue(rows: u32, s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, n: u32, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller; the three boxes fill disjoint parts of the stage.
    unsafe {
        mbarrier_arrive_expect_tx(bar, decode_box_rows(m, rows) * BK * 2 + 2 * B_BOX_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, decode_box_row0(m, m0, rows) as i32, bar);
        for nb in 0..2 {
            cp_async_bulk_tensor_2d_g2s(s_stage + d21_a_bytes(rows) + nb * B_BOX_BYTES, tmap_b, d7_weight_box_col(n, n0 + 64 * nb) as i32, k0, bar);
        }
    }
}

/// [`issue`] in a cluster of `CLUSTER` CTAs (1 or 2) on vertically adjacent tiles with the same weight
/// columns: for 2, this CTA loads its own activation box and weight box `rank` only, multicast into
/// both CTAs' stage (the peer loads the other box into this stage and signals this `bar`); `bar`
/// expects the whole stage's bytes either way (d22).
///
/// # Safety
/// As [`issue`]; with `CLUSTER = 2` a cluster launch of 2 CTAs whose stage at `s_stage` is free in both
/// (the consumers of both released it) and whose `bar` is at the same offset in both.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_cluster<const CLUSTER: u32>(rows: u32, s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, n: u32,
                                                       m0: u32, n0: u32, kt: u32, rank: u32) {
    const { assert!(CLUSTER == 1 || CLUSTER == 2, "a tile's two weight boxes are shared by at most 2 CTAs") };
    // SAFETY: forwarded to the caller; the three boxes fill disjoint parts of the stage.
    unsafe {
        if CLUSTER == 1 {
            issue(rows, s_stage, bar, tmap_a, tmap_b, m, n, m0, n0, kt);
        } else {
            let k0 = (kt * BK) as i32;
            mbarrier_arrive_expect_tx(bar, decode_box_rows(m, rows) * BK * 2 + 2 * B_BOX_BYTES);
            cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, decode_box_row0(m, m0, rows) as i32, bar);
            cp_async_bulk_tensor_2d_g2s_multicast(s_stage + d21_a_bytes(rows) + rank * B_BOX_BYTES, tmap_b, d7_weight_box_col(n, n0 + 64 * rank) as i32, k0, bar,
                                                  0b11);
        }
    }
}

/// The producer thread of d19's, d21's and d22's persistent grid: each unit `u0, u0 + u_step, …` of
/// `g` ([`Units::unit`]; in a cluster grid its tile rows are cluster tile rows),
/// each of its K tiles issued ([`issue_cluster`], tiles of `rows` rows: in a cluster of 2, CTA `rank`
/// takes tile row `2·tm + rank` of cluster tile row `tm`) into the next ring stage once that is empty.
///
/// # Safety
/// The producer thread of `ring`'s CTA, the consumers walking the same units and K tiles; as
/// [`issue_cluster`] for the maps, the stage and the cluster.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn produce_units<const CLUSTER: u32>(ring: Ring, rows: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, n: u32,
                                                       (u0, u_step): (u32, u32), g: Units, rank: u32) -> u32 {
    let mut it = 0u32;
    let mut u = u0;
    while u < g.units {
        let (tm, tn, _, kt0, kt1) = g.unit(u);
        let tm = CLUSTER * tm + rank;
        let mut kt = kt0;
        while kt < kt1 {
            // SAFETY: forwarded to the caller; the stage is free once `wait_empty` returns.
            unsafe {
                ring.wait_empty(it);
                let (s_stage, full, _, _) = ring.at(it);
                issue_cluster::<CLUSTER>(rows, s_stage, full, tmap_a, tmap_b, m, n, tm * rows, tn * COLS, kt, rank);
            }
            it += 1;
            kt += 1;
        }
        u += u_step;
    }
    it
}

/// The offset (in f32) of float4 `j` (0..16: sums `4j .. 4j + 4` of `[[f32; 32]; 2]` read flat; d21:
/// 0..NH/4 of its `[f32; NH]`) of consumer thread `c` (0..256) in a partial: a warp's 32 threads cover
/// 512 contiguous bytes.
#[inline(always)]
pub(super) fn partial_at(j: u32, c: u32) -> usize {
    4 * (j as usize * 256 + c as usize)
}

/// `r_sum += r_add`, element by element (unrolled: constant indices keep both in registers).
#[inline(always)]
pub(super) fn add_into(r_sum: &mut [[f32; 32]; 2], r_add: &[[f32; 32]; 2]) {
    unroll2!(h => { unroll8!(q => { unroll4!(i => {
        let e = (4 * q + i) as usize;
        r_sum[h as usize][e] += r_add[h as usize][e];
    })})});
}

/// Consumer warpgroup `mh`'s TMA-store epilogue of its 128×64 result `r_acc` (accumulator column `r` =
/// C row `a_row0 + r`, `r_acc[h]` rows `64h ..`; accumulator row `j` = C column `colb + j`, the boxes
/// as [`issue`] placed them) of the tile at `row0`, its columns at `col0`: both halves staged into the
/// warpgroup's 16 KiB at `s_c` with rows and columns rotated by the boxes' shifts
/// (`layout::hopper::tma_hgemm::d19_staging_row`), so the two stores at `(col0, row0)` and
/// `(col0, row0 + 64)` write only the tile's own elements (rows ≥ M, columns ≥ N clipped).
///
/// # Safety
/// As `tma_store::store_tile_rows` (all 128 threads of warpgroup `mh`, `leader` one of them and the
/// same one every time, `s_c` 1024-aligned 16 KiB of its own); `tmap_c` describes C with 64×64 boxes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_rows128<E: Elem16>(r_acc: &[[f32; 32]; 2], tmap_c: *const TensorMap, s_c: u32, m: u32, n: u32, row0: u32, col0: u32, mh: u32,
                                              warp: u32, lane: u32, leader: bool) {
    let [lo, hi] = r_acc;
    let (row_shift, col_shift) = (row0 - decode_box_row0(m, row0, D19_ROWS), (col0 - d7_weight_box_col(n, col0)) & 63);
    // SAFETY: forwarded to the caller; both shifts < 128 / < 64 (the boxes move by less than a tile).
    unsafe {
        store_tile_rows::<2>(tmap_c, s_c, row0, col0, m, mh, leader, || {
            stage_c_rows128_trans::<E>(lo, 0, s_c, warp, lane, row_shift, col_shift);
            stage_c_rows128_trans::<E>(hi, 64, s_c, warp, lane, row_shift, col_shift);
        });
    }
}
