#![cfg(lab_sm90)]
//! SGEMM step v29 — v25 with the **loop of the aligned launches for N off 4**: B's four elements per
//! float4 are four scalar loads from the thread's own column, not clamped one by one.
//!
//! Why: with N off 4 (127×8191×1024: rows of 32 764 bytes) v19–v28 run `Interior::CLAMP` on every tile:
//! each of B's elements gets its own `min(col + j, N − 1)` and address, and each row its own 64-bit
//! product. In `sgemm_v25`'s SASS the CLAMP stage loops are 1302–1387 instructions against 1143 for the
//! aligned loop (`YES_CLAMPED`), with the same 1024 `FFMA`s: 14–21% more issue slots, the ~20% that
//! 127×8191×1024 runs slower than 127×8192×1024 (69–71 µs against 57; session 21). Only the float4
//! that straddles N needs a clamp, and only in B's last row: below it, a column past N is the next
//! row's first element — inside B, and its products reach only columns of C that are never stored.
//!
//! Diff from v25: `wide_k_loop::split_k_tile_odd_n` in place of `split_k_tile`, whose uniform loop takes
//! `Interior::YES_ODD_N` where N is off 4 (N ≥ 8, K and the split's end multiples of 16): A as
//! `YES_CLAMPED`, B as four scalar loads at immediate offsets from the thread's unclamped column, and the
//! one stage holding B's last row loaded as `CLAMP`. Everything else is v25's (tiles, split rule, the
//! widest reductions).
//!
//! Prediction (before running): the stage loop from ~1300–1390 to ~1160 instructions: 1.12–1.18× v25 at
//! 127×8191×1024 (~82% → ~93–97% of cuBLAS), 1.05–1.15× at the other N-off-4 shapes (130×4097×1024,
//! 1000×999×1000); 1.00× where N % 4 == 0 (the same loop as v25's).
//!
//! Measured (H100, `results/2026-11-26-h100-session24/call14`, `call15`, `kernel-lab ab`, 8 rounds, v29
//! faster in 8/8 at every N-off-4 shape): **1.020× at 127×8191×1024** (70.5 → 69.1 µs; 81.3 → 83.2% of
//! cuBLAS), 1.017–1.019× at 130×4097×1024, 1.005× at 1000×999×1000, 1.011–1.023× at 64×4095×4096,
//! 1.032–1.055× at 255×8191×1024, 1.036–1.049× at 127×1031×1024; 0.996–0.997× at 127×8192×1024 (the
//! same loop). **The prediction was wrong in size**: the instructions were not the cost. `ncu` (call 15)
//! has v29 at 127×8191×1024 executing 38.9 M warp instructions against v24's 38.2 M at 127×8192×1024
//! (72.3 against 60.7 µs): the same work. What differs is where the FFMAs wait: short-scoreboard stall
//! samples 1566 against 351, on the FFMAs that take the fragments `ld.shared` brought. The scalar
//! loads of B (4× the requests of a float4, each warp's 128 bytes across two lines; L1 hit rate 60%
//! against 1%) share the L1 / shared-memory pipeline with those fragment loads and delay them. The
//! first run read A's rows past M unclamped (memcheck: 43 errors at 33×13×32, fixed; memcheck and
//! initcheck then 0). Chosen in v25's place for N off 4 on Hopper (`sgemm::hopper_form`).
use super::wide_k_loop::{Epi, Interior, split_k_tile_odd_n};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v25, launches with N off 4 on the unclamped scalar loop.
///
/// # Safety
/// As `sgemm_v25`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v29(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile_odd_n's contract: split_k_tile's for ROWS = 64 with WAIT_ADD_WIDE, sm_90).
    unsafe { split_k_tile_odd_n::<ROWS, 6, { Epi::WAIT_ADD_WIDE }, { Interior::YES_ODD_N }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v25.
launch_bounds!(sgemm_v29, 128, 3);
