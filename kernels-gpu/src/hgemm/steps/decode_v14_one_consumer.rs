#![cfg(lab_sm90)]
//! Decode step d14 — d13 (12 stages) with **one consumer warpgroup** that takes every stage, so the two
//! halves of the sum never meet in shared memory: 256 threads, no exchange, no named barrier.
//!
//! Why: d13 cut the fixed cost of a launch by ~1.1 µs (the 8-accumulator epilogue) and reads the
//! weights at 84% of a copy at 1 / 16 × 4096², short of 85% by ~0.15 µs. What is left after the last
//! stage on warpgroup 0's path: warpgroup 1's partial sums through shared memory (8 `st.shared`, a
//! named barrier, 8 `ld.shared` + adds), then the stores and a second named barrier. d4 split the
//! stages between two warpgroups because an `m64n64k16` stage kept one busy; an `m64n16k16` stage is a
//! quarter of that, and one group in flight (`wait_group 1`, h4's loop) hides its latency behind the
//! next stage's wait.
//!
//! Diff from d13: `warp_specialized! { consumers: 1, … }` (the empty barriers count the consumer's 4
//! warps); the K loop is d3's (`wait_group 1`, the previous stage released after the next is
//! committed); the epilogue stores the 4 pairs straight from the accumulators. The ring no longer has
//! to be even (no alternation); it keeps d13's 12 stages.
//!
//! Prediction (before running): ~150–250 fewer cycles after the last stage: 1.005–1.015× d13 at
//! 1 / 16 × 4096² (84% → ~85% of the copy), the same rate at 4096×14336 unless one warpgroup cannot
//! keep up with a stage every ~165 ns (then slower there).
//!
//! Measured (H100, `results/2026-11-26-h100-session24/call7`, each against d13 in the same call, two
//! rounds): **the fixed cost fell, the 4096² time barely**: 1×4096×64 4.78 → 4.48 µs (cuBLAS 4.7;
//! `ncu`: SM active cycles 1650 per SM, cuBLAS's `nvjet …64x8…` 1670), 1×4096×1024 7.59 → 7.53 µs, but
//! 1×4096² 15.44 → 15.40 µs (84.1–84.4% of the copy), 16×4096² 83.8–84.1%, 8×4096² 83.8–84.2%,
//! 1 / 16 × 4096×14336 95.5–96.3%, 1×4096×16384 96.8–97.0% (d13: the same within 0.3%). One warpgroup
//! keeps up with the stream. So at 4096² what is left after the stream is no longer the epilogue: the
//! first load's latency and the slowest SM's last stage (`ncu`: the busiest SM 22.5 k cycles against
//! 21.9 k on average). d15 moves the first stages' loads ahead of the block barrier and takes d14's
//! place in the entry point.
use super::decode_v13_sized_activations::issue_stage;
use super::decode_v3_tma_swapped::{W_DESC_0, X_DESC_0, store_pair};
use super::elem::{Bf16, Elem16, F16};
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::{Ring, warp_specialized};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::TensorMap,
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand8, wgmma_wait_group},
};
use crate::util::unroll::unroll4;
use layout::fragment::WgmmaAcc;
use layout::hopper::tma_hgemm::{BK, D4_COLS as COLS, D13_A_BYTES as A_BYTES, D13_ROWS as ROWS, D13_STAGE_BYTES as STAGE_BYTES, D14_STAGES as STAGES,
                                decode_box_row0};

/// `C = A · B` (f16) as d13, one consumer warpgroup.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × `decode_box_rows(m, 16)` rows) and B (K×N f16, box 64 N × 64 K),
/// both `SWIZZLE_128B`; `g_c` of m·n f16; 256 threads, `D14_DYN_SMEM` bytes; a 1-D grid of at most
/// ⌈m/16⌉·⌈n/64⌉ CTAs; launched with or without programmatic stream serialization.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v14(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, Rows16, false>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v14`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v14`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v14_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows16, false>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// The consumer's K loop over one tile: stages `*it .. *it + kts` into fresh accumulators with one
/// `wgmma` group in flight; stage `it − 1` released once `wait_group 1` retired its group, the last
/// after `wait_group 0`.
///
/// # Safety
/// All 128 threads of the consumer warpgroup; the producer issues the same stages.
#[inline(always)]
unsafe fn consume<E: Elem16>(ring: Ring, it: &mut u32, kts: u32) -> [f32; 8] {
    let mut r_acc = [0.0f32; 8];
    let mut i = 0;
    // SAFETY: forwarded to the caller; a stage is read only after its phase completed and released
    // only after the `wait_group` that retired the group reading it; the accumulators are pinned
    // after every wait.
    unsafe {
        while i < kts {
            let (s_stage, _, _, _) = ring.at(*it);
            let d_w = W_DESC_0.advance(s_stage + A_BYTES);
            let d_x = X_DESC_0.advance(s_stage);
            ring.wait_full(*it);
            wgmma_fence_operand8(&mut r_acc);
            wgmma_fence();
            for ks in 0..BK / 16 {
                E::wgmma_16::<1, 0>(&mut r_acc, d_w.advance(2048 * ks).0, d_x.advance(32 * ks).0, i > 0 || ks > 0);
            }
            wgmma_commit_group();
            wgmma_wait_group::<1>();
            wgmma_fence_operand8(&mut r_acc);
            if i > 0 {
                ring.release(*it - 1);
            }
            *it += 1;
            i += 1;
        }
        wgmma_wait_group::<0>();
        wgmma_fence_operand8(&mut r_acc);
        if kts > 0 {
            ring.release(*it - 1);
        }
    }
    r_acc
}

