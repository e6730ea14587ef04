//! v33 — v13 for **N off 4**: each lane of a group owns columns `lane + 8j` of the strip (j = 0..4)
//! instead of `4·lane .. 4·lane + 4`, read as four scalar `ld.global.nc.f32` a row of B.
//!
//! Why: v13's interior loop reads a lane's four columns as one 16-byte load, which needs every row of
//! B 16-byte aligned (N % 4 == 0). With N off 4 (a vocabulary of 50257 or 32001 columns) every strip
//! took the edge loop: per element bounds checks, and a lane's four consecutive words as four scalar
//! loads, so a group's load `j` picks one word out of every 16 bytes of a 128-byte span. Session 58's
//! f32 corpus sample had v13 at **0.52× cuBLAS at 4×50257×768** (H200), its lowest f32 shape. With the
//! columns strided across the lanes, load `j` of a group is 8 consecutive words (32 bytes, one sector)
//! and the interior loop needs no alignment of N (v30's idea for the tiled steps, here for the skinny
//! one). With N % 4 == 0 v33 runs v13's lanes exactly.
//!
//! The host gives v33 a split rule by waves (`SplitRule::Waves`, `layout::sgemm::split_k_waves`): v13
//! splits K only when the strips are at most half the SMs, so 1×5120×13824 (160 strips at one block
//! per SM: two waves, the second 28 blocks) ran at **0.77× cuBLAS**. The rule takes the split count
//! whose waves × (bytes per block + a fixed cost per block) is least.
//!
//! Prediction (before any run, H200): 4×50257×768 from 0.52× to 0.85–1.0× cuBLAS (four scalar loads a
//! row instead of one vector load: more load instructions, the same sectors); 1×5120×13824 split in 4
//! (640 blocks, 4.85 waves of 132) from 0.77× to 0.90–1.05×; shapes with N % 4 == 0 whose split the rule
//! leaves unchanged (1×4096², 1×4096×14336, 1×14336×4096): v13's time (0.98–1.02×).
use super::skinny::{Quad, Strided, skinny};
use layout::sgemm::SKINNY_ROWS;
use crate::launch_bounds::launch_bounds;

/// `C = A · B` (row-major) for small M as [`super::v13_skinny::sgemm_v13`], any N on the interior loop:
/// with N off 4 lane `l` of a group owns columns `l + 8j` of its strip.
///
/// # Safety
/// As `sgemm_v13`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v33(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded (`skinny`'s contract is this kernel's, for either lane placement).
    unsafe {
        if n % 4 == 0 {
            skinny::<Quad, SKINNY_ROWS>(a, b, c, m, n, k, k_split)
        } else {
            skinny::<Strided, SKINNY_ROWS>(a, b, c, m, n, k, k_split)
        }
    }
}

// One block per SM, as v13 (its 16-row loop wants 240 registers).
launch_bounds!(sgemm_v33, 256, 1);
