//! The decode steps' 16-row activation tiles and their one-consumer CTA: d13's tile [`Rows16`] (a
//! 16-row activation box and one weight box a stage, 8 accumulators; introduced by d13, whose file
//! explains it, and run there by d4's two-consumer body), and d14's CTA with one consumer warpgroup
//! taking every stage (introduced by d14, whose file explains it): its K loop, the tiles it runs
//! ([`OneConsumerTile`]: [`Rows16`]; d16 runs d4's `Rows64`) and its persistent body ([`decode`]; with
//! `EARLY`, d15's first stages issued before the block barrier; with `AHEAD`, d17's L2 prefetches).
//! Used by d13–d17.
use super::decode_swapped::{RowsAcc, SwappedTile, consume, store_run, store_staged};
use super::elem::Elem16;
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::{Ring, warp_specialized};
use crate::prim::{
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_prefetch_tensor_2d_l2, cp_async_bulk_tensor_2d_g2s},
    wgmma::FlatWgmma,
};
use crate::util::unroll::{unroll4, unroll8, unroll16, unroll32};
use layout::fragment::WgmmaAcc;
use layout::hopper::tma_hgemm::{B_BOX_BYTES, BK, D4_COLS as COLS, D13_ROWS as ROWS, D13_STAGE_BYTES as STAGE_BYTES, D14_STAGES as STAGES,
                                decode_box_row0, decode_box_rows, decode_staging_bytes};

/// The `R`-row activation box of the tile whose rows start at `m0` (d13–d15: 16 rows, d27: 32; moved up
/// to end at row M where it would reach past it) and the weight box of columns `n0 ..` of K tile `kt`
/// into the stage at `s_stage` (the activation box's `R · 128` bytes first), announced on `bar` as one
/// transaction of their bytes.
///
/// # Safety
/// One thread; the stage (`R · 128` bytes, then a 1024-aligned weight box) is free; `bar` is its full
/// barrier; the maps as [`hgemm_decode_v13`](super::decode_v13_sized_activations::hgemm_decode_v13) says,
/// A's box `decode_box_rows(m, R)` rows high.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_stage<const R: u32>(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller; the activation box (≤ R rows of 128 B) fits the stage's first
    // `R · BK · 2` bytes, the weight box its 1024-aligned rest.
    unsafe {
        crate::prim::mbarrier::mbarrier_arrive_expect_tx(bar, decode_box_rows(m, R) * BK * 2 + B_BOX_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, decode_box_row0(m, m0, R) as i32, bar);
        cp_async_bulk_tensor_2d_g2s(s_stage + R * BK * 2, tmap_b, n0 as i32, k0, bar);
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
/// [`issue_stage`]), `m64n16k16` into 8 accumulators a thread, stored through the warps' staging (`store_staged`). d14–d17 run
/// it with one consumer and a 12-stage ring, d13 with two.
pub(super) struct Rows16;

impl<E: Elem16> SwappedTile<E> for Rows16 {
    const ROWS: u32 = ROWS;
    const STAGE_BYTES: u32 = STAGE_BYTES;
    type Acc = [f32; 8];
    #[inline(always)]
    unsafe fn issue(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { issue_stage::<ROWS>(s_stage, bar, tmap_a, tmap_b, m, m0, n0, kt) }
    }
    #[inline(always)]
    unsafe fn store(r_acc: &[f32; 8], s_wg: u32, g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32, lane: u32) {
        let a_row0 = decode_box_row0(m, row0, ROWS); // accumulator column r is row a_row0 + r
        // SAFETY: forwarded to the caller.
        unsafe { store_staged::<E, ROWS>(r_acc, s_wg, g_c, m, n, row0, a_row0, col0, warp, lane) }
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

/// A one-consumer tile of `R = 2·NH` activation rows on d21's flat accumulator (`RowsAcc<NH>`,
/// `wgmma.m64n{R}k16`) and a ring of `STAGES` stages: d27's 32 rows, d28m128's 128. A stage is the
/// `R`-row activation box, then the weight box ([`issue_stage`]); stored through the warps' staging (`store_staged`).
pub(super) struct FlatRows<const R: u32, const NH: usize, const STAGES: u32>;

impl<E: Elem16, const R: u32, const NH: usize, const STAGES: u32> SwappedTile<E> for FlatRows<R, NH, STAGES>
where
    [f32; NH]: FlatWgmma,
{
    const ROWS: u32 = R;
    const STAGE_BYTES: u32 = R * BK * 2 + B_BOX_BYTES;
    type Acc = RowsAcc<NH>;
    #[inline(always)]
    unsafe fn issue(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32) {
        const { assert!(R == 2 * NH as u32 && R % 8 == 0, "R rows, NH = R/2 accumulators; the weight box 1024-aligned after R rows of 128 B") };
        // SAFETY: forwarded to the caller; the stage is `R · 128` bytes of activations, then the
        // 1024-aligned weight box.
        unsafe { issue_stage::<R>(s_stage, bar, tmap_a, tmap_b, m, m0, n0, kt) }
    }
    #[inline(always)]
    unsafe fn store(r_acc: &RowsAcc<NH>, s_wg: u32, g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32, lane: u32) {
        let a_row0 = decode_box_row0(m, row0, R); // accumulator column r is row a_row0 + r
        // SAFETY: forwarded to the caller.
        unsafe { store_staged::<E, R>(&r_acc.0, s_wg, g_c, m, n, row0, a_row0, col0, warp, lane) }
    }
}

impl<E: Elem16, const R: u32, const NH: usize, const STAGES: u32> OneConsumerTile<E> for FlatRows<R, NH, STAGES>
where
    [f32; NH]: FlatWgmma,
{
    const STAGES: u32 = STAGES;
    #[inline(always)]
    unsafe fn consume(ring: Ring, it: &mut u32, kts: u32) -> RowsAcc<NH> {
        // SAFETY: forwarded to the caller; a local ring (no multicast), weight box 0, the consumer's 4
        // warps release each stage (the empty barriers' count).
        unsafe { consume::<E, RowsAcc<NH>, 1>(ring, it, kts, 0) }
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
            ring: let (ring, s_staging) = (T::STAGES, T::STAGE_BYTES, decode_staging_bytes(T::ROWS));
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
                    T::store(&r_acc, s_staging, g_c, m, n, tm * T::ROWS, tn * COLS, warp, lane);
                    tile += grid_dim_x();
                }
            }
        }
    }
}

