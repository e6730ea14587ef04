//! What FP8 weight-only decode kernels share (`steps/w1_weight_only.rs`, `steps/w5_packed_weights.rs`;
//! the ladder's removed variants used it too): the
//! 16-bit side ([`Wide16`]: widening and multiply), one 64-deep step's MMAs on operands in registers
//! ([`compute`], the K permutation w1's file explains), the block's end ([`finish`]: the warps' sums
//! through shared memory, split-K partials and the tile's last-block sum), and the body of w1, fw2, fwb
//! and w5 ([`w1`]: each warp's two steps of loads in flight, on natural or packed weights). A variant
//! differs only in how a step's operands reach the registers and how blocks walk the tiles.
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::hgemm::split_k::sum_splits;
use crate::util::unroll::{unroll2, unroll4};
use crate::prim::{
    atomic::{atom_add_acq_rel_gpu_u32, st_relaxed_gpu_u32},
    fp8::cvt_f16x2_e4m3x2,
    global::{ld_global_cg_f32, ld_global_nc_na_v4_u32, ld_global_nc_s32, ld_global_nc_v4_u32},
    math::{mul_rn_bf16x2, mul_rn_f16x2, prmt_b32},
    mma::mma_m16n8k16_f32_f16,
    shared,
    sync::{sync_threads, sync_warp, thread_fence},
    thread::{block_idx_x, block_idx_y, grid_dim_x, grid_dim_y, thread_idx_x},
    warp::shuffle_idx_u32,
};
use layout::fragment::MmaM16N8K16;
use layout::fp8::{
    SCALE_BLOCK, scale_a_index, scale_b_index,
    weights::{ROWS, STEP_K, W1_W_AT_LAUNCH, WARPS, Wide, f16_pow2_pair, multiplier, packed_chunk, widen_hi, widen_lo},
};

/// The 16-bit activation type: its tensor-core instruction ([`Elem16`]), how an e4m3 pair widens
/// into it and its two-lane multiply.
pub(crate) trait Wide16: Elem16 {
    /// Its widening.
    const WIDE: Wide;
    /// Whether e4m3 widens into it with `cvt.rn.f16x2.e4m3x2` (f16: one instruction a pair, the values
    /// themselves — [`compute`]'s f16 path) rather than with shifts and masks (bf16: `2^-bias` times them).
    const CVT: bool;
    /// Two lanes' products, rounded once.
    fn mul2(a: u32, b: u32) -> u32;
    /// The pair a step's widened weights are multiplied by, from its block scale's f32 bits: `2^(bias +
    /// e)` after the shifts and masks, `2^e` after `cvt`.
    fn step_mult(scale_bits: u32) -> u32;
}

impl Wide16 for Bf16 {
    const WIDE: Wide = Wide::Bf16;
    const CVT: bool = false;
    #[inline(always)]
    fn mul2(a: u32, b: u32) -> u32 {
        mul_rn_bf16x2(a, b)
    }
    #[inline(always)]
    fn step_mult(scale_bits: u32) -> u32 {
        multiplier(scale_bits, Wide::Bf16)
    }
}

impl Wide16 for F16 {
    const WIDE: Wide = Wide::F16;
    const CVT: bool = true;
    #[inline(always)]
    fn mul2(a: u32, b: u32) -> u32 {
        mul_rn_f16x2(a, b)
    }
    #[inline(always)]
    fn step_mult(scale_bits: u32) -> u32 {
        f16_pow2_pair(scale_bits)
    }
}

/// One warp step's operands in registers: per row tile and half (rows `g`, `g + 8`) 16 weight bytes,
/// per token tile (token `8·nt + g`) the activations at the lane's 16 K positions as loaded — eight
/// words of 16-bit values, or (fw2's e4m3 activations) four words of bytes in words 0..4, widened only
/// in [`compute`] so that no load is waited for before its step — and the step's scale multiplier;
/// for fwb's block-scaled operands also the step's scales as loaded (A's of the lane's two accumulator
/// tokens `8·nt + 2t`, `+ 1` per token tile, B's of the step's block), applied to the step's sums.
pub(crate) struct Operands<const NT: usize> {
    pub w: [[[u32; 4]; 2]; 2],
    pub x: [[u32; 8]; NT],
    pub mult: u32,
    pub sa: [[f32; 2]; NT],
    pub sb: f32,
}

