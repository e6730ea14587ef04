//! v17 — v16 with **B streamed by a 4-stage `cp.async` ring**; A keeps its register-fed double buffer.
//!
//! Change from v16 (same 64×128 tiles, 128 threads, split rule and epilogue): v7–v16 fetch the next
//! stage of A *and* B into registers at the top of a stage and store them to shared memory at its end,
//! so a load has one stage of FMAs (1024 per thread) to arrive in. Here B's 16×128 stage goes global →
//! shared by `cp.async.cg` (four 16-byte copies per thread; B's stage is row-major in shared memory as
//! in global, so no registers and no transposition are needed), issued three stages ahead of its use
//! into a ring of four; A (16 × 64, transposed on the way in, 4 KiB from L2) stays on v16's register
//! path. One barrier per stage, as before: at its top, after this thread's `wait_group` for the stage's
//! copies, it publishes the stage and retires every read of the slot the next copies overwrite.
//! Edges: A's rows past M read row M − 1 and B's columns past N read inside N (as v16's clamp: their
//! products reach only C that is never stored); K past the split's end is zero (B by `src_bytes = 0`,
//! A by a zero float4), so one loop serves every tile. K and N must be multiples of 4 (`cp.async` copies
//! 16-byte rows; A's float4s), as v10; the entry point uses v16 for other shapes.
//!
//! Why: `ncu` of v16 at 64×4096² (session 16, `results/2026-11-25-h100-session16/call5-ncu-sgemm`): the
//! stores of the prefetched stage (`STS`) hold 17.7% of the warps' stall samples, nearly all *long
//! scoreboard* — waiting for the global loads issued a stage earlier. Every block of the one-wave
//! split-K grid asks for its next stage at about the same moment (4.6 MB per stage across the GPU), so
//! the loads queue for about as long as a stage computes. FMA pipe 44% busy, 1.24 eligible warps per
//! scheduler.
//! Predicted (H100, before running): the long-scoreboard stalls at the stage boundary mostly gone:
//! 64–256 × 4096² 1.08–1.15× v16 (≈ 92–97% of cuBLAS); 1000³ 1.03–1.08× (v12's profile there has long
//! scoreboard at 10%); fewer registers (no B prefetch registers: ~145).
//! Measured (H100, `kernel-lab ab` 8 rounds, `results/2026-11-25-h100-session16/call6-sgemm-v17`):
//! **64×4096² 0.987×, 128×4096² 1.000×, 1000³ 1.016×** v16 (147 registers, as predicted; correct, the
//! sanitizers clean) — the prediction was wrong: taking the stage boundary's wait off the stores did
//! not make the stage shorter, so that wait was not what bound the loop (not profiled further). Kept as
//! a measured step; the entry point does not take it.
use super::b_ring_loop::{StageProducts, b_ring_tile};
use crate::launch_bounds::launch_bounds;

/// `C = A · B` (row-major) as v16 (64×128 tiles, K split into `grid_dim_y / ⌈M/64⌉` ranges of
/// `k_split`), B through a `cp.async` ring.
///
/// # Safety
/// As `sgemm_v14`, with `V17_SMEM_BYTES` of dynamic shared memory, and `K % 4 == 0`, `N % 4 == 0`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v17(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (the loop's proof is in `b_ring_loop`).
    unsafe { b_ring_tile::<{ StageProducts::Unrolled }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v14.
launch_bounds!(sgemm_v17, 128, 3);
