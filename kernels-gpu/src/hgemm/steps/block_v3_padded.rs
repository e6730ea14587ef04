//! Block ladder v3 — padded tiles (seed 000, TVM's `storage_align`, seed 002).
//!
//! Change from v2: A rows padded to 40 halves (`storage_align(32, 32, 8)`: 80 bytes, 20 banks) and B rows
//! to 264: 8 consecutive rows of a phase start in 8 different bank groups, so `ldmatrix` is conflict-free;
//! but, as seed 000 warns, the 128-bit stores of A now conflict: a quarter-warp stores 2 rows × 64 B at
//! 80-byte offsets, which overlap in banks 0–3 (the model: 65 536 store conflicts per 1024³ launch; B's
//! stores stay conflict-free). Costs 2.5 KiB + 512 B of shared memory per stage.
use super::block::run_sync;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y};
use layout::hgemm::{A_PADDED, B_PADDED};

/// `C = A · B` (f16, row-major, f32 accumulation).
///
/// # Safety
/// See `block::run_sync`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v3(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { run_sync(a, b, c, m, n, k, &A_PADDED, &B_PADDED, block_idx_y(), block_idx_x()) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v3, 256);
