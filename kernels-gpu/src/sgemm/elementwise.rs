//! Element-wise pieces every SGEMM step uses: [`fma`] (one rounding, as cuBLAS computes) and the loads
//! and stores guarded by the matrix bounds (zero-filled outside, stores skipped), element by element or
//! as one 128-bit access when the four elements are inside and aligned.

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

/// [`add4_if`] with one vector reduction (`red.global.add.v4.f32`, sm_90) where the four columns are
/// inside and 16-byte aligned (`cols % 4 == 0`, `col % 4 == 0`), else four scalar ones as `add4_if`.
///
/// # Safety
/// As [`add4_if`], with `col % 4 == 0` and `p` 16-byte aligned; sm_90 or later.
#[inline(always)]
pub(crate) unsafe fn add4v_if(p: *mut f32, row: u32, col: u32, rows: u32, cols: u32, v: [f32; 4]) {
    if row < rows && cols % 4 == 0 && col + 4 <= cols {
        // SAFETY: in bounds (row < rows, col + 3 < cols), 16-byte aligned (p is; row·cols + col ≡ 0 mod 4);
        // the caller's contract on concurrent access.
        unsafe { crate::prim::atomic::red_add_relaxed_gpu_v4_f32(p.wrapping_add(row as usize * cols as usize + col as usize), v) };
    } else {
        // SAFETY: forwarded.
        unsafe { add4_if(p, row, col, rows, cols, v) };
    }
}

/// [`add4v_if`] for any N: the four sums go to C in the widest reductions their address allows — one
/// `red.global.add.v4.f32` at a 16-byte-aligned element, two `.v2` at an 8-byte-aligned one, else a
/// scalar, a `.v2` and a scalar (sm_90). With N off 4 a row of C starts at any alignment, so the class
/// follows the row: 1 operation where v23/v24's `add4v_if` falls back to 4, otherwise 2 or 3. Columns
/// past N: four guarded scalar adds, as [`add4_if`].
///
/// # Safety
/// As [`add4v_if`].
#[inline(always)]
pub(crate) unsafe fn add4w_if(p: *mut f32, row: u32, col: u32, rows: u32, cols: u32, v: [f32; 4]) {
    if row < rows && col + 4 <= cols {
        let at = row as usize * cols as usize + col as usize;
        let q = p.wrapping_add(at);
        // SAFETY: elements at .. at + 3 are inside C (row < rows, col + 3 < cols); `p` is 16-byte aligned,
        // so element `at` is 16-byte aligned when at % 4 == 0 and 8-byte aligned when at is even, and
        // at + 1 is 8-byte aligned when at is odd; the caller's contract on concurrent access.
        unsafe {
            use crate::prim::atomic::{red_add_relaxed_gpu_f32, red_add_relaxed_gpu_v2_f32, red_add_relaxed_gpu_v4_f32};
            if at % 4 == 0 {
                red_add_relaxed_gpu_v4_f32(q, v);
            } else if at % 2 == 0 {
                red_add_relaxed_gpu_v2_f32(q, [v[0], v[1]]);
                red_add_relaxed_gpu_v2_f32(q.wrapping_add(2), [v[2], v[3]]);
            } else {
                red_add_relaxed_gpu_f32(q, v[0]);
                red_add_relaxed_gpu_v2_f32(q.wrapping_add(1), [v[1], v[2]]);
                red_add_relaxed_gpu_f32(q.wrapping_add(3), v[3]);
            }
        }
    } else {
        // SAFETY: forwarded.
        unsafe { add4_if(p, row, col, rows, cols, v) };
    }
}

/// Adds 4 consecutive outputs of row `row` (columns `col ..`) to C with `red.global.add.f32`, each
/// one inside `rows × cols` (split-K: several blocks add their K ranges' sums into a zeroed C).
///
/// # Safety
/// `p` is a row-major `rows × cols` f32 matrix that only atomic adds touch meanwhile.
#[inline(always)]
pub(crate) unsafe fn add4_if(p: *mut f32, row: u32, col: u32, rows: u32, cols: u32, v: [f32; 4]) {
    if row < rows {
        // One row address, four guarded columns (fewer live 64-bit addresses than four full indexings).
        let at = p.wrapping_add(row as usize * cols as usize + col as usize);
        for c in 0..4u32 {
            if col + c < cols {
                // SAFETY: in bounds (row < rows, col + c < cols); the caller's contract on concurrent access.
                unsafe { crate::prim::atomic::red_add_relaxed_gpu_f32(at.wrapping_add(c as usize), v[c as usize]) };
            }
        }
    }
}
