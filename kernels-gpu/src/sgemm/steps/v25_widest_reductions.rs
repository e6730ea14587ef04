#![cfg(lab_sm90)]
//! v25 — v24 for **any N**: the split-K adds in the widest reductions each address allows
//! (`wide_k_loop::Epi::WAIT_ADD_WIDE`, `elementwise::add4w_if`): a `red.global.add.v4.f32` where the
//! element is 16-byte aligned, two `.v2` where it is 8-byte aligned, else a scalar, a `.v2` and a
//! scalar. With N % 4 == 0 that is v24's one `.v4`; with N off 4 a row of C starts at any alignment and
//! v24 falls back to four scalar adds per thread and column group, v25 to 1–3 operations (2.25 on
//! average over the four alignment classes of the rows).
//!
//! Why: the one f32 sweep shape still under 85% of cuBLAS is 127×8191×1024 (v21 unsplit, 83.2%;
//! `results/2026-11-25-h100-session20/call3-f32-entry-point`). Its N is odd. With N % 4 == 0 the same
//! problem runs at 99.3% (127×8192×1024, v24 with three splits), but split with scalar adds it fell to
//! 71% (`call2`, v24 under (3, 256)), and the odd N costs the clamped loop's element-wise B loads too
//! (unsplit, 127×8191 took 69 µs against 62 µs for 1024³'s same 128 tiles).
//!
//! Prediction (before running): 127×8191×1024 with v24's three splits at 1.05–1.12× v21 unsplit
//! (≈ 87–93% of cuBLAS: 127×8192's split speed less the clamped loads and 2.25 reductions in place of
//! one); with N % 4 == 0 1.00× v24.
//!
//! Measured (H100, `ab`, 8 rounds; `results/2026-11-25-h100-session20/call4-v25-widest-reductions`): against v21 where N is off 4,
//! **130×4097×1024 1.271×, 64×4095×4096 1.131×, 127×1031×1024 1.094×, 1000×1001×1000 1.027×, 1000×999×1000
//! 1.024×** — but **127×8191×1024 0.980×** (8/8 rounds slower), the shape it was for: wrong there. With
//! N % 4 == 0 it runs 0.995–0.997× v24 (the alignment test per column group). The entry point takes it
//! where N is off 4 (v21 before): it wins at five of the six shapes measured, and loses 2% at the one
//! whose reading it was built on — why splitting an odd-N 127-row problem still loses is open.
use super::wide_k_loop::{Epi, LoopSelect, split_k_tile};
use crate::launch_bounds::launch_bounds;
use layout::sgemm::V14_ROWS as ROWS;

/// `C = A · B` (row-major) as v24, its split-K adds as wide as each element's alignment allows.
///
/// # Safety
/// As `sgemm_v21`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v25(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (split_k_tile's contract for ROWS = 64 with WAIT_ADD_WIDE: sm_90, as v24).
    unsafe { split_k_tile::<ROWS, 6, { LoopSelect::PerLaunch }, { Epi::WAIT_ADD_WIDE }>(a, b, c, m, n, k, k_split) }
}

// Three blocks of 128 threads per SM, as v24.
launch_bounds!(sgemm_v25, 128, 3);
