//! Warp ladder v1 — `wmma` straight from global memory (seed 001 v1). No shared memory of ours: the
//! fragments are loaded from global memory by `wmma.load ... .global`.
use crate::prim::wmma::*;

/// `g_c = g_a · g_b`, 16×16×16, f16 in and out, f16 accumulation.
///
/// # Safety
/// One block of 32 threads; `g_a`, `g_b` have 256 readable f16, `g_c` 256 writable f16, all 16-byte aligned.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_warp_v1(g_a: *const u16, g_b: *const u16, g_c: *mut u16) {
    // SAFETY: one full warp; 16×16 tiles with stride 16 in the caller's buffers.
    unsafe {
        let a = wmma_load_a_row_m16n16k16_global_f16(g_a as u64, 16);
        let b = wmma_load_b_row_m16n16k16_global_f16(g_b as u64, 16);
        let mut acc = [0u32; 4];
        wmma_mma_row_row_m16n16k16_f16_f16(&mut acc, a, b);
        wmma_store_d_row_m16n16k16_global_f16(g_c as u64, acc, 16);
    }
}
