#![cfg(lab_sm90)]
//! Decode step d4 — d3 without split-K: each CTA streams the **whole K** of a 64-column strip of the
//! weights, so no partial tile ever goes through global memory.
//!
//! Why: d3 measured *slower* than d2 at every decode shape (0.70–0.76× cuBLAS at 4096², d2
//! 0.92–0.94×; `results/2026-11-23-h100-session9/call2-d3`), and the two share the same tail: partial
//! tiles stored, a fence, a ticket, the last CTA's L2 loads. cuBLAS's kernel at M = 64
//! (`nvjet …64x32_64x16_1x2`) splits nothing: 64-column tiles, 16 stages, whole K.
//!
//! Diff from d3:
//! * **Tile 64 rows × 64 columns** (one weight box per stage: 16 KiB stages, 12 of them = 96 KiB of
//!   weights in flight; an even count, so that every use of a stage belongs to the same warpgroup —
//!   `layout::hopper::tma_hgemm::D4_STAGES` says why), **no split**: `Grid::Persistent` over ⌈m/64⌉·⌈n/64⌉ tiles (64 CTAs at N = 4096).
//! * **The consumer warpgroups take alternate stages** (warpgroup `mh` the running indices of parity
//!   `mh`), each into its own accumulators, so each stage's empty barrier waits for 4 warps, not 8
//!   (`warp_specialized! { empty_arrivals: 4; … }`).
//! * **Epilogue through shared memory**: warpgroup 1 writes its 64×64 f32 to an exchange region laid
//!   out `[element][thread]` (a warp's 32 stores of one element are one conflict-free wavefront), one
//!   named barrier, warpgroup 0 adds them to its own (same fragment places) and writes C as d3 does.
//!
//! Prediction (before running): no tail and a ring as deep as cuBLAS's: 4096² at M = 1–64 in ~14–15 µs,
//! **~1.05–1.1× cuBLAS**, where d3 took 23 µs; level with d2 at the 7B/70B shapes.
//!
//! Measured (H100, held, `results/2026-11-23-h100-session9/call6-d4`, `call7-final`): 64×4096² 82–85%
//! of cuBLAS (d2m64 61–64%, d3 58%), 32×4096² 79%, 64×4096×14336 93% of the copy bandwidth (d2m64 75%);
//! below the prediction, and at M ≤ 16 61–73% (d2 keeps those). With the activation box kept inside
//! M (`call9-box`; out-of-bounds zero fill was slow): 80–89% at M = 1–16, 102–104% at 128×4096², 121%
//! at 128×4096×14336. With the tensor maps no longer re-uploaded inside each timed repetition
//! (`call12-maps`, `call13-final`): 96–105% at M = 1–64 × 4096², 102–103% at 1–16 × 4096×14336 —
//! chosen wherever its tiles fill 40–100% of the SMs (`gemm::d4_fits`).
use super::decode_v3_tma_swapped::{A_BYTES, W_DESC_0, X_DESC_0, place, store_pair, issue_stage};
use super::elem::{Bf16, Elem16, F16};
use super::tma_persistent::persistent_tile;
use super::tma_warp_specialized::{Ring, warp_specialized};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    shared::{ld_shared_u32, st_shared_u32},
    sync::sync_named,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::TensorMap,
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_wait_group},
};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::hopper::tma_hgemm::{BK, D3_ROWS as ROWS, decode_a_box_row0, D4_COLS as COLS, D4_EXCHANGE_BYTES as EXCHANGE_BYTES, D4_STAGE_BYTES as STAGE_BYTES,
                                D4_STAGES as STAGES};

