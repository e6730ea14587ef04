//! Block ladder v2 — seed 000's 128×256×32 block tile through shared memory, unpadded.
//!
//! Change from v1: 8 warps share each K tile: the block loads A (128×32) and B (32×256) once into shared
//! memory with 128-bit loads and stores, and each warp computes 64×64 of C with `ldmatrix` + 32
//! `mma.sync` per k16 — 64× less global traffic per FLOP than v1. The tiles are unpadded: A rows are
//! 64 bytes (an 8-row `ldmatrix` phase hits 2 bank groups: 4-way) and B rows 512 bytes (one bank
//! group: 8-way). Requires K and N multiples of 8 (16-byte rows).
use super::block::run_sync;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y};
use layout::hgemm::{A_ROW_MAJOR, B_ROW_MAJOR};

/// `C = A · B` (f16, row-major, f32 accumulation).
///
/// # Safety
/// See `block::run_sync`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v2(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { run_sync(a, b, c, m, n, k, &A_ROW_MAJOR, &B_ROW_MAJOR, block_idx_y(), block_idx_x()) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v2, 256);
