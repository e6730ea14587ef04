//! `kernel_lab`: the library under the `kernel-lab` suite, in four layers (each imports only the ones
//! above it):
//!
//! * [`runtime`]: the GPU — context, stream, embedded PTX ([`runtime::ptx`]), kernels by name and the
//!   [`launch!`] macro ([`runtime::gpu`]), CUDA-event timing ([`runtime::timing`]), verification
//!   helpers ([`runtime::verify`]), TMA tensor maps ([`runtime::tma`]); on `cudarc` with dynamic
//!   loading, so nothing CUDA is needed to build.
//! * [`steps`]: every kernel declared once — family, label, target, block, launch bounds, shared
//!   memory, grid rule, bank-model trace, PTX checks. Registry, step lists, traces, `--list`, suite,
//!   benches and PTX tests all derive from it.
//! * [`model`]: the bank model's glue — warp access patterns ([`model::access`]), per-kernel traces
//!   from the descriptors ([`model::traces`]), bank maps and the swizzle solver ([`model::bankmap`]).
//! * [`families`]: launching and measuring each family — plans and launches, cuBLAS baselines, f64
//!   references, and the measurement loops the suite and `ab` use ([`families::gemm`],
//!   [`families::reduce`], …).
//!
//! The command-line suite (options, tables, JSON, report, `ncu`/sanitizer driving, `layout`
//! subcommands) is the binary (`src/main.rs`, `src/cli/`), which this library never imports.
pub mod attention;
pub mod error;
pub mod families;
pub mod fp8;
pub mod gemm;
pub mod model;
pub mod runtime;
pub mod sgemm;
pub mod steps;
pub mod tune;

pub use error::{Error, Result};
/// The driver bindings under the library (buffers are `cudarc::driver::CudaSlice`); [`launch!`] uses them.
pub use cudarc;
