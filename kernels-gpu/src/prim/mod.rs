//! Device primitives: special registers, barriers, shared memory, warp collectives, global loads,
//! atomics and the tensor-core data movers (`ldmatrix`, `stmatrix`, `mma.sync`, `cp.async`).
//!
//! Rules every wrapper here follows (see `../shared/TOOLCHAIN.md`, pitfalls):
//! * `#[inline(always)]`, so the wrapper is exactly its instruction in the caller.
//! * Warp- or block-collective asm (`bar`, `shfl`, `ldmatrix`, `stmatrix`, `mma`, `cp.async`) is never
//!   `options(pure)`: LLVM does not know inline asm is convergent, and a `pure` asm may be sunk into a
//!   branch or merged, which would deadlock or read the wrong lanes. Without `pure` it stays in place.
//! * Shared-memory addresses are 32-bit offsets in the `.shared` window (what `ldmatrix`, `cp.async`
//!   and `ld.shared` take); [`shared::addr_of`] converts a generic pointer into one.
pub mod atomic;
pub mod cp_async;
pub mod global;
pub mod ldmatrix;
pub mod mbarrier;
pub mod mma;
pub mod shared;
pub mod stmatrix;
pub mod sync;
pub mod thread;
pub mod tma;
pub mod warp;
pub mod wgmma;
pub mod wmma;
