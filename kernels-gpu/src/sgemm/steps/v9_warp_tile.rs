//! v9 — warp tiling with a bank-aware lane arrangement.
//!
//! Change from v8: the 256 threads no longer form a 16×16 grid. The 8 warps tile the block 4 × 2, each
//! a 32×64 region, and inside a warp the lanes are arranged so that the two quarter-warps of each
//! half-warp read bank-disjoint float4s of A and of B (`layout::sgemm::warp_lane_rc`). The bank model
//! as it stood (rule 3b after round 3) predicted 2 wavefronts per 128-bit fragment load instead of
//! 2 (A) and 4 (B): 8 instead of 12 per k per warp. Predicted: ~1.05–1.1× over v8.
//! Measured: 1.01–1.02×, and `ncu` counted 3 wavefronts per fragment load, as for v7/v8: the B loads
//! did not merge. Replaying them alone (bank check round 4) showed why: a quarter-warp merges with its
//! neighbour only if lanes 2j and 2j+1 share an address; here the duplicates are lanes r and r+4. The
//! model was corrected. The 1–2% that v9 still gains over v8 is not a shared-memory effect (same
//! wavefronts); we have not isolated it. Lesson: the model is a hypothesis until the replay kernel agrees.
use super::frag_map::WarpTiled;
use super::wide_k_loop::block_tile;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x};
use crate::util::grouped::{GROUP, grouped_block};

/// `C = A · B` (row-major).
///
/// # Safety
/// As `sgemm_v8`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v9(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(layout::sgemm::BM), grid_n, GROUP);
    // SAFETY: `grouped_block` is a bijection onto the grid; `WarpTiled` gives every thread 8×8 distinct
    // outputs inside the 128×128 tile (tested in `layout::sgemm`).
    unsafe { block_tile::<WarpTiled>(a, b, c, m, n, k, bm, bn) }
}

// As v7: at most 128 registers, two blocks per SM.
launch_bounds!(sgemm_v9, 256, 2);
