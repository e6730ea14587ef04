//! The TMA-store epilogue's pieces (introduced by h6, whose file explains the epilogue): one 64×64
//! accumulator block converted and written into a `SWIZZLE_128B` C staging box, and the named barrier
//! of one consumer warpgroup, the store sequence around them ([`store_tile`]), and a consumer's whole
//! 64×256 result through it ([`store_wide_tile`]). Used by h6–h10 and the FP8 steps (bf16 out).
use super::elem::Elem16;
use crate::prim::{
    mbarrier::fence_proxy_async_shared_cta,
    shared::st_shared_u32,
    sync::sync_named,
    tma::{TensorMap, cp_async_bulk_commit_group, cp_async_bulk_tensor_2d_s2g, cp_async_bulk_wait_group_read0},
};
use layout::hopper::tma_hgemm::{C_BOX, C_BOX_BYTES, c_fragment_rc};

/// Named barrier `1 + mh` over consumer warpgroup `mh`'s 128 threads, with the id as an immediate (a
/// run-time id makes ptxas reserve all 16 hardware barriers).
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh` (0 or 1), converged, the same number of times.
#[inline(always)]
pub(crate) unsafe fn consumer_barrier(mh: u32) {
    // SAFETY: forwarded to the caller; `mh` is uniform across the warpgroup, so each group takes one arm.
    unsafe {
        if mh == 0 { sync_named(1, 128) } else { sync_named(2, 128) }
    }
}

/// Named barrier `1 + mh` over consumer warpgroup `mh`'s 128 threads in a CTA of `CONSUMERS` consumer
/// warpgroups (2, or 3: FP8 f17–f20), one arm per warpgroup so that every id stays an immediate.
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh < CONSUMERS`, converged, the same number of times.
#[inline(always)]
pub(crate) unsafe fn consumer_barrier_of<const CONSUMERS: u32>(mh: u32) {
    const { assert!(CONSUMERS == 2 || CONSUMERS == 3, "named barriers 1..=3 are the consumers' own") };
    // SAFETY: forwarded to the caller; `mh` is uniform across the warpgroup, so each group takes one arm.
    unsafe {
        if CONSUMERS == 3 && mh == 2 { sync_named(3, 128) } else { consumer_barrier(mh) }
    }
}

/// Writes one 64×64 accumulator block as f16 into a C staging box at `s_box` in the TMA's `SWIZZLE_128B`
/// layout ([`C_BOX`]`.smem_byte`): lane (g, t) of warp `warp` writes rows `16·warp + g (+8)`, bytes
/// `16j + 4t` — one conflict-free `st.shared.b32` per (j, half) for the warp.
///
/// # Safety
/// `s_box` is a 1024-aligned `.shared` address of 8 KiB that no TMA store is reading.
#[inline(always)]
pub(crate) unsafe fn stage_c_box<E: Elem16>(acc: &[f32; 32], s_box: u32, warp: u32, lane: u32) {
    for j in 0..8u32 {
        for half in 0..2u32 {
            let (r, c) = c_fragment_rc(warp, lane, j, half);
            let i = (4 * j + 2 * half) as usize;
            // SAFETY: r < 64 and c < 64 keep the byte inside the 8 KiB box (caller: nobody reads it now).
            unsafe { st_shared_u32(s_box + C_BOX.smem_byte(r, c), E::pack(acc[i], acc[i + 1])) };
        }
    }
}

