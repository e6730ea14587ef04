//! Helpers that several ladders use and that belong to none of them.
//!
//! * [`unroll`]: `unroll2!`, `unroll4!`, `unroll8!` — a body repeated with constant indices, so per-thread
//!   accumulator arrays stay in registers.
//! * [`grouped`]: the grouped block order (L2 reuse) of SGEMM v8+, HGEMM block v6+ and the persistent
//!   Hopper steps.
pub(crate) mod grouped;
pub(crate) mod unroll;
