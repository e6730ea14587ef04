//! v3 — conflict-free shared-memory stores (the thread-to-element mapping).
//!
//! Change from v2: thread `tid` loads A element `(m, k) = (e % 128, e / 128)` (`e = tid + 256·i`), so a
//! warp stores 32 consecutive m of one k into `s_a[k][m]`: 32 banks, no conflict (v2: 8-way). The
//! price: a warp's global loads now touch 32 rows of A (one float each) instead of 4 rows × 8 floats;
//! the 8 k of each row arrive over 8 instructions through L1.
//! Predicted: small (~1.05×): stores are 4 of ~70 shared instructions per K step.
use super::register_tile::{Mapping, run};
use layout::sgemm::{TM, a_load_conflict_free, contiguous_row};

struct ConflictFreeStore;

impl Mapping for ConflictFreeStore {
    fn a_load(tid: u32, i: u32) -> (u32, u32) { a_load_conflict_free(tid, i) }
    fn row(ty: u32, i: u32) -> u32 { contiguous_row(ty, i) }
    fn col(tx: u32, j: u32) -> u32 { tx * TM + j }
}

/// `C = A · B` (row-major).
///
/// # Safety
/// See `register_tile::run`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v3(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded launch contract.
    unsafe { run::<ConflictFreeStore>(a, b, c, m, n, k) }
}
