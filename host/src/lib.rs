//! Host side of the pure-Rust CUDA kernel lab.
//!
//! * [`gpu`]: context, stream, embedded PTX modules, kernels by name, buffers (on `cudarc`, loading
//!   the driver and cuBLAS dynamically: nothing CUDA is needed to build).
//! * [`registry`]: every kernel of `kernels-gpu` with its family, step, target and launch shape.
//! * [`timing`], [`verify`]: CUDA-event timing (median of many runs) and verification helpers.
//! * [`reduce`], [`sgemm`], [`hgemm`], [`hgemm_warp`], [`selftest`], [`bankcheck`]: the families;
//!   [`gemm_suite`] (with [`sgemm_suite`], [`hgemm_suite`]) runs the GEMM tables; [`suite`] is what
//!   `cargo run --release` prints, [`report`] the report directory it writes.
//! * [`access`], [`traces`], [`layoutcli`]: warp access patterns, per-kernel traces for the bank model
//!   (`layout::bank`), and the `layout` subcommands (bank maps, solver, checks).
pub mod access;
pub mod bankcheck;
pub mod error;
pub mod gemm_suite;
pub mod gpu;
pub mod hgemm;
pub mod hgemm_suite;
pub mod hgemm_warp;
pub mod layoutcli;
pub mod profile;
pub mod ptx;
pub mod reduce;
pub mod registry;
pub mod report;
pub mod selftest;
pub mod sgemm;
pub mod sgemm_suite;
pub mod suite;
pub mod timing;
pub mod tma;
pub mod traces;
pub mod verify;

pub use error::{Error, Result};