/// As [`stage_c_box`] for an accumulator block of the **transposed** product (d7: accumulator row =
/// column of C, column = row of C): four `stmatrix.m8n8.x4.trans` per warp write it into the box as C
/// (`layout::hopper::tma_hgemm::d7_stmatrix_row`: call `jp` stores elements `8·jp .. 8·jp + 8`, each
/// 8×8 matrix's columns becoming 16-byte rows of C; conflict-free in the `SWIZZLE_128B` box).
///
/// C rows are rotated up by `row_shift` and columns left by `col_shift` (`d7_staging_row`: the last
/// tile of a ragged M, whose activation box starts `row_shift` rows above the tile, and a weight box
/// moved left to end at N, `col_shift` columns before the warpgroup's own; 0 otherwise).
///
/// # Safety
/// sm_90; the warp's 32 lanes converged; `s_box` as [`stage_c_box`]; both shifts `< 64`, `col_shift`
/// a multiple of 8 (the 16-byte rows stay whole).
#[cfg(lab_sm90)]
#[inline(always)]
pub(crate) unsafe fn stage_c_box_trans<E: Elem16>(acc: &[f32; 32], s_box: u32, warp: u32, lane: u32, row_shift: u32, col_shift: u32) {
    use layout::hopper::tma_hgemm::{d7_staging_row, d7_stmatrix_row};
    for jp in 0..4u32 {
        let (r, c) = d7_stmatrix_row(warp, lane, jp);
        let (r, c) = (d7_staging_row(r, row_shift), d7_staging_row(c, col_shift));
        let e = (8 * jp) as usize;
        let v = [E::pack(acc[e], acc[e + 1]), E::pack(acc[e + 2], acc[e + 3]), E::pack(acc[e + 4], acc[e + 5]), E::pack(acc[e + 6], acc[e + 7])];
        // SAFETY: r < 64 and c ≤ 56 (a multiple of 8): a 16-byte aligned row of the 8 KiB box (caller:
        // nobody reads it now); all 32 lanes take part (caller).
        unsafe { crate::prim::stmatrix::stmatrix_x4_trans(s_box + C_BOX.smem_byte(r, c), v) };
    }
}

/// As [`stage_c_box_trans`] for one 64-row half (`row_base` 0 or 64) of d19's 128-row tile, staged
/// into two boxes one above the other at `s_c` (rows 0–63, then 64–127, 8 KiB apart): C row `r` of the
/// tile goes to staging row `d19_staging_row(r, row_shift)` (`layout::hopper::tma_hgemm`; the last tile
/// of a ragged M ≥ 128), columns rotated left by `col_shift` as d7's. Conflict-free (the layout crate's
/// test: 8 consecutive rows stay 8 distinct rows mod 8 across the boxes' boundary).
///
/// # Safety
/// As [`stage_c_box_trans`], with `s_c` 1024-aligned and 16 KiB that no TMA store is reading,
/// `row_shift < 128`.
#[cfg(lab_sm90)]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn stage_c_rows128_trans<E: Elem16>(acc: &[f32; 32], row_base: u32, s_c: u32, warp: u32, lane: u32, row_shift: u32, col_shift: u32) {
    use layout::hopper::tma_hgemm::{d7_staging_row, d7_stmatrix_row, d19_staging_row};
    for jp in 0..4u32 {
        let (r, c) = d7_stmatrix_row(warp, lane, jp);
        let (x, c) = (d19_staging_row(row_base + r, row_shift), d7_staging_row(c, col_shift));
        let e = (8 * jp) as usize;
        let v = [E::pack(acc[e], acc[e + 1]), E::pack(acc[e + 2], acc[e + 3]), E::pack(acc[e + 4], acc[e + 5]), E::pack(acc[e + 6], acc[e + 7])];
        // SAFETY: x < 128 and c ≤ 56 (a multiple of 8): a 16-byte aligned row of box x / 64 of the
        // 16 KiB (caller: nobody reads it now); all 32 lanes take part (caller).
        unsafe { crate::prim::stmatrix::stmatrix_x4_trans(s_c + (x / 64) * C_BOX_BYTES + C_BOX.smem_byte(x % 64, c), v) };
    }
}

