//! The sum across splits of K that the split-K steps share (d2, h7, d3): every split stores its f32
//! partial tile to its own slice of a workspace, the last CTA of the tile to take a ticket adds the
//! slices — written once here. Also the persistent split-K steps' walk over (tile, split) units
//! (`unit`, Hopper only; introduced by h7, whose file explains it; d3 walks the same order), and the
//! grid of units ([`Units`]) that d3, d6–d8, d10, d11 (`decode_swapped`), d19, d21 and d22 set up alike.
use crate::prim::global::ld_global_cg_u64;
#[cfg(lab_sm90)]
use super::tma_persistent::persistent_tile;
#[cfg(lab_sm90)]
use crate::prim::{
    atomic::{atom_add_acq_rel_gpu_u32, st_relaxed_gpu_u32},
    shared::{ld_shared_u32, st_shared_u32},
    sync::{sync_named, thread_fence},
};

/// The most splits of K a partials workspace holds: the last CTA loads every split's pair at once.
pub(crate) const MAX_SPLITS: u32 = 16;

/// The sum over the splits' slices of the f32 pair at offset `at`: all ≤ [`MAX_SPLITS`] loads issued
/// back to back (an unrolled, predicated loop: one L2 round trip, not one per split), then added in
/// split order (deterministic).
///
/// # Safety
/// `ws` holds `splits ≤ MAX_SPLITS` slices of `slice_len` f32, each pair at `at` written before the
/// ticket the caller acquired; `at` even and `slice_len` even (8-byte alignment).
#[inline(always)]
pub(crate) unsafe fn sum_splits(ws: *mut f32, splits: u32, slice_len: usize, at: usize) -> (f32, f32) {
    let mut v = [0u64; MAX_SPLITS as usize];
    let mut sp = 0;
    while sp < MAX_SPLITS {
        if sp < splits {
            // SAFETY: inside split sp's slice (caller); 8-byte aligned.
            v[sp as usize] = unsafe { ld_global_cg_u64(ws.add(sp as usize * slice_len + at) as *const u64) };
        }
        sp += 1;
    }
    let (mut x, mut y) = (0.0f32, 0.0f32);
    let mut sp = 0;
    while sp < MAX_SPLITS {
        x += f32::from_bits(v[sp as usize] as u32);
        y += f32::from_bits((v[sp as usize] >> 32) as u32);
        sp += 1;
    }
    (x, y)
}

/// The consumer warpgroups' ticket on a tile's counter after their partial stores (h7, d3): fence,
/// named barrier 3 over the 256 consumer threads, thread `leader` takes an acq_rel ticket and writes
/// "last" to `s_flag`, barrier, every thread reads it; the last split's threads fence again before
/// reading the other splits' partials. Returns whether this CTA is the tile's last.
///
/// # Safety
/// All 256 consumer threads call it together; `counter` is the tile's counter (zero before its first
/// split's ticket), `s_flag` a shared word nobody else uses until the next meeting at barrier 3.
#[cfg(lab_sm90)]
#[inline(always)]
pub(crate) unsafe fn last_split(counter: *mut u32, splits: u32, s_flag: u32, tid: u32, leader: u32) -> bool {
    // SAFETY: forwarded to the caller.
    unsafe { last_split_of::<3, 256>(counter, splits, s_flag, tid, leader) }
}

/// [`last_split`] over named barrier `BAR` of `THREADS` consumer threads (FP8 f20: barrier 4 over its
/// three consumer warpgroups' 384, barriers 1–3 being their epilogues').
///
/// # Safety
/// As [`last_split`], with all `THREADS` consumer threads and barrier `BAR` (an immediate) theirs alone.
#[cfg(lab_sm90)]
#[inline(always)]
pub(crate) unsafe fn last_split_of<const BAR: u32, const THREADS: u32>(counter: *mut u32, splits: u32, s_flag: u32, tid: u32, leader: u32) -> bool {
    // SAFETY: forwarded to the caller.
    unsafe {
        thread_fence();
        sync_named(BAR, THREADS);
        if tid == leader {
            let ticket = atom_add_acq_rel_gpu_u32(counter, 1);
            st_shared_u32(s_flag, (ticket == splits - 1) as u32);
        }
        sync_named(BAR, THREADS);
        let last = ld_shared_u32(s_flag) != 0;
        if last {
            thread_fence();
        }
        last
    }
}