/// The body of d25 for inputs and output of type `E`: d16's CTA on its tile (`Rows64`) — the PDL
/// wait, a producer warpgroup and one consumer warpgroup, the first unit's first stages issued by thread
/// 0 before the block barrier — walking (tile, split) units ([`Units`]: `splits` runs of K per tile,
/// unit `u` split `u / tiles` of tile `u % tiles`). With one split a unit is d16's tile and is stored as
/// d16 stores it. Otherwise each unit stores its f32 partial to its split's slice of `ws` (pair `p` of
/// consumer thread `t` at `256·p + 2·t` of the tile's `D25_TILE_F32`: coalesced, and the same thread
/// reads the same slots back), takes a ticket on the tile's counter, and the tile's last unit adds every
/// split's slice in split order (deterministic; four splits' loads in flight at once) and stores C from the sums.
///
/// # Safety
/// As [`hgemm_decode_v25`](super::decode_v25_split_one_consumer::hgemm_decode_v25): 256 threads,
/// `D25_DYN_SMEM` bytes, a 1-D grid of at most `tiles · splits` CTAs; `ws` holds `splits · tiles ·
/// D25_TILE_F32` f32 and `count` `tiles` counters, zero (each tile's last unit resets its counter).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn decode_split<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32, m: u32,
                                             n: u32, k: u32, splits: u32) {
    use super::decode_whole_k::Rows64 as T;
    use super::split_k::{Units, last_split_of, reset_counter};
    use crate::prim::global::ld_global_cg_u64;
    use layout::hopper::tma_hgemm::D25_TILE_F32;
    // d16's ring (`OneConsumerTile` for `Rows64` lives in d16's step file, outside the FP8 and attention builds).
    let (rows, stages, stage_bytes) = (<T as SwappedTile<E>>::ROWS, layout::hopper::tma_hgemm::D4_STAGES, <T as SwappedTile<E>>::STAGE_BYTES);
    crate::prim::sync::griddepcontrol_launch_dependents();
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: the producer and the consumer walk the same units and K tiles (`g.unit`), so ring
    // indices agree; each stage use is consumed and released by the consumer's 4 warps. The first
    // `early` stages of this CTA's first unit are issued by thread 0 (the producer thread) after it
    // initialized and fenced the barriers and before anyone else uses them; they are the stages the
    // producer loop would have issued first (running indices 0 .. early, all on their first use), and
    // the loop skips them. C addresses are checked by `T::store`; a partial's slots lie inside its
    // split's slice (tile < tiles, 256·15 + 2·127 + 1 < D25_TILE_F32); the last-unit protocol is d3's
    // (fence, named barrier 3 over the 128 consumer threads, acq_rel ticket, flag read after a second
    // barrier, L2 loads of splits below `splits` only), the flag in the ring's extra word after the C staging.
    unsafe {
        warp_specialized! {
            consumers: 1, registers: (40, 232), first: {
                if u0 < g.units {
                    let (tm, tn, _, kt0, _) = g.unit(u0);
                    let mut i = 0;
                    while i < early {
                        let (s_stage, full, _, _) = ring.at(i);
                        <T as SwappedTile<E>>::issue(s_stage, full, tmap_a, tmap_b, m, tm * rows, tn * COLS, kt0 + i);
                        i += 1;
                    }
                }
            };
            ring: let (ring, s_staging) = (stages, stage_bytes, decode_staging_bytes(rows) + 16);
            thread: tid, warpgroup: wg;
            setup: {
                let g = Units::new(m.div_ceil(rows), n.div_ceil(COLS), k, BK, splits);
                let u0 = block_idx_x();
                let early = if u0 < g.units {
                    let (_, _, _, kt0, kt1) = g.unit(u0);
                    if kt1 - kt0 < stages { kt1 - kt0 } else { stages }
                } else {
                    0
                };
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let (mut it, mut skip) = (early, early); // the first unit's first stages are in flight
                let mut u = u0;
                while u < g.units {
                    let (tm, tn, _, kt0, kt1) = g.unit(u);
                    let mut kt = kt0 + skip;
                    while kt < kt1 {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        <T as SwappedTile<E>>::issue(s_stage, full, tmap_a, tmap_b, m, tm * rows, tn * COLS, kt);
                        it += 1;
                        kt += 1;
                    }
                    skip = 0;
                    u += grid_dim_x();
                }
            }
            consumer(_mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let slice_len = (g.tiles * D25_TILE_F32) as usize;
                let s_flag = s_staging + decode_staging_bytes(rows); // the extra word after the C staging
                let mut it = 0u32;
                let mut u = u0;
                while u < g.units {
                    let (tm, tn, split, kt0, kt1) = g.unit(u);
                    let r_acc: [f32; 32] = consume::<E, [f32; 32], 1>(ring, &mut it, kt1 - kt0, 0); // d16's K loop: weight box 0, one consumer
                    if g.splits == 1 {
                        <T as SwappedTile<E>>::store(&r_acc, s_staging, g_c, m, n, tm * rows, tn * COLS, warp, lane);
                    } else {
                        let tile = tm * g.tiles_n + tn;
                        let mine = tile as usize * D25_TILE_F32 as usize + 2 * (tid % 128) as usize;
                        let slice = ws.add(split as usize * slice_len + mine);
                        unroll16!(p => {
                            let bits = (r_acc[2 * p as usize].to_bits() as u64) | (r_acc[2 * p as usize + 1].to_bits() as u64) << 32;
                            *(slice.add(256 * p as usize) as *mut u64) = bits;
                        });
                        let counter = count.add(tile as usize);
                        if last_split_of::<3, 128>(counter, g.splits, s_flag, tid, 128) {
                            // Every pair's partials of four splits at a time loaded back to back, then
                            // added in split order (as `sum_splits` adds): one L2 round trip per four
                            // splits, not one per pair (16 pairs in turn cost d25 ~6 µs a tile).
                            let mut sum = [0f32; 32];
                            let mut c0 = 0;
                            while c0 < g.splits {
                                let mut v = [[0u64; 4]; 16];
                                unroll16!(p => { unroll4!(j => {
                                    if c0 + j < g.splits {
                                        v[p as usize][j as usize] = ld_global_cg_u64(ws.add((c0 + j) as usize * slice_len + mine + 256 * p as usize) as *const u64);
                                    }
                                })});
                                unroll16!(p => { unroll4!(j => {
                                    sum[2 * p as usize] += f32::from_bits(v[p as usize][j as usize] as u32);
                                    sum[2 * p as usize + 1] += f32::from_bits((v[p as usize][j as usize] >> 32) as u32);
                                })});
                                c0 += 4;
                            }
                            <T as SwappedTile<E>>::store(&sum, s_staging, g_c, m, n, tm * rows, tn * COLS, warp, lane);
                            if tid == 128 {
                                reset_counter(counter);
                            }
                        }
                        // The flag is rewritten by the next unit's ticket only after every consumer
                        // thread has read it.
                        crate::prim::sync::sync_named(3, 128);
                    }
                    u += grid_dim_x();
                }
            }
        }
    }
}

