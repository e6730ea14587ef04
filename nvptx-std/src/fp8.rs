//! FP8 (`e4m3`: 1 sign, 4 exponent, 3 mantissa bits, bias 7, largest finite 448, no infinities) conversions
//! (sm_89+; the kernel lab uses them in its sm_90a module). The byte layout of the format and an exact
//! host model are [`layout::fp8`].
use core::arch::asm;

/// `cvt.rn.satfinite.e4m3x2.f32 d, hi, lo;` — rounds two f32 to e4m3 (nearest even), saturating to ±448
/// (NaN stays NaN), and packs them: `lo` in the low byte, `hi` in the high byte.
#[inline(always)]
pub fn cvt_e4m3x2_f32(lo: f32, hi: f32) -> u16 {
    let r: u16;
    // SAFETY: register-only conversion; per-thread, so `pure` is fine.
    unsafe { asm!("cvt.rn.satfinite.e4m3x2.f32 {0}, {1}, {2};", out(reg16) r, in(reg32) hi, in(reg32) lo,
                  options(pure, nomem, nostack)) };
    r
}

/// `cvt.rn.f16x2.e4m3x2 d, x;` — widens two e4m3 (low byte → low half) to two f16, exactly (every e4m3
/// value is an f16 value).
#[inline(always)]
pub fn cvt_f16x2_e4m3x2(x: u16) -> u32 {
    let r: u32;
    // SAFETY: register-only conversion; per-thread, so `pure` is fine.
    unsafe { asm!("cvt.rn.f16x2.e4m3x2 {0}, {1};", out(reg32) r, in(reg16) x, options(pure, nomem, nostack)) };
    r
}
