//! Block ladder v8 — the epilogue through shared memory with 128-bit stores.
//!
//! Change from v7: instead of every lane storing 32-bit f16 pairs of its `mma` fragments straight to
//! global memory (64 stores per thread, each warp instruction touching 8 rows × 16 bytes), the block
//! first writes its 128×256 C tile into the (now idle) stage memory — laid out by
//! `layout::hgemm::C_SWIZZLED` so the fragment writes are conflict-free — then copies it out with
//! 16 coalesced 128-bit stores per thread (a warp writes 512 contiguous bytes of a row). The epilogue is
//! `block_smem_epilogue::store_c_through_smem` (v9 and v10 use it too); this step selects it with
//! `Epilogue::ThroughSharedTile`.
//! Predicted: small, ~1.02× (the epilogue is ~2–3% of the time at 4096³; L2 already merges the
//! partial-sector writes).
use super::block::{Acc, BlockConfig, Epilogue};
use super::block_pipeline::pipeline;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x};
use crate::util::grouped::{GROUP, grouped_block};
use layout::hgemm::{A_SWIZZLED_WIDE, B_SWIZZLED_WIDE, BM};

/// v8: v7 with C through the shared C tile.
struct V8;

impl BlockConfig for V8 {
    const STAGES: u32 = 3;
    const K16_PER_STAGE: u32 = 4;
    const EPILOGUE: Epilogue = Epilogue::ThroughSharedTile;
    type Acc = Acc;
}

/// `C = A · B` (f16, row-major, f32 accumulation).
///
/// # Safety
/// As `hgemm_block_v7` (144 KiB of dynamic shared memory, of which the epilogue reuses 64 KiB).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v8(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    // SAFETY: forwarded; the 3 × 48 KiB of stages cover the 64 KiB C tile.
    unsafe {
        pipeline::<V8>(a, b, c, m, n, k, bm, bn, &A_SWIZZLED_WIDE, &B_SWIZZLED_WIDE);
    }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v8, 256);