/// As [`stage_c_rows128_trans`] for d21's tile of `rows = 2·NH` rows, staged as **one** `rows`-high
/// box at `s_c` (`rows` × 128 B, the `SWIZZLE_128B` layout continued down the rows): `NH / 8`
/// `stmatrix.x4.trans` per warp, C row `r` of the tile at staging row `d21_staging_row(r, row_shift,
/// rows)`, columns rotated left by `col_shift` as d7's. Conflict-free (the layout crate's test).
///
/// # Safety
/// As [`stage_c_box_trans`], with `s_c` 1024-aligned and `rows · 128` bytes that no TMA store is
/// reading, `row_shift < rows`.
#[cfg(lab_sm90)]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn stage_c_rows_trans<E: Elem16, const NH: usize>(acc: &[f32; NH], s_c: u32, warp: u32, lane: u32, row_shift: u32, col_shift: u32) {
    use layout::hopper::tma_hgemm::{d7_staging_row, d7_stmatrix_row, d21_staging_row};
    let rows = 2 * NH as u32;
    // Unrolled with constant accumulator indices (a loop LLVM kept rolled put them in local memory).
    crate::util::unroll::unroll16!(jp => {
        if jp < NH as u32 / 8 {
            let (r, c) = d7_stmatrix_row(warp, lane, jp);
            let (x, c) = (d21_staging_row(r, row_shift, rows), d7_staging_row(c, col_shift));
            let e = (8 * jp) as usize;
            let v = [E::pack(acc[e], acc[e + 1]), E::pack(acc[e + 2], acc[e + 3]), E::pack(acc[e + 4], acc[e + 5]), E::pack(acc[e + 6], acc[e + 7])];
            // SAFETY: x < rows and c ≤ 56 (a multiple of 8): a 16-byte aligned row of the box (caller:
            // nobody reads it now); all 32 lanes take part (caller).
            unsafe { crate::prim::stmatrix::stmatrix_x4_trans(s_c + C_BOX.smem_byte(x, c), v) };
        }
    });
}

/// The store sequence of [`store_tile`] and [`store_tile_of`] around their barrier `$bar` (written once;
/// a macro, not a function both call: a second level of inlining moved LLVM's block layout in every
/// TMA-store kernel, and FP8 f9 then spilled 8 bytes in ptxas). The staging area is rewritten only after
/// the stores of the previous tile finished reading it (`wait_group.read 0` by the thread that issued
/// them, then the barrier), and the stores are issued only after every writer's fence and a second
/// barrier. Expands to unsafe calls: use inside `unsafe`.
macro_rules! store_sequence {
    ($boxes:expr, $bar:expr, $tmap_c:expr, $s_c:expr, $row0:expr, $n0:expr, $leader:expr, $stage:expr) => {
        store_sequence!(@stores $bar, $leader, $stage, {
            for nb in 0..$boxes {
                cp_async_bulk_tensor_2d_s2g($tmap_c, ($n0 + 64 * nb) as i32, $row0 as i32, $s_c + nb * 8192);
            }
        })
    };
    // The sequence with the leader's stores written out (`$stores`; d19 stacks its boxes down the rows).
    (@stores $bar:expr, $leader:expr, $stage:expr, $stores:block) => {{
        if $leader {
            cp_async_bulk_wait_group_read0();
        }
        $bar;
        $stage();
        fence_proxy_async_shared_cta();
        $bar;
        if $leader {
            $stores
            cp_async_bulk_commit_group();
        }
    }};
}

