//! Helpers that several ladders use and that belong to none of them.
//!
//! * [`unroll`]: `unroll2!`, `unroll4!`, `unroll8!` — a body repeated with constant indices, so per-thread
//!   accumulator arrays stay in registers.
//! * [`grouped`]: the grouped block order (L2 reuse) of SGEMM v8+, HGEMM block v6+ and the persistent
//!   Hopper steps.
//! * [`opaque`]: a value hidden from the optimizers.
//! * [`pdl`]: the prologue of a kernel launched with programmatic dependent launch.
pub(crate) mod grouped;
pub(crate) mod pdl;
pub(crate) mod unroll;

/// `x`, hidden from the optimizers: an empty `asm!` (a PTX comment) that takes and returns it. Uses:
/// values derived from it are recomputed where used instead of hoisted out of a loop (HGEMM v10's
/// `ldmatrix` bases); a branch on it is not merged with another branch on the same condition, so code
/// after it stays in a basic block of its own (attention a7's `wait_group 0`).
#[inline(always)]
pub(crate) fn opaque(mut x: u32) -> u32 {
    // SAFETY: emits no instruction (a PTX comment); `x` comes back unchanged. Not `pure`: LLVM must
    // keep it where it is.
    unsafe { core::arch::asm!("// opaque {0}", inout(reg32) x, options(nomem, nostack)) };
    x
}
