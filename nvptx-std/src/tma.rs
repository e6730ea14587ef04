//! The tensor memory accelerator (sm_90): `cp.async.bulk.tensor` copies of 2-D boxes between global and
//! shared memory, described by a 128-byte `CUtensorMap` the host encodes with `cuTensorMapEncodeTiled`.
//!
//! The tensor map is read from **global memory** (the host copies it there before the launch): passing it
//! by value as a kernel parameter needs `.param .align 64`, which rustc's nvptx ABI cannot express
//! (TOOLCHAIN.md §4.3). Coordinates are in elements, innermost (contiguous) dimension first.
use core::arch::asm;

/// A `CUtensorMap` in global memory (128 bytes, 64-byte aligned), only ever handled through a pointer.
#[repr(C, align(64))]
pub struct TensorMap(pub [u64; 16]);

/// `prefetch.tensormap [tmap];` — warms the descriptor cache.
///
/// # Safety
/// `tmap` points to a valid tensor map in global memory.
#[inline(always)]
pub unsafe fn prefetch_tensormap(tmap: *const TensorMap) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("prefetch.tensormap [{0}];", in(reg64) tmap, options(nostack, readonly)) }
}

/// `cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [tmap, {c0, c1}], [bar];`
/// — loads the box at column `c0`, row `c1` into shared memory at `dst` (stored as the tensor map's swizzle
/// mode lays it out, [`layout::hopper::TmaTile2d::smem_byte`]) and signals its byte count on `bar`.
/// Out-of-bounds parts of the box are zero-filled and still counted.
///
/// # Safety
/// sm_90; `tmap` is a valid tensor map in global memory describing live device memory; `dst` is a
/// `.shared` address of this CTA with room for a whole box, aligned to 128 bytes (to the swizzle period
/// when swizzled); `bar` is an initialized mbarrier whose current phase expects these bytes
/// ([`crate::mbarrier::mbarrier_arrive_expect_tx`]); nobody touches `dst` until that phase completes.
#[inline(always)]
pub unsafe fn cp_async_bulk_tensor_2d_g2s(dst: u32, tmap: *const TensorMap, c0: i32, c1: i32, bar: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{0}], [{1}, {{{2}, {3}}}], [{4}];",
             in(reg32) dst, in(reg64) tmap, in(reg32) c0, in(reg32) c1, in(reg32) bar, options(nostack))
    }
}

/// `cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
/// [dst], [tmap, {c0, c1}], [bar], mask;` — as [`cp_async_bulk_tensor_2d_g2s`], but the box is written
/// to shared offset `dst` of **every CTA of the cluster whose rank bit is set in `mask`**, and each
/// one's mbarrier at offset `bar` receives the byte count (each expects it in its own `expect_tx`).
///
/// # Safety
/// As [`cp_async_bulk_tensor_2d_g2s`] for every CTA in `mask` (a cluster launch; `dst` free and `bar`
/// expecting the bytes in each of them), none of which has exited.
#[inline(always)]
pub unsafe fn cp_async_bulk_tensor_2d_g2s_multicast(dst: u32, tmap: *const TensorMap, c0: i32, c1: i32, bar: u32, mask: u16) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{0}], [{1}, {{{2}, {3}}}], [{4}], {5};",
             in(reg32) dst, in(reg64) tmap, in(reg32) c0, in(reg32) c1, in(reg32) bar, in(reg16) mask, options(nostack))
    }
}

/// `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap, {c0, c1}], [src];` — stores the box at
/// `src` to column `c0`, row `c1` (out-of-bounds parts are dropped). Complete it with
/// [`cp_async_bulk_commit_group`] and [`cp_async_bulk_wait_group_read0`] before reusing `src`.
///
/// # Safety
/// sm_90; `tmap` is valid; `src` holds the box in the tensor map's shared layout, written before a
/// [`crate::mbarrier::fence_proxy_async_shared_cta`] and a barrier among the writers.
#[inline(always)]
pub unsafe fn cp_async_bulk_tensor_2d_s2g(tmap: *const TensorMap, c0: i32, c1: i32, src: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [{0}, {{{1}, {2}}}], [{3}];",
             in(reg64) tmap, in(reg32) c0, in(reg32) c1, in(reg32) src, options(nostack))
    }
}

/// `cp.async.bulk.commit_group;`
///
/// # Safety
/// sm_90.
#[inline(always)]
pub unsafe fn cp_async_bulk_commit_group() {
    // SAFETY: no operands.
    unsafe { asm!("cp.async.bulk.commit_group;", options(nostack)) }
}

/// `cp.async.bulk.wait_group.read 0;` — waits until every committed bulk store has read its source.
///
/// # Safety
/// sm_90.
#[inline(always)]
pub unsafe fn cp_async_bulk_wait_group_read0() {
    // SAFETY: no operands.
    unsafe { asm!("cp.async.bulk.wait_group.read 0;", options(nostack)) }
}

/// `cp.async.bulk.wait_group 0;` — waits until every committed bulk store has completed (its writes are
/// done), e.g. before the kernel exits.
///
/// # Safety
/// sm_90.
#[inline(always)]
pub unsafe fn cp_async_bulk_wait_group0() {
    // SAFETY: no operands.
    unsafe { asm!("cp.async.bulk.wait_group 0;", options(nostack)) }
}
