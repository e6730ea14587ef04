//! Tensor-core HGEMM (seeds 000 and 001).
//!
//! `warp_v1` … `warp_v5`: seed 001's single-warp 16×16×16 ladder, `C = A · B` with f16 A, B, C (row-major,
//! B is K×N) and f16 accumulation, one warp. Each step a file:
//!
//! | step | file | idea |
//! |------|------|------|
//! | v1 | `warp_v1_wmma_global.rs` | `wmma.load`/`wmma.mma`/`wmma.store` straight from global memory |
//! | v2 | `warp_v2_wmma_shared.rs` | staged through shared memory with 128-bit stores; `wmma.load` conflicts |
//! | v3 | `warp_v3_wmma_padded.rs` | rows padded by 8 halves: loads conflict-free, stores now conflict |
//! | v4 | `warp_v4_ldmatrix_mma.rs` | `ldmatrix.x4(.trans)` + 2 `mma.sync.m16n8k16`, C by a `shfl.sync` stmatrix (and native `stmatrix` on sm_90) |
//! | v5 | `warp_v5_swizzle.rs` | v4 with `Swizzle<3,1,3>` on every tile: no conflicts, no extra memory |
//!
//! `block_v1` … `block_v5`: full HGEMM `C = A · B` (f16 in and out, f32 accumulation, row-major, B is
//! K×N) — one warp per 16×16 from global memory, then seed 000's 128×256×32 block tile through shared
//! memory unpadded, padded, swizzled, a 2/3/4-stage `cp.async` pipeline, a grouped block order, 64-deep
//! stages, and the epilogue through shared memory (`block_v1` … `block_v8`), fragments double-buffered
//! across stages (`block_v9`, with `v9s4`, the padded control `v9p` and the f16-accumulate `v9h`);
//! README beside this file.
//!
//! `tma_v1` (sm_90a only): the first Hopper step, TMA + `wgmma` with one stage (issue 6; file docs).
//!
//! All shared tiles are described by a `layout::Layout`; the same layout gives the 16-byte store
//! addresses, the `ldmatrix`/`wmma` addresses and the host's predicted bank conflicts.
use crate::prim::{
    global::{ld_global_nc_v4_u32, st_global_v4_u32},
    shared,
    thread::lane_id,
    warp::shuffle_idx_u32,
};
use layout::{Layout, RowMajor};

mod block;
mod block_v1_warp_global;
mod block_v2_smem;
mod block_v3_padded;
mod block_v4_swizzled;
mod block_pipeline;
mod block_v5_cp_async;
mod block_v6_grouped_order;
mod block_v7_wide_k;
mod block_smem_epilogue;
mod block_v8_smem_epilogue;
mod block_cross_stage_prefetch;
mod block_v9_frag_double_buffer;
mod block_v10_ldmatrix_bases;
#[cfg(lab_sm90)]
mod tma;
#[cfg(lab_sm90)]
mod tma_v1_wgmma;
#[cfg(lab_sm90)]
mod tma_v2_pipeline;
#[cfg(lab_sm90)]
mod tma_v3_warp_specialized;
#[cfg(lab_sm90)]
mod tma_v4_wide;
#[cfg(lab_sm90)]
mod tma_v5_persistent;
#[cfg(lab_sm90)]
mod tma_v6_tma_store;
mod warp_v1_wmma_global;
mod warp_v2_wmma_shared;
mod warp_v3_wmma_padded;
mod warp_v4_ldmatrix_mma;
mod warp_v5_swizzle;

/// The 16×16 tile shape of the warp ladder.
pub(crate) const TILE: RowMajor = RowMajor { rows: 16, cols: 16 };

/// Copies a row-major 16×16 f16 tile from global memory into shared memory laid out by `layout`:
/// lane t moves 16 bytes (row t / 2, columns 8 (t % 2) ..) with one 128-bit load and one 128-bit store.
///
/// # Safety
/// All 32 lanes call it; `g` has 256 readable 16-byte-aligned f16; `s` is the shared address of
/// `2 · layout.size()` writable bytes, 16-byte aligned, and `layout` keeps 8-element chunks contiguous.
#[inline(always)]
pub(crate) unsafe fn tile_to_shared(s: u32, g: *const u16, layout: &impl Layout) {
    let t = lane_id();
    // SAFETY: caller contract; lane t's 16 bytes are elements 8t..8t+8 of the global tile.
    unsafe {
        let v = ld_global_nc_v4_u32((g as *const u32).add(4 * t as usize));
        shared::st_shared_v4_u32(s + 2 * layout.offset(t / 2, 8 * (t % 2)), v);
    }
}

/// Copies a 16×16 f16 tile laid out by `layout` in shared memory to a row-major tile in global memory,
/// 16 bytes per lane (the reverse of [`tile_to_shared`]).
///
/// # Safety
/// As [`tile_to_shared`], with `g` writable.
#[inline(always)]
pub(crate) unsafe fn tile_to_global(g: *mut u16, s: u32, layout: &impl Layout) {
    let t = lane_id();
    // SAFETY: caller contract.
    unsafe {
        let v = shared::ld_shared_v4_u32(s + 2 * layout.offset(t / 2, 8 * (t % 2)));
        st_global_v4_u32((g as *mut u32).add(4 * t as usize), v);
    }
}

/// The row address lane `lane` gives `ldmatrix.x4` / `stmatrix.x4` over a 16×16 tile in `layout`:
/// lanes 0–15 rows 0–15 at column 0, lanes 16–31 rows 0–15 at column 8.
#[inline(always)]
pub(crate) fn x4_row_addr(s: u32, lane: u32, layout: &impl Layout) -> u32 {
    s + 2 * layout.offset(lane % 16, 8 * (lane / 16))
}

/// Seed 001's `stmatrix.x4` emulation with `shfl.sync` (for GPUs without `stmatrix`): lane `8i + r`
/// holds the row address of row r of matrix i; the 4 lanes that hold that row's 8 halves (`4r .. 4r+3`,
/// register i) fetch it with a shuffle and each store their 2 halves (32 bits).
///
/// # Safety
/// All 32 lanes call it; `row_addr` is this lane's 16-byte-aligned shared row address as for
/// `stmatrix.x4`; the 4 × 8 rows are writable and not accessed by other threads meanwhile.
#[inline(always)]
pub(crate) unsafe fn stmatrix_x4_shfl(row_addr: u32, frag: [u32; 4]) {
    let lane = lane_id();
    for (i, v) in frag.iter().enumerate() {
        // SAFETY: all lanes shuffle (collective); the address is the owner lane's row + 4 (lane % 4).
        unsafe {
            let row = shuffle_idx_u32(row_addr, 8 * i as u32 + lane / 4);
            shared::st_shared_u32(row + 4 * (lane % 4), *v);
        }
    }
}
