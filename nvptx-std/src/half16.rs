//! 16-bit floats held as their bits (`u16`), the way kernels load and store them: f32 from the bits
//! (exact) and f32 rounded to them (nearest even) per type ([`Half`]: [`Bf16`], [`F16`]), the 8 elements
//! of a 16-byte chunk ([`halves`], [`chunk`]), and [`unroll8!`](crate::unroll8) for loops over a thread's
//! 8 chunks that must stay in registers.
use crate::mma::{f16_to_f32, pack_bf16x2, pack_f16x2};

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
