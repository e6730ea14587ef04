//! Device code of the kernel lab, compiled by rustc's `nvptx64-nvidia-cuda` backend to PTX.
//!
//! * [`prim`]: one thin, documented wrapper per PTX instruction or special register the kernels use
//!   (the role `cuda_std` plays in Rust-CUDA), named after what it does (`thread::index_1d`,
//!   `sync::sync_threads`, `warp::shuffle_xor_f32`) or after its PTX (`ldmatrix_x4_trans`,
//!   `mma_m16n8k16_f32_f16`, `cp_async_cg_16`).
//! * [`reduce`]: the reduction ladder of seed 003.
//! * [`sgemm`]: the SGEMM ladder of seed 004 (CUDA cores).
//! * [`hgemm`]: seed 001's single-warp tensor-core ladder, the block-level HGEMM ladder (seed 000) and
//!   the Hopper ladder (TMA + `wgmma`, sm_90a).
//! * `util`: helpers several ladders use (`unroll2!`/`unroll4!`/`unroll8!`, the grouped block order).
//! * `launch_bounds!` (`src/launch_bounds.rs`): a kernel's `.maxntid` / `.minnctapersm`, stated in the
//!   kernel's file next to it.
//! * [`attention`]: attention forward — the unfused baseline's softmax and FlashAttention-2 with `mma.sync`.
//! * [`fp8`]: FP8 (e4m3) GEMM on Hopper with per-tensor and block scales, and the quantization kernels.
//! * [`comm`]: all-reduce across the GPUs of one host over NVLink peer memory (one-shot, two-shot).
//! * [`bankcheck`]: replay microkernels that issue one shared-memory instruction at given addresses,
//!   for checking the host's bank-conflict model against Nsight Compute.
//! * [`check`]: device-side random inputs and verification (fills, an f64 sum, error norms), so large
//!   inputs and outputs never go through the host.
//! * [`selftest`]: small kernels that exercise each primitive once so the host tests can check the
//!   wrappers' fragment layouts against a CPU model.
//!
//! Every kernel is `#[unsafe(no_mangle)] pub unsafe extern "ptx-kernel" fn`, so its PTX entry name is its
//! Rust name; each one has a descriptor in the host's `kernel_lab::steps`, and a test fails when the
//! PTX and the descriptors disagree (names or launch bounds).
//!
//! ## Ladders: steps and shared modules
//!
//! Each ladder keeps one file per step in `src/<ladder>/steps/`, named `v<N>_<lesson>.rs` (in `hgemm`
//! `warp_v<N>_…`, `block_v<N>_…`, `tma_v<N>_…`); `build.rs` declares them, so adding a step is adding
//! its file. A step file's doc says what changes from the previous step; its numbers are a named
//! configuration in the file (e.g. `hgemm::block::BlockConfig`); it imports shared machinery from the
//! ladder's named modules beside `steps/` (listed in the ladder's `mod.rs`), never another step file.
//! A variant that changes one choice of its step (`hgemm_block_v5_s2`, `hgemm_block_v9_f16acc`, …) is a
//! configuration in that step's file.
//!
//! ## Where code lives and the PTX
//!
//! Moving a function to another module can change the PTX with no change to its code. rustc emits this
//! crate's functions sorted by mangled symbol — the module path with length-prefixed names, so
//! `14block_pipeline` < `19block_smem_epilogue` < `5block` — and the inlining of nested
//! `#[inline(always)]` functions depends on that order: moving the block ladder's epilogue from after
//! its caller (the `cp.async` pipeline) to before it changed the PTX of block v8–v10. The shared modules' names keep each moved
//! function in its old order relative to its callers and callees, which kept the PTX byte-identical
//! (`tools/ptx-diff.py` against the PTX before the move). Check the same way after moving code.
//!
//! Build: `kernel-lab/build.rs` compiles this crate twice, for `sm_80` (everything that runs on Ampere and
//! Hopper) and for `sm_90a` with `--cfg lab_sm90` (adds the Hopper-only kernels).
#![no_std]
#![feature(abi_ptx, adt_const_params, asm_experimental_arch, core_float_math, core_intrinsics)]
#![cfg_attr(lab_sm90, feature(stdarch_nvptx))]
#![allow(internal_features)]
#![deny(unsafe_op_in_unsafe_fn)]
// A one-family build compiles the shared machinery other families use too (fp8 and attention take
// hgemm's TMA and `wgmma` pieces), not all of which that family calls.
#![cfg_attr(not(lab_all), allow(dead_code, unused_imports, unused_macros, unused_features))]

// One PTX module per family (the crate's features; `lab_all`: every family, one module). A family's
// module holds its own kernels only: fp8 and attention compile hgemm's shared modules, not its steps.
#[cfg(any(lab_all, feature = "attention"))]
pub mod attention;
#[cfg(any(lab_all, feature = "selftest"))]
pub mod bankcheck;
#[cfg(any(lab_all, feature = "comm"))]
pub mod comm;
#[cfg(any(lab_all, feature = "check"))]
pub mod check;
#[cfg(any(lab_all, feature = "fp8"))]
pub mod fp8;
#[cfg(any(lab_all, feature = "hgemm", feature = "fp8", feature = "attention"))]
pub mod hgemm;
mod launch_bounds;
/// The device primitives: the `nvptx-std` crate (any kernel crate can use it the same way).
pub use nvptx_std as prim;
#[cfg(any(lab_all, feature = "reduce"))]
pub mod reduce;
#[cfg(any(lab_all, feature = "selftest"))]
pub mod selftest;
#[cfg(any(lab_all, feature = "sgemm"))]
pub mod sgemm;
pub(crate) mod util;

// A panic (bounds check, overflow in debug) traps: the panic handler is nvptx-std's.
