#![cfg(lab_sm90)]
//! Decode step d27 — d16's CTA (one consumer warpgroup, the first stages issued before the block
//! barrier, whole K a tile) on **32-row** activation tiles: `wgmma.m64n32k16` into 16 accumulators a
//! thread, a stage of a 32-row activation box (4 KiB) and the 64-column weight box (8 KiB), 16 stages.
//!
//! Why: at M = 128–512 with few weight columns, d9/d16 run 0.77–0.84× cuBLAS (session 75's corpus
//! sample), and their 64×64 tiles leave SMs idle: 128×2048×2048 is 64 tiles on 132 SMs. cuBLAS runs
//! that shape as 128 CTAs of 64×32 (`nvjet_sm90_hsh_64x32_64x16_1x2`, 7.5 against d9's 9.4 µs inside
//! the kernel). The weights are `wgmma`'s M side here, 64 wide at least; the activation rows are its N
//! side, so halving them doubles the tiles: 128 CTAs, each reading 12 KiB a K tile instead of 16 (the
//! weights once more per tile row, from the L2). Session 76 measured that sharing operands by multicast
//! (d26) leaves a CTA's pace unchanged, so a CTA's own bytes are what to cut.
//!
//! Diff from d16: the tile (`Rows32`: `decode_one_consumer::FlatRows`, d21's flat accumulator at 32 rows; its own pair
//! stores; d13's stage load `issue_stage` at 32 rows), the ring (`D27_STAGES` of `D27_STAGE_BYTES`). The
//! body is d16's (`decode_one_consumer::decode` with `EARLY`).
//!
//! Prediction (before running): where d16's tiles fill half the SMs or less and d27's fill one wave,
//! the K loop's bytes a CTA fall to 3/4 and twice the SMs read: 128×2048×2048 ~9.4 → ~8 µs inside the
//! kernel (1.1–1.2× d9); where d16 already fills the SMs, d27's second round loses (the cost model
//! weighs it: a candidate of the model alone).
use super::decode_one_consumer::{FlatRows, decode};
use super::decode_swapped::SwappedTile;
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::hopper::tma_hgemm::{D27_A_BYTES, D27_ROWS as ROWS, D27_STAGE_BYTES, D27_STAGES};

const _: () = assert!(D27_A_BYTES == ROWS * layout::hopper::tma_hgemm::BK * 2, "issue_stage lays the weight box after ROWS rows of 128 bytes");

/// `C = A · B` (f16) as d16 on 32-row activation tiles.
///
/// # Safety
/// Tensor maps of A (M×K f16, box 64 K × `decode_box_rows(m, 32)` rows) and B (K×N f16, box 64 N × 64 K),
/// both `SWIZZLE_128B`; `g_c` of m·n f16; 256 threads, `D27_DYN_SMEM` bytes; a 1-D grid of at most
/// ⌈m/32⌉·⌈n/64⌉ CTAs; launched with or without programmatic stream serialization.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v27(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (d16's body on `Rows32`, whose stage and ring are `D27_DYN_SMEM`'s).
    unsafe { decode::<F16, Rows32, true, 0>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v27`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v27`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v27_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, Rows32, true, 0>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// d27's tile: 32 activation rows, 12 KiB stages (the activation box, then the weight box: `decode_one_consumer::issue_stage`),
/// `m64n32k16` into 16 accumulators a thread, 8 pairs stored per thread, a 16-stage ring.
type Rows32 = FlatRows<ROWS, 16, D27_STAGES>;
const _: () = assert!(<Rows32 as SwappedTile<F16>>::STAGE_BYTES == D27_STAGE_BYTES, "the host's ring (D27_DYN_SMEM) is this tile's");

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v27, 256, 1);
launch_bounds!(hgemm_decode_v27_bf16, 256, 1);
