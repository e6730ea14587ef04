//! Explicit global-memory loads where the cache policy or the vector width is the point.
use core::arch::asm;

/// `ld.global.nc.v4.f32 {a, b, c, d}, [p];` — one 128-bit load through the read-only (non-coherent)
/// path: a warp reads 512 contiguous bytes with one instruction.
///
/// # Safety
/// `p` points to 4 readable `f32` in global memory, 16-byte aligned, that no thread writes during the
/// kernel (the `.nc` path does not see writes made by the running grid).
#[inline(always)]
pub unsafe fn ld_global_nc_v4_f32(p: *const f32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.nc.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];", out(reg32) a, out(reg32) b,
                  out(reg32) c, out(reg32) d, in(reg64) p, options(nostack, readonly)) };
    [a, b, c, d]
}

/// `ld.global.nc.f32 r, [p];` — one 32-bit load through the read-only (non-coherent) path: for
/// data at any 4-byte alignment that a vector load cannot take.
///
/// # Safety
/// `p` points to a readable, 4-byte-aligned `f32` in global memory that no thread writes during the
/// kernel.
#[inline(always)]
pub unsafe fn ld_global_nc_f32(p: *const f32) -> f32 {
    let r: f32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.nc.f32 {0}, [{1}];", out(reg32) r, in(reg64) p, options(nostack, readonly)) };
    r
}

/// `ld.global.nc.L1::no_allocate.v4.f32 {a, b, c, d}, [p];` — as [`ld_global_nc_v4_f32`], but the line
/// is not kept in L1: streaming data read once does not evict what is reused.
///
/// # Safety
/// As [`ld_global_nc_v4_f32`].
#[inline(always)]
pub unsafe fn ld_global_nc_na_v4_f32(p: *const f32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.nc.L1::no_allocate.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];", out(reg32) a,
                  out(reg32) b, out(reg32) c, out(reg32) d, in(reg64) p, options(nostack, readonly)) };
    [a, b, c, d]
}

/// `ld.global.cg.f32 r, [p];` — a load cached in L2 only, so it sees what other blocks wrote before a
/// GPU-scope release that this thread acquired (used by the last-block-done pattern).
///
/// # Safety
/// `p` points to a readable, 4-byte-aligned `f32` in global memory.
#[inline(always)]
pub unsafe fn ld_global_cg_f32(p: *const f32) -> f32 {
    let r: f32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.cg.f32 {0}, [{1}];", out(reg32) r, in(reg64) p, options(nostack, readonly)) };
    r
}

/// `ld.global.nc.s32 r, [p];` — a 32-bit load through the read-only (texture) path, for data no thread
/// of the grid writes (a page table, lengths). `p` is a global address held as a plain integer or a
/// pointer the compiler cannot trace to a kernel parameter (where it would emit a generic `ld`).
///
/// # Safety
/// `p` points to a readable, 4-byte-aligned `i32` in global memory that nothing writes during the kernel.
#[inline(always)]
pub unsafe fn ld_global_nc_s32(p: *const i32) -> i32 {
    let r: i32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.nc.s32 {0}, [{1}];", out(reg32) r, in(reg64) p, options(pure, nostack, readonly)) };
    r
}

/// `ld.global.cg.u64 r, [p];` — as [`ld_global_cg_f32`], 64 bits (e.g. two f32 of a partial sum).
///
/// # Safety
/// `p` points to a readable, 8-byte-aligned `u64` in global memory.
#[inline(always)]
pub unsafe fn ld_global_cg_u64(p: *const u64) -> u64 {
    let r: u64;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.cg.u64 {0}, [{1}];", out(reg64) r, in(reg64) p, options(nostack, readonly)) };
    r
}

/// `ld.global.cg.v4.f32 {a, b, c, d}, [p];` — as [`ld_global_cg_f32`], 128 bits (four f32 of a partial
/// tile another CTA wrote before the release this thread acquired).
///
/// # Safety
/// `p` points to 4 readable `f32` in global memory, 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_cg_v4_f32(p: *const f32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("ld.global.cg.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];", out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg64) p,
             options(nostack, readonly))
    };
    [a, b, c, d]
}

