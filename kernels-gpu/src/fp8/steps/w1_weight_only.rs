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
//! Prediction (H200, 4.2 TB/s copy): at 1×4096×14336 the weights are 58.7 MB → ~14 µs plus ~3 µs of
//! launch and ramp, against d2's 34.3 µs on bf16 weights: ~2×. Measured: the FP8 ladder's README.
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::hgemm::split_k::{MAX_SPLITS, sum_splits};
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::{unroll2, unroll4};
use crate::prim::{
    atomic::{atom_add_acq_rel_gpu_u32, st_relaxed_gpu_u32},
    global::{ld_global_nc_na_v4_u32, ld_global_nc_s32, ld_global_nc_v4_u32},
    math::{mul_rn_bf16x2, mul_rn_f16x2, prmt_b32},
    shared,
    sync::{sync_threads, thread_fence},
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
};
use layout::fp8::{
    SCALE_BLOCK,
    weights::{ROWS, STEP_K, WARPS, Wide, multiplier, widen_hi, widen_lo},
};

launch_bounds!(fp8_w1_t8_bf16, 256, 2);
launch_bounds!(fp8_w1_t16_bf16, 256, 2);
launch_bounds!(fp8_w1_t32_bf16, 256, 2);
launch_bounds!(fp8_w1_t8_f16, 256, 2);
launch_bounds!(fp8_w1_t16_f16, 256, 2);
launch_bounds!(fp8_w1_t32_f16, 256, 2);

/// The 16-bit activation type: its tensor-core instruction ([`Elem16`]), how an e4m3 pair widens
/// into it and its two-lane multiply.
trait Wide16: Elem16 {
    const WIDE: Wide;
    fn mul2(a: u32, b: u32) -> u32;
}

impl Wide16 for Bf16 {
    const WIDE: Wide = Wide::Bf16;
    #[inline(always)]
    fn mul2(a: u32, b: u32) -> u32 {
        mul_rn_bf16x2(a, b)
    }
}

impl Wide16 for F16 {
    const WIDE: Wide = Wide::F16;
    #[inline(always)]
    fn mul2(a: u32, b: u32) -> u32 {
        mul_rn_f16x2(a, b)
    }
}

/// One warp step's operands in registers: per row tile and half (rows `g`, `g + 8`) 16 weight bytes,
/// per token tile 16 activations (token `8·nt + g`), and the step's scale multiplier.
struct Loaded<const NT: usize> {
    w: [[[u32; 4]; 2]; 2],
    x: [[u32; 8]; NT],
    mult: u32,
}

/// Issues one warp step's loads (`k0`: the step's first K; chunks past `k_end`, rows past `n`, tokens
/// past `m` read nothing and hold zeros; a step at or past `k_end` reads nothing at all).
///
/// # Safety
/// As [`w1`]'s contract; `k_end ≤ k`, `k0 % 64 == 0`.
#[inline(always)]
unsafe fn load<const NT: usize, E: Wide16>(x: *const u16, w: *const u8, sb: *const f32, m: u32, n: u32, k: u32, k_end: u32, n0: u32, k0: u32,
                                           g: u32, t: u32) -> Loaded<NT> {
    let kc = k0 + 16 * t;
    let ok = kc < k_end;
    let mut l = Loaded { w: [[[0; 4]; 2]; 2], x: [[0; 8]; NT], mult: 0 };
    let mut rt = 0;
    while rt < 2 {
        let mut h = 0;
        while h < 2 {
            let row = n0 + 16 * rt + 8 * h + g;
            if ok && row < n {
                // SAFETY: row < n and kc + 16 ≤ k (k % 16 == 0): inside W; 16-byte aligned (k % 16 == 0).
                l.w[rt as usize][h as usize] = unsafe { ld_global_nc_na_v4_u32(w.add(row as usize * k as usize + kc as usize) as *const u32) };
            }
            h += 1;
        }
        rt += 1;
    }
    unroll4!(nt => { if (nt as usize) < NT {
        let tok = 8 * nt + g;
        if ok && tok < m {
            let p = x.wrapping_add(tok as usize * k as usize + kc as usize) as *const u32;
            // SAFETY: token tok < m, K positions kc..kc+16 ≤ k: inside X; 32-byte aligned (k % 16 == 0).
            let (a, b) = unsafe { (ld_global_nc_v4_u32(p), ld_global_nc_v4_u32(p.add(4))) };
            l.x[nt as usize] = [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]];
        }
    }});
    // The scale of the step's block (n0 and the step lie in one 128×128 block: 32-row tiles, 64-deep
    // steps aligned to 64); the same address in every lane.
    if k0 < k_end {
        let kb = k.div_ceil(SCALE_BLOCK);
        // SAFETY: block (n0 / 128, k0 / 128) exists: n0 < n, k0 < k.
        let bits = unsafe { ld_global_nc_s32(sb.add(((n0 / SCALE_BLOCK) * kb + k0 / SCALE_BLOCK) as usize) as *const i32) } as u32;
        l.mult = multiplier(bits, E::WIDE);
    }
    l
}

