//! The y and z special registers and `index_2d` (rust-cuda's names): each thread of a 3-D grid of 1-D
//! blocks writes what it reads.
use crate::prim::{kernel, thread};

/// Values each thread writes: `%tid.y`, `%tid.z`, `%ctaid.y`, `%ctaid.z`, `%ntid.y`, `%ntid.z`,
/// `%nctaid.y`, `%nctaid.z`, `index_2d()`'s x and y.
pub const WORDS: usize = 10;

/// Thread `t` of block `(bx, by, bz)` writes [`WORDS`] u32 at `out[WORDS · (((bz·gy + by)·gx + bx)·ntid.x + t)]`.
///
/// # Safety
/// `out` holds `WORDS` u32 per thread of the grid; blocks are 1-D (`%ntid.y = %ntid.z = 1`).
#[kernel]
pub unsafe fn selftest_thread_indices(out: *mut u32) {
    let block = (thread::block_idx_z() * thread::grid_dim_y() + thread::block_idx_y()) * thread::grid_dim_x() + thread::block_idx_x();
    let at = WORDS * (block * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let (x2, y2) = thread::index_2d();
    let v = [thread::thread_idx_y(), thread::thread_idx_z(), thread::block_idx_y(), thread::block_idx_z(), thread::block_dim_y(),
             thread::block_dim_z(), thread::grid_dim_y(), thread::grid_dim_z(), x2, y2];
    for (i, x) in v.into_iter().enumerate() {
        // SAFETY: at + i < WORDS · threads of the grid (the contract).
        unsafe { *out.add(at + i) = x };
    }
}