/// Consumer warpgroup `mh`'s TMA-store epilogue for one tile: the leader waits until the previous
/// tile's stores have read the staging area `s_c`, a warpgroup barrier, `stage()` writes the `BOXES`
/// 64×64 boxes (8 KiB apart; the caller makes one [`stage_c_box`] call per box with a constant
/// accumulator reference — a loop over the boxes put the accumulators in local memory), a
/// `fence.proxy.async` (generic-proxy writes → the TMA's async proxy), the barrier again, then the
/// leader stores the boxes at columns `n0 + 64·b`, row `row0`, and commits them. The kernel waits for
/// the last commit (`cp_async_bulk_wait_group0`) before exiting.
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh`, converged; `leader` true in exactly one of them, the same
/// one every tile; `s_c` the warpgroup's 1024-aligned staging area of `BOXES · 8 KiB`, written only by
/// `stage`; `tmap_c` describes a writable C with 64×64 boxes of the staged element type.
#[inline(always)]
pub(crate) unsafe fn store_tile<const BOXES: u32>(tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, stage: impl FnOnce()) {
    // SAFETY: forwarded to the caller (`store_sequence!`'s proof).
    unsafe { store_sequence!(BOXES, consumer_barrier(mh), tmap_c, s_c, row0, n0, leader, stage) }
}

/// [`store_tile`] in a CTA of `CONSUMERS` consumer warpgroups (the barrier: [`consumer_barrier_of`]).
///
/// # Safety
/// As [`store_tile`], with `mh < CONSUMERS`.
#[inline(always)]
pub(crate) unsafe fn store_tile_of<const BOXES: u32, const CONSUMERS: u32>(tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool,
                                                                           stage: impl FnOnce()) {
    // SAFETY: forwarded to the caller (`store_sequence!`'s proof).
    unsafe { store_sequence!(BOXES, consumer_barrier_of::<CONSUMERS>(mh), tmap_c, s_c, row0, n0, leader, stage) }
}

/// [`store_tile`] with the `BOXES` boxes stacked **down** C: box b (at `s_c + 8 KiB·b`) is C's rows
/// `row0 + 64·b ..`, columns `n0 ..` (d19: a warpgroup's 64 columns over a 128-row tile). A box whose
/// first row is at or past `m` is not stored (the TMA would clip all of it).
///
/// # Safety
/// As [`store_tile`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn store_tile_rows<const BOXES: u32>(tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, m: u32, mh: u32, leader: bool,
                                                       stage: impl FnOnce()) {
    // SAFETY: forwarded to the caller (`store_sequence!`'s proof).
    unsafe {
        store_sequence!(@stores consumer_barrier(mh), leader, stage, {
            for nb in 0..BOXES {
                if row0 + 64 * nb < m {
                    cp_async_bulk_tensor_2d_s2g(tmap_c, n0 as i32, (row0 + 64 * nb) as i32, s_c + nb * 8192);
                }
            }
        })
    }
}

/// [`store_tile`] with **one** box of the C map's own height (d21: the tile's `rows` × the warpgroup's
/// 64 columns) staged at `s_c` and stored at row `row0`, columns `n0 ..` (rows ≥ M clipped by the TMA).
///
/// # Safety
/// As [`store_tile`], with `s_c` the warpgroup's 1024-aligned staging box and `tmap_c` a C map whose
/// boxes are 64 columns × the staged rows.
#[inline(always)]
pub(crate) unsafe fn store_tile_box(tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, stage: impl FnOnce()) {
    // SAFETY: forwarded to the caller (`store_sequence!`'s proof).
    unsafe {
        store_sequence!(@stores consumer_barrier(mh), leader, stage, {
            cp_async_bulk_tensor_2d_s2g(tmap_c, n0 as i32, row0 as i32, s_c);
        })
    }
}

/// Consumer warpgroup `mh`'s TMA-store epilogue of one 64×256 result (`r_acc[nb]`: columns
/// `n0 + 64·nb ..`) at row `row0`, through its staging area `s_c` of `staged` boxes: all four boxes at
/// once (`staged = 4`: h6, h9) or two halves, the second staged once the TMA has read the first
/// (`staged = 2`: h6s4, h9s4, h10; FP8 f12).
///
/// # Safety
/// As `tma_store::store_tile`, with `s_c` the warpgroup's 1024-aligned `staged · 8 KiB` (staged 2 or 4).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn store_wide_tile<E: Elem16>(r_acc: &[[f32; 32]; 4], tmap_c: *const TensorMap, s_c: u32, staged: u32, row0: u32, n0: u32, mh: u32,
                                                leader: bool, warp: u32, lane: u32) {
    // One call per box with a constant accumulator reference: a loop over the boxes that LLVM did not
    // unroll put all four accumulator arrays in local memory (592-byte stack frame).
    let [acc0, acc1, acc2, acc3] = r_acc;
    // SAFETY: forwarded to the caller; each box lies inside the staging area (box < staged).
    unsafe {
        if staged == 4 {
            store_tile::<4>(tmap_c, s_c, row0, n0, mh, leader, || {
                stage_c_box::<E>(acc0, s_c, warp, lane);
                stage_c_box::<E>(acc1, s_c + C_BOX_BYTES, warp, lane);
                stage_c_box::<E>(acc2, s_c + 2 * C_BOX_BYTES, warp, lane);
                stage_c_box::<E>(acc3, s_c + 3 * C_BOX_BYTES, warp, lane);
            });
        } else {
            store_tile::<2>(tmap_c, s_c, row0, n0, mh, leader, || {
                stage_c_box::<E>(acc0, s_c, warp, lane);
                stage_c_box::<E>(acc1, s_c + C_BOX_BYTES, warp, lane);
            });
            store_tile::<2>(tmap_c, s_c, row0, n0 + 128, mh, leader, || {
                stage_c_box::<E>(acc2, s_c, warp, lane);
                stage_c_box::<E>(acc3, s_c + C_BOX_BYTES, warp, lane);
            });
        }
    }
}