/// The body of d28 for inputs and output of type `E` on tile `T` (`R` = `T::ROWS` activation rows: d15's
/// [`Rows16`], d16's `Rows64` or d28m128's 128-row [`FlatRows`]), in clusters of `S` CTAs along x: CTA `rank` of cluster `c` runs K
/// tiles `h8_k_range(⌈k/64⌉, rank, S)` of tile `c` (`tile % tiles_m` its row, `tile / tiles_m` its
/// column) on d15's CTA — the PDL wait, a producer warpgroup and one consumer warpgroup, thread 0
/// issuing the first `min(stages, K tiles of the split)` stages before the first cluster barrier. Its
/// consumer then meets its warpgroup (named barrier 1: every `wgmma` has retired), stores its `R / 4`
/// f32 pairs over the ring (pair `p` of consumer thread `t` at byte `8·(128·p + t)`: one 8-byte store a
/// lane, conflict-free), and after a cluster barrier sums pairs `p ≡ rank (mod S)` over the cluster's
/// `S` partials (every peer's pair loaded before the first add, added in rank order: the same bits
/// every run) and stores them to C as d15/d16 store their pairs. An empty split (fewer K tiles than
/// `S`) contributes zeros.
///
/// # Safety
/// As [`hgemm_decode_v15`](super::decode_v15_early_first_stages::hgemm_decode_v15) (or v16 for
/// `Rows64`), with a 1-D grid of exactly `⌈m/R⌉·⌈n/64⌉ · S` CTAs in clusters of `S` (the kernel's
/// `.reqnctapercluster`), `T`'s ring (`D14_DYN_SMEM` / `D16_DYN_SMEM` / `D28_M128_DYN_SMEM`, at least
/// `R · 128 · 2` bytes for the partial), `R = T::ROWS`.
#[inline(always)]
pub(super) unsafe fn decode_cluster<E: Elem16, T: OneConsumerTile<E>, const R: u32, const S: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                                                                              m: u32, n: u32, k: u32)
where
    T::Acc: AsRef<[f32]>,
{
    use crate::prim::{
        cluster::{cluster_ctarank, cluster_sync, ld_shared_cluster_v4_f32, mapa_shared_cluster},
        shared::st_shared_f32,
        sync::sync_named,
    };
    use layout::hopper::tma_hgemm::{d28_part_at, d28_run_rc, h8_k_range};
    const { assert!(R == 16 || R == 32 || R == 64 || R == 128, "d28 runs the one-consumer tiles of 16, 32, 64 or 128 rows") };
    const { assert!(S >= 2 && S <= 8, "clusters of 2 … 8 CTAs (8: the portable maximum)") };
    const { assert!(R == T::ROWS, "R names the tile's rows (a const parameter for `WgmmaAcc`)") };
    const { assert!(d28_part_at(R, 0) <= T::STAGES * T::STAGE_BYTES, "the transposed partial fits the ring") };
    // Pairs a consumer thread holds (`wgmma.m64nRk16`: R/2 f32).
    let pairs = R / 4;
    crate::prim::sync::griddepcontrol_launch_dependents();
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: the producer and the consumer walk the same K tiles (`kt0 .. kt1`), so ring indices
    // agree; each stage use is consumed and released by the consumer's 4 warps. The first `early`
    // stages are issued by thread 0 after it initialized and fenced the barriers and before anyone
    // else uses them (running indices 0 .. early, each a first use), and the producer loop starts
    // after them. The partial is stored over the ring only after every stage the producer issued was
    // consumed (the consumer waited on each full barrier, so no TMA write is in flight) and after named
    // barrier 1 over the 128 consumer threads (every warp's `wgmma`s retired), inside the ring's first
    // `R·128·2 ≤ STAGES · STAGE_BYTES` bytes. Peers' partials are read after the cluster barrier that
    // follows their stores (release/acquire) and before the macro's last cluster barrier, which every
    // thread of every CTA passes before exiting; the offsets are the same in every CTA. C addresses
    // are checked by `store_run`.
    unsafe {
        warp_specialized! {
            cluster_local: S, consumer_meets: 1, consumers: 1, registers: (40, 232), first: {
                let mut i = 0;
                while i < early {
                    let (s_stage, full, _, _) = ring.at(i);
                    T::issue(s_stage, full, tmap_a, tmap_b, m, tm * R, tn * COLS, kt0 + i);
                    i += 1;
                }
            };
            ring: let (ring, _) = (T::STAGES, T::STAGE_BYTES, 0);
            thread: tid, warpgroup: wg;
            setup: {
                let tiles_m = m.div_ceil(R).max(1); // >= 1: `tile % tiles_m` cannot trap
                let tile = block_idx_x() / S;
                let (tm, tn) = (tile % tiles_m, tile / tiles_m);
                let rank = cluster_ctarank();
                let (kt0, kt1) = h8_k_range(k.div_ceil(BK), rank, S);
                let early = if kt1 - kt0 < T::STAGES { kt1 - kt0 } else { T::STAGES };
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = early; // the first stages are in flight
                while kt0 + it < kt1 {
                    let (s_stage, full, _, _) = ring.at(it);
                    ring.wait_empty(it);
                    T::issue(s_stage, full, tmap_a, tmap_b, m, tm * R, tn * COLS, kt0 + it);
                    it += 1;
                }
            }
            consumer(_mh): {
                let (warp, lane, t) = ((tid / 32) % 4, lane_id(), tid % 128);
                let mut it = 0u32;
                let r_acc = T::consume(ring, &mut it, kt1 - kt0);
                let acc = r_acc.as_ref();
                let s_part = ring.at(0).0;
                sync_named(1, 128);
                // The partial transposed into shared memory (`layout`'s `d28_part_at`: `[R activation rows]
                // [D28_PART_PITCH f32]`, row r holding its 64 weight columns; a warp's scalar stores of one pair
                // index — 8 columns × 4 row pairs — fall on 32 distinct banks, tested with the bank model).
                unroll32!(p => {
                    if p < pairs {
                        let (c, r) = WgmmaAcc::<R>::warp_lane_rc(warp, lane, 2 * p);
                        st_shared_f32(s_part + d28_part_at(r, c), acc[2 * p as usize]);
                        st_shared_f32(s_part + d28_part_at(r + 1, c), acc[2 * p as usize + 1]);
                    }
                });
                cluster_sync();
                // This rank's share of the tile: `R·16/S` runs of 4 columns (a row's 16 runs in order, the
                // rows in order), run `v` of the share at row `v / 16`, columns `4·(v % 16) ..`. A thread
                // takes runs `t, t + 128, …`: eight consecutive threads read one row's 128 bytes (one
                // wavefront a peer) and store its 64 bytes of C. Every peer's copy of a run is loaded
                // before the first add; the adds in rank order (the bits of every other d28 split).
                let a_row0 = decode_box_row0(m, tm * R, R); // tile row r is row a_row0 + r of C
                let share = R * 16 / S;
                let aligned = (g_c as usize).is_multiple_of(8);
                unroll8!(j => {
                    let v = t + 128 * j;
                    // `j < ⌈share/128⌉` is implied by `v < share` but constant: iterations past it drop out.
                    if j < share.div_ceil(128) && v < share {
                        let run = rank * share + v;
                        let (r, c) = d28_run_rc(run);
                        let at = s_part + d28_part_at(r, c);
                        let mut part = [[0f32; 4]; 8];
                        unroll8!(q => {
                            if q < S {
                                part[q as usize] = ld_shared_cluster_v4_f32(mapa_shared_cluster(at, q));
                            }
                        });
                        let mut sum = part[0];
                        unroll8!(q => {
                            if q > 0 && q < S {
                                for e in 0..4 {
                                    sum[e] += part[q as usize][e];
                                }
                            }
                        });
                        store_run::<E>(g_c, m, n, tm * R, a_row0 + r, tn * COLS + c, sum, aligned);
                    }
                });
            }
        }
    }
}
