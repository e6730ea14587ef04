//! Attention step a4: a2's 4 warps with **32 query rows each** (two m-tiles of 16), 128 per block.
//!
//! Diff from a2: every K fragment (`ldmatrix.x4`) and V fragment (`ldmatrix.x4.trans`) a warp loads
//! now feeds two `mma`s, one per m-tile — half the shared-memory bytes per MMA, the bound a2 sits
//! against (0.125 B per FMA: 128 B/clock/SM caps it near 470 TFLOP/s) — and each K/V tile copied into
//! shared memory serves 128 rows. Registers: two m-tiles of O, so Q's fragments are no longer kept
//! (reloaded from shared memory per K step, one `ldmatrix.x4` per m-tile) and S is computed and turned
//! into P one m-tile at a time (K fragments loaded per m-tile: only V's are shared by both). This is
//! FlashAttention-2's own shape for the forward pass at D = 64. **D = 64 only**: at D = 128 two m-tiles
//! of O are 128 registers and ptxas spilled 300–380 bytes (sm_80/sm_90a), so D = 128 stays with a2.
//!
//! Prediction: a3 (128 rows as 8 warps of 16) measured 0.77–1.03× a2: more rows per block alone does not
//! pay while registers limit an SM to 8 warps. a4 cuts V's `ldmatrix` traffic per MMA in half (K's
//! stays): 1.1–1.25× a2 at D = 64.
//!
//! Measured: 1.03–1.08× a2 (prediction 1.1–1.25×: short), the fastest D = 64 step. README.
use crate::attention::flash::flash;
use crate::hgemm::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;

/// [`super::v2_flash_mma::attn_fa2_d64_f16`] with 32 query rows per warp (128 per block).
///
/// # Safety
/// As `attn_fa2_d64_f16`, with grid `(⌈l/128⌉, heads)`, 128 threads and `flash_smem(128, 64)` bytes of
/// dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2m2_d64_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 64, 4, 2, 1>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2m2_d64_f16`] on bf16.
///
/// # Safety
/// As `attn_fa2m2_d64_f16`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2m2_d64_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 64, 4, 2, 1>(q, k, v, o, lse, l, scale, causal) }
}

launch_bounds!(attn_fa2m2_d64_f16, 128);
launch_bounds!(attn_fa2m2_d64_bf16, 128);
