#![cfg(lab_sm90)]
//! FP8 weight-only decode w1 (issue 51's FP8 weights): `Y (M×N) = X (M×K) · Wᵀ`, W stored N×K (as
//! checkpoints store it) in e4m3 with one power-of-two scale per 128×128 block, X and Y bf16 or f16,
//! M ≤ 32 tokens. At decode the weights are nearly all the bytes a step reads, so half the bytes of
//! bf16 weights should take half the time; the tensor cores still multiply in 16 bits (no activation
//! quantization, so no error beyond the weights').
//!
//! * **No shared-memory staging, no ring.** Each lane streams 16 bytes of two rows of each of its
//!   warp's two m16 row tiles per 64-deep step (`ld.global.nc.L1::no_allocate.v4`), two steps' loads in
//!   flight before their first use. All 8 warps of a block share its 32 rows and take every 8th step
//!   of the block's part of K; the block's warps are summed once through shared memory at the end.
//! * **K permuted instead of bytes shuffled.** `mma.m16n8k16`'s A fragment wants, per row, K pairs
//!   `(2t, 2t+1)` and `(2t+8, 2t+9)`; a lane holding 16 contiguous bytes of a row feeds mma `j` with
//!   bytes `(4j, 4j+2)` and `(4j+1, 4j+3)` of its chunk — the pairs [`widen_lo`] / [`widen_hi`] make with
//!   shifts and masks — and the activations, loaded from the same 16 K positions, are paired the same
//!   way with two `prmt` per four values. A dot product does not care about the order of its terms.
//! * **The scale folded into the widening.** A widened pair is `2^-bias` times the e4m3 values; one
//!   16-bit `mul` by `2^(bias + e)` for the block's scale `2^e` gives the weights' exact values.
//! * **Split-K across blocks** where the row tiles alone leave the SMs short: each split stores its
//!   f32 partial tile, the tile's last block (a ticket) sums them in split order (HGEMM d2's scheme).
//!
//! * **Block-scaled FP8 (fwb).** The same body on e4m3 activations (as fw2) with A's 1×128 and B's 128×128
//!   f32 scales: each warp step (64 of K, inside one scale block) sums into fresh accumulators, added to the
//!   running ones times `sb · sa[token]` (`weight_only::promote`); measured 1.00–1.09× fw2's time
//!   (`results/2026-12-01-h200-session73`).
//!
//! Prediction (H200, 4.2 TB/s copy): at 1×4096×14336 the weights are 58.7 MB → ~14 µs plus ~3 µs of
//! launch and ramp, against d2's 34.3 µs on bf16 weights: ~2×. Measured: the FP8 ladder's README.
use crate::fp8::weight_only::{w1, weight_only_entries};
use crate::hgemm::elem::{Bf16, F16};
use crate::hgemm::split_k::MAX_SPLITS;
use crate::launch_bounds::launch_bounds;

const _: () = assert!(MAX_SPLITS == 16, "the host's split limit (kernel_lab::fp8_weights) says 16");

macro_rules! fw2_entries {
    ($($name:ident, $nt:literal, $tokens:literal;)*) => {$(
        #[doc = concat!("fw2: `C (bf16) = sa·sb · A · Bᵀ` for FP8 per-tensor operands, A ≤ ", $tokens, " rows of e4m3 (M×K) and B (N×K e4m3,")]
        /// streamed as w1 streams weights) both widened in registers to f16 (exactly: e4m3 fits f16;
        /// `weight_only::compute_e4m3`) for f16 MMAs, the per-tensor scales applied to the f32 sums;
        /// `kernel_lab::fp8`'s per-tensor route for a few tokens.
        ///
        /// # Safety
        /// As the w1 kernels, with `x` holding `m · k` e4m3 bytes (16-byte aligned) in place of 16-bit
        /// activations, no `sb`, and `sa`, `sb` one readable f32 each.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u8, w: *const u8, sa: *const f32, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32,
                                                m: u32, n: u32, k: u32, k_split: u32) {
            // SAFETY: forwarded (no block scales are read when X8 is true; no flags: every load after the wait).
            unsafe { w1::<$nt, Bf16, true, false, false>(x, w, core::ptr::null(), (sa, sb), y, ws, count, m, n, k, k_split, 0) }
        }
    )*};
}

macro_rules! fwb_entries {
    ($($name:ident, $nt:literal, $tokens:literal;)*) => {$(
        #[doc = concat!("fwb: `C (bf16) = Σ_kb sa[kb]·sb[kb] · A_kb · B_kbᵀ` for block-scaled FP8 operands (A: one f32 per 1×128, B: one per 128×128), A ≤ ", $tokens, " rows")]
        /// of e4m3 widened in registers as fw2 widens them (to f16), B streamed unscaled as fw2 streams it; each
        /// warp step's sums (64 of K, inside one scale block) start from zero and are added to the
        /// running f32 sums times the step's `sb · sa[token]` — the block-scaled product exactly, in f32,
        /// before the one rounding to bf16. `kernel_lab::fp8`'s block-scaled route for a few tokens.
        ///
        /// # Safety
        /// As fw2's kernels, with `sa` holding A's `⌈k/128⌉ · m` block scales (`layout::fp8::scale_a_index`)
        /// and `sb` B's `⌈n/128⌉ · ⌈k/128⌉` (`scale_b_index`), any finite f32.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u8, w: *const u8, sa: *const f32, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32,
                                                m: u32, n: u32, k: u32, k_split: u32) {
            // SAFETY: forwarded (`sb` is B's block scales, read by `load_w`; `sa` reaches `load_x` as α's
            // first pointer; no flags: every load after the wait).
            unsafe { w1::<$nt, Bf16, true, true, false>(x, w, sb, (sa, core::ptr::null()), y, ws, count, m, n, k, k_split, 0) }
        }
    )*};
}

launch_bounds!(fp8_fwb_t8, 256, 2);
launch_bounds!(fp8_fwb_t16, 256, 2);

fwb_entries! {
    fp8_fwb_t8, 1, 8;
    fp8_fwb_t16, 2, 16;
}

launch_bounds!(fp8_fw2_t8, 256, 2);
launch_bounds!(fp8_fw2_t16, 256, 2);

fw2_entries! {
    fp8_fw2_t8, 1, 8;
    fp8_fw2_t16, 2, 16;
}

weight_only_entries! {
    false, "`n · k` e4m3 bytes (N×K, row-major)";
    fp8_w1_t8_bf16, 1, Bf16, 8;
    fp8_w1_t16_bf16, 2, Bf16, 16;
    fp8_w1_t32_bf16, 4, Bf16, 32;
    fp8_w1_t8_f16, 1, F16, 8;
    fp8_w1_t16_f16, 2, F16, 16;
    fp8_w1_t32_f16, 4, F16, 32;
}
