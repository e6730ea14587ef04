//! 16-bit floats held as their bits (`u16`), the way kernels load and store them: f32 from the bits
//! (exact) and f32 rounded to them (nearest even) per type ([`Half`]: [`Bf16`], [`F16`]), the 8 elements
//! of a 16-byte chunk ([`halves`], [`chunk`]), and [`unroll8!`](crate::unroll8) for loops over a thread's
//! 8 chunks that must stay in registers.
use crate::{
    global::{ld_global_cg_v4_f32, ld_global_cg_v4_u32, ld_global_nc_v4_u32, st_global_v4_u32},
    math::ex2_approx_f32,
    mma::{f16_to_f32, pack_bf16x2, pack_f16x2},
    thread::thread_idx_x,
    warp::block_reduce_f32,
};

/// A 16-bit element type: its bits to f32 (exact) and an f32 rounded to it (nearest even).
pub trait Half {
    /// The value of `bits`.
    fn f(bits: u16) -> f32;
    /// `x` rounded to the type, as bits.
    fn bits(x: f32) -> u16;
    /// `x` rounded to the type and back: what a 16-bit tensor holds after an op.
    #[inline(always)]
    fn rnd(x: f32) -> f32 {
        Self::f(Self::bits(x))
    }
}

/// bfloat16.
pub struct Bf16;
impl Half for Bf16 {
    #[inline(always)]
    fn f(bits: u16) -> f32 {
        f32::from_bits((bits as u32) << 16)
    }
    #[inline(always)]
    fn bits(x: f32) -> u16 {
        pack_bf16x2(x, 0.0) as u16
    }
}

/// IEEE half precision.
pub struct F16;
impl Half for F16 {
    #[inline(always)]
    fn f(bits: u16) -> f32 {
        f16_to_f32(bits)
    }
    #[inline(always)]
    fn bits(x: f32) -> u16 {
        pack_f16x2(x, 0.0) as u16
    }
}

/// SwiGLU's activation as a 16-bit model computes it (torch's `act_fn(gate) * up` on 16-bit tensors), before
/// the product's one rounding: `gate` and `up` are 16-bit values (exact in f32), SiLU's output
/// `gate / (1 + 2^(-gate·log2 e))` is rounded by `rnd` (to the same type), and the product is returned in
/// f32 for the caller to round. The one definition of it that every kernel computing SiLU·mul shares (the
/// model runner's `silu_mul`, the FP8 weight-only GEMMs' gated epilogue), so that fused and separate
/// paths give the same bits.
#[inline(always)]
pub fn silu_times(gate: f32, up: f32, rnd: impl Fn(f32) -> f32) -> f32 {
    rnd(gate / (1.0 + ex2_approx_f32(-gate * core::f32::consts::LOG2_E))) * up
}

/// Threads of the blocks that run [`add_rmsnorm_row`]: 8 warps.
pub const ROW_THREADS: u32 = 256;
/// The widest row [`add_rmsnorm_row`] keeps in registers: 8 chunks of 8 elements a thread.
pub const ROW_MAX: u32 = 8 * 8 * ROW_THREADS;
const _: () = assert!(ROW_MAX == layout::fp8::weights::NORM_ROW_MAX, "the host's limit for the FP8 residual-norm tail");

