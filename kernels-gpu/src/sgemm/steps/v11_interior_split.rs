//! v11 — v9 with the interior question answered once per block instead of once per K stage.
//!
//! Change from v9: the kernel tests at entry whether its 128×128 tile and the whole K range lie inside
//! A, B and C (uniform per block: all but the ragged edge blocks), and runs one of two monomorphized
//! copies of the main loop: the interior copy has no bounds logic at all (plain 128-bit loads, no
//! predicates, no per-stage branch between the checked and unchecked fetch), the edge copy predicates
//! every load. v7–v9 made that choice inside the loop, every 16-k stage.
//!
//! Why: the SASS of v9's loop (cuobjdump) is 1249 instructions per 16-k stage, 1024 of them FFMA; `ncu`
//! put "not selected" first among the stall reasons (issue-bound phases), so fewer non-FFMA
//! instructions per stage should turn directly into FFMA issue.
//! Predicted: ~1.01–1.03× over v9.
//! Measured (H200, interleaved with cuBLAS, four runs): 1.03–1.04× v9 — 91.4–91.8% of cuBLAS at 4096³,
//! 92.7–93.0% at 8192³. The interior loop: 1134 SASS instructions per stage instead of 1248.
use super::frag_map::WarpTiled;
use super::wide_k_loop::{Epi, Interior, block_tile_as};
use crate::launch_bounds::launch_bounds;
use crate::prim::thread::{block_idx_x, block_idx_y, grid_dim_x};
use crate::util::grouped::{GROUP, grouped_block};
use layout::sgemm::{BK_WIDE, BM, BN};

/// `C = A · B` (row-major).
///
/// # Safety
/// As `sgemm_v9`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v11(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    let interior = bm * BM + BM <= m && bn * BN + BN <= n && k % BK_WIDE == 0 && n % 4 == 0;
    // SAFETY: as v9; `Interior::YES` only when the test above (the one block_tile makes per stage)
    // holds for this block.
    unsafe {
        if interior {
            block_tile_as::<WarpTiled, { Interior::YES }, { Epi::STORE }, BM, 4>(a, b, c, m, n, k, bm, bn, 0, k)
        } else {
            block_tile_as::<WarpTiled, { Interior::NO }, { Epi::STORE }, BM, 4>(a, b, c, m, n, k, bm, bn, 0, k)
        }
    }
}

// As v7: at most 128 registers, two blocks per SM.
launch_bounds!(sgemm_v11, 256, 2);
