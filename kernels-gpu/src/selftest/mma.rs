//! `cp.async` → `ldmatrix.x4` / `ldmatrix.x4.trans` → two `mma.sync.m16n8k16`: a 16×16×16 product.
use super::{ldmatrix_x4_row_addr, load_tile_16x16_b16};
use layout::{Layout, fragment::MmaM16N8K16, hgemm_warp::{SWIZZLED, TILE}};
use crate::prim::{ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans}, mma, shared::static_alloc, thread::lane_id};

/// `g_c = g_a · g_b` through shared tiles in `layout` (stores and `ldmatrix` addresses both from it).
///
/// # Safety
/// As [`selftest_mma_f32_f16`]; `layout` has 256 elements and keeps 8-element chunks contiguous.
#[inline(always)]
unsafe fn mma_16x16x16_f32(g_a: *const u16, g_b: *const u16, g_c: *mut f32, layout: &impl Layout) {
    let s_a = static_alloc::<1024>();
    let s_b = s_a + 512;
    let lane = lane_id();
    // SAFETY: one full warp (launch contract) runs every collective; the tiles are 512 bytes each
    // inside the 1024-byte static allocation; the C stores index rows < 16 and columns < 16.
    unsafe {
        load_tile_16x16_b16(s_a, g_a, layout);
        load_tile_16x16_b16(s_b, g_b, layout);
        let a = ldmatrix_x4(ldmatrix_x4_row_addr(s_a, lane, layout));
        let b = ldmatrix_x4_trans(ldmatrix_x4_row_addr(s_b, lane, layout));
        for nb in 0..2 {
            let mut acc = [0.0f32; 4];
            mma::mma_m16n8k16_f32_f16(&mut acc, a, [b[2 * nb], b[2 * nb + 1]]);
            // c_i of n8 block nb at MmaM16N8K16::c_rc(lane, i), moved 8·nb columns.
            for i in 0..4 {
                let (row, col) = MmaM16N8K16::c_rc(lane, i as u32);
                *g_c.add((row * 16 + 8 * nb as u32 + col) as usize) = acc[i];
            }
        }
    }
}

/// `g_c (16×16 f32, row-major) = g_a (16×16 f16, row-major) · g_b (16×16 f16, row-major K×N)`, through
/// unpadded row-major shared tiles (seed 001 v4: `ldmatrix` conflicts 2-way in every phase).
///
/// # Safety
/// One block of 32 threads; `g_a`, `g_b` have 256 readable 16-byte-aligned f16 (as `u16` bits), `g_c`
/// 256 writable f32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn selftest_mma_f32_f16(g_a: *const u16, g_b: *const u16, g_c: *mut f32) {
    // SAFETY: forwarded.
    unsafe { mma_16x16x16_f32(g_a, g_b, g_c, &TILE) }
}

/// As [`selftest_mma_f32_f16`] with both shared tiles in `Swizzle<3,1,3>` on element offsets (seed 001
/// v5): the `cp.async` destinations and the `ldmatrix` row addresses come from the same `Swizzled`
/// layout, so they agree by construction; the PTX shows the swizzle as a shift, an `and` and an `xor`.
///
/// # Safety
/// As [`selftest_mma_f32_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn selftest_mma_swizzled(g_a: *const u16, g_b: *const u16, g_c: *mut f32) {
    // SAFETY: forwarded; Swizzle<3,1,3> keeps 8-element chunks (M = 3) and permutes within 64 elements.
    unsafe { mma_16x16x16_f32(g_a, g_b, g_c, &SWIZZLED) }
}

/// As [`selftest_mma_f32_f16`] with f16 accumulation: `g_c` is 16×16 f16 (as `u16` bits), row-major.
///
/// # Safety
/// As [`selftest_mma_f32_f16`], with `g_c` 256 writable 4-byte-aligned `u16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn selftest_mma_f16_f16(g_a: *const u16, g_b: *const u16, g_c: *mut u16) {
    let s_a = static_alloc::<1024>();
    let s_b = s_a + 512;
    let lane = lane_id();
    // SAFETY: as `selftest_mma_f32_f16`; each `u32` store covers two f16 at an even column (4-byte aligned).
    unsafe {
        load_tile_16x16_b16(s_a, g_a, &TILE);
        load_tile_16x16_b16(s_b, g_b, &TILE);
        let a = ldmatrix_x4(ldmatrix_x4_row_addr(s_a, lane, &TILE));
        let b = ldmatrix_x4_trans(ldmatrix_x4_row_addr(s_b, lane, &TILE));
        for nb in 0..2 {
            let mut acc = [0u32; 2];
            mma::mma_m16n8k16_f16_f16(&mut acc, a, [b[2 * nb], b[2 * nb + 1]]);
            // Register r = c_2r, c_2r+1 of n8 block nb: one row, two neighbouring columns, at
            // MmaM16N8K16::c_rc moved 8·nb columns (c_0 and c_2 share their columns).
            let col = 8 * nb as u32 + MmaM16N8K16::c_rc(lane, 0).1;
            for (r, row) in [(0, MmaM16N8K16::c_rc(lane, 0).0), (1, MmaM16N8K16::c_rc(lane, 2).0)] {
                *(g_c.add((row * 16 + col) as usize) as *mut u32) = acc[r];
            }
        }
    }
}
