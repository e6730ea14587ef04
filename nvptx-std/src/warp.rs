//! Warp shuffles (`shfl.sync`) and votes (`vote.sync`), full-warp mask.
//!
//! Not `pure`: a shuffle is collective, and a `pure` asm whose result is only used under a branch gets
//! sunk into it (observed: TOOLCHAIN.md pitfall 1), where not all 32 lanes execute it.
use core::arch::asm;

/// `shfl.sync.bfly.b32 r, v, lane_mask, 0x1f, 0xffffffff;` — returns `v` from lane `lane ^ lane_mask`.
///
/// # Safety
/// All 32 lanes of the warp must execute this call together (full mask), with the same `lane_mask`.
#[inline(always)]
pub unsafe fn shuffle_xor_u32(v: u32, lane_mask: u32) -> u32 {
    let r: u32;
    // SAFETY: forwarded to the caller; touches no memory.
    unsafe { asm!("shfl.sync.bfly.b32 {0}, {1}, {2}, 0x1f, 0xffffffff;", out(reg32) r, in(reg32) v,
                  in(reg32) lane_mask, options(nomem, nostack)) };
    r
}

/// [`shuffle_xor_u32`] on the bits of an `f32`.
///
/// # Safety
/// As [`shuffle_xor_u32`].
#[inline(always)]
pub unsafe fn shuffle_xor_f32(v: f32, lane_mask: u32) -> f32 {
    // SAFETY: forwarded to the caller.
    f32::from_bits(unsafe { shuffle_xor_u32(v.to_bits(), lane_mask) })
}

/// `shfl.sync.down.b32 r, v, delta, 0x1f, 0xffffffff;` — returns `v` from lane `lane + delta`, or this
/// lane's own `v` where `lane + delta > 31`.
///
/// # Safety
/// All 32 lanes of the warp must execute this call together (full mask), with the same `delta`.
#[inline(always)]
pub unsafe fn shuffle_down_f32(v: f32, delta: u32) -> f32 {
    let r: f32;
    // SAFETY: forwarded to the caller; touches no memory.
    unsafe { asm!("shfl.sync.down.b32 {0}, {1}, {2}, 0x1f, 0xffffffff;", out(reg32) r, in(reg32) v,
                  in(reg32) delta, options(nomem, nostack)) };
    r
}

/// Sum of `v` over the 32 lanes with a butterfly (`shuffle_xor` by 16, 8, 4, 2, 1); every lane gets
/// the total. Five `shfl.sync.bfly` and five `add.f32`.
///
/// # Safety
/// All 32 lanes of the warp must call it together.
#[inline(always)]
pub unsafe fn reduce_sum_f32(mut v: f32) -> f32 {
    let mut mask = 16;
    while mask > 0 {
        // SAFETY: forwarded to the caller; the loop bound is the same in every lane.
        v += unsafe { shuffle_xor_f32(v, mask) };
        mask >>= 1;
    }
    v
}

/// `shfl.sync.idx.b32 r, v, src_lane, 0x1f, 0xffffffff;` — returns `v` from lane `src_lane`.
///
/// # Safety
/// All 32 lanes of the warp must execute this call together (full mask).
#[inline(always)]
pub unsafe fn shuffle_idx_u32(v: u32, src_lane: u32) -> u32 {
    let r: u32;
    // SAFETY: forwarded to the caller; touches no memory.
    unsafe { asm!("shfl.sync.idx.b32 {0}, {1}, {2}, 0x1f, 0xffffffff;", out(reg32) r, in(reg32) v,
                  in(reg32) src_lane, options(nomem, nostack)) };
    r
}

/// Sum of an `f64` over the 32 lanes with a butterfly: each step shuffles the value's two 32-bit halves
/// (`shfl` moves 32 bits) and adds. Every lane gets the total.
///
/// # Safety
/// All 32 lanes of the warp must call it together.
#[inline(always)]
pub unsafe fn reduce_sum_f64(mut v: f64) -> f64 {
    let mut mask = 16;
    while mask > 0 {
        let bits = v.to_bits();
        // SAFETY: forwarded to the caller; the loop bound is the same in every lane.
        let (lo, hi) = unsafe { (shuffle_xor_u32(bits as u32, mask), shuffle_xor_u32((bits >> 32) as u32, mask)) };
        v += f64::from_bits(((hi as u64) << 32) | lo as u64);
        mask >>= 1;
    }
    v
}

/// `vote.sync.any.pred p, q, 0xffffffff;` — true on every lane if `pred` is true on any lane: a
/// warp-uniform branch condition.
///
/// # Safety
/// All 32 lanes of the warp must execute this call together (full mask).
#[inline(always)]
pub unsafe fn vote_any(pred: bool) -> bool {
    let r: u32;
    // SAFETY: forwarded to the caller; touches no memory. Not `pure` (collective: see the module doc).
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {1}, 0; vote.sync.any.pred q, p, 0xffffffff; selp.u32 {0}, 1, 0, q; }}",
             out(reg32) r, in(reg32) pred as u32, options(nomem, nostack))
    };
    r != 0
}

/// `v` combined by `op` over a whole 1-D block of `WARPS` warps: a butterfly within each warp, each
/// warp's result through `slots[warp]`, then every thread folds the `WARPS` slots — the result in
/// every thread. `op` must be associative and commutative (sum, max, min).
///
/// # Safety
/// Called by every thread of a block of exactly `WARPS · 32` threads (shuffles, a block barrier);
/// `slots` points to `WARPS` shared f32 that no other thread touches until every thread has returned
/// (a second reduction right after needs other slots, or a barrier in between).
#[inline(always)]
pub unsafe fn block_reduce_f32<const WARPS: u32>(mut v: f32, slots: *mut f32, op: impl Fn(f32, f32) -> f32) -> f32 {
    // SAFETY: the contract: all 32 lanes of every warp, and every thread of the block, reach each step;
    // slot `warp_id() < WARPS` is inside `slots`.
    unsafe {
        // A counted loop, not `for mask in [16, 8, …]`: rustc keeps an array iterated that way in local
        // memory (40 bytes of stack and a local store per mask, seen in the PTX of its users).
        let mut mask = 16;
        while mask > 0 {
            v = op(v, shuffle_xor_f32(v, mask));
            mask /= 2;
        }
        if crate::thread::lane_id() == 0 {
            *slots.add(crate::thread::warp_id() as usize) = v;
        }
        crate::sync::sync_threads();
        let mut t = *slots;
        for i in 1..WARPS as usize {
            t = op(t, *slots.add(i));
        }
        t
    }
}
