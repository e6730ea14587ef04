#![cfg(lab_sm90)]
//! Hopper step h2: h1 with a `STAGES`-deep ring of shared stages, each with its own `mbarrier`, so the
//! TMA loads tiles `kt + 1 … kt + STAGES - 1` while the tensor cores work on tile `kt`.
//!
//! Diff from h1:
//! * shared memory: `STAGES` × 32 KiB in **dynamic** shared memory (over the 48 KiB static limit), its
//!   start rounded up to 1024 bytes by hand (the launch asks for 1 KiB of slack);
//! * a prologue fills `STAGES - 1` stages; iteration `kt` first refills the stage tile `kt - 1` used
//!   (every warp left it at the previous iteration's barrier), then waits for stage `kt % STAGES` with
//!   parity `(kt / STAGES) & 1` — each barrier completes one phase per use.
//!
//! Why 2 stages: the first version had 4 (129 KiB, so one CTA per SM) and ran at 0.88× h1 at 4096³
//! and 0.83× at 8192³ (H200, `results/2026-11-22-h200-hopper-first/`). h1 fits three 32 KiB CTAs per
//! SM, and one CTA's loads already overlap another's `wgmma`s; a single CTA with a deep ring still
//! stops its only warpgroup at `wait_group 0` and a block barrier every tile. Two stages (65 KiB) keep
//! h1's three CTAs per SM, so the ring is the only difference.
//!
//! Prediction: each CTA now overlaps its own next load with its MMAs on top of h1's cross-CTA overlap:
//! ~1.1–1.2× h1. Still one warpgroup issuing loads and math, and a block barrier per tile: h3 (warp
//! specialization) removes those.
//! Measured (H200, interleaved with cuBLAS): 1.11× h1 at 4096³, 1.07× at 8192³ (81% / 87% of cuBLAS).
use super::tma::{Acc, STAGE_BYTES, BK, BM, BN, issue_stage, mma_stage, store_c};
use crate::prim::{
    mbarrier::{fence_mbarrier_init, mbarrier_init, mbarrier_wait_parity},
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, thread_idx_x},
    tma::{TensorMap, prefetch_tensormap},
};

/// Stages in the ring.
pub const STAGES: u32 = layout::hopper::tma_hgemm::H2_STAGES;

/// `C = A · B` as [`super::tma_v1_wgmma::hgemm_tma_v1`], with a `STAGES`-deep TMA pipeline.
///
/// # Safety
/// As h1, plus: launched with `STAGES · 32 KiB + 1024 + 8 · STAGES` bytes of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_tma_v2(tmap_a: *const TensorMap, tmap_b: *const TensorMap, g_c: *mut u16,
                                               m: u32, n: u32, k: u32) {
    let s_raw = addr_of(dynamic::<Align16>());
    let s_ring = (s_raw + 1023) & !1023; // 1024-aligned: the 128B pattern's period
    let s_bars = s_ring + STAGES * STAGE_BYTES; // STAGES mbarriers, 8 bytes each
    let stage = |i: u32| s_ring + (i % STAGES) * STAGE_BYTES;
    let bar = |i: u32| s_bars + 8 * (i % STAGES);
    let tid = thread_idx_x();
    let (m0, n0) = (block_idx_y() * BM, block_idx_x() * BN);
    let k_tiles = k.div_ceil(BK);
    let mut r_acc: Acc = [[0f32; 32]; 4];
    // SAFETY: the ring and barriers lie inside the launch's dynamic shared memory (rounding up uses at
    // most the 1024 bytes of slack). Thread 0 alone initializes the barriers (published by the block
    // barrier) and issues loads; tile t goes to stage t % STAGES with its barrier in phase t / STAGES.
    // A stage is refilled (tile kt + STAGES - 1, into the stage of tile kt - 1) only after every warp
    // passed the barrier ending iteration kt - 1, i.e. after its wgmmas on that stage retired.
    unsafe {
        if tid == 0 {
            prefetch_tensormap(tmap_a);
            prefetch_tensormap(tmap_b);
            for i in 0..STAGES {
                mbarrier_init(bar(i), 1);
            }
            fence_mbarrier_init();
            for t in 0..(STAGES - 1).min(k_tiles) {
                issue_stage(stage(t), bar(t), tmap_a, tmap_b, m0, n0, t);
            }
        }
        sync_threads();
        for kt in 0..k_tiles {
            let next = kt + STAGES - 1;
            if tid == 0 && next < k_tiles {
                issue_stage(stage(next), bar(next), tmap_a, tmap_b, m0, n0, next);
            }
            mbarrier_wait_parity(bar(kt), (kt / STAGES) & 1);
            mma_stage(&mut r_acc, stage(kt));
            sync_threads();
        }
        store_c(&r_acc, g_c, m, n, m0, n0, tid / 32);
    }
}
