//! The tensor memory accelerator (sm_90): `cp.async.bulk.tensor` copies of 2-D boxes between global and
//! shared memory, described by a 128-byte `CUtensorMap` the host encodes with `cuTensorMapEncodeTiled`.
//!
//! The tensor map is read either from **global memory** (the host copies it there before the launch;
//! [`TensorMap`]) or from the kernel's **parameters** ([`TensorMapParam`], CUDA's `__grid_constant__`),
//! which needs `.param .align 64`: rustc's nvptx ABI cannot declare it (TOOLCHAIN.md §4.3), so
//! [`grid_constant_tensor_maps!`](crate::grid_constant_tensor_maps) has `nvptx-link` rewrite the declaration. Either way the wrappers take
//! a generic `*const TensorMap`. Coordinates are in elements, innermost (contiguous) dimension first.
use core::arch::asm;

/// A `CUtensorMap` in global memory (128 bytes, 64-byte aligned), only ever handled through a pointer.
#[repr(C, align(64))]
pub struct TensorMap(pub [u64; 16]);

/// A `CUtensorMap` passed **by value** as a kernel parameter: CUDA's `const __grid_constant__
/// CUtensorMap`. The launch copies its 128 bytes into the kernel's parameter space, so nothing has to
/// be copied to global memory before the launch and the TMA reads the map from the constant bank.
///
/// rustc declares such a parameter `.param .align 16 .b8 <kernel>_param_<i>[128]` (its nvptx ABI
/// stops at 16; a type aligned to 64 crashes it) and copies it to local memory as soon as Rust takes
/// its address. So a kernel never touches the parameter from Rust: [`grid_constant_tensor_maps!`](crate::grid_constant_tensor_maps)
/// raises its declared alignment to 64 (`nvptx-link` rewrites the declaration), and
/// [`param_tensor_map!`](crate::param_tensor_map) reads its address in PTX (`mov` of the parameter's symbol, `cvta.param`), a
/// generic pointer every TMA wrapper of this module takes.
#[repr(C, align(16))]
pub struct TensorMapParam(pub [u64; 16]);

/// `grid_constant_tensor_maps!(kernel, i, j, …)`: parameters `i`, `j`, … of `kernel` are
/// [`TensorMapParam`]s, declared `.param .align 64` (written next to the kernel like
/// [`crate::launch_bounds!`]; `nvptx-link` fails the build if `kernel` has no such parameter).
#[macro_export]
macro_rules! grid_constant_tensor_maps {
    ($kernel:ident, $($index:literal),+ $(,)?) => {
        const _: () = { let _ = $kernel; };
        core::arch::global_asm!($(concat!("//@param-align ", stringify!($kernel), " ", stringify!($index), " 64")),+);
    };
}

/// `param_tensor_map!(kernel, i)`: the generic address (`*const TensorMap`) of parameter `i` of
/// `kernel`, a [`TensorMapParam`] listed in [`grid_constant_tensor_maps!`](crate::grid_constant_tensor_maps) — `mov.b64` of the
/// parameter's PTX symbol and `cvta.param.u64` (PTX 7.7). Expand it in `kernel`'s own body: elsewhere
/// the symbol does not exist and ptxas rejects the module (a build error, not a wrong address).
///
/// The map lives in the launch's parameter space for the whole kernel, is read-only, and is 64-byte
/// aligned by the directive, which is what the TMA requires of a map it is given by address.
#[macro_export]
macro_rules! param_tensor_map {
    ($kernel:ident, $index:literal) => {{
        const _: () = { let _ = $kernel; };
        let addr: u64;
        // SAFETY: reads a symbol's address into a register: no memory access, no other effect.
        unsafe {
            core::arch::asm!(
                concat!("{{ .reg .b64 %pm; mov.b64 %pm, ", stringify!($kernel), "_param_", stringify!($index),
                        "; cvta.param.u64 {0}, %pm; }}"),
                out(reg64) addr, options(pure, nomem, nostack))
        };
        addr as *const $crate::tma::TensorMap
    }};
}

