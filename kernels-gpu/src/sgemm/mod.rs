//! The SGEMM ladder of seed 004 on CUDA cores: `C (M×N) = A (M×K) · B (K×N)`, row-major f32, any M, N, K
//! (every load is predicated and zero-filled outside the matrices; every store is guarded).
//!
//! | step | file | idea |
//! |------|------|------|
//! | v0 | `v0_naive.rs` | one thread per output, straight from global memory |
//! | v1 | `v1_smem_tile.rs` | 32×32 block tile staged through shared memory |
//! | v2 | `v2_register_tile.rs` | 128×128 block, 8×8 outputs per thread: outer products in registers |
//! | v3 | `v3_conflict_free_store.rs` | thread-to-element mapping that stores the transposed A tile conflict-free |
//! | v4 | `v4_strided_threads.rs` | strided ("virtual thread") output mapping: conflict-free shared reads |
//! | v5 | `v5_vec4.rs` | 128-bit global and shared loads, A tile padded by `storage_align` |
//! | v6 | `v6_double_buffer.rs` | two shared stages, next tile prefetched into registers |
//! | v7 | `v7_wide_k_frag_prefetch.rs` | 16-deep K stages, fragments of the next k read before the FMAs |
//! | v8 | `v8_grouped_blocks.rs` | grouped block order: panels of A and B reused from L2 |
//! | v9 | `v9_warp_tile.rs` | warp tiles with a bank-aware lane arrangement (model said 8 wavefronts per k; the GPU, 12) |
//! | v10 | `v10_cp_async_pipeline.rs` | 3-stage cp.async pipeline, A row-major in shared memory (K, N multiples of 4) |
//!
//! Tile shapes and shared layouts come from `layout::sgemm`, which the host also uses.
pub use layout::sgemm::{BK, BM, BN, THREADS};

mod register_tile;
// One module per step file (`v<N>_….rs`), declared by build.rs: a new step needs no line here.
include!(concat!(env!("OUT_DIR"), "/sgemm_steps.rs"));

/// `a · b + c` with one rounding (`fma.rn.f32`), as cuBLAS computes.
#[inline(always)]
pub(crate) fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::intrinsics::fmaf32(a, b, c)
}

/// `p[row · ld + col]` if `row < rows && col < cols`, else 0.
///
/// # Safety
/// `p` points to a `rows × ld` row-major matrix (`ld >= cols`).
#[inline(always)]
pub(crate) unsafe fn load_or_zero(p: *const f32, row: u32, col: u32, rows: u32, cols: u32, ld: u32) -> f32 {
    if row < rows && col < cols {
        // SAFETY: in bounds by the check above and the caller's contract.
        unsafe { *p.add(row as usize * ld as usize + col as usize) }
    } else {
        0.0
    }
}

/// Four consecutive elements `p[row · ld + col ..][..4]`, as one 128-bit `ld.global.nc.v4` when they
/// are all inside the matrix and 16-byte aligned (`ld % 4 == 0`, `col % 4 == 0`), else element by
/// element with zero fill.
///
/// # Safety
/// `p` points to a 16-byte-aligned `rows × ld` row-major matrix (`ld >= cols`) not written during the
/// kernel.
#[inline(always)]
pub(crate) unsafe fn load4_or_zero(p: *const f32, row: u32, col: u32, rows: u32, cols: u32, ld: u32) -> [f32; 4] {
    // SAFETY: the vector path is taken only when all four are in bounds and aligned.
    unsafe {
        if ld % 4 == 0 && row < rows && col + 3 < cols {
            crate::prim::global::ld_global_nc_v4_f32(p.add(row as usize * ld as usize + col as usize))
        } else {
            core::array::from_fn(|c| load_or_zero(p, row, col + c as u32, rows, cols, ld))
        }
    }
}

/// `p[row · ld + col] = v` if inside `rows × cols`.
///
/// # Safety
/// `p` points to a writable `rows × ld` row-major matrix.
#[inline(always)]
pub(crate) unsafe fn store_if(p: *mut f32, row: u32, col: u32, rows: u32, cols: u32, ld: u32, v: f32) {
    if row < rows && col < cols {
        // SAFETY: in bounds.
        unsafe { *p.add(row as usize * ld as usize + col as usize) = v };
    }
}

/// Stores 4 consecutive outputs, as one 128-bit store when all are inside and aligned.
///
/// # Safety
/// As [`store_if`], with `p` 16-byte aligned.
#[inline(always)]
pub(crate) unsafe fn store4_if(p: *mut f32, row: u32, col: u32, rows: u32, cols: u32, ld: u32, v: [f32; 4]) {
    // SAFETY: the vector path only when all four are in bounds and 16-byte aligned.
    unsafe {
        if ld % 4 == 0 && row < rows && col + 3 < cols {
            crate::prim::global::st_global_v4_f32(p.add(row as usize * ld as usize + col as usize), v);
        } else {
            for c in 0..4 {
                store_if(p, row, col + c as u32, rows, cols, ld, v[c]);
            }
        }
    }
}
