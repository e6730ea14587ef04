//! Block ladder v4 — swizzled tiles, as the solver finds them.
//!
//! Change from v3: no padding; `Swizzle<3,2,3>` on A's element offsets and `Swizzle<5,3,3>` on B's
//! (`kernel-lab layout solve` ranks them first: 0 store and 0 load conflicts, 0 extra bytes).
use super::block::run_sync;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y};
use layout::hgemm::{A_SWIZZLED, B_SWIZZLED};

/// `C = A · B` (f16, row-major, f32 accumulation).
///
/// # Safety
/// See `block::run_sync`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v4(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { run_sync(a, b, c, m, n, k, &A_SWIZZLED, &B_SWIZZLED, block_idx_y(), block_idx_x()) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v4, 256);
