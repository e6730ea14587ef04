//! Fast approximate transcendental functions (the SFU's `MUFU` instructions), as attention's softmax
//! uses them: it works in base 2 (`exp(x) = 2^(x · log2 e)`), so one `ex2` per score.
use core::arch::asm;

/// `ex2.approx.ftz.f32 d, x;` — `2^x` to ~2 ulp (subnormal results flushed to 0; `2^-inf = 0`).
#[inline(always)]
pub fn ex2_approx_f32(x: f32) -> f32 {
    let r: f32;
    // SAFETY: register-only arithmetic; per-thread, so `pure` is fine.
    unsafe { asm!("ex2.approx.ftz.f32 {0}, {1};", out(reg32) r, in(reg32) x, options(pure, nomem, nostack)) };
    r
}

/// `lg2.approx.ftz.f32 d, x;` — `log2(x)` to ~2 ulp (`log2(0) = -inf`).
#[inline(always)]
pub fn lg2_approx_f32(x: f32) -> f32 {
    let r: f32;
    // SAFETY: register-only arithmetic; per-thread, so `pure` is fine.
    unsafe { asm!("lg2.approx.ftz.f32 {0}, {1};", out(reg32) r, in(reg32) x, options(pure, nomem, nostack)) };
    r
}

/// `fma.rn.f32 d, a, b, c;` — `a·b + c` rounded once. rustc emits `mul.rn` and `add.rn` separately
/// (no contraction), and `f32::mul_add` is `std`-only; attention's softmax uses it to fold the scale into
/// the exponent, `2^(x·scale − m)`, one instruction instead of two.
#[inline(always)]
pub fn fma_rn_f32(a: f32, b: f32, c: f32) -> f32 {
    let r: f32;
    // SAFETY: register-only arithmetic; per-thread, so `pure` is fine.
    unsafe { asm!("fma.rn.f32 {0}, {1}, {2}, {3};", out(reg32) r, in(reg32) a, in(reg32) b, in(reg32) c, options(pure, nomem, nostack)) };
    r
}

/// `mul.rn.bf16x2 d, a, b;` — two bf16 products, each rounded once (sm_90+; subnormal inputs and
/// results kept). FP8 weight-only decode scales widened e4m3 pairs with it.
#[inline(always)]
pub fn mul_rn_bf16x2(a: u32, b: u32) -> u32 {
    let r: u32;
    // SAFETY: register-only arithmetic; per-thread, so `pure` is fine.
    unsafe { asm!("mul.rn.bf16x2 {0}, {1}, {2};", out(reg32) r, in(reg32) a, in(reg32) b, options(pure, nomem, nostack)) };
    r
}

/// `mul.rn.f16x2 d, a, b;` — two f16 products, each rounded once (subnormals kept: no `.ftz`).
#[inline(always)]
pub fn mul_rn_f16x2(a: u32, b: u32) -> u32 {
    let r: u32;
    // SAFETY: register-only arithmetic; per-thread, so `pure` is fine.
    unsafe { asm!("mul.rn.f16x2 {0}, {1}, {2};", out(reg32) r, in(reg32) a, in(reg32) b, options(pure, nomem, nostack)) };
    r
}

/// `prmt.b32 d, a, b, sel;` — byte permute: byte `i` of the result is byte `(sel >> 4i) & 7` of the
/// eight bytes `b:a` (a's bytes 0–3, b's 4–7). E.g. `0x5410` takes the low halves of `a` and `b`,
/// `0x7632` their high halves.
#[inline(always)]
pub fn prmt_b32(a: u32, b: u32, sel: u32) -> u32 {
    let r: u32;
    // SAFETY: register-only bit manipulation; per-thread, so `pure` is fine.
    unsafe { asm!("prmt.b32 {0}, {1}, {2}, {3};", out(reg32) r, in(reg32) a, in(reg32) b, in(reg32) sel, options(pure, nomem, nostack)) };
    r
}
