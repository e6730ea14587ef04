//! Two kernels in rust-cuda's idiom — slices as parameters, `thread::index_1d()`, `#[kernel]` on an
//! `unsafe fn` — compiled by rustc's own nvptx64 backend: nvptx-std under the name `cuda_std`.
#![no_std]
#![feature(abi_ptx)]
use cuda_std::prelude::*;

/// `sum[i] = x[i] + y[i]` for every `i < x.len()`, one thread per element.
///
/// # Safety
/// `sum` holds `x.len()` writable f32; `y` at least as many as `x`.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn vector_add(x: &[f32], y: &[f32], sum: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < x.len() {
        // SAFETY: i < x.len(), which `sum` holds (the contract); `y[i]` is bounds-checked.
        unsafe { *sum.add(i) = x[i] + y[i] };
    }
}

/// `c = alpha · a·b + beta · c` for row-major `a` (rows × inner), `b` (inner × cols), `c` (rows × cols):
/// one thread per element of `c`, x along rows and y along columns.
///
/// # Safety
/// `c` holds `rows · cols` f32, readable and writable.
#[kernel]
#[allow(improper_ctypes_definitions, clippy::too_many_arguments)]
pub unsafe fn matmul_simple(a: &[f32], b: &[f32], c: *mut f32, rows: usize, cols: usize, inner: usize, alpha: f32, beta: f32) {
    let row = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let col = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if row < rows && col < cols {
        let mut acc = 0.0f32;
        for t in 0..inner {
            acc += a[row * inner + t] * b[t * cols + col];
        }
        // SAFETY: row < rows, col < cols: in `c` (the contract).
        unsafe {
            let out = c.add(row * cols + col);
            *out = alpha * acc + beta * *out;
        }
    }
}

/// [`vector_add`] with unchecked indexing (`get_unchecked`): what the bounds check on `y[i]` costs
/// (`cargo run --release -p cuda-std-names-example --example bounds_cost`).
///
/// # Safety
/// As [`vector_add`], and `y` holds at least `x.len()` f32 (no longer checked).
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn vector_add_unchecked(x: &[f32], y: &[f32], sum: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < x.len() {
        // SAFETY: i < x.len() ≤ y.len() and `sum`'s length (the contract).
        unsafe { *sum.add(i) = x.get_unchecked(i) + y.get_unchecked(i) };
    }
}

/// [`matmul_simple`] with unchecked indexing: the same loop without the two bounds checks per step.
///
/// # Safety
/// As [`matmul_simple`], and `a` holds `rows · inner`, `b` `inner · cols` f32 (no longer checked).
#[kernel]
#[allow(improper_ctypes_definitions, clippy::too_many_arguments)]
pub unsafe fn matmul_unchecked(a: &[f32], b: &[f32], c: *mut f32, rows: usize, cols: usize, inner: usize, alpha: f32, beta: f32) {
    let row = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let col = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if row < rows && col < cols {
        let mut acc = 0.0f32;
        for t in 0..inner {
            // SAFETY: row < rows, t < inner, col < cols: inside a and b (the contract).
            acc += unsafe { a.get_unchecked(row * inner + t) * b.get_unchecked(t * cols + col) };
        }
        // SAFETY: row < rows, col < cols: in `c` (the contract).
        unsafe {
            let out = c.add(row * cols + col);
            *out = alpha * acc + beta * *out;
        }
    }
}