/// `prefetch.tensormap [tmap];` — warms the descriptor cache.
///
/// # Safety
/// `tmap` points to a valid tensor map in global memory or in the kernel's parameters ([`param_tensor_map!`](crate::param_tensor_map)).
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
/// sm_90; `tmap` is a valid tensor map (global memory or parameter) describing live device memory; `dst` is a
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

/// `cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [tmap, {c0,
/// c1, c2}], [bar];` — as [`cp_async_bulk_tensor_2d_g2s`] for a 3-D tensor map: the box at coordinates
/// (`c0` innermost, `c1`, `c2`), laid out in shared memory innermost dimension first (a box of extent 1
/// along `c1` lands exactly as the 2-D box of its other two extents). Out-of-bounds parts are
/// zero-filled and still counted.
///
/// # Safety
/// As [`cp_async_bulk_tensor_2d_g2s`], `tmap` a 3-D map.
#[inline(always)]
pub unsafe fn cp_async_bulk_tensor_3d_g2s(dst: u32, tmap: *const TensorMap, c0: i32, c1: i32, c2: i32, bar: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{0}], [{1}, {{{2}, {3}, {4}}}], [{5}];",
             in(reg32) dst, in(reg64) tmap, in(reg32) c0, in(reg32) c1, in(reg32) c2, in(reg32) bar, options(nostack))
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

/// `cp.async.bulk.prefetch.tensor.2d.L2.global.tile [tmap, {c0, c1}];` — asks the L2 to fetch the box at
/// column `c0`, row `c1` from global memory, so that a later load of it hits the L2. A hint: nothing is
/// written to shared memory, no barrier is signalled, the L2 may drop it or evict the lines before
/// they are read; out-of-bounds parts of the box are ignored.
///
/// # Safety
/// sm_90; `tmap` is a valid tensor map (global memory or parameter) describing live device memory.
#[inline(always)]
pub unsafe fn cp_async_bulk_prefetch_tensor_2d_l2(tmap: *const TensorMap, c0: i32, c1: i32) {
    // SAFETY: forwarded to the caller; the instruction writes no memory.
    unsafe {
        asm!("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [{0}, {{{1}, {2}}}];", in(reg64) tmap, in(reg32) c0, in(reg32) c1,
             options(nostack))
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

/// `cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [dst], [src], bytes;` — adds the `bytes / 4`
/// f32 at shared address `src` to those at `dst` in global memory, element by element and atomically with
/// respect to other reductions (the TMA engine reads the source and the L2 adds whole lines). Complete it
/// with [`cp_async_bulk_commit_group`], then [`cp_async_bulk_wait_group_read0`] before rewriting `src`
/// and [`cp_async_bulk_wait_group0`] before the kernel exits.
///
/// # Safety
/// sm_90; `dst` and `src` 16-byte aligned, `bytes` a multiple of 16; `dst..dst + bytes` global memory
/// that only such reductions (or atomics) touch meanwhile; `src` written before a
/// [`crate::mbarrier::fence_proxy_async_shared_cta`] by each writer and a barrier among the writers.
#[inline(always)]
pub unsafe fn cp_reduce_async_bulk_add_f32(dst: *mut f32, src: u32, bytes: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [{0}], [{1}], {2};", in(reg64) dst, in(reg32) src, in(reg32) bytes,
             options(nostack))
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

/// `cp.async.bulk.wait_group.read 0;` — waits until every committed bulk store has read its source
/// ([`cp_async_bulk_wait_group_read`] with no group left pending).
///
/// # Safety
/// sm_90.
#[inline(always)]
pub unsafe fn cp_async_bulk_wait_group_read0() {
    // SAFETY: forwarded.
    unsafe { cp_async_bulk_wait_group_read::<0>() }
}

/// `cp.async.bulk.wait_group.read N;` — waits until all but the `N` most recently committed bulk groups
/// have read their sources: with a ring of `N + 1` buffers, one bulk group each, the oldest may then be
/// rewritten.
///
/// # Safety
/// sm_90.
#[inline(always)]
pub unsafe fn cp_async_bulk_wait_group_read<const N: u32>() {
    // SAFETY: no operands; the default memory clobber keeps later shared stores after it.
    unsafe { asm!("cp.async.bulk.wait_group.read {n};", n = const N, options(nostack)) }
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
