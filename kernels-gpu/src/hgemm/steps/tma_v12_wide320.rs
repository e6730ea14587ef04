#![cfg(lab_sm90)]
//! Hopper step h12 — h11's CTA on tiles of **128 × 320** (`wgmma.m64n256k16` + `m64n64k16` a K step,
//! five B boxes a stage), for shapes whose 128×256 and 128×192 tiles leave a round mostly empty where
//! 128×320 tiles take a round off.
//!
//! Why: 1024×5120 is 160 tiles of 128×256 on 132 SMs — two rounds for 1.21 rounds of work — and 216 of
//! 128×192, two rounds again; 128 tiles of 128×320 are one round of 1.25× a 256-wide tile's work. The
//! corpus's 5120-wide projections (Qwen-14B, Llama-2-13B) at 1024 and 2048 tokens, 1152–2560-wide ones at
//! 4096–8192 tokens, and 9216–13824-wide ones at 384–768 tokens are such shapes (45 of the corpus's 2,652
//! at ≥ 256 rows). The session-83 sample's bf16 1024×5120×5120 ran h11 at 0.83× cuBLAS. FP8's f27 made
//! the same move (cuBLASLt's `320x128` tiles: 1024×5120×5120 0.77 → 1.01×, session 90).
//!
//! Diff from h11 (`steps/tma_v11_wide192.rs`; both run `tma_wide_body::wide_tiles`): a stage is A's
//! 128 rows and **five** B boxes (56 KiB, [`H12_STAGE_BYTES`]), three of them in the ring (a fourth does
//! not fit beside the C staging); each consumer warpgroup runs h6's K loop on `Wide320` accumulators (160
//! a thread: one `m64n256k16` over boxes 0–3 and one `m64n64k16` over box 4 a K step, `tma_wide_tile`)
//! and stores its five C boxes two at a time (`Wide320`'s `WideStore`: pairs 0–1, 2–3, then 4,
//! [`H12_STAGED_BOXES`] boxes of staging a consumer, each pair staged once the TMA has read the last).
//!
//! Prediction (before running), H200, bf16: where the width takes a round off, the rounds saved less the
//! wider tile's share — **1.15–1.25× the rules' pick (h11 / h6s4 / h10) at 1024×5120×K and 2048×5120×K**
//! (two rounds of 192 or three of 256 against one or two of 320: 1.2× by the rounds; a 320-wide tile
//! reads A's 16 KiB once per 320 columns, B's boxes as the 256-wide does, and three stages are 168 KiB
//! in flight against h6s4's 192); **0.95–1.0× where it takes as many rounds of wider tiles** (its
//! three-stage ring and the paired C stores against h6s4's four stages).
use super::elem::{Bf16, F16};
use super::tma_wide_body::wide_tiles;
use super::tma_wide_tile::Wide320;
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;
use layout::hopper::tma_hgemm::{H12_BN, H12_STAGE_BYTES, H12_STAGED_BOXES, H12_STAGES};

const _: () = assert!(<Wide320 as super::tma_wide_body::WideStore>::STAGED == H12_STAGED_BOXES, "the staging H12_DYN_SMEM counts");

/// h11 on 128×320 tiles (the file's doc): `C (M×N) = A (M×K) · B (K×N)`, f16, f32 accumulation.
///
/// # Safety
/// sm_90a; 384 threads, `H12_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of at most
/// `⌈M/128⌉·⌈N/320⌉` CTAs; `tmap_a` describes A (M×K f16, box 128 × 64), `tmap_b` B (K×N, box 64 × 64),
/// `tmap_c` C (M×N, box 64 × 64), all `SWIZZLE_128B`, in device memory and valid for the launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v12(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the body's proof).
    unsafe { wide_tiles::<F16, Wide320, H12_BN, H12_STAGES, H12_STAGE_BYTES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

/// [`hgemm_tma_v12`] on bf16.
///
/// # Safety
/// As [`hgemm_tma_v12`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v12_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wide_tiles::<Bf16, Wide320, H12_BN, H12_STAGES, H12_STAGE_BYTES>(tmap_a, tmap_b, tmap_c, m, n, k) }
}

launch_bounds!(hgemm_tma_v12, 384, 1);
launch_bounds!(hgemm_tma_v12_bf16, 384, 1);