/// The tile of a one-consumer decode CTA (d15: 16 activation rows; d16: 64): its stage, how a stage is
/// filled, the consumer's K loop and the epilogue from its accumulators.
pub(super) trait OneConsumerTile<E: Elem16> {
    /// Activation rows of a tile (the rows of `Cᵀ`'s tile are 64 weight columns).
    const ROWS: u32;
    /// Stages of the ring.
    const STAGES: u32;
    /// Bytes of one stage.
    const STAGE_BYTES: u32;
    /// The consumer's accumulators.
    type Acc;
    /// Loads K tile `kt` of the tile at rows `m0 ..`, columns `n0 ..` into the stage at `s_stage`,
    /// announced on its full barrier `bar`.
    ///
    /// # Safety
    /// One thread; the stage is free; the maps as the kernel's contract says.
    #[allow(clippy::too_many_arguments)]
    unsafe fn issue(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32);
    /// The consumer's K loop over one tile: stages `*it .. *it + kts`, each released when read.
    ///
    /// # Safety
    /// All 128 threads of the consumer warpgroup; the producer issues the same stages.
    unsafe fn consume(ring: Ring, it: &mut u32, kts: u32) -> Self::Acc;
    /// Stores the tile at rows `row0 ..`, columns `col0 ..` of C from this thread's accumulators.
    ///
    /// # Safety
    /// `g_c` has `m·n` writable 16-bit elements; `warp` (0..4) and `lane` are the thread's in the
    /// consumer warpgroup.
    #[allow(clippy::too_many_arguments)]
    unsafe fn store(r_acc: &Self::Acc, g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32, lane: u32);
}

/// d13's tile as d14 and d15 run it: 16 activation rows, 12 stages of 10 KiB, `m64n16k16` into 8 accumulators.
pub(super) struct Rows16;

impl<E: Elem16> OneConsumerTile<E> for Rows16 {
    const ROWS: u32 = ROWS;
    const STAGES: u32 = STAGES;
    const STAGE_BYTES: u32 = STAGE_BYTES;
    type Acc = [f32; 8];
    #[inline(always)]
    unsafe fn issue(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { issue_stage(s_stage, bar, tmap_a, tmap_b, m, m0, n0, kt) }
    }
    #[inline(always)]
    unsafe fn consume(ring: Ring, it: &mut u32, kts: u32) -> [f32; 8] {
        // SAFETY: forwarded to the caller.
        unsafe { consume::<E>(ring, it, kts) }
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

/// The body of d14 for inputs and output of type `E` on tile `T` (d16 runs it on 64-row tiles): the PDL
/// wait, then a producer warpgroup and one consumer warpgroup. With `EARLY` (d15, d16) thread 0 issues
/// the first tile's first `min(T::STAGES, K tiles)` stages right after initializing the ring, before the
/// block barrier, and the producer loop starts after them; without it (d14) the producer issues every
/// stage after the barrier.
///
/// # Safety
/// As [`hgemm_decode_v14`], with `T`'s stage: 256 threads and `dyn_smem(T::STAGES, T::STAGE_BYTES, 0, 2)`
/// bytes.
#[inline(always)]
pub(super) unsafe fn decode<E: Elem16, T: OneConsumerTile<E>, const EARLY: bool>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    crate::prim::sync::griddepcontrol_launch_dependents();
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: the producer and the consumer walk the same tiles and K tiles, so ring indices agree; each
    // stage use is consumed and released by the consumer's 4 warps (the empty barriers' count); C
    // addresses are checked by `T::store`. The first `early` stages (none without `EARLY`) of this
    // CTA's first tile are issued by thread 0
    // (the producer thread) after it initialized and fenced the barriers and before anyone else uses
    // them; they are the stages the producer loop would have issued first (running indices 0 ..
    // early, all on their first use: nothing to wait for), and the loop starts after them.
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

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v14, 256, 1);
launch_bounds!(hgemm_decode_v14_bf16, 256, 1);
