#![cfg(lab_sm90)]
//! Decode-ladder step d7 — d3 with **its C written through shared memory and TMA stores**, the
//! transposed accumulator turned back into rows of C by `stmatrix.trans`.
//!
//! Why: d3 computes `Cᵀ`, so a thread's accumulator pair is two *rows* of C in one column, and d3
//! stores it with two 16-bit `st.global.b16`: 64 store instructions per thread, each warp instruction
//! touching four rows (four 16-byte pieces of four lines). At 1024³ that is 512 such instructions per
//! CTA, ~2 000 LSU cycles for 16 KiB of C, while cuBLAS writes its tile in whole lines. `ncu` at 1024³
//! (`results/2026-11-23-h100-session14/call1-d6`): d3 9.3 µs with 12.3 k active cycles per SM,
//! cuBLAS 7.9 µs with 9.4 k; L2 at 30% of its peak in both — the L2 is not what separates them
//! (that was d6's premise, refuted by the same call).
//!
//! Diff from d3 (its body, `decode::<E, 1, true>`; d3 is `decode::<E, 1, false>`):
//! * the ring has 8 stages instead of 9, and after it two 8 KiB staging boxes (`layout::hopper::
//!   tma_hgemm::D7_*`), one per consumer warpgroup, in the TMA's `SWIZZLE_128B` layout of a 64×64 C
//!   box ([`layout::hopper::tma_hgemm::C_BOX`]);
//! * a tile with no split of K: each warp writes its 16 accumulator rows with four
//!   `stmatrix.m8n8.x4.trans` — each 8×8 matrix's columns become 16-byte rows of C
//!   (`d7_stmatrix_row`, conflict-free; CPU test in the layout crate) — then one thread per warpgroup
//!   stores the box with `cp.async.bulk.tensor` (h6's `store_tile`: the TMA clips rows ≥ M, columns ≥
//!   N); the staging box is rewritten only after the previous store has read it;
//! * the last tile of a ragged M ≥ 64, whose activation box starts `shift` rows above the tile, stages
//!   its rows rotated up by `shift` (`d7_staging_row`): the previous tile's rows wrap to box rows whose
//!   C rows lie past M, which the TMA clips, so nothing is written twice;
//! * a weight box that would reach past N starts at N − 64 instead (`d7_weight_box_col`, the same move
//!   as the activation box's), and the epilogue rotates the columns as it rotates the rows: the
//!   overlap with the columns before the warpgroup's own wraps past N, clipped;
//! * split-K tiles (the entry point never gives d7 a shape that splits) store as d3 does, skipping
//!   the overlapped columns.
//!
//! Prediction (before running): the epilogue from ~2 000 to ~200 LSU cycles per CTA, ~1 µs less at
//! 1024³: **1.08–1.12× d3 at 1000³ / 1024³** (≈ 88–90% of cuBLAS), 1.01–1.04× at the K = 4096 shapes
//! (the epilogue is a smaller share there; one stage fewer in flight costs little at M ≥ 128).
//!
//! Measured (H100, `results/2026-11-23-h100-session14/call2-d7`, interleaved with d3 in 8 rounds):
//! **1.20× at 1024³ (96.9% of cuBLAS; `ncu` 7.9 µs against cuBLAS 7.5), 1.29–1.32× at 256 / 512 ×
//! 4096² and 256×4096×14336 (116%, 82%, 111% of cuBLAS), 1.06–1.07× at 128×14336×4096 and
//! 128×8192² (99–100%)** — far more than predicted at K = 4096, where the epilogue is a smaller share
//! of the time: the 16-bit stores cost more than the LSU cycles I counted, and why is not established
//! (not profiled at those shapes).
//! 1000³ only 1.04×: that first version still stored the shifted last tile row with d3's 16-bit stores.
//! With the rows rotated instead (`call3-d7-sweep`) 1000³ stayed at 81% (1.055× d3): not the cause.
//! `call4-d8-ragged` isolated it — d7 at 1000×1024², 1024×1024×1000, 1024×1000×1024: 103%, 109%,
//! **84%** of cuBLAS. Only a ragged N costs: the last column tile's second weight box reached 24
//! columns past N in every stage, zero-filled by the TMA, the same slow path as the activation box's
//! (session 9). Hence the moved weight box. Predicted: 1000³ and 1024×1000×1024 from 81–84% to
//! **95–100%** of cuBLAS (1024³'s 97–98%). Measured (`call5-n-clamp-sweep`): 84 → 88% and 81 → 84–87%,
//! part of it. The rest is the weights' row pitch (`call7-row-pitch`, M = K = 1024): with a pitch that
//! is a multiple of 128 bytes a ragged last tile costs nothing (N = 960: 8.1 µs, as N = 1024), with
//! 64-, 32- or 16-byte alignment (N = 992, 1008, 1000) the TMA reads 1.5–2.1× the L2 sectors and d7
//! takes 9.1–10.5 µs; cuBLAS loses the same way.
use super::decode_swapped::decode;
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

/// [`super::decode_v3_tma_swapped::hgemm_decode_v3`] with C also described by a tensor map and written
/// by TMA stores.
///
/// # Safety
/// As `hgemm_decode_v3`, plus: `tmap_c` describes `g_c`'s C (M×N f16, box 64 × 64, `SWIZZLE_128B`), and
/// the launch provides `D7_DYN_SMEM` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v7(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16,
                                                  ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded (the proof is the shared body's, `decode_swapped::decode`).
    unsafe { decode::<F16, 1, true>(tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

/// [`hgemm_decode_v7`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v7`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v7_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16,
                                                       ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16, 1, true>(tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v7, 384, 1);
launch_bounds!(hgemm_decode_v7_bf16, 384, 1);
