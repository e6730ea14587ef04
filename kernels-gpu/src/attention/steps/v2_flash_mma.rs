//! Attention step a2: **FlashAttention-2** with `mma.sync` — S and P never leave the registers.
//!
//! Diff from a1 (S = QKᵀ in global memory, a softmax kernel, O = PV): one block per 64 query rows of
//! one head; each of its 4 warps owns 16 rows for the whole key range, so no warp ever needs another's
//! partial results. Per tile of 64 keys:
//! * K and V tiles arrive by `cp.async` (16-byte chunks, rows past L zero-filled) into a 2-stage ring,
//!   the next tile's copy in flight while this one computes; every tile is `Swizzle<log2(D)-3, 3, 3>`
//!   ([`layout::attention::tile`]), so the `ldmatrix` phases are conflict-free (8-way unswizzled);
//! * `S (16×64) = Q·Kᵀ`: Q's A fragments loaded once (`ldmatrix.x4`), K's B fragments by `ldmatrix.x4`
//!   (K rows are B's columns: no transpose), 8 × D/16 `mma.m16n8k16`, f32;
//! * online softmax in base 2 on the fragments (each thread holds 2 rows × 16 columns; row max and sum
//!   over the 4 threads of a quad with 2 shuffles): masked scores (key ≥ L, or key > query with the causal
//!   mask) are −∞; `m_new = max(m, rowmax)`, `p = 2^(s − m_new)`, the running sum and O rescaled by
//!   `2^(m − m_new)`; the sum stays per-thread until the end (one quad reduction per row in total);
//! * `O (16×D) += P·V`: P's f32 C fragments *are* the A fragments of the next `mma` once packed to 16
//!   bits (the m16n8 C layout of two adjacent n-tiles is the m16k16 A layout); V's B fragments by
//!   `ldmatrix.x4.trans` (V rows are B's k).
//! The epilogue divides by the row sums and writes O and `lse = (m + log2 Σ) · ln 2`. With the causal
//! mask a query tile visits key tiles 0 ..= its own ([`layout::attention::kv_tiles`]). The body is
//! `attention/flash.rs` (a3 runs it with 128 query rows).
//!
//! Prediction: FA2's published forward on an H100 is ~330–340 TFLOP/s at head dim 128 (`mma.sync`
//! cannot feed Hopper's tensor cores); this first version, without FA2's tuned tile shapes (128 query
//! rows × 8 warps at D = 64), should reach 0.6–0.8× torch's flash backend, and 3–6× the unfused path at
//! L ≥ 4096 (which moves L² f32 twice per head).
//!
//! Measured (H100, f16): 196–257 TFLOP/s, 3.0–7.3× a1, 0.71–0.78× torch's flash backend (prediction
//! met; the issue's ≥ 1.0× FA2 not). README.
use crate::attention::flash::flash;
use crate::hgemm::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;

/// Flash attention forward, head dim 64, f16: `o = softmax(q·kᵀ · scale) · v` per head (causal if
/// `causal != 0`), `lse` the natural log-sum-exp of each row.
///
/// # Safety
/// `q`, `k`, `v` readable and `o` writable with `heads · l · 64` elements (`[heads][l][64]`), `lse` with
/// `heads · l` f32; launched with grid `(⌈l/64⌉, heads)`, 128 threads and `flash_smem(64, 64)` bytes of
/// dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2_d64_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 64, 4, 1, 1>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2_d64_f16`] with head dim 128 (`flash_smem(64, 128)` bytes of shared memory).
///
/// # Safety
/// As [`attn_fa2_d64_f16`] with 128 for 64.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2_d128_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 128, 4, 1, 1>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2_d64_f16`] on bf16.
///
/// # Safety
/// As [`attn_fa2_d64_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2_d64_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 64, 4, 1, 1>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2_d128_f16`] on bf16.
///
/// # Safety
/// As [`attn_fa2_d128_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2_d128_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 128, 4, 1, 1>(q, k, v, o, lse, l, scale, causal) }
}

launch_bounds!(attn_fa2_d64_f16, 128);
launch_bounds!(attn_fa2_d128_f16, 128);
launch_bounds!(attn_fa2_d64_bf16, 128);
launch_bounds!(attn_fa2_d128_bf16, 128);