/// One row of a 16-bit Llama's residual add and RMSNorm (Hugging Face's `h = h + delta`, then `LlamaRMSNorm`:
/// `weight * hidden.to(dtype)`): with `add`, `x += delta` rounded and written back; then
/// `y = w · rnd(x / √(mean x² + ε))`, the normalized row rounded before the weight multiplies it. The one
/// definition the model runner's `add_rmsnorm` kernel and the FP8 weights' residual-norm GEMM tail share, so
/// that fused and separate paths give the same bits. `delta` is read through L2 (`.cg`): the grid running it
/// may have written it (after a fence and the ticket the caller acquired).
///
/// # Safety
/// All [`ROW_THREADS`] threads of the block call it together; `x` and `y` (and `delta` with `add`) point to a
/// row of `hidden` elements, `w` to `hidden`, all 16-byte aligned; `hidden % 8 == 0`, `hidden ≤` [`ROW_MAX`];
/// `y` does not overlap `x`; `slots` is 8 shared f32 that no thread touches until every thread has returned
/// (two calls in a row take other slots, or a barrier in between: `block_reduce_f32`'s contract).
#[inline(always)]
pub unsafe fn add_rmsnorm_row<H: Half>(x: *mut u16, delta: *const u16, w: *const u16, y: *mut u16, hidden: u32, eps: f32, add: bool, slots: *mut f32) {
    let tid = thread_idx_x();
    let mut keep = [[0u32; 4]; 8];
    // The weight's chunks too, loaded with the row's (they do not depend on the sum): one memory round
    // trip less after the reduction.
    let mut wk = [[0u32; 4]; 8];
    let mut sq = 0f32;
    // Both passes unrolled (`unroll8!`): a loop over `keep` put it in local memory.
    crate::unroll8!(i => {
        let c = (8 * tid + 8 * ROW_THREADS * i as u32) as usize;
        if c < hidden as usize {
            // SAFETY: c + 8 ≤ hidden, 16-byte aligned, inside the rows and `w`; `delta` read only when given.
            unsafe {
                wk[i] = ld_global_nc_v4_u32(w.add(c) as *const u32);
                // `x` is written below: read through L2 (`.cg`), not the read-only path.
                let mut h = halves(ld_global_cg_v4_f32(x.add(c) as *const f32).map(f32::to_bits));
                if add {
                    let d = halves(ld_global_cg_v4_u32(delta.add(c) as *const u32));
                    h = core::array::from_fn(|j| H::bits(H::f(h[j]) + H::f(d[j])));
                    st_global_v4_u32(x.add(c) as *mut u32, chunk(h));
                }
                sq += h.iter().map(|&b| H::f(b) * H::f(b)).sum::<f32>();
                keep[i] = chunk(h);
            }
        }
    });
    // SAFETY: every thread reaches the reduction (no early return); 8 slots (the caller's).
    let total = unsafe { block_reduce_f32::<{ ROW_THREADS / 32 }>(sq, slots, |a, b| a + b) };
    let r = 1.0 / core::f32::math::sqrt(total / hidden as f32 + eps);
    crate::unroll8!(i => {
        let c = (8 * tid + 8 * ROW_THREADS * i as u32) as usize;
        if c < hidden as usize {
            // SAFETY: as above, for `y`.
            unsafe {
                let (h, g) = (halves(keep[i]), halves(wk[i]));
                st_global_v4_u32(y.add(c) as *mut u32, chunk(core::array::from_fn(|j| H::bits(H::f(g[j]) * H::rnd(H::f(h[j]) * r)))));
            }
        }
    });
}

/// The 8 elements of a 16-byte chunk (element 0 in the low half of word 0).
#[inline(always)]
pub fn halves(v: [u32; 4]) -> [u16; 8] {
    core::array::from_fn(|i| (v[i / 2] >> (16 * (i % 2))) as u16)
}

/// 8 elements packed into a 16-byte chunk ([`halves`]' inverse).
#[inline(always)]
pub fn chunk(h: [u16; 8]) -> [u32; 4] {
    core::array::from_fn(|i| h[2 * i] as u32 | (h[2 * i + 1] as u32) << 16)
}

/// `$body` for `$i` = 0..8 (as `usize` constants), written out: a loop over an array of a thread's chunks
/// that indexes it at run time can put the array in local memory; eight copies index it by constants.
#[macro_export]
macro_rules! unroll8 {
    ($i:ident => $body:block) => {{
        { let $i = 0usize; $body } { let $i = 1usize; $body } { let $i = 2usize; $body } { let $i = 3usize; $body }
        { let $i = 4usize; $body } { let $i = 5usize; $body } { let $i = 6usize; $body } { let $i = 7usize; $body }
    }};
}
