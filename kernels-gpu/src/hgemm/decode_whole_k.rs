//! The whole-K decode CTA (introduced by d4, whose file explains it): two consumer warpgroups taking
//! alternate stages of a 64×64 tile of `Cᵀ` ([`consume`], also d13's 16-row tiles: [`SwappedAcc`]), their accumulators added through shared
//! memory ([`add_warpgroups`]), and d4's persistent body ([`decode`] on a [`WholeKTile`]: [`Rows64`], or
//! d13's 16-row tile; with `PDL`, d9's). The body runs d4, d9, d12 and d13; d5 takes the K loop and the
//! exchange.
use super::decode_swapped::{SwappedAcc, SwappedTile, W_DESC_0, X_DESC_0, issue_stage, store_staged};
use super::elem::Elem16;
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::{Ring, warp_specialized};
use crate::prim::{
    shared::{ld_shared_u32, st_shared_u32},
    sync::sync_named,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::TensorMap,
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_wait_group},
};
use crate::util::unroll::{unroll4, unroll8};
use layout::hopper::tma_hgemm::{BK, D3_ROWS as ROWS, decode_a_box_row0, D4_COLS as COLS, D4_EXCHANGE_BYTES as EXCHANGE_BYTES, D4_STAGE_BYTES as STAGE_BYTES};

