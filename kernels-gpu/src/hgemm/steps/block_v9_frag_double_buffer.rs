//! Block ladder v9 — fragments double-buffered in registers **across** stages.
//!
//! What v8 already had: inside a 64-deep stage the k16 loop is unrolled, and ptxas software-pipelines
//! it — the SASS of v7/v8 issues k16 step s + 1's `LDSM`s between step s's `HMMA`s (two fragment sets
//! live). What it cannot do is cross the stage barrier: every warp runs its last 32 `HMMA`s, waits for
//! the next stage (`cp.async.wait_group`, `bar.sync`), issues 12 `cp.async`, and only then the next
//! stage's first `ldmatrix`es — the tensor cores idle for a barrier plus a shared-memory round trip per
//! stage, in all 8 warps at once (one block per SM: nobody to switch to).
//!
//! Change from v8 (CUTLASS's multistage order):
//! 1. The wait and barrier for stage t + 1 move *before* stage t's last k16 step, whose fragments are
//!    already in registers; the next stage's first fragments are loaded right after the barrier and
//!    the last 32 `HMMA`s of stage t run over that load. The stage just finished is refilled after
//!    those MMAs (a stage is released once its last fragments are loaded, so the prologue fills all
//!    `STAGES` stages and the wait keeps `STAGES − 2` groups in flight).
//! 2. What made that spill in every earlier attempt (7 arrangements, 255 registers, 24–72 bytes of
//!    spills; ladder README) was the copy's per-chunk state: 12 global addresses with their bounds
//!    kept live across the K loop. Blocks whose tile and K range lie inside the matrices (all but the
//!    ragged edge) now copy from two pointers: a thread's chunks of A are 32 rows apart, of B 8 rows
//!    apart, and the layouts promise (`Swizzled::row_step`, checked at compile time) that those rows'
//!    shared offsets differ by constants — so one swizzled offset per tile plus immediates, and one
//!    global pointer plus a multiple of the row pitch. Edge blocks run v8's loop unchanged (the test
//!    is made once per block, as in SGEMM v11): with the checked copy, this loop still spilled 96
//!    bytes; the interior loop alone takes 249 registers, the kernel with both 254, no spills.
//!
//! The loop, the interior copy and the edge dispatch are `block_cross_stage_prefetch` (v10 reuses them); this
//! file holds v9's configurations and its `ldmatrix` address scheme ([`ByLayout`]). `v9s4` (4 stages),
//! `v9p` (padded tiles) and `v9h` (f16 accumulation) are v9 with one choice changed, so they live here.
//!
//! Predicted: ~1.03–1.06× over v8 (one barrier + `ldmatrix` latency of tensor-core idle time per 128
//! `HMMA`s per warp, plus ~40 fewer copy instructions per stage).
//! Measured (H200): head to head 1.038× (4096³) and 1.028× (8192³) v8; `ncu` at 4096³ 0.958× v8's
//! cycles with 24% fewer instructions; 51.7–56.8% of cuBLAS at 4096³ and 56.4–60.1% at 8192³ over five
//! interleaved runs. `v9p` (padded tiles) measured 0.90× v9: padding splits `cp.async` sectors
//! (`layout::copy`); `v9h` (f16 accumulation, 210 registers) 57–64% of cuBLAS in 16F compute.
use super::block::{Acc, AccF16, BlockConfig, Epilogue, Frags, load_frags};
use super::block_cross_stage_prefetch::{A_ROWS_APART, B_ROWS_APART, FragAddrs, SWIZZLED, Tiles, block, step};
use crate::launch_bounds::launch_bounds;
use layout::hgemm::{A_PADDED_WIDE, B_PADDED_WIDE};
use layout::{Layout, Padded};

/// v9: v8's 3 stages of 64-deep tiles, C through the shared C tile, f32 accumulators.
struct V9;

impl BlockConfig for V9 {
    const STAGES: u32 = 3;
    const K16_PER_STAGE: u32 = 4;
    const EPILOGUE: Epilogue = Epilogue::ThroughSharedTile;
    type Acc = Acc;
}

/// v9s4: [`V9`] with 4 stages.
struct V9S4;

