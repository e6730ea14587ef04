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
mod block;
mod block_cross_stage_prefetch;
mod block_pipeline;
mod block_smem_epilogue;
#[cfg(lab_sm90)]
mod tma;
#[cfg(lab_sm90)]
mod tma_persistent;
#[cfg(lab_sm90)]
mod tma_warp_specialized;
#[cfg(lab_sm90)]
mod tma_wide_tile;
mod warp_tile_16x16;
// The steps: one module per file of `src/hgemm/steps/`, declared by kernels-gpu/build.rs.
include!(concat!(env!("OUT_DIR"), "/hgemm_steps.rs"));
