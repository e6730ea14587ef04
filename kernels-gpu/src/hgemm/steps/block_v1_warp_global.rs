//! Block ladder v1 — one warp per 16×16 tile of C, fragments straight from global memory.
//!
//! Every warp loads its own A and B fragments with plain global loads in the `mma.m16n8k16` fragment
//! layout (each value is re-read by every warp that needs it: no reuse beyond L1/L2) and runs two
//! `mma.sync` per k16. The baseline of the block ladder. Any M, N, K (element-wise predicated loads).
use crate::prim::{mma::{mma_m16n8k16_f32_f16, pack_f16x2}, thread::{block_idx_x, block_idx_y, lane_id}};

/// `a[row][col]` as raw f16 bits, 0 outside `rows × cols`.
///
/// # Safety
/// `a` is a row-major `rows × cols` f16 matrix.
#[inline(always)]
unsafe fn at(a: *const u16, row: u32, col: u32, rows: u32, cols: u32) -> u32 {
    // SAFETY: guarded by the bounds check.
    if row < rows && col < cols { unsafe { *a.add(row as usize * cols as usize + col as usize) as u32 } } else { 0 }
}

/// `C = A · B`, f16 in and out, f32 accumulation, row-major.
///
/// # Safety
/// 32 threads per block, grid `(ceil(N / 16), ceil(M / 16))`; `a`, `b`, `c` hold M·K, K·N, M·N f16.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v1(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    let (m0, n0) = (16 * block_idx_y(), 16 * block_idx_x());
    let lane = lane_id();
    let (g, t) = (lane / 4, lane % 4);
    let mut acc = [[0.0f32; 4]; 2];
    // SAFETY: every load is bounds-checked; all 32 lanes run the mma (no lane returns early).
    unsafe {
        let pair = |p: *const u16, r0: u32, c0: u32, r1: u32, c1: u32, rows: u32, cols: u32| {
            at(p, r0, c0, rows, cols) | at(p, r1, c1, rows, cols) << 16
        };
        let mut k0 = 0;
        while k0 < k {
            // A fragment: a0 = A[g][2t, 2t+1], a1 = A[g+8][..], a2 = A[g][2t+8, +9], a3 = A[g+8][2t+8, +9].
            let af: [u32; 4] = core::array::from_fn(|i| {
                let (r, c) = (m0 + g + 8 * (i as u32 % 2), k0 + 2 * t + 8 * (i as u32 / 2));
                pair(a, r, c, r, c + 1, m, k)
            });
            for nb in 0..2u32 {
                // B fragment: b0 = B[2t, 2t+1][g], b1 = B[2t+8, +9][g] (column g of this n8 tile).
                let col = n0 + 8 * nb + g;
                let bf: [u32; 2] = core::array::from_fn(|i| {
                    let r = k0 + 2 * t + 8 * i as u32;
                    pair(b, r, col, r + 1, col, k, n)
                });
                mma_m16n8k16_f32_f16(&mut acc[nb as usize], af, bf);
            }
            k0 += 16;
        }
        for nb in 0..2u32 {
            for h in 0..2u32 {
                let (row, col) = (m0 + g + 8 * h, n0 + 8 * nb + 2 * t);
                let v = pack_f16x2(acc[nb as usize][2 * h as usize], acc[nb as usize][2 * h as usize + 1]);
                if row < m && col < n {
                    *c.add(row as usize * n as usize + col as usize) = v as u16;
                }
                if row < m && col + 1 < n {
                    *c.add(row as usize * n as usize + col as usize + 1) = (v >> 16) as u16;
                }
            }
        }
    }
}
