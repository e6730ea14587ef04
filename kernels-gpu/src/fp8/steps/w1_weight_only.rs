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
use crate::fp8::weight_only::{Operands, Wide16, compute, finish, promote, step_multiplier};
use layout::fp8::weights::multiplier;
use crate::hgemm::elem::{Bf16, F16};
use crate::hgemm::split_k::MAX_SPLITS;
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::unroll4;
use crate::prim::{
    global::{ld_global_nc_na_v4_u32, ld_global_nc_s32, ld_global_nc_v4_u32},
    shared,
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
};
use layout::fp8::weights::{ROWS, STEP_K, W1_W_AT_LAUNCH, WARPS};
use layout::fp8::{scale_a_index, scale_b_index};

launch_bounds!(fp8_w1_t8_bf16, 256, 2);
launch_bounds!(fp8_w1_t16_bf16, 256, 2);
launch_bounds!(fp8_w1_t32_bf16, 256, 2);
launch_bounds!(fp8_w1_t8_f16, 256, 2);
launch_bounds!(fp8_w1_t16_f16, 256, 2);
launch_bounds!(fp8_w1_t32_f16, 256, 2);

/// Issues one warp step's weight loads and reads its block scale (`k0`: the step's first K; chunks past
/// `k_end` and rows past `n` read nothing and hold zeros; a step at or past `k_end` reads nothing at all):
/// nothing the previous grid writes (weights are written at load), so it may run before the PDL wait.
///
/// # Safety
/// As [`w1`]'s contract; `k_end ≤ k`, `k0 % 64 == 0`.
#[inline(always)]
unsafe fn load_w<const NT: usize, E: Wide16, const X8: bool, const BS: bool>(l: &mut Operands<NT>, w: *const u8, sb: *const f32, n: u32, k: u32, k_end: u32, n0: u32,
                                                               k0: u32, g: u32, t: u32) {
    let kc = k0 + 16 * t;
    let ok = kc < k_end;
    let mut rt = 0;
    while rt < 2 {
        let mut h = 0;
        while h < 2 {
            let row = n0 + 16 * rt + 8 * h + g;
            l.w[rt as usize][h as usize] = if ok && row < n {
                // SAFETY: row < n and kc + 16 ≤ k (k % 16 == 0): inside W; 16-byte aligned (k % 16 == 0).
                unsafe { ld_global_nc_na_v4_u32(w.add(row as usize * k as usize + kc as usize) as *const u32) }
            } else {
                [0; 4]
            };
            h += 1;
        }
        rt += 1;
    }
    // The scale of the step's block (n0 and the step lie in one 128×128 block: 32-row tiles, 64-deep
    // steps aligned to 64); the same address in every lane. fw2's weights are unscaled (its per-tensor
    // scale is applied to the sums): the unit multiplier `2^bias`.
    if BS && k0 < k_end {
        // fwb: the step's block's B scale (any f32), applied to the step's sums; the weights unscaled.
        // SAFETY: n0 < n, k0 < k_end ≤ k: block (n0 / 128, k0 / 128) is inside `sb`.
        l.sb = f32::from_bits(unsafe { ld_global_nc_s32(sb.add(scale_b_index(n0, k0, k) as usize) as *const i32) } as u32);
    }
    l.mult = if k0 >= k_end {
        0
    } else if X8 {
        multiplier(1.0f32.to_bits(), E::WIDE)
    } else {
        // SAFETY: n0 < n, k0 < k_end ≤ k.
        unsafe { step_multiplier::<E>(sb, k, n0, k0) }
    };
}

