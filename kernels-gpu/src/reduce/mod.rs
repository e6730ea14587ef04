//! The reduction ladder of seed 003: `out = Σ in[i]` over `n` f32, one file per step.
//!
//! | step | file | idea |
//! |------|------|------|
//! | v0 | `v0_interleaved_divergent.rs` | tree in shared memory, `tid % (2s) == 0` does the add: divergent warps |
//! | v1 | `v1_interleaved.rs` | the first `BLOCK/2s` threads add at `2·s·tid`: no divergence, bank conflicts |
//! | v2 | `v2_sequential.rs` | thread `tid` adds `tid + half` into `tid`: conflict-free |
//! | v3 | `v3_first_add_on_load.rs` | each thread adds two elements while loading: half the blocks, no idle half |
//! | v4 | `v4_last_warp_shuffle.rs` | the last 32 partial sums are reduced by one warp with `shfl.sync` |
//! | v5 | `v5_vec4_grid_stride.rs` | 128-bit loads, a grid-stride loop sized to fill the GPU once, one final pass |
//! | v6 | `v6_unrolled_single_pass.rs` | four 128-bit loads in flight per thread, and the last block finishes |
//!
//! v0–v5 write one partial sum per block to `g_out[block]`; the host relaunches the same kernel on the
//! partial sums until one value is left (`kernel_lab::reduce`). v6 needs one launch.
//! Launch contract (checked by the host, which is the only caller): `block_dim_x() == BLOCK`,
//! dynamic shared memory as its descriptor (`kernel_lab::steps::reduce`) says, `n <= MAX_N`, `g_in` 16-byte aligned for v5/v6.
pub use layout::reduce::{BLOCK, WARP};

use crate::prim::{sync::sync_threads, thread::thread_idx_x, warp::reduce_sum_f32};

// One module per step file (`v<N>_….rs`), declared by build.rs: a new step needs no line here.
include!(concat!(env!("OUT_DIR"), "/reduce_steps.rs"));

/// Sum of `v` over the block, valid in thread 0 (steps v5, v6): each warp reduces with shuffles, warp
/// leaders write their sums to `s_warp[warp]`, and warp 0 reduces those.
///
/// # Safety
/// Called by every thread of a `BLOCK`-thread block (it contains a barrier); `s_warp` points to
/// `BLOCK / WARP` f32 of this block's shared memory that nothing else uses meanwhile.
#[inline(always)]
pub(crate) unsafe fn block_sum_f32(v: f32, s_warp: *mut f32) -> f32 {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / WARP, tid % WARP);
    // SAFETY: all 32 lanes of every warp call this (caller contract), so the full-mask shuffles are
    // legal; `warp < BLOCK / WARP` keeps the shared stores inside `s_warp`.
    unsafe {
        let v = reduce_sum_f32(v);
        if lane == 0 {
            *s_warp.add(warp as usize) = v;
        }
        sync_threads();
        let mut total = 0.0;
        if warp == 0 {
            let w = if lane < BLOCK / WARP { *s_warp.add(lane as usize) } else { 0.0 };
            total = reduce_sum_f32(w);
        }
        // Reuse of `s_warp` by the caller must wait for warp 0's reads.
        sync_threads();
        total
    }
}