/// The last split's reset of the tile's counter (by one thread), for the next launch.
///
/// # Safety
/// `counter` as [`last_split`]; called after the last split's sums.
#[cfg(lab_sm90)]
#[inline(always)]
pub(crate) unsafe fn reset_counter(counter: *mut u32) {
    // SAFETY: forwarded to the caller.
    unsafe { st_relaxed_gpu_u32(counter, 0) }
}

/// A persistent split-K grid's work: `tiles_m × tiles_n` tiles of the output, each cut into `splits`
/// runs of `kts` of its `k_tiles` K tiles; unit `u` is split `u / tiles` of tile `u % tiles`
/// ([`Units::unit`]). Computed once in each CTA's setup (d3, d6–d8, d10, d11, d19, d21, d22), every
/// thread alike. h7 keeps its own copy of these lines: through `Units` its PTX changed (a branch fewer,
/// a compare more), where these steps' kept the same instructions.
#[cfg(lab_sm90)]
#[derive(Clone, Copy)]
pub(super) struct Units {
    /// Tile rows (in a cluster grid: cluster tile rows).
    pub(super) tiles_m: u32,
    /// Tile columns.
    pub(super) tiles_n: u32,
    /// `tiles_m · tiles_n`, at least 1 so that `u % tiles` cannot trap (the host never sends an empty
    /// grid, but a kernel must not divide by zero if it did).
    pub(super) tiles: u32,
    /// K tiles of `bk`.
    pub(super) k_tiles: u32,
    /// Splits of K (at least 1).
    pub(super) splits: u32,
    /// K tiles per split (the last split may have fewer, or none).
    pub(super) kts: u32,
    /// `tiles · splits`: the units a persistent grid walks.
    pub(super) units: u32,
}

#[cfg(lab_sm90)]
impl Units {
    /// The units of `tiles_m × tiles_n` tiles over `k` cut into K tiles of `bk` and `splits` splits (0
    /// counts as 1).
    #[inline(always)]
    pub(super) fn new(tiles_m: u32, tiles_n: u32, k: u32, bk: u32, splits: u32) -> Units {
        let tiles = (tiles_m * tiles_n).max(1);
        let k_tiles = k.div_ceil(bk);
        let splits = if splits < 1 { 1 } else { splits };
        let kts = k_tiles.div_ceil(splits);
        Units { tiles_m, tiles_n, tiles, k_tiles, splits, kts, units: tiles * splits }
    }

    /// Unit `u`'s tile (row, column), split and K tiles ([`unit`]).
    #[inline(always)]
    pub(super) fn unit(&self, u: u32) -> (u32, u32, u32, u32, u32) {
        unit(u, self.tiles, self.tiles_m, self.tiles_n, self.kts, self.k_tiles)
    }
}

/// The unit `u`'s tile (row, column), split, and K tiles `kt0 .. kt1`, `kt0 ≤ kt1 ≤ k_tiles` (d3 walks the
/// same order).
#[cfg(lab_sm90)]
#[inline(always)]
pub(super) fn unit(u: u32, tiles: u32, tiles_m: u32, tiles_n: u32, kts: u32, k_tiles: u32) -> (u32, u32, u32, u32, u32) {
    let (tile, split) = (u % tiles, u / tiles);
    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
    // Clamped: a split past K (more splits than `persistent_splits` gives) walks an empty range
    // instead of `kt1 − kt0` wrapping to ~4·10⁹ stages that never fill.
    let kt0 = if split * kts < k_tiles { split * kts } else { k_tiles };
    let kt1 = if kt0 + kts < k_tiles { kt0 + kts } else { k_tiles };
    (tm, tn, split, kt0, kt1)
}