/// `C = A · B` (f16) with 64×64 tiles, the weights B streamed whole-K by TMA.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × 64 rows) and B (K×N f16, box 64 N × 64 K), both
/// `SWIZZLE_128B`; `g_c` of m·n f16; 384 threads, `D4_DYN_SMEM` bytes; a 1-D grid of at most
/// ⌈m/64⌉·⌈n/64⌉ CTAs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v4(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, false>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v4`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v4`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v4_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, false>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// Consumer warpgroup `mh`'s share of a tile: the stages of running indices `it0 .. it0 + k_tiles` whose
/// parity is `mh`, into fresh accumulators; each stage released after its `wgmma`s retired.
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh`; the producer issues the same stages.
#[inline(always)]
pub(super) unsafe fn consume<E: Elem16>(ring: Ring, it0: u32, k_tiles: u32, mh: u32) -> [f32; 32] {
    let mut r_acc = [0.0f32; 32];
    let mut it = it0 + ((it0 & 1) ^ mh); // the first index of parity mh
    let mut first = true;
    while it < it0 + k_tiles {
        let (s_stage, _, _, _) = ring.at(it);
        let d_w = W_DESC_0.advance(s_stage + A_BYTES);
        let d_x = X_DESC_0.advance(s_stage);
        wgmma_fence_operand(&mut r_acc);
        // SAFETY: forwarded to the caller; the stage is read only after its phase completed and
        // released only after `wait_group 0` retired the group reading it.
        unsafe {
            ring.wait_full(it);
            wgmma_fence();
            for ks in 0..BK / 16 {
                E::wgmma_64::<1, 0>(&mut r_acc, d_w.advance(2048 * ks).0, d_x.advance(32 * ks).0, !first || ks > 0);
            }
            wgmma_commit_group();
            wgmma_wait_group::<0>();
            wgmma_fence_operand(&mut r_acc);
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

/// The body of d4 for inputs and output of type `E`; with `PDL` (d9) it first lets the next grid on the
/// stream be scheduled (`griddepcontrol.launch_dependents`) and then waits for the previous one
/// (`griddepcontrol.wait`) before anything else: no global memory is touched before that wait.
///
/// # Safety
/// As [`hgemm_decode_v4`].
#[inline(always)]
pub(super) unsafe fn decode<E: Elem16, const PDL: bool>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    if PDL {
        crate::prim::sync::griddepcontrol_launch_dependents();
        crate::prim::sync::griddepcontrol_wait();
    }
    // SAFETY: the producer and both consumers walk the same tiles and K tiles, so ring indices agree;
    // each stage use is consumed and released by exactly one warpgroup (4 warps: the empty barriers'
    // count). The exchange region lies between the ring and the barriers; warpgroup 1 writes it only
    // after the barrier that ends warpgroup 0's reads of the previous tile, and warpgroup 0 reads it
    // only after the barrier that follows the writes (named barrier 3, the 256 consumer threads, met
    // twice per tile by both). C addresses are checked in `store_pair`.
    unsafe {
        warp_specialized! {
            empty_arrivals: 4;
            ring: let (ring, s_exchange) = (STAGES, STAGE_BYTES, EXCHANGE_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(ROWS), n.div_ceil(COLS));
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
                        issue_stage::<1>(s_stage, full, tmap_a, tmap_b, m, tm * ROWS, tn * COLS, kt);
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
                    let mut r_acc = consume::<E>(ring, it, k_tiles, mh);
                    it += k_tiles;
                    add_warpgroups(&mut r_acc, s_exchange, mh, t);
                    if mh == 0 {
                        let (row0, col0) = (tm * ROWS, tn * COLS);
                        let a_row0 = decode_a_box_row0(m, row0); // accumulator column r is row a_row0 + r
                        unroll2!(h => { unroll8!(q => {
                            let p = 8 * h + q;
                            let (c, r) = place(warp, lane, p);
                            store_pair::<E>(g_c, m, n, row0, a_row0 + r, col0 + c, r_acc[2 * p as usize], r_acc[2 * p as usize + 1]);
                        })});
                    }
                    // Warpgroup 1 overwrites the exchange for the next tile only after warpgroup 0 read it.
                    sync_named(3, 256);
                    tile += grid_dim_x();
                }
            }
        }
    }
}


// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v4, 384, 1);
launch_bounds!(hgemm_decode_v4_bf16, 384, 1);
