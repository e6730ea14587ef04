#![cfg(lab_sm90)]
//! Decode step d13 — d9 with the activation tile **16 rows** high instead of 64: `wgmma.m64n16k16`,
//! 8 accumulators per thread instead of 32, and a ring of 10 KiB stages instead of 16 KiB.
//!
//! Why (`results/2026-11-26-h100-session24/call2`, `call3`): at one K tile (1×4096×64) d9 keeps an SM
//! busy ~5.7 k cycles where cuBLAS's M = 1 kernel (`nvjet_sm90_hsh_64x8_64x16_4x1`: 64×8 tiles, the same
//! 64 CTAs of 384 threads) takes ~3.4 k, and that gap is paid once per launch at every K (d9 16.5 µs
//! against cuBLAS's 15.8–16.4 at 1×4096²). `ncu`'s per-instruction samples put the extra time on
//! warpgroup 0's path after the last stage: ~300 dependent instructions for 32 accumulators — the
//! exchange (32 `ld.shared` + adds) and 16 bounds-checked pairs of 16-bit stores — at every M, although
//! at M ≤ 16 three quarters of the 64 activation rows are never stored. cuBLAS sizes the activation
//! tile to M (`64x8`).
//!
//! Diff from d9: the tile is 64 weight columns × 16 activation rows (`layout::hopper::tma_hgemm::D13_*`);
//! the activation box is at most 16 rows (`decode_box_rows(m, 16)`; larger M runs in 16-row tiles, the
//! last one's box moved up to end at M, `decode_box_row0`); one `m64n16k16` per k16 step (d4's K loop
//! on 8 accumulators: `decode_whole_k::consume` with `[f32; 8]`, `SwappedAcc`); the exchange
//! and the stores cover 8 accumulators (4 pairs per thread, at M = 1 two of them stored by a quarter
//! of the lanes). The ring keeps d9's 12 stages (now of 10 KiB).
//!
//! Prediction (written before the first run, which had a 22-stage ring: as many 10 KiB stages as fit):
//! the epilogue from ~300 instructions on the critical path to ~70: ~0.5 µs less per launch; the deeper
//! ring ~2–3% more streaming rate. At 1 / 16 × 4096² ~16.5 → ~15.7 µs (≈ 1.05× d9, 78.7% → ~82–83% of
//! the copy); at 1 / 16 × 4096×14336 1.02–1.04×.
//!
//! Measured (H100, held time against the same run's copy of the weights, weights rotated beyond L2;
//! `results/2026-11-26-h100-session24/call4`–`call7`):
//! * **The fixed cost fell as predicted, more than predicted**: 1×4096×64 (one K tile) 5.7 → 4.8 µs,
//!   1×4096×1024 8.7 → 7.6 µs; the SASS from 1072 to 640 instructions.
//! * **The deeper ring was wrong**: with 22 stages the weights streamed at 2.6 TB/s instead of 3.15
//!   (1×4096×16384: 56.9 µs against d9's 48.5; `ncu`: DRAM throughput 68–71% of peak against 81–84%).
//!   By depth at 1×4096² (% of the copy): 8 stages 81.6, 10 83.5, **12 84.4**, 14 84.2, 16 83.5,
//!   22 75.7 (`d13s8`, `d13s16`, `d13s22` stay as configurations). Not explained: more bytes in flight
//!   per SM should not lower the rate; more concurrent DRAM rows per channel is the suspect.
//! * **With 12 stages** (this step): 1×4096² 15.4 µs, **84.1–84.6%** of the copy (d9 78.3–78.7%,
//!   cuBLAS 82–83%), 16×4096² 83.2–83.9% (d9 77.7–78.4%, cuBLAS 74–75%), 8×4096² 83.3–84.1%;
//!   1 / 16 × 4096×14336 95.6–96.8% (d9 93–94%); 1×14336×4096 94.3–94.7% (d2, the entry point's
//!   step there, 96.7% in session 20). The streaming rate is d9's (3.15 TB/s from K = 1024 to 16384);
//!   the whole gain is the fixed cost, ~1.1 µs.
use super::decode_one_consumer::Rows16;
use super::decode_whole_k::{WholeKTile, decode as whole_k};
use super::elem::{Bf16, Elem16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    shared::{ld_shared_u32, st_shared_u32},
    sync::sync_named,
    tma::TensorMap,
};
use crate::util::unroll::unroll8;
use layout::hopper::tma_hgemm::{D13_EXCHANGE_BYTES as EXCHANGE_BYTES, D13_STAGES as STAGES};

