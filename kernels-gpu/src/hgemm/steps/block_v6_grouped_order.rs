//! Block ladder v6 — v5 with the grouped block order (SGEMM v8's lesson, `util::grouped`).
//!
//! Change from v5: the launch index `block_idx_y · grid_dim_x + block_idx_x` is remapped by
//! `grouped_block` so that 8 block rows sweep the columns together: the blocks resident at one time
//! share panels of A and B, which are then reused from L2 instead of re-streamed from DRAM. The
//! pipeline is v5's, unchanged (3 stages, 72 KiB). Predicted: a few percent at 8192³, where a row of
//! blocks streams more of B than L2 holds; nothing at 4096³.
use super::block::{Acc, BlockConfig, Epilogue};
use super::block_pipeline::pipeline;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x};
use crate::util::grouped::{GROUP, grouped_block};
use layout::hgemm::{A_SWIZZLED, B_SWIZZLED, BM};

/// v6: v5's pipeline (3 stages of 32-deep swizzled tiles, C from the fragments).
struct V6;

impl BlockConfig for V6 {
    const STAGES: u32 = 3;
    const K16_PER_STAGE: u32 = 2;
    const EPILOGUE: Epilogue = Epilogue::FromFragments;
    type Acc = Acc;
}

/// `C = A · B` (f16, row-major, f32 accumulation), blocks in the grouped order.
///
/// # Safety
/// See `block_pipeline::pipeline` (3 stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v6(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    // SAFETY: forwarded; `grouped_block` is a bijection onto the grid.
    unsafe { pipeline::<V6>(a, b, c, m, n, k, bm, bn, &A_SWIZZLED, &B_SWIZZLED) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v6, 256);
