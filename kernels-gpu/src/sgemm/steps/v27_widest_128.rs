#![cfg(lab_sm90)]
//! v27 — v25 on **v12's 128×128 tiles**: 256 threads, one block per SM, v12's split rule (as many
//! splits as fill the SMs once, none under 256 deep), every tile on the launch's one loop (v19), C
//! zeroed by a grid the GEMM overlaps (v21) and the split-K adds as wide as alignment allows (v25).
//!
//! Why: the one f32 sweep shape under 85% of cuBLAS is 127×8191×1024 (83.2%, v21 unsplit;
//! `results/2026-11-25-h100-session20`). N is odd, so every tile runs the clamped loop with B loaded
//! element by element. v21 runs it as 128 tiles of 64×128 over the whole K: 4 warps per SM, and
//! (64 + 128) · 1024 floats loaded per 64·128·1024 FMAs. cuBLAS runs a 128×256-tile SIMT kernel
//! (`cutlass_80_simt_sgemm_256x128_8x4_nn_align1`, scalar loads too) with K split 4 ways
//! (`results/2026-11-25-h100-session19/call1-split-probe/ncu-all-127x8191x1024.txt`): half our loads
//! per FMA. The last 128-row step measured there was v12 (session 5: 79% against v14's 72%), before
//! the clamped loop, the one-loop launch, the overlapped zeroing and the wide adds, which took the
//! 64-row steps from 72% to 83% at this shape.
//!
//! Diff from v25: `ROWS = 128` (`layout::sgemm::BM`) and four loads per thread and stage (A's 128×16 and
//! B's 16×128 floats over 256 threads), launch bounds `(256, 1)` as v12, v12's split rule on the host.
//! The body is `wide_k_loop::split_k_tile`, unchanged.
//!
//! Prediction (before running): 127×8191×1024 as 64 tiles × 2 splits of 512 (128 blocks, 8 warps per
//! SM, 2/3 of v21's loads per FMA): **1.06–1.12× v21** (≈ 88–93% of cuBLAS); at 1000³ (64 tiles, 2
//! splits) 0.95–1.05× v24; where v24 has many tiles (≥ 2 waves of 128-row tiles) about v20.
//!
//! Measured (H100, `results/2026-11-25-h100-session21/call3-v27`, `ab`, 8 rounds): **wrong at the
//! shape it was for** — 127×8191×1024 **0.973× v21** and 0.995× v25 (0/8 rounds), 81.1–81.5% of cuBLAS
//! under v12's rule (two splits) and 73% with splits of 128. It wins 1.173× v21 at 127×4095×1024,
//! 1.018× at 255×8191×1024 and 1.030× at 1000×999×1000, but loses 0.82× v25 at 130×4097×1024 and
//! 0.50–0.94× v24 wherever N % 4 == 0 (1000³ 0.939×, 1024³ 0.984×, 2000³ 0.904×, 512³ 0.68×,
//! 64×4096² 0.50×). Halving the loads per FMA did not help at 127×8191×1024: what costs there is B's
//! odd pitch, element-wise loads on every tile (127×8192×1024 runs in 57 µs with v24, 127×8191×1024 in
//! 69–71 µs with v21, v25 or v27; cuBLAS's `align1` kernel in 58). Correct (the SGEMM GPU tests, the
//! f32 entry-point test, `--check` on nine ragged shapes, memcheck 0); not chosen.
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::BM as ROWS;

/// `C = A · B` (row-major) as v25 on 128×128 tiles.
///
/// # Safety
/// As `sgemm_v21`, with `ROWS = 128`: grid `(⌈N/128⌉, ⌈M/128⌉ · splits)`, 256 threads and v12's
/// dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v27(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 128 with WAIT_ADD_WIDE: sm_90, as v25).
    unsafe { split_k_tile::<ROWS, 4, { LoopSelect::PerLaunch }, { Epi::WAIT_ADD_WIDE }>(a, b, c, m, n, k, k_split) }
}

// One block of 256 threads per SM, as v12 (its add epilogue spilled at two blocks' 128 registers).
launch_bounds!(sgemm_v27, 256, 1);