/// `C = A · B` (f16) with 64-column × 16-row tiles of `Cᵀ`, the weights B streamed whole-K by TMA,
/// with programmatic dependent launch (as d9).
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × `decode_box_rows(m, 16)` rows) and B (K×N f16, box 64 N × 64 K),
/// both `SWIZZLE_128B`; `g_c` of m·n f16; 384 threads, `D13_DYN_SMEM` bytes; a 1-D grid of at most
/// ⌈m/16⌉·⌈n/64⌉ CTAs; launched with or without programmatic stream serialization.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v13(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16, STAGES>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v13`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v13`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v13_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, STAGES>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// Generates a variant of [`hgemm_decode_v13`] (f16) whose ring has `$stages` stages (even) instead of
/// 12: how the depth of the ring moves the streaming rate (`d13s8`, `d13s16`, `d13s22`: 22 is as many
/// as fit).
macro_rules! d13_stages {
    ($name:ident, $stages:literal) => {
        #[doc = concat!("[`hgemm_decode_v13`] with ", stringify!($stages), " stages (`d13_dyn_smem(", stringify!($stages), ")` bytes).")]
        ///
        /// # Safety
        /// As [`hgemm_decode_v13`], with that dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
            // SAFETY: forwarded.
            unsafe { decode::<F16, $stages>(tmap_a, tmap_b, g_c, m, n, k) }
        }
        launch_bounds!($name, 384, 1);
    };
}
d13_stages!(hgemm_decode_v13_s8, 8);
d13_stages!(hgemm_decode_v13_s16, 16);
d13_stages!(hgemm_decode_v13_s22, 22);

/// Warpgroup 1's 8 accumulators added into warpgroup 0's through the exchange region (element i of
/// thread t at `s_exchange + 4·(128·i + t)`: conflict-free), one meeting at named barrier 3.
///
/// # Safety
/// Both consumer warpgroups call it together, `t` the thread's index in its warpgroup; nobody else
/// touches the 4 KiB at `s_exchange` until the next meeting at named barrier 3.
#[inline(always)]
unsafe fn add_warpgroups(r_acc: &mut [f32; 8], s_exchange: u32, mh: u32, t: u32) {
    // SAFETY: forwarded to the caller; addresses inside the exchange region.
    unsafe {
        if mh == 1 {
            unroll8!(i => { st_shared_u32(s_exchange + 4 * (128 * i + t), r_acc[i as usize].to_bits()); });
        }
        sync_named(3, 256);
        if mh == 0 {
            unroll8!(i => { r_acc[i as usize] += f32::from_bits(ld_shared_u32(s_exchange + 4 * (128 * i + t))); });
        }
    }
}

/// d13's tile with d4's two consumers: a 4 KiB exchange of 8 accumulators a thread.
impl<E: Elem16> WholeKTile<E> for Rows16 {
    const EXCHANGE_BYTES: u32 = EXCHANGE_BYTES;
    #[inline(always)]
    unsafe fn add_warpgroups(r_acc: &mut [f32; 8], s_exchange: u32, mh: u32, t: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { add_warpgroups(r_acc, s_exchange, mh, t) }
    }
}

/// The body of d13 for inputs and output of type `E` with a ring of `RING` stages (even): d9's (the PDL
/// wait first, then d4's warp-specialized CTA: `decode_whole_k::decode`) on 64×16 tiles of `Cᵀ`.
///
/// # Safety
/// As [`hgemm_decode_v13`].
#[inline(always)]
unsafe fn decode<E: Elem16, const RING: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded to the caller (the tile's dynamic shared memory: `d13_dyn_smem(RING)`).
    unsafe { whole_k::<E, Rows16, true, RING>(tmap_a, tmap_b, g_c, m, n, k) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v13, 384, 1);
launch_bounds!(hgemm_decode_v13_bf16, 384, 1);
