//! Thread, block and grid indices (PTX special registers `%tid`, `%ctaid`, `%ntid`, `%nctaid`, `%laneid`).
//!
//! All are `u32`: index math in `u32` compiles to `mad.lo.s32`, and widening at the pointer
//! (`as usize`) to `mul.wide.u32` (TOOLCHAIN.md, pitfall 5).
use core::arch::nvptx;

/// `%tid.x`: this thread's index in its block, x.
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_x() }
}
/// `%ctaid.x`: this block's index in the grid, x.
#[inline(always)]
pub fn block_idx_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_x() }
}
/// `%ctaid.y`.
#[inline(always)]
pub fn block_idx_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_y() }
}
/// `%ntid.x`: threads per block, x.
#[inline(always)]
pub fn block_dim_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_x() }
}
/// `%nctaid.x`: blocks in the grid, x.
#[inline(always)]
pub fn grid_dim_x() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_grid_dim_x() }
}
/// `%nctaid.y`: blocks in the grid, y.
#[inline(always)]
pub fn grid_dim_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_grid_dim_y() }
}
/// `%tid.y`.
#[inline(always)]
pub fn thread_idx_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_y() }
}
/// `%tid.z`.
#[inline(always)]
pub fn thread_idx_z() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_thread_idx_z() }
}
/// `%ctaid.z`.
#[inline(always)]
pub fn block_idx_z() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_idx_z() }
}
/// `%ntid.y`.
#[inline(always)]
pub fn block_dim_y() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_y() }
}
/// `%ntid.z`.
#[inline(always)]
pub fn block_dim_z() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_block_dim_z() }
}
/// `%nctaid.z`.
#[inline(always)]
pub fn grid_dim_z() -> u32 {
    // SAFETY: reading a special register has no preconditions.
    unsafe { nvptx::_grid_dim_z() }
}
/// This thread's `(x, y)` in a 2-D grid: `(block_idx_x() * block_dim_x() + thread_idx_x(), block_idx_y() *
/// block_dim_y() + thread_idx_y())`.
#[inline(always)]
pub fn index_2d() -> (u32, u32) {
    (index_1d(), block_idx_y() * block_dim_y() + thread_idx_y())
}
/// `__syncthreads()` under rust-cuda's name and path (`cuda_std::thread::sync_threads`): every thread of
/// the block waits here. Safe to call as rust-cuda's is; a barrier that not every thread of the block
/// reaches is undefined behaviour (as [`crate::sync::sync_threads`] says).
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: as rust-cuda's: the caller's kernel reaches it from every thread (its contract).
    unsafe { crate::sync::sync_threads() }
}
/// `block_idx_x() * block_dim_x() + thread_idx_x()`: this thread's index in a 1-D grid.
#[inline(always)]
pub fn index_1d() -> u32 {
    block_idx_x() * block_dim_x() + thread_idx_x()
}
/// Threads in a 1-D grid: `grid_dim_x() * block_dim_x()` (the grid-stride loop's stride).
#[inline(always)]
pub fn grid_size_1d() -> u32 {
    grid_dim_x() * block_dim_x()
}
/// `%laneid`: this thread's lane in its warp (0..32).
#[inline(always)]
pub fn lane_id() -> u32 {
    let r: u32;
    // SAFETY: reads a special register; no memory is touched. `pure` is fine: the value depends on
    // nothing but the thread.
    unsafe { core::arch::asm!("mov.u32 {0}, %laneid;", out(reg32) r, options(pure, nomem, nostack)) };
    r
}
/// The warp's index within its block for a 1-D block: `thread_idx_x() / 32`.
#[inline(always)]
pub fn warp_id() -> u32 {
    thread_idx_x() / 32
}
/// `%globaltimer`: the GPU's nanosecond wall clock (64-bit; the same on every SM, updated about
/// every microsecond on current GPUs). Not `pure`: two reads must not be merged, the value changes.
#[inline(always)]
pub fn global_timer_ns() -> u64 {
    let r: u64;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { core::arch::asm!("mov.u64 {0}, %globaltimer;", out(reg64) r, options(nomem, nostack)) };
    r
}
