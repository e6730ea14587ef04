#![cfg(lab_sm90)]
//! The units of work of the packed-sequence prefill steps — one query tile of one sequence for one head —
//! and the walk that hands them to a CTA: the block's own (a24) or, persistent (a25, a26), the next of
//! the host's sorted list (`kernel_lab::attention::prefill::persistent_units`) in snake rounds.
use crate::prim::{
    global::ld_global_nc_s32,
    thread::{block_idx_x, block_idx_y, block_idx_z, grid_dim_x},
};
use crate::util::opaque;
use layout::attention::{A6_BQ as BQ, PrefillDims, a25_unit, kv_tiles_off};

/// One unit of work: query tile `qt` of sequence `b` (rows `128·qt ..` of its queries) for head `head`,
/// where its rows and keys lie, and how many key tiles (of the walk's `BKV` keys) it walks.
#[derive(Clone, Copy)]
pub(super) struct Unit {
    /// Sequence.
    pub(super) b: u32,
    pub(super) head: u32,
    pub(super) kv_head: u32,
    /// The query tile (from the sequence's first).
    pub(super) qt: u32,
    /// The sequence's first query token in Q (and O) and first key token in K and V.
    pub(super) q_start: u32,
    pub(super) k_start: u32,
    /// The sequence's keys.
    pub(super) k_len: u32,
    /// Bottom-right causal offset `k_len − q_len` (0 without the mask).
    pub(super) off: u32,
    /// Key tiles walked.
    pub(super) n_tiles: u32,
}

/// Query tile `qt` of sequence `b` for head `head`, from the offsets, with key tiles of `bkv` keys;
/// `None` where there is nothing to do (past the sequence's queries; or what the host refuses: queries
/// without keys, or causal with fewer keys than queries).
///
/// # Safety
/// `cu_q`, `cu_k` hold `batch + 1` entries, `b < batch`, unwritten during the kernel.
#[inline(always)]
unsafe fn unit(cu_q: *const i32, cu_k: *const i32, dims: PrefillDims, b: u32, qt: u32, head: u32, bkv: u32) -> Option<Unit> {
    let b_ = b as usize;
    // SAFETY: forwarded to the caller.
    let ([q_start, q_end], [k_start, k_end]) = unsafe { ([ld_global_nc_s32(cu_q.add(b_)), ld_global_nc_s32(cu_q.add(b_ + 1))],
                                                         [ld_global_nc_s32(cu_k.add(b_)), ld_global_nc_s32(cu_k.add(b_ + 1))]) };
    let (q_len, k_len) = ((q_end - q_start).max(0) as u32, (k_end - k_start).max(0) as u32);
    let causal = dims.causal != 0;
    if qt >= q_len.div_ceil(BQ) || k_len == 0 || (causal && k_len < q_len) {
        return None;
    }
    let off = if causal { k_len - q_len } else { 0 };
    Some(Unit { b, head, kv_head: head / dims.group.max(1), qt, q_start: q_start as u32, k_start: k_start as u32, k_len, off,
                n_tiles: kv_tiles_off(k_len, BQ, bkv, qt, causal, off) })
}

/// The units one CTA computes, in order — the same walk for its producer and its consumers — with key
/// tiles of `BKV` keys (a24, a25: 64; a26: 128).
///
/// * `PERSISTENT = false` (a24): the block's own unit — sequence block z, head block y, query tile
///   block x counted from the sequence's last (the longest first with the causal mask) — once.
/// * `PERSISTENT` (a25, a26): `grid x` CTAs (one per SM) share the host's `units` units (`tiles[3u ..]`:
///   sequence, query tile, head; in the host's order, `kernel_lab::attention::prefill::UnitOrder`: by key
///   tiles, most first, or with the causal mask a pair of mirrored query tiles in consecutive rounds). CTA `c` takes, in round `r`, unit `r·G + c` (even rounds) or `r·G + G − 1 − c` (odd: a snake,
///   so no CTA takes the longest unit of every round).
#[derive(Clone, Copy)]
pub(super) struct UnitWalk<const PERSISTENT: bool, const BKV: u32> {
    round: u32,
    tiles: *const u32,
    units: u32,
}

impl<const PERSISTENT: bool, const BKV: u32> UnitWalk<PERSISTENT, BKV> {
    /// A walk from its start (`tiles`, `units`: the host's list; read only when persistent).
    #[inline(always)]
    pub(super) fn new(tiles: *const u32, units: u32) -> Self {
        UnitWalk { round: 0, tiles, units }
    }

    /// The sequence of the unit [`UnitWalk::next`] returned last (persistent only), read again from the
    /// list rather than kept in a register through a unit's key loop.
    ///
    /// # Safety
    /// As [`UnitWalk::next`], after it returned a unit.
    #[inline(always)]
    pub(super) unsafe fn last_sequence(&self) -> u32 {
        let u = a25_unit(opaque(self.round) - 1, block_idx_x(), grid_dim_x());
        // SAFETY: `u` is a unit `next` returned: `< units` (caller).
        unsafe { *self.tiles.add(3 * u as usize) }
    }

    /// The next unit, `None` when the CTA is done.
    ///
    /// # Safety
    /// As [`unit`]; persistent: `tiles` holds `3 · units` entries, each a sequence `< batch`, a query tile
    /// and a head `< heads`.
    #[inline(always)]
    pub(super) unsafe fn next(&mut self, cu_q: *const i32, cu_k: *const i32, dims: PrefillDims) -> Option<Unit> {
        if !PERSISTENT {
            if self.round > 0 {
                return None;
            }
            self.round = 1;
            let qtiles = {
                let b = block_idx_z() as usize;
                // SAFETY: forwarded.
                let (q0, q1) = unsafe { (ld_global_nc_s32(cu_q.add(b)), ld_global_nc_s32(cu_q.add(b + 1))) };
                ((q1 - q0).max(0) as u32).div_ceil(BQ)
            };
            if block_idx_x() >= qtiles {
                return None;
            }
            // SAFETY: forwarded.
            return unsafe { unit(cu_q, cu_k, dims, block_idx_z(), qtiles - 1 - block_idx_x(), block_idx_y(), BKV) };
        }
        let g = grid_dim_x();
        loop {
            let r = self.round;
            let u = a25_unit(r, block_idx_x(), g);
            if u >= self.units {
                return None;
            }
            self.round += 1;
            let i = 3 * u as usize;
            // SAFETY: forwarded (`u < units`).
            let (b, qt, head) = unsafe { (*self.tiles.add(i), *self.tiles.add(i + 1), *self.tiles.add(i + 2)) };
            // SAFETY: forwarded. (The host lists only tiles with work: `None` here is skipped.)
            if let Some(w) = unsafe { unit(cu_q, cu_k, dims, b, qt, head, BKV) } {
                return Some(w);
            }
        }
    }
}
