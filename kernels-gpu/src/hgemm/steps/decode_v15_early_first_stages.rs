#![cfg(lab_sm90)]
//! Decode step d15 — d14 with its **first stages issued by thread 0 right after it initializes the
//! ring**, before the block barrier, instead of by the producer after it.
//!
//! Why: in a decode launch the first weight box's DRAM latency is on the critical path, and d14's
//! producer issues it only after the block barrier, `setmaxnreg.dec` and its first tile's coordinates
//! (a division): ~200–300 cycles in which no weight byte is in flight. d14 reads 1×4096² at 84.1–84.4%
//! of a copy of the weights; 85% needs ~0.15 µs less.
//!
//! Diff from d14: `warp_specialized! { consumers: 1, registers: (40, 232), first: { … }; … }`. In that
//! block thread 0 (the producer thread) computes its first tile and issues its first `min(STAGES,
//! K tiles)` stages; the producer loop then starts after them. Sound because the same thread
//! initialized the barriers and fenced the initialization for the async proxy before issuing, and
//! the consumers touch the barriers only after the block barrier.
//!
//! Prediction (before running): 0.1–0.15 µs less per launch at every K: 1 / 16 × 4096² ~1.007–1.01× d14
//! (84.3% → ~85% of the copy); nothing else changes.
//!
//! Measured (H100, `results/2026-11-26-h100-session24/call8`, against d14 in the same call, two rounds
//! each): 1×4096² 15.52–15.57 → **15.33–15.36 µs: 84.9–85.0% of the copy** (d14 83.9–84.0%), 16×4096²
//! 84.1–84.6% (83.5–83.6%), 8×4096² 84.2% (84.2%), 1 / 16 × 4096×14336 96.2–97.0% (95.6–96.2%), 1×4096×64
//! 4.48–4.59 µs (4.59–4.67); bf16 84.9 / 84.0 / 96.7%. As predicted at M = 1 (1.012×), less at M = 8–16.
//! memcheck / synccheck / racecheck 0 / 0 / 0 (racecheck's one report in that run is inside cuBLAS's
//! `nvjet` kernel). The entry point's step for M ≤ 16 where d4's tiles fit one wave (`gemm::d15_fits`).
use super::decode_v14_one_consumer::{consume, issue_stage};
use super::decode_v3_tma_swapped::store_pair;
use super::elem::{Bf16, Elem16, F16};
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::{Ring, warp_specialized};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::TensorMap,
};
use crate::util::unroll::unroll4;
use layout::fragment::WgmmaAcc;
use layout::hopper::tma_hgemm::{BK, D4_COLS as COLS, D13_ROWS as ROWS, D13_STAGE_BYTES as STAGE_BYTES, D14_STAGES as STAGES, decode_box_row0};

/// `C = A · B` (f16) as d14, the first stages issued before the block barrier.
///
/// # Safety
/// As `hgemm_decode_v14` (256 threads, `D14_DYN_SMEM` bytes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v15(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, Rows16>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v15`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v15`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v15_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows16>(tmap_a, tmap_b, g_c, m, n, k) }
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

/// d13's and d14's tile: 16 activation rows, 12 stages of 10 KiB, `m64n16k16` into 8 accumulators.
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

/// The body of d15 for inputs and output of type `E` on tile `T` (d16 runs it on 64-row tiles).
///
/// # Safety
/// As [`hgemm_decode_v15`], with `T`'s stage: 256 threads and `dyn_smem(T::STAGES, T::STAGE_BYTES, 0, 2)`
/// bytes.
#[inline(always)]
pub(super) unsafe fn decode<E: Elem16, T: OneConsumerTile<E>>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    crate::prim::sync::griddepcontrol_launch_dependents();
    crate::prim::sync::griddepcontrol_wait();
    // SAFETY: as d14's body. The first `early` stages of this CTA's first tile are issued by thread 0
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
                let early = if k_tiles < T::STAGES { k_tiles } else { T::STAGES };
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
launch_bounds!(hgemm_decode_v15, 256, 1);
launch_bounds!(hgemm_decode_v15_bf16, 256, 1);
