//! Block ladder v5 — a multistage `cp.async` pipeline on the swizzled tiles (2, 3 and 4 stages).
//!
//! Change from v4: global → shared copies go through `cp.async.cg` (no registers, zero-fill at the
//! edges), `STAGES` deep: while the warps compute tile t, tiles t+1 … t+STAGES-1 are in flight, and one
//! barrier per tile suffices (the loop: `block_pipeline::pipeline`). `hgemm_block_v5` has 3 stages
//! (72 KiB), `hgemm_block_v5_s2` 2 and `hgemm_block_v5_s4` 4 (96 KiB): the two variants are v5 with one
//! number changed, so they live here, as configurations beside [`V5`]. Predicted: the main-loop stalls
//! on global latency disappear (~1.5×), 2 stages hiding less than 3, 4 little more than 3.
use super::block::{Acc, BlockConfig, Epilogue};
use super::block_pipeline::pipeline;
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y};
use layout::hgemm::{A_SWIZZLED, B_SWIZZLED};

/// v5: 3 stages of v4's 32-deep swizzled tiles; C straight from the fragments, as v2–v4.
struct V5;

impl BlockConfig for V5 {
    const STAGES: u32 = 3;
    const K16_PER_STAGE: u32 = 2;
    const EPILOGUE: Epilogue = Epilogue::FromFragments;
    type Acc = Acc;
}

/// v5s2: [`V5`] with 2 stages (double buffering).
struct V5S2;

impl BlockConfig for V5S2 {
    const STAGES: u32 = 2;
    const K16_PER_STAGE: u32 = 2;
    const EPILOGUE: Epilogue = Epilogue::FromFragments;
    type Acc = Acc;
}

/// v5s4: [`V5`] with 4 stages.
struct V5S4;

impl BlockConfig for V5S4 {
    const STAGES: u32 = 4;
    const K16_PER_STAGE: u32 = 2;
    const EPILOGUE: Epilogue = Epilogue::FromFragments;
    type Acc = Acc;
}

/// `C = A · B` (f16, row-major, f32 accumulation), 3 stages.
///
/// # Safety
/// See `block_pipeline::pipeline` (3 stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v5(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { pipeline::<V5>(a, b, c, m, n, k, block_idx_y(), block_idx_x(), &A_SWIZZLED, &B_SWIZZLED) }
}

/// As [`hgemm_block_v5`] with 2 stages (double buffering).
///
/// # Safety
/// See `block_pipeline::pipeline` (2 stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v5_s2(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { pipeline::<V5S2>(a, b, c, m, n, k, block_idx_y(), block_idx_x(), &A_SWIZZLED, &B_SWIZZLED) }
}

/// As [`hgemm_block_v5`] with 4 stages.
///
/// # Safety
/// See `block_pipeline::pipeline` (4 stages).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v5_s4(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { pipeline::<V5S4>(a, b, c, m, n, k, block_idx_y(), block_idx_x(), &A_SWIZZLED, &B_SWIZZLED) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v5, 256);
launch_bounds!(hgemm_block_v5_s2, 256);
launch_bounds!(hgemm_block_v5_s4, 256);
