//! Device code of the kernel lab, compiled by rustc's `nvptx64-nvidia-cuda` backend to PTX.
//!
//! * [`prim`]: one thin, documented wrapper per PTX instruction or special register the kernels use
//!   (the role `cuda_std` plays in Rust-CUDA), named after what it does (`thread::index_1d`,
//!   `sync::sync_threads`, `warp::shuffle_xor_f32`) or after its PTX (`ldmatrix_x4_trans`,
//!   `mma_m16n8k16_f32_f16`, `cp_async_cg_16`).
//! * [`reduce`]: the reduction ladder of seed 003, one file per step.
//! * [`sgemm`]: the SGEMM ladder of seed 004 (CUDA cores), one file per step.
//! * [`hgemm`]: seed 001's single-warp tensor-core ladder and the block-level HGEMM ladder (seeds 000/001).
//! * [`bankcheck`]: replay microkernels that issue one shared-memory instruction at given addresses,
//!   for checking the host's bank-conflict model against Nsight Compute.
//! * [`selftest`]: small kernels that exercise each primitive once so the host tests can check the
//!   wrappers' fragment layouts against a CPU model.
//!
//! Every kernel is `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn`, so its PTX entry name is its
//! Rust name; each one has a descriptor in the host's `kernel_lab::steps`, and a test fails when the
//! PTX and the descriptors disagree (names or launch bounds).
//!
//! Build: `host/build.rs` compiles this crate twice, for `sm_80` (everything that runs on Ampere and
//! Hopper) and for `sm_90a` with `--cfg lab_sm90` (adds the Hopper-only kernels).
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_intrinsics, gpu_intrinsics, gpu_launch_sized_workgroup_mem, link_llvm_intrinsics)]
#![allow(internal_features)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod bankcheck;
pub mod hgemm;
mod launch_bounds;
pub mod prim;
pub mod reduce;
pub mod selftest;
pub mod sgemm;
pub(crate) mod util;

/// A kernel that panics (bounds check, overflow in debug) traps: the launch fails with
/// `CUDA_ERROR_ILLEGAL_INSTRUCTION` / `LAUNCH_FAILED`, which the host reports naming the kernel.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no preconditions.
    unsafe { core::arch::nvptx::trap() }
}
