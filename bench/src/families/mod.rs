//! Launching, checking and measuring each family: [`reduce`], [`sgemm`] and [`hgemm`] (on the shared
//! GEMM loop of [`gemm`]), the library's GEMM entry point on a shape sweep ([`gemm_entry`]),
//! [`hgemm_warp`], [`selftest`] and [`bankcheck`]; FP8 GEMM against cuBLASLt ([`fp8`]); attention forward, fused against unfused ([`attention`]).
pub mod attention;
pub mod bankcheck;
pub mod fp8;
pub mod gemm;
pub mod gemm_entry;
pub mod hgemm;
pub mod hgemm_warp;
pub mod reduce;
pub mod selftest;
pub mod sgemm;