impl BlockConfig for V9S4 {
    const STAGES: u32 = 4;
    const K16_PER_STAGE: u32 = 4;
    const EPILOGUE: Epilogue = Epilogue::ThroughSharedTile;
    type Acc = Acc;
}

/// v9h: [`V9`] with f16 accumulators.
struct V9H;

impl BlockConfig for V9H {
    const STAGES: u32 = 3;
    const K16_PER_STAGE: u32 = 4;
    const EPILOGUE: Epilogue = Epilogue::ThroughSharedTile;
    type Acc = AccF16;
}

/// v9p's tiles: the same shapes padded by `storage_align` (seed 000/002) — the control experiment
/// for "swizzled vs padded" at the top of the ladder.
const PADDED: Tiles<Padded, Padded> = Tiles {
    la: A_PADDED_WIDE,
    lb: B_PADDED_WIDE,
    a_step: step(A_PADDED_WIDE.row_step(A_ROWS_APART)),
    b_step: step(B_PADDED_WIDE.row_step(B_ROWS_APART)),
};

/// v9's `ldmatrix` addresses: every row address from the layouts' `offset(row, col)`
/// (`block::load_frags`). ptxas keeps the 32 loop-invariant offsets (4 `ldmatrix` of A and 4 of B per
/// k16 step) in 32 registers.
struct ByLayout<'t, LA, LB>(&'t Tiles<LA, LB>);

impl<LA: Layout, LB: Layout> FragAddrs for ByLayout<'_, LA, LB> {
    #[inline(always)]
    fn fresh(&self) -> Self {
        ByLayout(self.0)
    }
    #[inline(always)]
    unsafe fn load(&self, s_a: u32, s_b: u32, k16: u32) -> Frags {
        // SAFETY: forwarded.
        unsafe { load_frags(s_a, s_b, k16, &self.0.la, &self.0.lb) }
    }
}

/// `C = A · B` (f16, row-major, f32 accumulation), 3 stages.
///
/// # Safety
/// As `hgemm_block_v8`: 256 threads, `3 · 2 · (128·64 + 64·256)` bytes of dynamic shared memory, grid
/// `(ceil(N / 256), ceil(M / 128))`; `a`, `b`, `c` hold M·K, K·N, M·N f16, 16-byte aligned;
/// `k % 8 == 0`, `n % 8 == 0`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v9(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { block::<V9, _, _, _>(&SWIZZLED, &ByLayout(&SWIZZLED), a, b, c, m, n, k) }
}

/// As [`hgemm_block_v9`] with 4 stages (192 KiB of dynamic shared memory).
///
/// # Safety
/// As `hgemm_block_v9` with `4 · 2 · (128·64 + 64·256)` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v9_s4(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { block::<V9S4, _, _, _>(&SWIZZLED, &ByLayout(&SWIZZLED), a, b, c, m, n, k) }
}

/// v9 on padded tiles (`storage_align` strides 72 and 264; 3 stages, 153 KiB): everything else as
/// [`hgemm_block_v9`], so the pair measures what the swizzle buys over padding at the ladder's top.
///
/// # Safety
/// As `hgemm_block_v9` with `3 · 2 · (128·72 + 64·264)` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v9_padded(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { block::<V9, _, _, _>(&PADDED, &ByLayout(&PADDED), a, b, c, m, n, k) }
}

/// v9 with **f16 accumulation** (`mma.sync.m16n8k16…f16.f16.f16.f16`): the same tiles, pipeline and
/// epilogue, 64 accumulator registers instead of 128. Each k16 step rounds the running sums to f16, so
/// the error grows with K (`kernel_lab::hgemm::Step::tolerance`); compared with cuBLAS in 16F compute.
///
/// # Safety
/// As `hgemm_block_v9`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v9_f16acc(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { block::<V9H, _, _, _>(&SWIZZLED, &ByLayout(&SWIZZLED), a, b, c, m, n, k) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v9, 256);
launch_bounds!(hgemm_block_v9_s4, 256);
launch_bounds!(hgemm_block_v9_padded, 256);
launch_bounds!(hgemm_block_v9_f16acc, 256);
