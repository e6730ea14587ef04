#![cfg(lab_sm90)]
//! SGEMM step v31 — v30 with **B copied global → shared by `cp.async`**, word by word, in v30's lane
//! mapping: no registers in between and no `st.shared` for B.
//!
//! Why: v30 (N off 4) still moves each of B's words twice through the L1 / shared-memory pipeline — a
//! scalar `ld.global` into a register, then an `st.shared.f32` — 16 + 16 instructions per thread per
//! 16-deep stage beside the fragments' 64 `ld.shared.v4`, and `ncu` put v29's and v30's loss against the
//! aligned loop on short-scoreboard stalls of the FFMAs behind those fragment loads. `cp.async.ca` (4
//! bytes: `.cg` takes only 16) is one instruction per word and needs no register: 16 instead of 32 for
//! B, 90 MIO instructions per stage instead of 106, and 16 fewer live registers across the FMAs.
//!
//! Diff from v30: `Interior::YES_ODD_N_ASYNC` in place of `YES_ODD_N_LANES` (`wide_k_loop.rs`: `issue_b`
//! copies the next stage's B into the other buffer before this stage's FMAs, one group; the step's store
//! of A waits for it, `cp.async.wait_group 0`, before the barrier that ends the step; the stage holding
//! B's last row clamps its columns into N as v30's).
//!
//! Prediction (before running): **1.03–1.06× v30 at 127×8191×1024** (84.6–86.3% → ~88–91% of cuBLAS),
//! 1.02–1.05× at the other N-off-4 shapes; a slowdown would mean the asynchronous copies' completion
//! (waited on at every step) costs more than the registers' round trip.
//!
//! Measured (H100, `results/2026-11-26-h100-session25/call5`, `kernel-lab ab v30 v31`, 8 rounds):
//! **1.047× at 127×8191×1024** (8/8; **88.7%** of cuBLAS in the f32 entry point forced to v31, against
//! v30's 84.6–86.3% in four runs), **1.055× at 130×4097×1024**, 1.014× at 255×8191×1024, 1.006× at
//! 64×4095×4096 (8/8 each); 0.993× at 127×1031×1024 and 0.999× at 1000×999×1000 (K = 1000: both on
//! `CLAMP`) and 4095³ (0/8). Inside the prediction at the two shapes it was made for. `ncu` at
//! 127×8191×1024: warp cycles per issued instruction 4.88 → 4.29. The first build kept its copy loop
//! as an out-of-line closure and put the accumulators in local memory (a 440-byte stack frame in
//! `ptxas -v`); as an `#[inline(always)]` function, 163 registers and no stack, as v30. memcheck (six
//! shapes), racecheck, initcheck: 0. Chosen in v30's place for N off 4 (`sgemm::hopper_form`).
use super::wide_k_loop::{Epi, Interior, split_k_tile_odd_n};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v30, launches with N off 4 with B copied by `cp.async`.
///
/// # Safety
/// As `sgemm_v25`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v31(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile_odd_n's contract: split_k_tile's for ROWS = 64 with WAIT_ADD_WIDE, sm_90).
    unsafe { split_k_tile_odd_n::<ROWS, 6, { Epi::WAIT_ADD_WIDE }, { Interior::YES_ODD_N_ASYNC }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v25.
launch_bounds!(sgemm_v31, 128, 3);