/// One warp step's MMAs: for each of the four 4-byte words of a lane's chunks, the widened weight
/// pairs of both rows (A) against the activations paired the same way (B).
///
/// # Safety
/// All 32 lanes of the warp, converged.
#[inline(always)]
unsafe fn compute<const NT: usize, E: Wide16>(acc: &mut [[[f32; 4]; NT]; 2], l: &Loaded<NT>) {
    unroll4!(j => {
        let j = j as usize;
        let mut b = [[0u32; 2]; NT];
        unroll4!(nt => { if (nt as usize) < NT {
            let (p, q) = (l.x[nt as usize][2 * j], l.x[nt as usize][2 * j + 1]);
            // K positions 4j, 4j+2 (slots 2t, 2t+1) and 4j+1, 4j+3 (slots 2t+8, 2t+9).
            b[nt as usize] = [prmt_b32(p, q, 0x5410), prmt_b32(p, q, 0x7632)];
        }});
        unroll2!(rt => {
            let rt = rt as usize;
            let (r0, r8) = (l.w[rt][0][j], l.w[rt][1][j]);
            let a = [E::mul2(widen_lo(r0, E::WIDE), l.mult), E::mul2(widen_lo(r8, E::WIDE), l.mult),
                     E::mul2(widen_hi(r0, E::WIDE), l.mult), E::mul2(widen_hi(r8, E::WIDE), l.mult)];
            unroll4!(nt => { if (nt as usize) < NT {
                // SAFETY: forwarded to the caller (the whole warp).
                unsafe { E::mma(&mut acc[rt][nt as usize], a, b[nt as usize]) };
            }});
        });
    });
}

