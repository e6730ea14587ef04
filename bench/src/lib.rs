//! The suite's measuring side: each family's measurement loops (verification against f64 references
//! or cuBLAS, timing interleaved with its baseline), the baselines themselves (cuBLAS, cuBLASLt FP8, a
//! device copy), and the autotuner with its cache. The command line (`src/main.rs`, `src/cli/`) prints
//! and reports what these measure. Everything here calls kernels through the `kernel_lab` library; the
//! library's modules are re-exported so paths read as they do inside it (`crate::steps`, …).
pub use kernel_lab::{Error, Gpu, Result, attention, comm, cudarc, error, fp8, fp8_weights, gemm, launch, model, reduce, runtime, sgemm, steps, half};

pub mod cublaslt;
pub mod families;
pub mod corpus;
pub mod tune;
