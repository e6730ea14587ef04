//! Warming the L2 for the next kernel: a latency-bound kernel (decode attention at small batch: a few
//! MiB of cache, a few µs of dependent round trips) leaves the DRAM idle most of its time; it can ask the
//! L2 to fetch what the kernel after it streams (the O projection's weights), so that kernel reads them
//! from the L2. Decode step ad4 (`attention/steps/v29_decode_warm_l2.rs`) is the first user.

/// Asks the L2 for this CTA's share of the `bytes` bytes at `src`: the grid's CTAs, in linear order, take
/// consecutive 4 KiB-aligned shares, and warp 0's lanes issue a share in pieces of at most 32 KiB
/// (`cp.async.bulk.prefetch.L2`: the TMA engine issues the requests; nothing is written or waited for).
/// The last `bytes % 16` bytes are left out. Nothing in the sm_80 build (the instruction is sm_90's).
///
/// # Safety
/// `src` 16-byte aligned and `src..src + bytes` inside one live global allocation (or `bytes` 0).
#[inline(always)]
pub(crate) unsafe fn warm_l2_share(src: *const u8, bytes: u64) {
    #[cfg(lab_sm90)]
    {
        use crate::prim::{
            thread::{block_idx_x, block_idx_y, block_idx_z, grid_dim_x, grid_dim_y, grid_dim_z, lane_id, thread_idx_x},
            tma::cp_async_bulk_prefetch_l2,
        };
        const GRAIN: u64 = 4096;
        const PIECE: u64 = 32 * 1024;
        let (gx, gy) = (grid_dim_x() as u64, grid_dim_y() as u64);
        let ctas = gx * gy * grid_dim_z() as u64;
        let id = block_idx_x() as u64 + gx * (block_idx_y() as u64 + gy * block_idx_z() as u64);
        let share = bytes.div_ceil(ctas).div_ceil(GRAIN) * GRAIN;
        let end = bytes & !15;
        let lo = id * share;
        let hi = (lo + share).min(end);
        if thread_idx_x() < 32 {
            let mut at = lo + lane_id() as u64 * PIECE;
            while at < hi {
                // SAFETY: at < hi ≤ end ≤ bytes and at is a multiple of 16 (shares of 4 KiB, pieces of 32 KiB),
                // the piece a multiple of 16 ending at or before `end`: inside the caller's allocation, aligned.
                unsafe { cp_async_bulk_prefetch_l2(src.add(at as usize), (hi - at).min(PIECE) as u32) };
                at += 32 * PIECE;
            }
        }
    }
    #[cfg(not(lab_sm90))]
    let _ = (src, bytes);
}