/// The body of the w1 kernels with `NT` token tiles (`8·NT` tokens).
///
/// # Safety
/// As [`fp8_w1_t8_bf16`], with `8·NT` for 8.
#[inline(always)]
unsafe fn w1<const NT: usize, E: Wide16>(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32,
                                         k_split: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let (tile, split, splits) = (block_idx_x(), block_idx_y(), grid_dim_y());
    let n0 = tile * ROWS;
    let k_begin = split * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    let mut acc = [[[0.0f32; 4]; NT]; 2];
    // SAFETY: loads inside W, X and sb (`load`'s contract, k0 < k_end checked before each); every
    // barrier below is reached by all threads (block-uniform conditions); shared memory accesses
    // inside `smem_bytes(NT)`.
    unsafe {
        // Two steps' loads in flight: step s computed while step s + WARPS's are on their way.
        let stride = STEP_K * WARPS;
        let mut k0 = k_begin + STEP_K * warp;
        // Two buffers taking turns (no copy from one to the other, which LLVM would route through
        // local memory at 4 token tiles).
        let mut a = load::<NT, E>(x, w, sb, m, n, k, k_end, n0, k0, g, t);
        while k0 < k_end {
            let b = load::<NT, E>(x, w, sb, m, n, k, k_end, n0, k0 + stride, g, t);
            compute::<NT, E>(&mut acc, &a);
            if k0 + stride >= k_end {
                break;
            }
            a = load::<NT, E>(x, w, sb, m, n, k, k_end, n0, k0 + 2 * stride, g, t);
            compute::<NT, E>(&mut acc, &b);
            k0 += 2 * stride;
        }
        // The warps' sums through shared memory: slot (f, lane) of warp w at (w·2·NT·4 + f)·32 + lane,
        // f = (rt·NT + nt)·4 + e over the accumulator's four values.
        let s = shared::dynamic::<shared::Align16>() as *mut f32;
        let per_warp = 2 * NT as u32 * 4;
        let mut rt = 0;
        while rt < 2 {
            unroll4!(nt => { if (nt as usize) < NT {
                let mut e = 0;
                while e < 4 {
                    let f = (rt * NT as u32 + nt) * 4 + e;
                    *s.add(((warp * per_warp + f) * 32 + lane) as usize) = acc[rt as usize][nt as usize][e as usize];
                    e += 1;
                }
            }});
            rt += 1;
        }
        sync_threads();
        // Each thread sums pairs (e, e + 1: two adjacent tokens of one row) over the warps: pair p =
        // (f / 2) · 32 + lane, 128·NT of them.
        let pairs = 2 * NT as u32 * 2 * 32;
        let m_pad = 8 * NT as u32;
        let n_pad = n.div_ceil(ROWS) * ROWS;
        let place = |p: u32| {
            let (fp, l) = (p / 32, p % 32);
            let (rt_nt, hh) = (fp / 2, fp % 2);
            let (rt, nt) = (rt_nt / NT as u32, rt_nt % NT as u32);
            (n0 + 16 * rt + 8 * hh + l / 4, 8 * nt + 2 * (l % 4), 2 * fp * 32 + l)
        };
        let sum_pair = |slot: u32| {
            let (mut a, mut b) = (0.0f32, 0.0f32);
            let mut wp = 0;
            while wp < WARPS {
                a += *s.add((wp * per_warp * 32 + slot) as usize);
                b += *s.add((wp * per_warp * 32 + slot + 32) as usize);
                wp += 1;
            }
            (a, b)
        };
        let store = |row: u32, tok: u32, a: f32, b: f32| {
            let v = E::pack(a, b);
            if row < n && tok < m {
                *y.add(tok as usize * n as usize + row as usize) = v as u16;
            }
            if row < n && tok + 1 < m {
                *y.add((tok + 1) as usize * n as usize + row as usize) = (v >> 16) as u16;
            }
        };
        if splits == 1 {
            let mut p = tid;
            while p < pairs {
                let (row, tok, slot) = place(p);
                let (a, b) = sum_pair(slot);
                store(row, tok, a, b);
                p += WARPS * 32;
            }
            return;
        }
        // This split's partial tile into its slice of the workspace, `[split][n_pad][m_pad]` f32 (a
        // row's tokens contiguous, so a pair is one 8-byte store), then the tile's ticket.
        let slice_len = n_pad as usize * m_pad as usize;
        let mut p = tid;
        while p < pairs {
            let (row, tok, slot) = place(p);
            let (a, b) = sum_pair(slot);
            let bits = a.to_bits() as u64 | (b.to_bits() as u64) << 32;
            // row < n_pad, tok + 1 < m_pad, tok even: inside the slice, 8-byte aligned.
            *(ws.add(split as usize * slice_len + row as usize * m_pad as usize + tok as usize) as *mut u64) = bits;
            p += WARPS * 32;
        }
        thread_fence();
        sync_threads();
        let flag = s.add((WARPS * per_warp * 32) as usize) as *mut u32;
        let counter = count.add(tile as usize);
        if tid == 0 {
            let ticket = atom_add_acq_rel_gpu_u32(counter, 1);
            *flag = (ticket == splits - 1) as u32;
        }
        sync_threads();
        if *flag == 0 {
            return;
        }
        thread_fence();
        let mut p = tid;
        while p < pairs {
            let (row, tok, _) = place(p);
            let (a, b) = sum_splits(ws, splits, slice_len, row as usize * m_pad as usize + tok as usize);
            store(row, tok, a, b);
            p += WARPS * 32;
        }
        if tid == 0 {
            st_relaxed_gpu_u32(counter, 0);
        }
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
        /// concurrent launch.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32,
                                                k: u32, k_split: u32) {
            // SAFETY: forwarded.
            unsafe { w1::<$nt, $e>(x, w, sb, y, ws, count, m, n, k, k_split) }
        }
    )*};
}

w1_entries! {
    fp8_w1_t8_bf16, 1, Bf16, 8;
    fp8_w1_t16_bf16, 2, Bf16, 16;
    fp8_w1_t32_bf16, 4, Bf16, 32;
    fp8_w1_t8_f16, 1, F16, 8;
    fp8_w1_t16_f16, 2, F16, 16;
    fp8_w1_t32_f16, 4, F16, 32;
}