/// Consumer warpgroup `mh`'s share of a tile: the stages of running indices `it0 .. it0 + k_tiles` whose
/// parity is `mh`, into fresh accumulators `A` (d4's 64 rows, d13's 16); each stage released after its
/// `wgmma`s retired.
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh`; the producer issues the same stages.
#[inline(always)]
pub(super) unsafe fn consume<E: Elem16, A: SwappedAcc<E>>(ring: Ring, it0: u32, k_tiles: u32, mh: u32) -> A {
    let mut r_acc = A::zero();
    let mut it = it0 + ((it0 & 1) ^ mh); // the first index of parity mh
    let mut first = true;
    while it < it0 + k_tiles {
        let (s_stage, _, _, _) = ring.at(it);
        let d_w = W_DESC_0.advance(s_stage + A::A_BYTES);
        let d_x = X_DESC_0.advance(s_stage);
        r_acc.fence();
        // SAFETY: forwarded to the caller; the stage is read only after its phase completed and
        // released only after `wait_group 0` retired the group reading it.
        unsafe {
            ring.wait_full(it);
            wgmma_fence();
            for ks in 0..BK / 16 {
                r_acc.mma(d_w.advance(2048 * ks).0, d_x.advance(32 * ks).0, !first || ks > 0);
            }
            wgmma_commit_group();
            wgmma_wait_group::<0>();
            r_acc.fence();
            ring.release(it);
        }
        first = false;
        it += 2;
    }
    r_acc
}

/// Warpgroup 1's accumulators added into warpgroup 0's through the exchange region: element i of
/// thread t at `s_exchange + 4·(128·i + t)` (a warp's stores of one element are 32 consecutive words:
/// one conflict-free wavefront), one meeting at named barrier 3 between the stores and the loads.
/// Afterwards warpgroup 0's `r_acc` holds the CTA's sum; warpgroup 1's is unchanged.
///
/// # Safety
/// Both consumer warpgroups (256 threads) call it together, `t` the thread's index in its warpgroup;
/// nobody else touches the 16 KiB at `s_exchange` until the next meeting at named barrier 3.
#[inline(always)]
pub(super) unsafe fn add_warpgroups(r_acc: &mut [f32; 32], s_exchange: u32, mh: u32, t: u32) {
    // SAFETY: forwarded to the caller; addresses inside the exchange region.
    unsafe {
        if mh == 1 {
            unroll8!(q => { unroll4!(j => {
                let i = 4 * q + j;
                st_shared_u32(s_exchange + 4 * (128 * i + t), r_acc[i as usize].to_bits());
            })});
        }
        sync_named(3, 256);
        if mh == 0 {
            unroll8!(q => { unroll4!(j => {
                let i = 4 * q + j;
                r_acc[i as usize] += f32::from_bits(ld_shared_u32(s_exchange + 4 * (128 * i + t)));
            })});
        }
    }
}

/// A tile a two-consumer whole-K decode CTA runs (d4's [`Rows64`]; d13's 16-row `Rows16`, in its file):
/// how warpgroup 1's accumulators reach warpgroup 0's.
pub(super) trait WholeKTile<E: Elem16>: SwappedTile<E, Acc: SwappedAcc<E>> {
    /// Bytes of the exchange region between the two consumer warpgroups.
    const EXCHANGE_BYTES: u32;
    /// Warpgroup 1's accumulators added into warpgroup 0's through the exchange region.
    ///
    /// # Safety
    /// As [`add_warpgroups`], over `EXCHANGE_BYTES`.
    unsafe fn add_warpgroups(r_acc: &mut Self::Acc, s_exchange: u32, mh: u32, t: u32);
}

/// d4's tile: 64 activation rows, 16 KiB stages (the activation box and one weight box), `m64n64k16`
/// into 32 accumulators a thread, stored through the warps' staging (`store_staged`); with two consumers a 16 KiB exchange.
/// d16 runs it with one consumer.
pub(super) struct Rows64;

impl<E: Elem16> SwappedTile<E> for Rows64 {
    const ROWS: u32 = ROWS;
    const STAGE_BYTES: u32 = STAGE_BYTES;
    type Acc = [f32; 32];
    #[inline(always)]
    unsafe fn issue(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32) {
        // SAFETY: forwarded to the caller (the stage holds an activation box and one weight box).
        unsafe { issue_stage::<1>(s_stage, bar, tmap_a, tmap_b, m, m0, n0, kt) }
    }
    #[inline(always)]
    unsafe fn store(r_acc: &[f32; 32], s_wg: u32, g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32, lane: u32) {
        let a_row0 = decode_a_box_row0(m, row0); // accumulator column r is row a_row0 + r
        // SAFETY: forwarded to the caller.
        unsafe { store_staged::<E, ROWS>(r_acc, s_wg, g_c, m, n, row0, a_row0, col0, warp, lane) }
    }
}

impl<E: Elem16> WholeKTile<E> for Rows64 {
    const EXCHANGE_BYTES: u32 = EXCHANGE_BYTES;
    #[inline(always)]
    unsafe fn add_warpgroups(r_acc: &mut [f32; 32], s_exchange: u32, mh: u32, t: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { add_warpgroups(r_acc, s_exchange, mh, t) }
    }
}

/// The body of d4 for inputs and output of type `E` on tile `T` with a ring of `RING` stages (even: the
/// warpgroups take alternate stages; d4, d9 and d12 `D4_STAGES`, d13 its own); with `PDL` (d9, d13) it first
/// lets the next grid on the stream be scheduled (`griddepcontrol.launch_dependents`) and then waits
/// for the previous one (`griddepcontrol.wait`) before anything else: no global memory is touched
/// before that wait.
///
/// # Safety
/// As [`hgemm_decode_v4`](super::decode_v4_whole_k::hgemm_decode_v4), with `T`'s tile, stage and
/// exchange: 384 threads and the dynamic shared memory of `RING` stages of `T::STAGE_BYTES` and
/// `T::EXCHANGE_BYTES`.
#[inline(always)]
pub(super) unsafe fn decode<E: Elem16, T: WholeKTile<E>, const PDL: bool, const RING: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                                                                        m: u32, n: u32, k: u32) {
    const { assert!(RING % 2 == 0, "the warpgroups take alternate stages: an even ring (D4_STAGES says why)") };
    if PDL {
        crate::prim::sync::griddepcontrol_launch_dependents();
        crate::prim::sync::griddepcontrol_wait();
    }
    // SAFETY: the producer and both consumers walk the same tiles and K tiles, so ring indices agree;
    // each stage use is consumed and released by exactly one warpgroup (4 warps: the empty barriers'
    // count). The exchange region lies between the ring and the barriers; warpgroup 1 writes it only
    // after the barrier that ends warpgroup 0's reads of the previous tile, and warpgroup 0 reads it
    // only after the barrier that follows the writes (named barrier 3, the 256 consumer threads, met
    // twice per tile by both). Warpgroup 0 stages C over the exchange's first
    // `decode_staging_bytes(T::ROWS)` bytes (asserted in `layout`) only after named barrier 4 over its
    // 128 threads, which follows every one of its exchange reads, and before the next meeting at barrier 3
    // (after which warpgroup 1 writes the exchange again). C addresses are checked by `T::store`.
    unsafe {
        warp_specialized! {
            empty_arrivals: 4;
            ring: let (ring, s_exchange) = (RING, T::STAGE_BYTES, T::EXCHANGE_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(T::ROWS), n.div_ceil(COLS));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                let mut tile = block_idx_x();
                while tile < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let mut kt = 0;
                    while kt < k_tiles {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        T::issue(s_stage, full, tmap_a, tmap_b, m, tm * T::ROWS, tn * COLS, kt);
                        it += 1;
                        kt += 1;
                    }
                    tile += grid_dim_x();
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let t = tid % 128;
                let mut it = 0u32;
                let mut tile = block_idx_x();
                while tile < tiles_m * tiles_n {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let mut r_acc: T::Acc = consume::<E, _>(ring, it, k_tiles, mh);
                    it += k_tiles;
                    T::add_warpgroups(&mut r_acc, s_exchange, mh, t);
                    if mh == 0 {
                        // Warpgroup 0's four warps have read the whole exchange (named barrier 4) before
                        // any of them stages its part of C over it.
                        sync_named(4, 128);
                        T::store(&r_acc, s_exchange, g_c, m, n, tm * T::ROWS, tn * COLS, warp, lane);
                    }
                    // Warpgroup 1 overwrites the exchange for the next tile only after warpgroup 0 read it.
                    sync_named(3, 256);
                    tile += grid_dim_x();
                }
            }
        }
    }
}