impl<const NT: usize> Operands<NT> {
    /// All zero (loads fill what a step uses).
    #[inline(always)]
    pub fn zero() -> Operands<NT> {
        Operands { w: [[[0; 4]; 2]; 2], x: [[0; 8]; NT], mult: 0, sa: [[0.0; 2]; NT], sb: 0.0 }
    }
}

/// `acc += part · (sb · sa[token])` for one step's sums `part` of block-scaled operands (fwb): fragment
/// element `e` of token tile `nt` belongs to token `8·nt + 2t + e % 2` (rows g and g + 8 alike). The
/// products `sb · sa` are formed here, at their first use, so the scales' loads overlap the step's MMAs.
#[inline(always)]
pub(crate) fn promote<const NT: usize>(acc: &mut [[[f32; 4]; NT]; 2], part: &[[[f32; 4]; NT]; 2], l: &Operands<NT>) {
    unroll4!(nt => { if (nt as usize) < NT {
        let nt = nt as usize;
        let s = [l.sb * l.sa[nt][0], l.sb * l.sa[nt][1]];
        unroll2!(rt => {
            let rt = rt as usize;
            unroll4!(e => {
                let e = e as usize;
                acc[rt][nt][e] = core::intrinsics::fmaf32(part[rt][nt][e], s[e % 2], acc[rt][nt][e]);
            });
        });
    }});
}

/// The multiplier ([`Wide16::step_mult`]) of the scale of the 128×128 block holding rows `n0..n0 + 32`
/// and K positions `k0..k0 + 64` (one block: 32-row tiles, 64-deep steps aligned to 64); the same
/// address in every lane.
///
/// # Safety
/// `sb` holds the `⌈n/128⌉ · ⌈k/128⌉` scales; `n0 < n`, `k0 < k`.
#[inline(always)]
pub(crate) unsafe fn step_multiplier<E: Wide16>(sb: *const f32, k: u32, n0: u32, k0: u32) -> u32 {
    let kb = k.div_ceil(SCALE_BLOCK);
    // SAFETY: block (n0 / 128, k0 / 128) exists (caller).
    let bits = unsafe { ld_global_nc_s32(sb.add(((n0 / SCALE_BLOCK) * kb + k0 / SCALE_BLOCK) as usize) as *const i32) } as u32;
    E::step_mult(bits)
}

