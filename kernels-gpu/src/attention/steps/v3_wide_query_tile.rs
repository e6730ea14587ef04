//! Attention step a3: a2 with **128 query rows per block** (8 warps × 16).
//!
//! Diff from a2: the block doubles its query rows and warps; each warp's work is unchanged (16 rows,
//! the whole key range), but every K/V tile copied into shared memory now serves 128 query rows
//! instead of 64 — half the L2 → shared traffic per FLOP — and an SM holds 16 warps instead of 8
//! (two blocks of 96 KiB at D = 128, of 48 KiB at D = 64) to hide the `ldmatrix`/`mma`/`ex2` latencies.
//! With the causal mask a query tile now spans two key tiles, so the mask test covers every key tile
//! past the block's first row (`layout::attention::needs_mask`).
//!
//! Prediction: a2 measured 192–256 TFLOP/s (0.62–0.75× torch's flash backend); a3 1.2–1.4× a2.
//!
//! Measured: 0.86–1.06× a2 (prediction missed): 254 registers per thread at D = 128 and 173 at D = 64
//! leave one 8-warp block per SM, no more warps than a2's two blocks. README.
use crate::attention::flash::flash;
use crate::hgemm::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;

/// [`super::v2_flash_mma::attn_fa2_d64_f16`] with 128 query rows per block.
///
/// # Safety
/// As `attn_fa2_d64_f16`, with grid `(⌈l/128⌉, heads)`, 256 threads and `flash_smem(128, 64)` bytes of
/// dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2q128_d64_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 64, 8, 1, 1>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2q128_d64_f16`] with head dim 128.
///
/// # Safety
/// As `attn_fa2q128_d64_f16`, with `flash_smem(128, 128)` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2q128_d128_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 128, 8, 1, 1>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2q128_d64_f16`] on bf16.
///
/// # Safety
/// As `attn_fa2q128_d64_f16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2q128_d64_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 64, 8, 1, 1>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2q128_d128_f16`] on bf16.
///
/// # Safety
/// As `attn_fa2q128_d128_f16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2q128_d128_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 128, 8, 1, 1>(q, k, v, o, lse, l, scale, causal) }
}

launch_bounds!(attn_fa2q128_d64_f16, 256);
launch_bounds!(attn_fa2q128_d128_f16, 256);
launch_bounds!(attn_fa2q128_d64_bf16, 256);
launch_bounds!(attn_fa2q128_d128_bf16, 256);
