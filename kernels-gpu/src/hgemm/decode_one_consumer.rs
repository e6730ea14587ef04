//! The decode steps' 16-row activation tiles and their one-consumer CTA: d13's tile [`Rows16`] (a
//! 16-row activation box and one weight box a stage, 8 accumulators; introduced by d13, whose file
//! explains it, and run there by d4's two-consumer body), and d14's CTA with one consumer warpgroup
//! taking every stage (introduced by d14, whose file explains it): its K loop, the tiles it runs
//! ([`OneConsumerTile`]: [`Rows16`]; d16 runs d4's `Rows64`) and its persistent body ([`decode`]; with
//! `EARLY`, d15's first stages issued before the block barrier; with `AHEAD`, d17's L2 prefetches).
//! Used by d13–d17.
use super::decode_swapped::{SwappedTile, consume, store_pair};
use super::elem::Elem16;
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::{Ring, warp_specialized};
use crate::prim::{
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_prefetch_tensor_2d_l2, cp_async_bulk_tensor_2d_g2s},
};
use crate::util::unroll::unroll4;
use layout::fragment::WgmmaAcc;
use layout::hopper::tma_hgemm::{B_BOX_BYTES, BK, D4_COLS as COLS, D13_A_BYTES as A_BYTES, D13_ROWS as ROWS, D13_STAGE_BYTES as STAGE_BYTES, D14_STAGES as STAGES,
                                decode_box_row0, decode_box_rows};

/// The activation box of the tile whose rows start at `m0` and the weight box of columns `n0 ..` of K
/// tile `kt` into the stage at `s_stage`, announced on `bar` as one transaction of their bytes.
///
/// # Safety
/// One thread; the stage is free; `bar` is its full barrier; the maps as [`hgemm_decode_v13`](super::decode_v13_sized_activations::hgemm_decode_v13) says.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_stage(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller; the activation box (≤ 16 rows of 128 B) fits the stage's first
    // `A_BYTES`, the weight box its 1024-aligned rest.
    unsafe {
        crate::prim::mbarrier::mbarrier_arrive_expect_tx(bar, decode_box_rows(m, ROWS) * BK * 2 + B_BOX_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, decode_box_row0(m, m0, ROWS) as i32, bar);
        cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES, tmap_b, n0 as i32, k0, bar);
    }
}

/// A tile a one-consumer decode CTA runs (d14, d15, d17: [`Rows16`]; d16: d4's `Rows64`): its ring's
/// depth and the consumer's K loop.
pub(super) trait OneConsumerTile<E: Elem16>: SwappedTile<E> {
    /// Stages of the ring.
    const STAGES: u32;
    /// The consumer's K loop over one tile: stages `*it .. *it + kts`, each released when read.
    ///
    /// # Safety
    /// All 128 threads of the consumer warpgroup; the producer issues the same stages.
    unsafe fn consume(ring: Ring, it: &mut u32, kts: u32) -> Self::Acc;
}

/// d13's tile: 16 activation rows, 10 KiB stages (a 16-row activation box and one weight box:
/// [`issue_stage`]), `m64n16k16` into 8 accumulators a thread, 4 pairs stored per thread. d14–d17 run
/// it with one consumer and a 12-stage ring, d13 with two.
pub(super) struct Rows16;

impl<E: Elem16> SwappedTile<E> for Rows16 {
    const ROWS: u32 = ROWS;
    const STAGE_BYTES: u32 = STAGE_BYTES;
    type Acc = [f32; 8];
    #[inline(always)]
    unsafe fn issue(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { issue_stage(s_stage, bar, tmap_a, tmap_b, m, m0, n0, kt) }
    }
    #[inline(always)]
    unsafe fn store(r_acc: &[f32; 8], g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32, lane: u32) {
        let a_row0 = decode_box_row0(m, row0, ROWS); // accumulator column r is row a_row0 + r
        unroll4!(p => {
            let (c, r) = WgmmaAcc::<{ ROWS }>::warp_lane_rc(warp, lane, 2 * p);
            // SAFETY: forwarded to the caller; `store_pair` checks the element against M and N.
            unsafe { store_pair::<E>(g_c, m, n, row0, a_row0 + r, col0 + c, r_acc[2 * p as usize], r_acc[2 * p as usize + 1]) };
        });
    }
}