/// One warp step's MMAs: for each of the four 4-byte words of a lane's chunks, the widened weight
/// pairs of both rows (A) against the activations paired the same way (B): bf16 — bytes 0, 2 and 1, 3
/// of a word by shifts and masks, the activations paired to match with two `prmt`; f16 (`E::CVT`, session
/// 74) — bytes 0, 1 and 2, 3 by one `cvt.rn.f16x2.e4m3x2` each, which pairs K as the activations lie
/// (words `2j`, `2j + 1`: no `prmt`); each times the step's multiplier. With e4m3 activations (`X8`:
/// fw2, fwb) both operands through f16 instead ([`compute_e4m3`]).
///
/// # Safety
/// All 32 lanes of the warp, converged.
#[inline(always)]
pub(crate) unsafe fn compute<const NT: usize, E: Wide16, const X8: bool>(acc: &mut [[[f32; 4]; NT]; 2], l: &Operands<NT>) {
    if X8 {
        // SAFETY: forwarded to the caller (the whole warp).
        unsafe { compute_e4m3(acc, l) };
        return;
    }
    unroll4!(j => {
        let j = j as usize;
        let mut b = [[0u32; 2]; NT];
        unroll4!(nt => { if (nt as usize) < NT {
            let (p, q) = (l.x[nt as usize][2 * j], l.x[nt as usize][2 * j + 1]);
            b[nt as usize] = if E::CVT {
                // K positions 4j, 4j+1 (slots 2t, 2t+1) and 4j+2, 4j+3 (slots 2t+8, 2t+9): as loaded.
                [p, q]
            } else {
                // K positions 4j, 4j+2 (slots 2t, 2t+1) and 4j+1, 4j+3 (slots 2t+8, 2t+9).
                [prmt_b32(p, q, 0x5410), prmt_b32(p, q, 0x7632)]
            };
        }});
        unroll2!(rt => {
            let rt = rt as usize;
            let (r0, r8) = (l.w[rt][0][j], l.w[rt][1][j]);
            let widen = |w: u32| if E::CVT { cvt_halves(w) } else { [widen_lo(w, E::WIDE), widen_hi(w, E::WIDE)] };
            let ([lo, hi], [lo8, hi8]) = (widen(r0), widen(r8));
            let a = [E::mul2(lo, l.mult), E::mul2(lo8, l.mult), E::mul2(hi, l.mult), E::mul2(hi8, l.mult)];
            unroll4!(nt => { if (nt as usize) < NT {
                // SAFETY: forwarded to the caller (the whole warp).
                unsafe { E::mma(&mut acc[rt][nt as usize], a, b[nt as usize]) };
            }});
        });
    });
}

/// Four e4m3 bytes of a word as two f16 pairs, exactly: bytes 0, 1 (the low half) and 2, 3, one
/// `cvt.rn.f16x2.e4m3x2` each — the widening of f16 activations' weights ([`compute`]) and of both of
/// fw2's and fwb's operands ([`compute_e4m3`]).
#[inline(always)]
fn cvt_halves(w: u32) -> [u32; 2] {
    [cvt_f16x2_e4m3x2(w as u16), cvt_f16x2_e4m3x2((w >> 16) as u16)]
}

/// One warp step's MMAs on **e4m3 activations and unscaled e4m3 weights** (fw2, fwb; session 74): every
/// e4m3 value is an f16 value, so each 16-bit half of a loaded word widens with one `cvt.rn.f16x2.e4m3x2`
/// (bytes 0, 1 and 2, 3 of word `j` at K pairs `(2t, 2t+1)` and `(2t+8, 2t+9)` of `mma.m16n8k16`: the same
/// permutation for both operands) and the products, exact in f32, go through f16 MMAs — where [`compute`]'s
/// 16-bit path spends shifts, masks and a multiply on each pair. The sums are the same exact products in
/// another order; the caller applies the scales to them.
///
/// # Safety
/// All 32 lanes of the warp, converged.
#[inline(always)]
unsafe fn compute_e4m3<const NT: usize>(acc: &mut [[[f32; 4]; NT]; 2], l: &Operands<NT>) {
    unroll4!(j => {
        let j = j as usize;
        let mut b = [[0u32; 2]; NT];
        unroll4!(nt => { if (nt as usize) < NT {
            b[nt as usize] = cvt_halves(l.x[nt as usize][j]);
        }});
        unroll2!(rt => {
            let rt = rt as usize;
            let ([lo, hi], [lo8, hi8]) = (cvt_halves(l.w[rt][0][j]), cvt_halves(l.w[rt][1][j]));
            let a = [lo, lo8, hi, hi8];
            unroll4!(nt => { if (nt as usize) < NT {
                // SAFETY: forwarded to the caller (the whole warp).
                unsafe { mma_m16n8k16_f32_f16(&mut acc[rt][nt as usize], a, b[nt as usize]) };
            }});
        });
    });
}

