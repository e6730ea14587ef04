//! `kernel_lab`: GPU kernels written in Rust (compiled to PTX by rustc's `nvptx64-nvidia-cuda`
//! backend), callable from your program on your own CUDA stream and buffers.
//!
//! ```no_run
//! use half::f16;
//! use kernel_lab::{Gpu, gemm::{GemmDesc, GemmPlan}};
//! # fn main() -> kernel_lab::Result<()> {
//! let gpu = Gpu::new(0)?;                                // or Gpu::with_stream(stream)? on yours
//! let a = gpu.stream.alloc_zeros::<f16>(64 * 4096).unwrap();
//! let b = gpu.stream.alloc_zeros::<f16>(4096 * 4096).unwrap();
//! let mut c = gpu.stream.alloc_zeros::<f16>(64 * 4096).unwrap();
//! GemmPlan::<f16>::new(&gpu, GemmDesc::new(64, 4096, 4096))?.run(&a, &b, &mut c)?;
//! # Ok(()) }
//! ```
//!
//! Layers, each importing only the ones above it:
//!
//! * [`runtime`]: the GPU — context and stream ([`Gpu`]: from an ordinal or from the caller's
//!   `Arc<CudaStream>`), PTX modules loaded per family on first use ([`runtime::ptx`]), kernels by name
//!   and the [`launch!`] macro ([`runtime::gpu`]), CUDA-event timing ([`runtime::timing`]),
//!   verification helpers ([`runtime::verify`], [`runtime::device_check`]), TMA tensor maps
//!   ([`runtime::tma`]); on `cudarc` with dynamic loading, so nothing CUDA is needed to build. With
//!   `default-features = false` (no `kernels` feature) the lab's own PTX is not built or embedded: what
//!   a crate of your own kernels needs ([`Gpu::load_kernel`], [`launch!`]).
//! * [`steps`]: every kernel declared once — family, label, target, block, launch bounds, shared
//!   memory, grid rule, bank-model trace, PTX checks; [`model`]: the bank-conflict model over them.
//! * The operations: [`gemm`] (f16, bf16, f32: [`gemm::GemmPlan`]), [`fp8`] (e4m3 GEMM with per-tensor
//!   or block scales), [`attention`] (FlashAttention forward: [`attention::AttentionPlan`]),
//!   [`reduce`] (`Σ x`), each choosing its kernel from the shape and the GPU.
//!
//! The benchmark suite (baselines, measurement loops, tables, the autotuner) is the `kernel-lab-bench`
//! crate, which this library never imports.
#![warn(missing_docs)]

pub mod attention;
pub mod comm;
pub mod error;
pub mod fp8;
pub mod fp8_weights;
pub mod gemm;
pub mod model;
pub mod reduce;
pub mod runtime;
pub mod sgemm;
pub mod steps;

pub use error::{Error, Result};
pub use runtime::gpu::Gpu;
/// The driver bindings under the library (buffers are `cudarc::driver::CudaSlice`); [`launch!`] uses them.
pub use cudarc;
/// The element types the GEMM and attention take (`half::f16`, `half::bf16`).
pub use half;