/// `st.global.v4.f32 [p], {a, b, c, d};` — one 128-bit store.
///
/// # Safety
/// `p` points to 4 writable `f32` in global memory, 16-byte aligned.
#[inline(always)]
pub unsafe fn st_global_v4_f32(p: *mut f32, v: [f32; 4]) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.global.v4.f32 [{0}], {{{1}, {2}, {3}, {4}}};", in(reg64) p, in(reg32) v[0], in(reg32) v[1],
                  in(reg32) v[2], in(reg32) v[3], options(nostack)) };
}

/// `ld.global.nc.v4.u32 {a, b, c, d}, [p];` — 16 raw bytes (e.g. 8 f16) in one 128-bit load.
///
/// # Safety
/// As [`ld_global_nc_v4_f32`].
#[inline(always)]
pub unsafe fn ld_global_nc_v4_u32(p: *const u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.nc.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];", out(reg32) a, out(reg32) b,
                  out(reg32) c, out(reg32) d, in(reg64) p, options(nostack, readonly)) };
    [a, b, c, d]
}

/// `ld.global.nc.L1::no_allocate.v4.u32 {a, b, c, d}, [p];` — as [`ld_global_nc_v4_u32`], the line not
/// kept in L1: bytes streamed once (weights) do not evict what the block reuses (activations).
///
/// # Safety
/// As [`ld_global_nc_v4_f32`].
#[inline(always)]
pub unsafe fn ld_global_nc_na_v4_u32(p: *const u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.nc.L1::no_allocate.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];", out(reg32) a, out(reg32) b,
                  out(reg32) c, out(reg32) d, in(reg64) p, options(nostack, readonly)) };
    [a, b, c, d]
}

/// `ld.global.nc.v2.u32 {a, b}, [p];` — 8 raw bytes (e.g. 4 f16) in one 64-bit load.
///
/// # Safety
/// `p` points to 8 readable bytes of global memory, 8-byte aligned, that no thread writes during the
/// kernel (as [`ld_global_nc_v4_f32`]).
#[inline(always)]
pub unsafe fn ld_global_nc_v2_u32(p: *const u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.global.nc.v2.u32 {{{0}, {1}}}, [{2}];", out(reg32) a, out(reg32) b, in(reg64) p, options(nostack, readonly)) };
    [a, b]
}

/// `st.global.v4.u32 [p], {a, b, c, d};` — 16 raw bytes in one 128-bit store.
///
/// # Safety
/// `p` points to 16 writable, 16-byte-aligned bytes of global memory.
#[inline(always)]
pub unsafe fn st_global_v4_u32(p: *mut u32, v: [u32; 4]) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.global.v4.u32 [{0}], {{{1}, {2}, {3}, {4}}};", in(reg64) p, in(reg32) v[0], in(reg32) v[1],
                  in(reg32) v[2], in(reg32) v[3], options(nostack)) };
}

/// `st.global.v2.u32 [p], {a, b};` — 8 raw bytes (e.g. 4 f16) in one 64-bit store.
///
/// # Safety
/// `p` points to 8 writable, 8-byte-aligned bytes of global memory.
#[inline(always)]
pub unsafe fn st_global_v2_u32(p: *mut u32, v: [u32; 2]) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.global.v2.u32 [{0}], {{{1}, {2}}};", in(reg64) p, in(reg32) v[0], in(reg32) v[1], options(nostack)) };
}

/// `ld.global.cg.v4.u32 {a, b, c, d}, [p];` — 128 bits cached in L2 only (never a stale L1 line): for
/// data another GPU or grid wrote and released, read after the matching acquire (peer memory).
///
/// # Safety
/// `p` points to 16 readable, 16-byte-aligned bytes in global memory (local or a peer's).
#[inline(always)]
pub unsafe fn ld_global_cg_v4_u32(p: *const u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller. Not `readonly`: it must stay after the acquire that precedes it.
    unsafe { asm!("ld.global.cg.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];", out(reg32) a, out(reg32) b,
                  out(reg32) c, out(reg32) d, in(reg64) p, options(nostack)) };
    [a, b, c, d]
}
