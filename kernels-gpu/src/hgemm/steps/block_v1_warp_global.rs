//! Block ladder v1 — one warp per 16×16 tile of C, fragments straight from global memory.
//!
//! Every warp loads its own A and B fragments with plain global loads in the `mma.m16n8k16` fragment
//! layout (each value is re-read by every warp that needs it: no reuse beyond L1/L2) and runs two
//! `mma.sync` per k16. The baseline of the block ladder. Any M, N, K (element-wise predicated loads).
use crate::prim::{mma::{mma_m16n8k16_f32_f16, pack_f16x2}, thread::{block_idx_x, block_idx_y, lane_id}};
use layout::fragment::MmaM16N8K16;

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
    // Places from MmaM16N8K16 (A register i = a_2i, a_2i+1; B register i = b_2i, b_2i+1; C pair h =
    // c_2h, c_2h+1). Each fragment repeats one pattern per 8×8 block, so element e of lane l sits at lane
    // l's place of element 0 plus lane 0's place of element e (its block's origin). The lane's rows are
    // taken here and its columns at their use, the order this kernel's PTX has always had.
    let (ar, bn, cr) = (MmaM16N8K16::a_rc(lane, 0).0, MmaM16N8K16::b_rc(lane, 0).1, MmaM16N8K16::c_rc(lane, 0).0);
    let mut acc = [[0.0f32; 4]; 2];
    // SAFETY: every load is bounds-checked; all 32 lanes run the mma (no lane returns early).
    unsafe {
        let pair = |p: *const u16, r0: u32, c0: u32, r1: u32, c1: u32, rows: u32, cols: u32| {
            at(p, r0, c0, rows, cols) | at(p, r1, c1, rows, cols) << 16
        };
        let mut k0 = 0;
        while k0 < k {
            let af: [u32; 4] = core::array::from_fn(|i| {
                let (r0, c0) = MmaM16N8K16::a_rc(0, 2 * i as u32);
                let (r, c) = (m0 + ar + r0, k0 + MmaM16N8K16::a_rc(lane, 0).1 + c0);
                pair(a, r, c, r, c + 1, m, k)
            });
            for nb in 0..2u32 {
                let col = n0 + 8 * nb + bn;
                let bf: [u32; 2] = core::array::from_fn(|i| {
                    let r = k0 + MmaM16N8K16::b_rc(lane, 0).0 + MmaM16N8K16::b_rc(0, 2 * i as u32).0;
                    pair(b, r, col, r + 1, col, k, n)
                });
                mma_m16n8k16_f32_f16(&mut acc[nb as usize], af, bf);
            }
            k0 += 16;
        }
        for nb in 0..2u32 {
            for h in 0..2u32 {
                let (row, col) = (m0 + cr + MmaM16N8K16::c_rc(0, 2 * h).0, n0 + 8 * nb + MmaM16N8K16::c_rc(lane, 0).1);
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
