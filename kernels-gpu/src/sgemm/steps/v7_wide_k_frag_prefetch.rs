//! v7 — 16-deep K stages, register double-buffered fragments, unpredicated interior tiles.
//!
//! Change from v6: each shared stage holds 16 k instead of 8 (two float4 of A and two of B per thread
//! per stage), so there is one barrier per 1024 FMAs instead of per 512; inside a stage the 16 k steps
//! are unrolled in pairs with two fragment sets in registers (ping-pong): step `kk + 1`'s fragments are
//! read from shared memory before step `kk`'s 64 FMAs, hiding the load latency behind arithmetic (only
//! 16 warps per SM are resident at ~124 registers per thread, too few to hide it by switching warps);
//! and blocks whose whole tile lies inside A, B and C (all but the ragged edge) load with plain 128-bit
//! loads, without per-element bounds checks.
//! History: a first version read step kk + 1 into a separate set inside a rolled loop and copied it over
//! each step: 12 extra moves per 64 FMAs, 0.86× of v6 (results/). Unrolling removes the copies.
//! The loop is `wide_k_loop::block_tile` (v8, v9 and v11 reuse it); the thread mapping is v5's,
//! `frag_map::Strided4`.
//! Predicted: ~1.1× over v6 (v6: 83% of cuBLAS; v6's inner loop spends ~40 of ~110 instructions on
//! addresses, bounds checks and loop control).
use super::frag_map::Strided4;
use super::wide_k_loop::block_tile;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y};

/// `C = A · B` (row-major).
///
/// # Safety
/// See `wide_k_loop::block_tile`; grid `(ceil(N / 128), ceil(M / 128))`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v7(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded; the block indices are inside the grid.
    unsafe { block_tile::<Strided4>(a, b, c, m, n, k, block_idx_y(), block_idx_x()) }
}

// 256 threads and 2 resident blocks per SM, so ptxas keeps the kernel at <= 128 registers (without the
// bounds it takes 130, which leaves room for only one 256-thread block per SM).
launch_bounds!(sgemm_v7, 256, 2);
