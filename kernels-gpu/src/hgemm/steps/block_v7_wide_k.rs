//! Block ladder v7 — 64-deep K stages.
//!
//! Change from v6: each stage holds 64 k instead of 32 (A 128×64 with `Swizzle<3,3,3>`, B 64×256 with
//! `Swizzle<5,3,3>`, both the solver's first choice), so every barrier and `cp.async` wait is followed by
//! 4 k16 steps (128 `mma.sync` per warp) instead of 2: half the synchronisation per FLOP, and more
//! independent work between waits for 8 warps per SM to overlap. 3 stages = 144 KiB of shared memory.
//! Predicted: ~1.05–1.1× over v6.
use super::block::{Acc, BlockConfig, Epilogue};
use super::block_pipeline::pipeline;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x};
use crate::util::grouped::{GROUP, grouped_block};
use layout::hgemm::{A_SWIZZLED_WIDE, B_SWIZZLED_WIDE, BM};

/// v7: v6's 3 stages, now 64 deep (4 k16 steps each).
struct V7;

impl BlockConfig for V7 {
    const STAGES: u32 = 3;
    const K16_PER_STAGE: u32 = 4;
    const EPILOGUE: Epilogue = Epilogue::FromFragments;
    type Acc = Acc;
}

/// `C = A · B` (f16, row-major, f32 accumulation).
///
/// # Safety
/// 256 threads, `3 · 2 · (128·64 + 64·256)` bytes of dynamic shared memory, grid
/// `(ceil(N / 256), ceil(M / 128))`; `a`, `b`, `c` hold M·K, K·N, M·N f16, 16-byte aligned; `k % 8 == 0`,
/// `n % 8 == 0`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v7(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    // SAFETY: forwarded; `grouped_block` is a bijection onto the grid; 4 k16 steps per 64-deep stage.
    unsafe { pipeline::<V7>(a, b, c, m, n, k, bm, bn, &A_SWIZZLED_WIDE, &B_SWIZZLED_WIDE) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v7, 256);