/// Issues one warp step's activation loads (tokens past `m` and steps past `k_end` read nothing and
/// hold zeros): the previous grid's output, so after the PDL wait.
///
/// # Safety
/// As [`load_w`].
#[inline(always)]
unsafe fn load_x<const NT: usize, const X8: bool, const BS: bool>(l: &mut Operands<NT>, x: *const u8, sa: *const f32, m: u32, k: u32, k_end: u32, k0: u32,
                                                                   g: u32, t: u32) {
    let kc = k0 + 16 * t;
    let ok = kc < k_end;
    unroll4!(nt => { if (nt as usize) < NT {
        if BS {
            // fwb: A's scales of the step's K block for the lane's accumulator tokens 8·nt + 2t, + 1
            // (0 past M: those sums are never stored).
            let tok = 8 * nt + 2 * t;
            let ld = |r: u32| if k0 < k_end && r < m {
                // SAFETY: r < m, k0 < k: inside `sa` (⌈k/128⌉ · m values); nothing writes it while the grid runs.
                f32::from_bits(unsafe { ld_global_nc_s32(sa.add(scale_a_index(r, k0, m) as usize) as *const i32) } as u32)
            } else {
                0.0
            };
            l.sa[nt as usize] = [ld(tok), ld(tok + 1)];
        }
        let tok = 8 * nt + g;
        l.x[nt as usize] = if !(ok && tok < m) {
            [0; 8]
        } else if X8 {
            // fw2: 16 e4m3 activations as bytes; `compute` widens them.
            let p = x.wrapping_add(tok as usize * k as usize + kc as usize) as *const u32;
            // SAFETY: token tok < m, K positions kc..kc+16 ≤ k: inside X; 16-byte aligned (k % 16 == 0).
            let a = unsafe { ld_global_nc_v4_u32(p) };
            [a[0], a[1], a[2], a[3], 0, 0, 0, 0]
        } else {
            let p = (x as *const u16).wrapping_add(tok as usize * k as usize + kc as usize) as *const u32;
            // SAFETY: token tok < m, K positions kc..kc+16 ≤ k: inside X; 32-byte aligned (k % 16 == 0).
            let (a, b) = unsafe { (ld_global_nc_v4_u32(p), ld_global_nc_v4_u32(p.add(4))) };
            [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
        };
    }});
}

/// One warp step's operands, weights and activations (as w1 always loaded them: after the wait).
///
/// # Safety
/// As [`load_w`].
#[inline(always)]
unsafe fn load<const NT: usize, E: Wide16, const X8: bool, const BS: bool>(x: *const u8, w: *const u8, sa: *const f32, sb: *const f32, m: u32, n: u32,
                                                                             k: u32, k_end: u32, n0: u32, k0: u32, g: u32, t: u32) -> Operands<NT> {
    let mut l = Operands::zero();
    // SAFETY: forwarded.
    unsafe {
        load_w::<NT, E, X8, BS>(&mut l, w, sb, n, k, k_end, n0, k0, g, t);
        load_x::<NT, X8, BS>(&mut l, x, sa, m, k, k_end, k0, g, t);
    }
    l
}

/// The body of the w1 kernels with `NT` token tiles (`8·NT` tokens).
///
/// # Safety
/// As [`fp8_w1_t8_bf16`], with `8·NT` for 8.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn w1<const NT: usize, E: Wide16, const X8: bool, const BS: bool>(x: *const u8, w: *const u8, sb: *const f32, alpha: (*const f32, *const f32),
                                                                          y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32,
                                                                          flags: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let n0 = block_idx_x() * ROWS;
    let k_begin = block_idx_y() * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    let mut acc = [[[0.0f32; 4]; NT]; 2];
    // SAFETY: loads inside W, X and sb (`load`'s contract, k0 < k_end checked before each); every
    // barrier below is reached by all threads (block-uniform conditions); shared memory accesses
    // inside `smem_bytes(NT)`.
    unsafe {
        // Two steps' loads in flight: step s computed while step s + WARPS's are on their way.
        let stride = STEP_K * WARPS;
        let mut k0 = k_begin + STEP_K * warp;
        // Launched with PDL (`util::pdl`). `W1_W_AT_LAUNCH` (session 64): the previous grid does not
        // write the weights or their scales, so the first step's are read before the wait, while that
        // grid finishes; the activations (its output) after it. (Both first steps' weights early, with
        // the loop rotated to match, took t8 from 106 to 128 registers and t32's spills from 84 to 244 bytes.)
        let mut a = Operands::zero();
        let w_early = flags & W1_W_AT_LAUNCH != 0;
        if w_early {
            load_w::<NT, E, X8, BS>(&mut a, w, sb, n, k, k_end, n0, k0, g, t);
        }
        crate::util::pdl::wait();
        if !w_early {
            load_w::<NT, E, X8, BS>(&mut a, w, sb, n, k, k_end, n0, k0, g, t);
        }
        // fwb: A's block scales (`alpha.0`); fw2: A's per-tensor scale.
        let sa = alpha.0;
        load_x::<NT, X8, BS>(&mut a, x, sa, m, k, k_end, k0, g, t);
        // fw2: the product's per-tensor scale (A's times B's), applied to the sums; fwb applies its
        // scales step by step (`promote`).
        let alpha = if X8 && !BS { *alpha.0 * *alpha.1 } else { 1.0 };
        // One step's MMAs: into the running sums, or (fwb) into fresh ones promoted with the step's
        // scales (a step's 64 K positions lie in one 128-deep scale block).
        let step = |acc: &mut [[[f32; 4]; NT]; 2], l: &Operands<NT>| if BS {
            // (Inside the body's unsafe block: `compute` wants the whole warp, converged — every lane
            // runs the same steps.)
            let mut part = [[[0.0f32; 4]; NT]; 2];
            compute::<NT, E, X8>(&mut part, l);
            promote(acc, &part, l);
        } else {
            compute::<NT, E, X8>(acc, l);
        };
        // Two buffers taking turns (no copy from one to the other, which LLVM would route through
        // local memory at 4 token tiles).
        while k0 < k_end {
            let b = load::<NT, E, X8, BS>(x, w, sa, sb, m, n, k, k_end, n0, k0 + stride, g, t);
            step(&mut acc, &a);
            if k0 + stride >= k_end {
                break;
            }
            a = load::<NT, E, X8, BS>(x, w, sa, sb, m, n, k, k_end, n0, k0 + 2 * stride, g, t);
            step(&mut acc, &b);
            k0 += 2 * stride;
        }
        // The next grid's blocks may be scheduled once every block is past its K loop (as HGEMM d2 since
        // session 63): released at the start, a following projection's blocks held SM slots that this
        // one's later waves needed.
        crate::util::pdl::release();
        finish::<NT, E>(acc, shared::dynamic::<shared::Align16>() as *mut f32, y, ws, count, m, n, block_idx_x(), block_idx_y(), grid_dim_y(), alpha);
    }
}

