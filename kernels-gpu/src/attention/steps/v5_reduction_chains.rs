//! Attention step a5: a2 with the row reductions as **four independent chains**.
//!
//! Diff from a2: per key tile each thread reduces 16 scores per row twice — a running `max` before the
//! exponentials and a running sum after — and a2 wrote both as one dependent chain of 16 `FMNMX` or
//! `FADD` (4 cycles each). ncu on a2 (H100, 4×16×4096): the top stall is `wait` (fixed-latency
//! dependencies: 1.45 of ~6 cycles between a warp's instructions at D = 64, 1.27 at D = 128) with only
//! 3 (D = 64) or 2 (D = 128) warps per scheduler to switch to; the tensor pipe is busy 34–40%. Four
//! chains of 4, joined by a tree, cut each reduction's latency from 16 to 6 dependent steps (D = 128:
//! two chains of 8, 9 steps — four spilled at 255 registers).
//!
//! Prediction: 1.05–1.15× a2.
//!
//! Measured (H100): 0.96–1.0× a2 — prediction missed: the extra registers and instructions cost about
//! what the shorter chains saved. README.
use crate::attention::flash::flash;
use crate::hgemm::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;

/// [`super::v2_flash_mma::attn_fa2_d64_f16`] with four reduction chains.
///
/// # Safety
/// As `attn_fa2_d64_f16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2c4_d64_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 64, 4, 1, 4>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2c4_d64_f16`] with head dim 128 and two chains (four spilled 8 bytes on sm_90a: 255 registers).
///
/// # Safety
/// As `attn_fa2_d128_f16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2c4_d128_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 128, 4, 1, 2>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2c4_d64_f16`] on bf16.
///
/// # Safety
/// As `attn_fa2_d64_f16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2c4_d64_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 64, 4, 1, 4>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2c4_d128_f16`] on bf16.
///
/// # Safety
/// As `attn_fa2_d128_f16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2c4_d128_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 128, 4, 1, 2>(q, k, v, o, lse, l, scale, causal) }
}

launch_bounds!(attn_fa2c4_d64_f16, 128);
launch_bounds!(attn_fa2c4_d128_f16, 128);
launch_bounds!(attn_fa2c4_d64_bf16, 128);
launch_bounds!(attn_fa2c4_d128_bf16, 128);
