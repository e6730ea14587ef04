//! Block ladder v10 — `ldmatrix` addresses as 8 bases plus immediates.
//!
//! What v9's SASS shows (`cuobjdump`, read here at no GPU cost): each of the 32 `LDSM` of a K tile (4 of
//! A and 4 of B per k16 step) has its own loop-invariant offset register (`LDSM [R216 + UR7]` …), so 32
//! of v9's 254 registers hold addresses, and ptxas has no room left to schedule further ahead.
//!
//! Change from v9: the same addresses, found from fewer registers. The layouts promise
//! (`Swizzled::row_step`) that moving 16 rows moves an offset by a constant for both tiles (the
//! swizzles repeat every 8 rows), so
//! - A (mi, k16): `a_base[k16] + mi · row_step(16)` — 4 bases (the k16 column steps change the XOR);
//! - B (nj, k16): `b_base[nj] + k16 · row_step(16)` — 4 bases (the nj column steps change the XOR);
//!
//! and the constants become the `LDSM`'s immediate offsets (through `block_cross_stage_prefetch`'s `FragAddrs`:
//! the loop is v9's, only [`Bases`] is new). The bases pass through an empty `asm!`
//! once per K tile so that neither LLVM nor ptxas hoists the 32 sums back out of the loop.
//! Predicted: ~24 registers freed; v9h (f16 accumulators, 44 fewer registers) ran 1.01–1.10× v9 with
//! the same instructions, so ~1.03–1.06×.
use super::block::{Acc, BlockConfig, Epilogue, Frags, WM, WN};
use super::block_cross_stage_prefetch::{FragAddrs, SWIZZLED, block, step};
use crate::util::opaque;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    thread::thread_idx_x,
};
use crate::util::unroll::unroll4;
use layout::Layout;
use layout::fragment::Ldmatrix;
use layout::hgemm::{A_SWIZZLED_WIDE, B_SWIZZLED_WIDE, BN};

/// v10: v9's configuration (3 stages of 64-deep tiles, C through the shared C tile, f32 accumulators).
struct V10;

impl BlockConfig for V10 {
    const STAGES: u32 = 3;
    const K16_PER_STAGE: u32 = 4;
    const EPILOGUE: Epilogue = Epilogue::ThroughSharedTile;
    type Acc = Acc;
}

/// 16 rows further in A's and B's wide tiles, as an element offset (compile error if not constant).
const A_ROW16: u32 = step(A_SWIZZLED_WIDE.row_step(16));
const B_ROW16: u32 = step(B_SWIZZLED_WIDE.row_step(16));

/// This lane's element offsets: `a[k16]` of its A row in fragment row block 0 at k16 step `k16`,
/// `b[nj]` of its B row at k16 step 0 in column block `nj` — `block::load_frags`'s addresses with
/// `mi = 0` and `k16 = 0` respectively.
#[derive(Clone, Copy)]
struct Bases {
    a: [u32; 4],
    b: [u32; 4],
}

impl Bases {
    #[inline(always)]
    fn new() -> Bases {
        let tid = thread_idx_x();
        let (warp, lane) = (tid / 32, tid % 32);
        let (wm, wn) = (warp / (BN / WN), warp % (BN / WN));
        Bases {
            a: core::array::from_fn(|k16| {
                let (r, c) = Ldmatrix::X4.tile_addr_rc(lane);
                A_SWIZZLED_WIDE.offset(wm * WM + r, 16 * k16 as u32 + c)
            }),
            b: core::array::from_fn(|nj| {
                let (r, c) = Ldmatrix::X4_TRANS.tile_addr_rc(lane);
                B_SWIZZLED_WIDE.offset(r, wn * WN + 16 * nj as u32 + c)
            }),
        }
    }
}

impl FragAddrs for Bases {
    #[inline(always)]
    fn fresh(&self) -> Self {
        Bases { a: self.a.map(opaque), b: self.b.map(opaque) }
    }
    #[inline(always)]
    unsafe fn load(&self, s_a: u32, s_b: u32, k16: u32) -> Frags {
        let (mut a, mut b) = ([[0u32; 4]; 4], [[0u32; 4]; 4]);
        // SAFETY: forwarded; the offsets equal `load_frags`'s (`row_step`, tested on every row), inside
        // the stage.
        unsafe {
            unroll4!(mi => {
                a[mi as usize] = ldmatrix_x4(s_a + 2 * self.a[k16 as usize] + 2 * mi * A_ROW16);
            });
            unroll4!(nj => {
                b[nj as usize] = ldmatrix_x4_trans(s_b + 2 * self.b[nj as usize] + 2 * k16 * B_ROW16);
            });
        }
        (a, b)
    }
}

/// `C = A · B` (f16, row-major, f32 accumulation).
///
/// # Safety
/// As `hgemm_block_v9`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_block_v10(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { block::<V10, _, _, _>(&SWIZZLED, &Bases::new(), a, b, c, m, n, k) }
}

// 8 warps, one block per SM: ptxas may use up to 255 registers per thread.
launch_bounds!(hgemm_block_v10, 256);
