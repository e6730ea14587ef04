//! v20 — v11 with v19's **one loop per launch**: with K a multiple of 16 and N of 4, every 128×128
//! tile, edge or not, runs v11's interior loop from a clamped base row and column.
//!
//! Change from v11: where v11 chose per block between its interior loop (`YES`) and the predicated one
//! (`NO`), v20 chooses once for the launch: `Interior::YES_CLAMPED` when K % 16 == 0 and N % 4 == 0
//! (B's columns are float4s from `min(col, N − 4)`, A's rows from `min(row, M − 1)`), `NO` for every
//! block otherwise — where v11's blocks were all on `NO` too, since its interior test asks the same of
//! K and N. A `K_TAIL_CLAMPED` arm for K off 16 made ptxas spill 40 bytes on sm_90a at v11's 128
//! registers; without it v20 takes 126 and spills nothing.
//!
//! Why: session 19 (`results/2026-11-25-h100-session19/call2-mixed-loops`) found that a launch whose
//! blocks run different loop bodies is slower than either body alone (v16 unsplit: 1024³ 62 µs,
//! 1000–1023 × 1024² 85–92 µs; v19 fixed it: 1.32× at 1000³, 1.17× at 2000³). v11 is the entry point's
//! step where the 128×128 tiles fill the GPU, and at ragged sizes its launches mix the same way: 2000³
//! 88% of cuBLAS against 91% at 2048³.
//!
//! Prediction (before running): 2000³ 1.02–1.05× v11 (≈ 90–92% of cuBLAS), 4000³ 1.00–1.02×, aligned
//! shapes 1.00× (every block on the same interior loop, the clamp a no-op).
use super::frag_map::WarpTiled;
use super::wide_k_loop::{Epi, Interior, block_tile_as};
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x};
use crate::util::grouped::{GROUP, grouped_block};
use layout::sgemm::{BK_WIDE, BM};

/// `C = A · B` (row-major), every block on the launch's one loop.
///
/// # Safety
/// As `sgemm_v9`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v20(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    // SAFETY: as v9; the clamped loop only with N % 4 == 0 and K % 16 == 0, the guarantees
    // `block_tile_as` asks of `YES_CLAMPED` on any tile.
    unsafe {
        if n % 4 == 0 && k % BK_WIDE == 0 {
            block_tile_as::<WarpTiled, { Interior::YES_CLAMPED }, { Epi::STORE }, BM, 4>(a, b, c, m, n, k, bm, bn, 0, k)
        } else {
            block_tile_as::<WarpTiled, { Interior::NO }, { Epi::STORE }, BM, 4>(a, b, c, m, n, k, bm, bn, 0, k)
        }
    }
}

// As v11: at most 128 registers, two blocks per SM.
launch_bounds!(sgemm_v20, 256, 2);
