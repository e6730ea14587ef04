//! Fully unrolled loops with constant indices.
//!
//! `unroll8!(i => { … })` repeats the body for `i` = 0..8 (as `u32` constants), so per-thread
//! accumulator and fragment arrays are indexed with constants only and stay in registers (a loop the
//! optimizer declines to unroll would index them dynamically and move them to local memory).
//! `unroll16!`, `unroll4!` and `unroll2!` do the same for 0..16, 0..4 and 0..2.

/// Repeats `$body` for `$i` = 0..8 (as `u32` constants); see the module doc.
macro_rules! unroll8 {
    ($i:ident => $body:block) => {{
        { let $i = 0u32; $body } { let $i = 1u32; $body } { let $i = 2u32; $body } { let $i = 3u32; $body }
        { let $i = 4u32; $body } { let $i = 5u32; $body } { let $i = 6u32; $body } { let $i = 7u32; $body }
    }};
}
pub(crate) use unroll8;

/// As [`unroll8`], for 0..4.
macro_rules! unroll4 {
    ($i:ident => $body:block) => {{
        { let $i = 0u32; $body } { let $i = 1u32; $body } { let $i = 2u32; $body } { let $i = 3u32; $body }
    }};
}
pub(crate) use unroll4;

/// As [`unroll8`], for 0..2.
macro_rules! unroll2 {
    ($i:ident => $body:block) => {{
        { let $i = 0u32; $body } { let $i = 1u32; $body }
    }};
}
pub(crate) use unroll2;

/// Repeats `$body` for `$i` = 0..16 (as `u32` constants); a body guarded by `if i < N` with a const
/// `N` unrolls a loop over a const-generic count.
macro_rules! unroll16 {
    ($i:ident => $body:block) => {{
        crate::util::unroll::unroll8!(hi => { crate::util::unroll::unroll2!(lo => { let $i = 2 * hi + lo; $body }) })
    }};
}
pub(crate) use unroll16;

/// Repeats `$body` for `$i` = 0..32 (as `u32` constants); guard the body with `if i < N` for a
/// const-generic count up to 32 (d21's 10–20 float4s of sums a thread). Only the Hopper steps use it.
#[cfg_attr(not(lab_sm90), allow(unused_macros))]
macro_rules! unroll32 {
    ($i:ident => $body:block) => {{
        crate::util::unroll::unroll16!(hi => { crate::util::unroll::unroll2!(lo => { let $i = 2 * hi + lo; $body }) })
    }};
}
#[cfg_attr(not(lab_sm90), allow(unused_imports))]
pub(crate) use unroll32;
