//! v19 — v16 with **one loop per launch**: with N % 4 == 0 every tile, edge or not, runs the interior
//! loop (`YES`, or `K_TAIL` when K is off 16) from a clamped base row and column.
//!
//! Change from v16: `split_k_tile::<64, 6, { LoopSelect::PerLaunch }>` — the tile's interior test is replaced by the
//! launch's `N % 4 == 0`, and the two interior loops gain clamped forms (`Interior::YES_CLAMPED`,
//! `K_TAIL_CLAMPED` in `wide_k_loop`): the thread's A row is `min(row, M − 1)` and its B column
//! `min(col, N − 4)`, computed once per block, so an edge tile issues exactly the interior tiles'
//! instructions; its rows past M and columns past N compute products the guarded epilogue never
//! stores, and on an interior tile the clamp changes nothing. N off 4 runs v16's `CLAMP` on every tile
//! (as v16 already did), K off 4 the predicated loop on every tile.
//!
//! Why (session 19, H100, `results/2026-11-25-h100-session19/call2-mixed-loops`, v14 and v16 with K
//! unsplit, 128 blocks of 64×128, one per SM, each timed against cuBLAS): **1024×1024×1024 62 µs, but
//! 992, 1000, 1016 and 1023 × 1024×1024 85–92 µs** — the same grid and the same work per block, with
//! only the last tile row (8 of 128 blocks) on the edge loop. Other launches run one loop: all interior
//! (960×1024×1024, 120 blocks: 62 µs), all clamped (1024×1023×1024, N odd: 71 µs; 127×8191×1024:
//! 71 µs), all K-tail (1024×1024×1000: 63 µs). The worst is an even mix: 127×8192×1024 (64 interior
//! blocks, 64 edge blocks) **120 µs** where 128×8192×1024 takes 80 µs and 127×8191×1024 71 µs. Each loop
//! is a ~19 KB unrolled body; SMs that share an instruction cache level but run different bodies evict
//! each other's (session 16's `ncu` of v16 already had 12.5% of stall samples as *no instruction*).
//! That is the reading; what the measurements establish is only that a mixed launch is slow.
//!
//! A first form (call 3) ran every tile of such a shape through v16's `CLAMP` loop: unsplit it fixed the
//! mixed launches (1000×1024×1024 86 → 69 µs, 127×8192×1024 121 → 69 µs, 1000³ 82 → 67 µs), but
//! `CLAMP` is ~10% slower than the interior loop where most tiles are inside (2000³ 0.88–0.94× v16; with
//! v16's three splits 0.93–0.96× at 1000³). Hence this form: the interior loop, clamped.
//!
//! Prediction (before running this form): unsplit, the mixed shapes at the aligned speed —
//! 1000×1024×1024 ≈ 62–64 µs (1.35–1.4× v16, ≈ 90% of cuBLAS), 127×8192×1024 ≈ 70 µs, 1000³ ≈ 62–64 µs
//! (1.25–1.3× v16 unsplit; ≈ 83–85% of cuBLAS, which is faster at 1000³ than at 1024³); with v16's
//! splits 1.00–1.03× v16; shapes with no edge tile 1.00× (the same loop, no clamp needed).
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v16, every tile on the launch's one loop.
///
/// # Safety
/// As `sgemm_v14`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v19(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 64, as v14; CLAMP only with K % 4 == 0,
    // which split_k_tile checks; a clamped tile inside M and N reads exactly the unclamped addresses).
    unsafe { split_k_tile::<ROWS, 6, { LoopSelect::PerLaunch }, { Epi::ADD }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v14.
launch_bounds!(sgemm_v19, 128, 3);
