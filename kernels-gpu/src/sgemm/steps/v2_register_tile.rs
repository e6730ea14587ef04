//! v2 — thread tiling in registers (the outer-product form).
//!
//! Change from v1: a block computes 128×128 outputs with 256 threads, each an 8×8 tile held in 64
//! registers. Per step k it reads 8 values of A (a column of its rows) and 8 of B (a row of its
//! columns) from shared memory and does 64 FMAs: 16 shared loads per 64 FMAs instead of 2 per 1.
//! A is stored transposed (`s_a[k][m]`) so the 8 A values are contiguous.
//! Mappings (this step's, the next two steps change them): A loaded in its natural coalesced order
//! (8 consecutive k of a row per 8 lanes); thread (ty, tx) owns rows `ty·8 + i`, columns `tx·8 + j`.
//! Bank conflicts (model): the transposed A store is 8-way (lanes 0–7 write one m at 8 k, all in bank
//! m), the B reads 4-way (`tx·8 + j` hits banks 0, 8, 16, 24). Predicted: ~4–6× over v1 anyway.
use super::register_tile::{Mapping, run};
use layout::sgemm::{TM, a_load_coalesced, contiguous_row};

struct Contiguous;

impl Mapping for Contiguous {
    fn a_load(tid: u32, i: u32) -> (u32, u32) { a_load_coalesced(tid, i) }
    fn row(ty: u32, i: u32) -> u32 { contiguous_row(ty, i) }
    fn col(tx: u32, j: u32) -> u32 { tx * TM + j }
}

/// `C = A · B` (row-major).
///
/// # Safety
/// See `register_tile::run`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v2(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded launch contract.
    unsafe { run::<Contiguous>(a, b, c, m, n, k) }
}