const _: () = assert!(MAX_SPLITS == 16, "the host's split limit (kernel_lab::fp8_weights) says 16");

macro_rules! w1_entries {
    ($($name:ident, $nt:literal, $e:ty, $tokens:literal;)*) => {$(
        #[doc = concat!("`Y = X · Wᵀ` for M ≤ ", $tokens, " tokens (see the module).")]
        ///
        /// # Safety
        /// `layout::fp8::weights::THREADS` threads a block, `smem_bytes(NT)` bytes of dynamic shared
        /// memory (16-byte aligned); grid `(⌈n / 32⌉, splits)`, `splits ≤ 16`, `k_split` a positive
        /// multiple of 64 with `(splits − 1) · k_split < k`. `x` holds `m · k` 16-bit values, `w` `n · k`
        /// e4m3 bytes, `sb` `⌈n/128⌉ · ⌈k/128⌉` f32 powers of two in the type's scale range, `y` `m · n`
        /// 16-bit values; `1 ≤ m ≤` the token count, `k % 16 == 0`, x and w 16-byte aligned, none written
        /// by another grid while this one runs. When splits > 1, `ws` holds `splits · 32⌈n/32⌉ · 8·NT`
        /// f32 (8-byte aligned) and `count` `⌈n/32⌉` u32, zero at launch (left zero), neither used by a
        /// concurrent launch. With `flags` bit `W1_W_AT_LAUNCH`, `w` and `sb` are not written by the
        /// grid launched just before on the stream.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32,
                                                k: u32, k_split: u32, flags: u32) {
            // SAFETY: forwarded (x as bytes; the α pointers are not read when X8 is false).
            unsafe { w1::<$nt, $e, false, false>(x as *const u8, w, sb, (core::ptr::null(), core::ptr::null()), y, ws, count, m, n, k, k_split, flags) }
        }
    )*};
}

macro_rules! fw2_entries {
    ($($name:ident, $nt:literal, $tokens:literal;)*) => {$(
        #[doc = concat!("fw2: `C (bf16) = sa·sb · A · Bᵀ` for FP8 per-tensor operands, A ≤ ", $tokens, " rows of e4m3 (M×K) widened in registers as")]
        /// the weights are (exactly: e4m3 fits bf16), B (N×K e4m3) streamed as w1 streams weights
        /// with no block scales, the per-tensor scales applied to the f32 sums. w1 with one more
        /// instruction pattern in its loads; `kernel_lab::fp8`'s per-tensor route for a few tokens.
        ///
        /// # Safety
        /// As the w1 kernels, with `x` holding `m · k` e4m3 bytes (16-byte aligned) in place of 16-bit
        /// activations, no `sb`, and `sa`, `sb` one readable f32 each.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u8, w: *const u8, sa: *const f32, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32,
                                                m: u32, n: u32, k: u32, k_split: u32) {
            // SAFETY: forwarded (no block scales are read when X8 is true; no flags: every load after the wait).
            unsafe { w1::<$nt, Bf16, true, false>(x, w, core::ptr::null(), (sa, sb), y, ws, count, m, n, k, k_split, 0) }
        }
    )*};
}

macro_rules! fwb_entries {
    ($($name:ident, $nt:literal, $tokens:literal;)*) => {$(
        #[doc = concat!("fwb: `C (bf16) = Σ_kb sa[kb]·sb[kb] · A_kb · B_kbᵀ` for block-scaled FP8 operands (A: one f32 per 1×128, B: one per 128×128), A ≤ ", $tokens, " rows")]
        /// of e4m3 widened in registers as fw2 widens them, B streamed unscaled as fw2 streams it; each
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
            unsafe { w1::<$nt, Bf16, true, true>(x, w, sb, (sa, core::ptr::null()), y, ws, count, m, n, k, k_split, 0) }
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

w1_entries! {
    fp8_w1_t8_bf16, 1, Bf16, 8;
    fp8_w1_t16_bf16, 2, Bf16, 16;
    fp8_w1_t32_bf16, 4, Bf16, 32;
    fp8_w1_t8_f16, 1, F16, 8;
    fp8_w1_t16_f16, 2, F16, 16;
    fp8_w1_t32_f16, 4, F16, 32;
}
