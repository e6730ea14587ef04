//! Which float4 groups of rows and columns of the 128×128 block tile a thread owns, for the wide-K
//! loop (`wide_k_loop`): [`Strided4`] (v5's strided mapping, used by v7 and v8) and [`WarpTiled`] (the
//! warp-tiled, bank-aware arrangement introduced by v9, reused by v11).
use layout::sgemm::{thread_rc, vec4_row, warp_tile_col, warp_tile_row};

/// Which float4 groups of rows and columns a thread owns (v7/v8: `vec4_row` over a 16×16 thread grid;
/// v9: a warp-tiled, bank-aware mapping).
pub(crate) trait FragMap {
    /// First row (in the block tile) of thread `tid`'s row group `h` (0, 1); the group is 4 rows.
    fn row(tid: u32, h: u32) -> u32;
    /// First column of thread `tid`'s column group `h` (0, 1); the group is 4 columns.
    fn col(tid: u32, h: u32) -> u32;
}

/// v5–v8's mapping (v5 and v6 spell it out inline): thread (ty, tx) of a 16×16 grid owns rows
/// `ty·4 + 64·h + r`, columns `tx·4 + 64·h + c`.
pub(crate) struct Strided4;

impl FragMap for Strided4 {
    fn row(tid: u32, h: u32) -> u32 { vec4_row(thread_rc(tid).0, h, 0) }
    fn col(tid: u32, h: u32) -> u32 { vec4_row(thread_rc(tid).1, h, 0) }
}

/// v9's mapping: the 8 warps tile the block 4 × 2, each a 32×64 region, and the lanes of a warp are
/// arranged so the quarter-warps of each half-warp read bank-disjoint float4s
/// (`layout::sgemm::warp_lane_rc`).
pub(crate) struct WarpTiled;

impl FragMap for WarpTiled {
    fn row(tid: u32, h: u32) -> u32 { warp_tile_row(tid, h) }
    fn col(tid: u32, h: u32) -> u32 { warp_tile_col(tid, h) }
}
