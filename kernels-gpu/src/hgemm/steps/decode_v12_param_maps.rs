#![cfg(lab_sm90)]
//! Decode step d12 — d9 with its **tensor maps passed by value** (CUDA's `__grid_constant__`), not by a
//! pointer to global memory.
//!
//! Why: a decode GEMM is timed (and run in a model) on weights that stream through more than the L2
//! between two launches of the same layer (`timing::rotation_copies`: 32 MiB weights rotated through
//! 64+ MiB). A map in global memory is one 128-byte line among them, so by the next launch it has
//! most likely left the L2, and the producer's first `cp.async.bulk.tensor` waits for a DRAM read of
//! the descriptor before it can ask for the first weight box: two DRAM round trips in a row at the
//! start of every CTA. Session 13's launch-cost copies measured the two kinds of map at the same cost
//! (`results/2026-11-23-h100-session13`), but on 8 KiB inputs, where the map never leaves the L2.
//! A map in the parameters is written by the launch itself.
//!
//! Diff from d9: the kernel's first two parameters are [`TensorMapParam`]s (`grid_constant_tensor_maps!`
//! declares them 64-byte aligned), their addresses taken in PTX (`param_tensor_map!`); d4's body is
//! unchanged. The host passes the maps' 128 bytes in the launch (`Args::TmaABParams`), through
//! `cuLaunchKernelEx` as d9 (`launch_pdl` takes parameters larger than a slot by reference).
//!
//! Prediction (before running): one DRAM latency less at the start of a launch on rotated weights,
//! ~0.4–0.8 µs of d9's 16.5 µs at 1 / 16 / 64 × 4096² (1.025–1.05× d9: 78.8% → 81–83% of the same run's
//! copy), 1.01–1.02× at 4096×14336; nothing where the weights stay in L2.
use super::decode_whole_k::{Rows64, decode};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMapParam;
use nvptx_std::{grid_constant_tensor_maps, param_tensor_map};
use layout::hopper::tma_hgemm::D4_STAGES as STAGES;

/// [`super::decode_v9_pdl::hgemm_decode_v9`] with the maps of A and B by value.
///
/// # Safety
/// As `hgemm_decode_v4`, the maps passed by value; launched with or without programmatic stream
/// serialization.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v12(_tmap_a: TensorMapParam, _tmap_b: TensorMapParam, g_c: *mut u16, m: u32, n: u32, k: u32) {
    let (tmap_a, tmap_b) = (param_tensor_map!(hgemm_decode_v12, 0), param_tensor_map!(hgemm_decode_v12, 1));
    // SAFETY: forwarded (d4's body behind the PDL wait); the maps' addresses are the parameters', valid
    // and unchanged for the whole launch.
    unsafe { decode::<F16, Rows64, true, STAGES>(tmap_a, tmap_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v12`] on bf16.
///
/// # Safety
/// As `hgemm_decode_v4_bf16`, the maps passed by value.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v12_bf16(_tmap_a: TensorMapParam, _tmap_b: TensorMapParam, g_c: *mut u16, m: u32, n: u32, k: u32) {
    let (tmap_a, tmap_b) = (param_tensor_map!(hgemm_decode_v12_bf16, 0), param_tensor_map!(hgemm_decode_v12_bf16, 1));
    // SAFETY: as `hgemm_decode_v12`.
    unsafe { decode::<Bf16, Rows64, true, STAGES>(tmap_a, tmap_b, g_c, m, n, k) }
}

grid_constant_tensor_maps!(hgemm_decode_v12, 0, 1);
grid_constant_tensor_maps!(hgemm_decode_v12_bf16, 0, 1);
// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v12, 384, 1);
launch_bounds!(hgemm_decode_v12_bf16, 384, 1);