/// The end of a weight-only kernel: the block's warps' sums through shared memory at `s` (`WARPS ·
/// 32 · 2 · NT · 4` f32 and a flag word after them), then `y` written, or with several splits this
/// split's partial stored and the tile's last block summing them in split order (`tile`, `split` of
/// `splits`: the unit just done). Every value written to `y` is `alpha` times its sum, in f32, before
/// the one rounding to 16 bits (w1: `alpha = 1`; fw2: the product's per-tensor scale).
///
/// # Safety
/// All threads of the block call it together; the kernels' contract on `y`, `ws`, `count`, `m`, `n`;
/// `s` a 16-byte-aligned shared area of `layout::fp8::weights::smem_bytes(NT)` bytes that no thread of
/// the block uses any more (a caller that used it before calls it after a barrier).
#[inline(always)]
pub(crate) unsafe fn finish<const NT: usize, E: Wide16>(acc: [[[f32; 4]; NT]; 2], s: *mut f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32,
                                                      tile: u32, split: u32, splits: u32, alpha: f32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let n0 = tile * ROWS;
    // SAFETY: shared accesses inside the area (caller); every barrier reached by all threads
    // (block-uniform conditions); global accesses inside y, ws and count (caller).
    unsafe {
        // The warps' sums through shared memory: slot (f, lane) of warp w at (w·2·NT·4 + f)·32 + lane,
        // f = (rt·NT + nt)·4 + e over the accumulator's four values.
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
            let v = E::pack(alpha * a, alpha * b);
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

/// Issues one warp step's weight loads and reads its block scale (`k0`: the step's first K; chunks past
/// `k_end` and rows past `n` read nothing and hold zeros — packed weights (`PACKED`) read the padding's
/// zeros there instead; a step at or past `k_end` reads nothing at all):
/// nothing the previous grid writes (weights are written at load), so it may run before the PDL wait.
///
/// # Safety
/// As [`w1`]'s contract; `k_end ≤ k`, `k0 % 64 == 0`.
#[inline(always)]
unsafe fn load_w<const NT: usize, E: Wide16, const X8: bool, const BS: bool, const PACKED: bool>(l: &mut Operands<NT>, w: *const u8, sb: *const f32, n: u32, k: u32,
                                                                                     k_end: u32, n0: u32, k0: u32, g: u32, t: u32) {
    let mut rt = 0;
    while rt < 2 {
        let mut h = 0;
        while h < 2 {
            l.w[rt as usize][h as usize] = if PACKED {
                // w5: the step's 2 KiB lie together, load `2·rt + h` of the warp 512 contiguous bytes;
                // rows past n and K past k are zero bytes of the padding, so only a step past the
                // split's end reads nothing (a warp-uniform test).
                if k0 < k_end {
                    let at = packed_chunk(n0 / ROWS, k0 / STEP_K, 2 * rt + h, 4 * g + t, k);
                    // SAFETY: n0 < ⌈n/32⌉·32 and k0 < k: inside the `packed_len(n, k)` bytes; 16-byte aligned.
                    unsafe { ld_global_nc_na_v4_u32(w.add(at) as *const u32) }
                } else {
                    [0; 4]
                }
            } else {
                let (row, kc) = (n0 + 16 * rt + 8 * h + g, k0 + 16 * t);
                if kc < k_end && row < n {
                    // SAFETY: row < n and kc + 16 ≤ k (k % 16 == 0): inside W; 16-byte aligned (k % 16 == 0).
                    unsafe { ld_global_nc_na_v4_u32(w.add(row as usize * k as usize + kc as usize) as *const u32) }
                } else {
                    [0; 4]
                }
            };
            h += 1;
        }
        rt += 1;
    }
    // The scale of the step's block (n0 and the step lie in one 128×128 block: 32-row tiles, 64-deep
    // steps aligned to 64); the same address in every lane. fw2's and fwb's weights go unscaled through
    // f16 (`compute_e4m3`, which reads no multiplier): their scales are applied to the sums.
    if BS && k0 < k_end {
        // fwb: the step's block's B scale (any f32), applied to the step's sums; the weights unscaled.
        // SAFETY: n0 < n, k0 < k_end ≤ k: block (n0 / 128, k0 / 128) is inside `sb`.
        l.sb = f32::from_bits(unsafe { ld_global_nc_s32(sb.add(scale_b_index(n0, k0, k) as usize) as *const i32) } as u32);
    }
    l.mult = if k0 >= k_end || X8 {
        0
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
unsafe fn load<const NT: usize, E: Wide16, const X8: bool, const BS: bool, const PACKED: bool>(x: *const u8, w: *const u8, sa: *const f32, sb: *const f32,
                                                                                                 m: u32, n: u32, k: u32, k_end: u32, n0: u32, k0: u32, g: u32,
                                                                                                 t: u32) -> Operands<NT> {
    let mut l = Operands::zero();
    // SAFETY: forwarded.
    unsafe {
        load_w::<NT, E, X8, BS, PACKED>(&mut l, w, sb, n, k, k_end, n0, k0, g, t);
        load_x::<NT, X8, BS>(&mut l, x, sa, m, k, k_end, k0, g, t);
    }
    l
}

/// The body of the w1 kernels with `NT` token tiles (`8·NT` tokens).
///
/// # Safety
/// As `fp8_w1_t8_bf16` (`steps/w1_weight_only.rs`), with `8·NT` for 8; with `PACKED` (w5), `w` in the
/// packed layout (`layout::fp8::weights::packed_len(n, k)` bytes, the padding zero).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn w1<const NT: usize, E: Wide16, const X8: bool, const BS: bool, const PACKED: bool>(x: *const u8, w: *const u8, sb: *const f32, alpha: (*const f32, *const f32),
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
            load_w::<NT, E, X8, BS, PACKED>(&mut a, w, sb, n, k, k_end, n0, k0, g, t);
        }
        crate::util::pdl::wait();
        if !w_early {
            load_w::<NT, E, X8, BS, PACKED>(&mut a, w, sb, n, k, k_end, n0, k0, g, t);
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
            let b = load::<NT, E, X8, BS, PACKED>(x, w, sa, sb, m, n, k, k_end, n0, k0 + stride, g, t);
            step(&mut acc, &a);
            if k0 + stride >= k_end {
                break;
            }
            a = load::<NT, E, X8, BS, PACKED>(x, w, sa, sb, m, n, k, k_end, n0, k0 + 2 * stride, g, t);
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

/// The weight-only decode entry points on 16-bit activations, one per `(name, token tiles, element type,
/// tokens)`: w1's on natural weights (`PACKED = false`), w5's on packed ones (`true`), written once.
/// `$w` says what `w` holds. Expands in a step file; each entry gets its `launch_bounds` (256 threads,
/// two blocks a SM).
macro_rules! weight_only_entries {
    ($packed:literal, $w:literal; $($name:ident, $nt:literal, $e:ty, $tokens:literal;)*) => {$(
        #[doc = concat!("`Y = X · Wᵀ` for M ≤ ", $tokens, " tokens (see the module).")]
        ///
        /// # Safety
        /// `layout::fp8::weights::THREADS` threads a block, `smem_bytes(NT)` bytes of dynamic shared
        /// memory (16-byte aligned); grid `(⌈n / 32⌉, splits)`, `splits ≤ 16`, `k_split` a positive
        /// multiple of 64 with `(splits − 1) · k_split < k`. `x` holds `m · k` 16-bit values,
        #[doc = concat!("`w` ", $w, ",")]
        /// `sb` `⌈n/128⌉ · ⌈k/128⌉` f32 powers of two in the type's scale range, `y` `m · n`
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
            unsafe {
                $crate::fp8::weight_only::w1::<$nt, $e, false, false, $packed>(x as *const u8, w, sb, (core::ptr::null(), core::ptr::null()), y, ws, count, m,
                                                                              n, k, k_split, flags)
            }
        }
        $crate::launch_bounds::launch_bounds!($name, 256, 2);
    )*};
}
pub(crate) use weight_only_entries;
