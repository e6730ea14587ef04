//! v4 — strided thread-to-output mapping (TVM's virtual threads): conflict-free shared reads.
//!
//! Change from v3: thread (ty, tx) owns rows `ty + 16·i` and columns `tx + 16·j` instead of 8
//! contiguous ones. For one k, the 16 threads of a warp row read `s_b[k][tx + 16·j]`: 16 consecutive
//! words, 16 banks (v3: `tx·8 + j`, 4 banks, 4-way). The A reads stay 2 distinct words per warp
//! (broadcast). Outputs of a thread are no longer contiguous, but a warp's stores of one (i, j) cover
//! 16 consecutive columns: still coalesced. Predicted: ~1.3× (B reads were 4 wavefronts, now 1).
use super::register_tile::{Mapping, run};
use layout::sgemm::{a_load_conflict_free, strided_row};

struct Strided;

impl Mapping for Strided {
    fn a_load(tid: u32, i: u32) -> (u32, u32) { a_load_conflict_free(tid, i) }
    fn row(ty: u32, i: u32) -> u32 { strided_row(ty, i) }
    fn col(tx: u32, j: u32) -> u32 { strided_row(tx, j) }
}

/// `C = A · B` (row-major).
///
/// # Safety
/// See `register_tile::run`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v4(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded launch contract.
    unsafe { run::<Strided>(a, b, c, m, n, k) }
}
