//! Attention step a1, the **unfused** baseline: the host computes `S = Q·Kᵀ` (f32) and `O = P·V` with
//! cuBLAS strided-batched GEMMs; this kernel is the softmax between them, one warp per row of S:
//! `P[i][j] = exp(scale · S[i][j] − m_i) / Σ_j exp(scale · S[i][j] − m_i)` (masked entries 0 with a
//! causal mask), in the input type, and `lse[i] = m_i + ln Σ_j …`. It reads S twice (max and sum in one
//! pass with the running-max rescale, then the normalized write), so the whole baseline moves
//! `L²` f32 twice and `L²` 16-bit values twice per head: what fusion removes.
//!
//! Measured (H100, f16, the whole unfused path): 43–84 TFLOP/s at L = 4096–16384. README.
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    math::{ex2_approx_f32, lg2_approx_f32},
    thread::{block_idx_x, lane_id, thread_idx_x},
    warp::{reduce_sum_f32, shuffle_xor_f32},
};

/// Warps (rows) per block.
pub const ROWS_PER_BLOCK: u32 = 4;

/// Row softmax of `g_s` (`rows × l` f32, rows of all heads one after another; row `r` is query `r % l`)
/// into `g_p` (same shape, f16) and `g_lse` (`rows` f32).
///
/// # Safety
/// `g_s` readable and `g_p` writable with `rows · l` elements, `g_lse` with `rows`; 128 threads per
/// block, `⌈rows / 4⌉` blocks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_softmax_f16(g_s: *const f32, g_p: *mut u16, g_lse: *mut f32, rows: u32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { softmax::<F16>(g_s, g_p, g_lse, rows, l, scale, causal) }
}

/// [`attn_softmax_f16`] writing bf16.
///
/// # Safety
/// As [`attn_softmax_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_softmax_bf16(g_s: *const f32, g_p: *mut u16, g_lse: *mut f32, rows: u32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { softmax::<Bf16>(g_s, g_p, g_lse, rows, l, scale, causal) }
}

/// The body, for output type `E`.
///
/// # Safety
/// As [`attn_softmax_f16`].
#[inline(always)]
unsafe fn softmax<E: Elem16>(g_s: *const f32, g_p: *mut u16, g_lse: *mut f32, rows: u32, l: u32, scale: f32, causal: u32) {
    let row = block_idx_x() * ROWS_PER_BLOCK + thread_idx_x() / 32;
    if row >= rows || l == 0 {
        return; // whole warps leave together
    }
    let lane = lane_id();
    let q = row % l;
    // Columns this row keeps: all, or 0..=q with a causal mask.
    let cols = if causal != 0 { q + 1 } else { l };
    let base = row as usize * l as usize;
    let scale2 = scale * core::f32::consts::LOG2_E;
    // Pass 1: running max and sum (base 2), each lane over columns lane, lane + 32, …
    let (mut m, mut sum) = (f32::NEG_INFINITY, 0f32);
    let mut c = lane;
    while c < cols {
        // SAFETY: c < cols ≤ l: inside row `row`.
        let x = unsafe { *g_s.add(base + c as usize) } * scale2;
        if x > m {
            sum = sum * ex2_approx_f32(m - x) + 1.0;
            m = x;
        } else {
            sum += ex2_approx_f32(x - m);
        }
        c += 32;
    }
    // SAFETY: the warp is converged (uniform `row`), every lane runs the butterflies.
    let (m_row, sum_row) = unsafe {
        let mut m_row = m;
        for s in [16, 8, 4, 2, 1] {
            m_row = m_row.max(shuffle_xor_f32(m_row, s));
        }
        // A lane that saw no column has m = -inf and sum 0: its share is 0.
        let share = if sum > 0.0 { sum * ex2_approx_f32(m - m_row) } else { 0.0 };
        (m_row, reduce_sum_f32(share))
    };
    let inv = 1.0 / sum_row;
    // Pass 2: normalized probabilities; masked columns are 0.
    let mut c = lane;
    while c < l {
        let p = if c < cols {
            // SAFETY: as pass 1.
            ex2_approx_f32(unsafe { *g_s.add(base + c as usize) } * scale2 - m_row) * inv
        } else {
            0.0
        };
        // SAFETY: c < l: inside row `row` of P.
        unsafe { *g_p.add(base + c as usize) = E::pack(p, 0.0) as u16 };
        c += 32;
    }
    if lane == 0 {
        // SAFETY: row < rows.
        unsafe { *g_lse.add(row as usize) = (m_row + lg2_approx_f32(sum_row)) * core::f32::consts::LN_2 };
    }
}

launch_bounds!(attn_softmax_f16, 128);
launch_bounds!(attn_softmax_bf16, 128);