impl<E: Elem16> OneConsumerTile<E> for Rows16 {
    const STAGES: u32 = STAGES;
    #[inline(always)]
    unsafe fn consume(ring: Ring, it: &mut u32, kts: u32) -> [f32; 8] {
        // SAFETY: forwarded to the caller.
        // d3's K loop (one group in flight) on 8 accumulators, the only consumer: warpgroup 0's weight box.
        unsafe { consume::<E, [f32; 8], 1>(ring, it, kts, 0) }
    }
}

/// The body of d14 for inputs and output of type `E` on tile `T` (d16 runs it on 64-row tiles): the PDL
/// wait, then a producer warpgroup and one consumer warpgroup. With `EARLY` (d15, d16) thread 0 issues
/// the first tile's first `min(T::STAGES, K tiles)` stages right after initializing the ring, before the
/// block barrier, and the producer loop starts after them; without it (d14) the producer issues every
/// stage after the barrier. With `AHEAD` > 0 (d17, with `EARLY`) the weight boxes of the next `AHEAD` K
/// tiles beyond the ring are prefetched into the L2 (`cp.async.bulk.prefetch.tensor`): thread 0 asks
/// for K tiles `early .. early + AHEAD` after the first stages, and the producer for K tile
/// `kt + AHEAD` as it issues stage `kt`.
///
/// # Safety
/// As [`hgemm_decode_v14`](super::decode_v14_one_consumer::hgemm_decode_v14), with `T`'s stage: 256 threads and `dyn_smem(T::STAGES, T::STAGE_BYTES, 0, 2)`
/// bytes.
#[inline(always)]
pub(super) unsafe fn decode<E: Elem16, T: OneConsumerTile<E>, const EARLY: bool, const AHEAD: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    crate::prim::sync::griddepcontrol_launch_dependents();
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: the producer and the consumer walk the same tiles and K tiles, so ring indices agree; each
    // stage use is consumed and released by the consumer's 4 warps (the empty barriers' count); C
    // addresses are checked by `T::store`. The first `early` stages (none without `EARLY`) of this
    // CTA's first tile are issued by thread 0
    // (the producer thread) after it initialized and fenced the barriers and before anyone else uses
    // them; they are the stages the producer loop would have issued first (running indices 0 ..
    // early, all on their first use: nothing to wait for), and the loop starts after them. The L2
    // prefetches (`AHEAD` > 0) write nothing: their boxes are B's, inside the map.
    unsafe {
        warp_specialized! {
            consumers: 1, registers: (40, 232), first: {
                if block_idx_x() < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(block_idx_x(), tiles_m, tiles_n);
                    let mut kt = 0;
                    while kt < early {
                        let (s_stage, full, _, _) = ring.at(kt);
                        T::issue(s_stage, full, tmap_a, tmap_b, m, tm * T::ROWS, tn * COLS, kt);
                        kt += 1;
                    }
                    if AHEAD > 0 {
                        while kt < k_tiles && kt < early + AHEAD {
                            cp_async_bulk_prefetch_tensor_2d_l2(tmap_b, (tn * COLS) as i32, (kt * BK) as i32);
                            kt += 1;
                        }
                    }
                }
            };
            ring: let (ring, _) = (T::STAGES, T::STAGE_BYTES, 0);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(T::ROWS), n.div_ceil(COLS));
                let k_tiles = k.div_ceil(BK);
                let early = if !EARLY { 0 } else if k_tiles < T::STAGES { k_tiles } else { T::STAGES };
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let (mut it, mut skip) = (early, early); // the first tile's first stages are in flight
                let mut tile = block_idx_x();
                while tile < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let mut kt = skip;
                    while kt < k_tiles {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        T::issue(s_stage, full, tmap_a, tmap_b, m, tm * T::ROWS, tn * COLS, kt);
                        if AHEAD > 0 && kt + AHEAD < k_tiles {
                            cp_async_bulk_prefetch_tensor_2d_l2(tmap_b, (tn * COLS) as i32, ((kt + AHEAD) * BK) as i32);
                        }
                        it += 1;
                        kt += 1;
                    }
                    skip = 0;
                    tile += grid_dim_x();
                }
            }
            consumer(_mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let mut it = 0u32;
                let mut tile = block_idx_x();
                while tile < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let r_acc = T::consume(ring, &mut it, k_tiles);
                    T::store(&r_acc, g_c, m, n, tm * T::ROWS, tn * COLS, warp, lane);
                    tile += grid_dim_x();
                }
            }
        }
    }
}
