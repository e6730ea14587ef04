//! The fixed cost of a TMA launch (sm_90a): the smallest kernel with a TMA load and a TMA store, in the
//! variants that every Hopper kernel of the lab chooses between, so that the host can time them side by
//! side (`families::selftest::launch_costs`) and check that each copies correctly.
//!
//! Each CTA copies one 64×64 box of 16-bit elements (rows `64·blockIdx.x ..`) from `A` to `C`: thread 0
//! loads it into shared memory (`cp.async.bulk.tensor`, an mbarrier), stores it back
//! (`cp.async.bulk.tensor … bulk_group`) and waits for the store. The variants:
//!
//! | kernel | tensor maps | last wait |
//! |---|---|---|
//! | `launch_cost_tma_gmem` | in global memory, by pointer (every Hopper kernel so far) | `wait_group 0` (writes done) |
//! | `launch_cost_tma_gmem_read` | in global memory | `wait_group.read 0` (shared memory read) |
//! | `launch_cost_tma_param` | parameters (`__grid_constant__`, [`crate::prim::tma::TensorMapParam`]) | `wait_group 0` |
//! | `launch_cost_tma_param_read` | parameters | `wait_group.read 0` |
//!
//! plus `launch_cost_empty` (returns at once: the launch alone) and `launch_cost_tma_gmem_smem200`
//! (`launch_cost_tma_gmem`, launched with 200 KiB of dynamic shared memory requested and unused, as
//! large as the GEMM kernels' rings: what the shared-memory carve-out costs).
use crate::prim::{
    mbarrier::{fence_mbarrier_init, fence_proxy_async_shared_cta, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait_parity},
    shared::static_alloc_aligned,
    thread::{block_idx_x, thread_idx_x},
    tma::{
        TensorMap, TensorMapParam, cp_async_bulk_commit_group, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_tensor_2d_s2g,
        cp_async_bulk_wait_group0, cp_async_bulk_wait_group_read0, prefetch_tensormap,
    },
};
use nvptx_std::{grid_constant_tensor_maps, param_tensor_map};

/// Bytes of one 64×64 box of 16-bit elements.
const BOX_BYTES: u32 = 64 * 64 * 2;

/// Thread 0 of CTA `b` copies rows `64b ..` of A to C through shared memory; with `READ` the last wait
/// is `wait_group.read` (the store has read shared memory), else `wait_group` (its writes are done).
///
/// # Safety
/// sm_90; `tmap_a`/`tmap_c` valid tensor maps (global memory or parameters) of 16-bit tensors with a
/// 64×64 box and no swizzle, whose row count is at least 64 · gridDim.x; C not read by anyone during the
/// launch.
#[inline(always)]
unsafe fn copy_box<const READ: bool>(tmap_a: *const TensorMap, tmap_c: *const TensorMap) {
    let s_box = static_alloc_aligned::<{ BOX_BYTES as usize + 16 }, 1024>();
    let s_bar = s_box + BOX_BYTES;
    if thread_idx_x() != 0 {
        return;
    }
    let row0 = (64 * block_idx_x()) as i32;
    // SAFETY: one thread initializes the barrier, expects the box's bytes and issues the load into the
    // 8 KiB at `s_box` (1024-aligned); it waits for phase 0 (the box landed) before the store reads the
    // same bytes (both through the async proxy; the fence orders them regardless), and waits for the
    // store before the CTA, and its shared memory, goes away. Maps: caller.
    unsafe {
        prefetch_tensormap(tmap_a);
        prefetch_tensormap(tmap_c);
        mbarrier_init(s_bar, 1);
        fence_mbarrier_init();
        mbarrier_arrive_expect_tx(s_bar, BOX_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_box, tmap_a, 0, row0, s_bar);
        mbarrier_wait_parity(s_bar, 0);
        fence_proxy_async_shared_cta();
        cp_async_bulk_tensor_2d_s2g(tmap_c, 0, row0, s_box);
        cp_async_bulk_commit_group();
        if READ { cp_async_bulk_wait_group_read0() } else { cp_async_bulk_wait_group0() }
    }
}

/// Does nothing: the cost of the launch itself.
#[unsafe(no_mangle)]
pub extern "ptx-kernel" fn launch_cost_empty() {}

/// [`copy_box`] with the maps in global memory, last wait `wait_group 0`.
///
/// # Safety
/// As [`copy_box`]; 32 threads per CTA.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn launch_cost_tma_gmem(tmap_a: *const TensorMap, tmap_c: *const TensorMap) {
    // SAFETY: forwarded to the caller.
    unsafe { copy_box::<false>(tmap_a, tmap_c) }
}

/// [`launch_cost_tma_gmem`] under another name, so the host can register it with 200 KiB of dynamic
/// shared memory.
///
/// # Safety
/// As [`copy_box`]; 32 threads per CTA.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn launch_cost_tma_gmem_smem200(tmap_a: *const TensorMap, tmap_c: *const TensorMap) {
    // SAFETY: forwarded to the caller.
    unsafe { copy_box::<false>(tmap_a, tmap_c) }
}

/// [`copy_box`] with the maps in global memory, last wait `wait_group.read 0`.
///
/// # Safety
/// As [`copy_box`]; 32 threads per CTA.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn launch_cost_tma_gmem_read(tmap_a: *const TensorMap, tmap_c: *const TensorMap) {
    // SAFETY: forwarded to the caller.
    unsafe { copy_box::<true>(tmap_a, tmap_c) }
}

/// [`copy_box`] with the maps passed by value (`__grid_constant__`), last wait `wait_group 0`.
///
/// # Safety
/// As [`copy_box`] for the two maps; 32 threads per CTA.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn launch_cost_tma_param(_tmap_a: TensorMapParam, _tmap_c: TensorMapParam) {
    let (tmap_a, tmap_c) = (param_tensor_map!(launch_cost_tma_param, 0), param_tensor_map!(launch_cost_tma_param, 1));
    // SAFETY: forwarded to the caller (the addresses are the parameters', valid for the whole launch).
    unsafe { copy_box::<false>(tmap_a, tmap_c) }
}

/// [`copy_box`] with the maps passed by value, last wait `wait_group.read 0`.
///
/// # Safety
/// As [`copy_box`] for the two maps; 32 threads per CTA.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn launch_cost_tma_param_read(_tmap_a: TensorMapParam, _tmap_c: TensorMapParam) {
    let (tmap_a, tmap_c) = (param_tensor_map!(launch_cost_tma_param_read, 0), param_tensor_map!(launch_cost_tma_param_read, 1));
    // SAFETY: as `launch_cost_tma_param`.
    unsafe { copy_box::<true>(tmap_a, tmap_c) }
}

grid_constant_tensor_maps!(launch_cost_tma_param, 0, 1);
grid_constant_tensor_maps!(launch_cost_tma_param_read, 0, 1);
