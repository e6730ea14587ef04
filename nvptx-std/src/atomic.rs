//! Global-memory atomics with explicit scope and ordering.
use core::arch::asm;

/// `atom.acq_rel.gpu.global.add.u32 old, [p], v;` — adds `v` to `*p` and returns the old value, with
/// acquire-release ordering at GPU scope (releases this thread's earlier writes, acquires those of
/// threads that released to the same location before).
///
/// # Safety
/// `p` points to a 4-byte-aligned `u32` in global memory that is only accessed atomically meanwhile.
#[inline(always)]
pub unsafe fn atom_add_acq_rel_gpu_u32(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    // SAFETY: forwarded to the caller; the default memory clobber orders it with other accesses.
    unsafe { asm!("atom.acq_rel.gpu.global.add.u32 {0}, [{1}], {2};", out(reg32) old, in(reg64) p,
                  in(reg32) v, options(nostack)) };
    old
}

/// `st.relaxed.gpu.global.u32 [p], v;` — a plain store other blocks may read atomically.
///
/// # Safety
/// `p` points to a 4-byte-aligned, writable `u32` in global memory.
#[inline(always)]
pub unsafe fn st_relaxed_gpu_u32(p: *mut u32, v: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.relaxed.gpu.global.u32 [{0}], {1};", in(reg64) p, in(reg32) v, options(nostack)) };
}

/// `red.relaxed.gpu.global.add.f64 [p], v;` — adds `v` to `*p` without returning the old value (a
/// reduction; sm_60+). Relaxed: it orders nothing else; the adds to one address are atomic, their
/// order is not specified (so an f64 total may differ in its last bits from run to run).
///
/// # Safety
/// `p` points to an 8-byte-aligned `f64` in global memory that is only accessed atomically meanwhile.
#[inline(always)]
pub unsafe fn red_add_relaxed_gpu_f64(p: *mut f64, v: f64) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("red.relaxed.gpu.global.add.f64 [{0}], {1};", in(reg64) p, in(reg64) v, options(nostack)) };
}

/// `red.relaxed.gpu.global.add.u64 [p], v;` — as [`red_add_relaxed_gpu_f64`] for a `u64` counter.
///
/// # Safety
/// As [`red_add_relaxed_gpu_f64`], for an 8-byte-aligned `u64`.
#[inline(always)]
pub unsafe fn red_add_relaxed_gpu_u64(p: *mut u64, v: u64) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("red.relaxed.gpu.global.add.u64 [{0}], {1};", in(reg64) p, in(reg64) v, options(nostack)) };
}

/// `red.relaxed.gpu.global.add.f32 [p], v;` — as [`red_add_relaxed_gpu_f64`] for an `f32`.
///
/// # Safety
/// As [`red_add_relaxed_gpu_f64`], for a 4-byte-aligned `f32`.
#[inline(always)]
pub unsafe fn red_add_relaxed_gpu_f32(p: *mut f32, v: f32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("red.relaxed.gpu.global.add.f32 [{0}], {1};", in(reg64) p, in(reg32) v, options(nostack)) };
}

/// `@p red.relaxed.gpu.global.add.f32 [p], v;` with `p = (add != 0)` — [`red_add_relaxed_gpu_f32`] under a
/// predicate set inside the asm. ptxas (CUDA 13.0) still puts a branch around each guarded `red`; that
/// branch pins the `red` where it stands (session 91's b5: unguarded, ptxas gathered 32 of them into one run
/// that stalled on the LSU queue).
///
/// # Safety
/// Where `add` is true, as [`red_add_relaxed_gpu_f32`]; where false, `p` is never dereferenced (any value).
#[inline(always)]
pub unsafe fn red_add_relaxed_gpu_f32_if(p: *mut f32, v: f32, add: bool) {
    // SAFETY: forwarded to the caller; with the predicate false the instruction does not execute.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.b32 p, {2}, 0; @p red.relaxed.gpu.global.add.f32 [{0}], {1}; }}", in(reg64) p, in(reg32) v, in(reg32) add as u32,
             options(nostack))
    };
}

/// `red.relaxed.gpu.global.max.u32 [p], v;` — atomic maximum without a return value. On the bits of
/// non-negative f32 the unsigned order is the numeric order, so this is an f32 `amax` of `|x|` bits.
///
/// # Safety
/// As [`red_add_relaxed_gpu_f64`], for a 4-byte-aligned `u32`.
#[inline(always)]
pub unsafe fn red_max_relaxed_gpu_u32(p: *mut u32, v: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("red.relaxed.gpu.global.max.u32 [{0}], {1};", in(reg64) p, in(reg32) v, options(nostack)) };
}

/// `red.relaxed.gpu.global.add.v4.f32 [p], {a, b, c, d};` (sm_90, PTX ISA 8.1) — adds four consecutive
/// f32 in one reduction: one L2 atomic operation where [`red_add_relaxed_gpu_f32`] takes four.
///
/// # Safety
/// `p` points to 4 f32 in global memory, 16-byte aligned, that only atomic operations access
/// concurrently; sm_90 or later.
#[inline(always)]
pub unsafe fn red_add_relaxed_gpu_v4_f32(p: *mut f32, v: [f32; 4]) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("red.relaxed.gpu.global.add.v4.f32 [{0}], {{{1}, {2}, {3}, {4}}};", in(reg64) p, in(reg32) v[0], in(reg32) v[1],
             in(reg32) v[2], in(reg32) v[3], options(nostack))
    };
}

/// `red.relaxed.gpu.global.add.v2.f32 [p], {a, b};` (sm_90, PTX ISA 8.1) — adds two consecutive f32 in
/// one reduction.
///
/// # Safety
/// `p` points to 2 f32 in global memory, 8-byte aligned, that only atomic operations access
/// concurrently; sm_90 or later.
#[inline(always)]
pub unsafe fn red_add_relaxed_gpu_v2_f32(p: *mut f32, v: [f32; 2]) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("red.relaxed.gpu.global.add.v2.f32 [{0}], {{{1}, {2}}};", in(reg64) p, in(reg32) v[0], in(reg32) v[1], options(nostack)) };
}

/// `st.release.sys.global.u64 [p], v;` — a store that releases this thread's earlier writes (and those it
/// observed, e.g. through a block barrier) at system scope: another GPU reading `p` with
/// [`ld_acquire_sys_u64`] and seeing `v` then sees them too (NVLink peer memory).
///
/// # Safety
/// `p` points to an 8-byte-aligned, writable `u64` in global memory (this GPU's or a peer's mapped into
/// this context), accessed by others only through morally strong operations meanwhile.
#[inline(always)]
pub unsafe fn st_release_sys_u64(p: *mut u64, v: u64) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.release.sys.global.u64 [{0}], {1};", in(reg64) p, in(reg64) v, options(nostack)) };
}

/// `ld.acquire.sys.global.u64 r, [p];` — the read side of [`st_release_sys_u64`]: the writes released by
/// the store this load reads from are visible to this thread's later accesses (and, after a block
/// barrier, to its block's).
///
/// # Safety
/// `p` points to an 8-byte-aligned, readable `u64` in global memory (local or a peer's).
#[inline(always)]
pub unsafe fn ld_acquire_sys_u64(p: *const u64) -> u64 {
    let r: u64;
    // SAFETY: forwarded to the caller; not `readonly`/`pure`: an acquire orders later accesses.
    unsafe { asm!("ld.acquire.sys.global.u64 {0}, [{1}];", out(reg64) r, in(reg64) p, options(nostack)) };
    r
}

/// `ld.relaxed.gpu.global.u64 r, [p];` — a load of a word other grids of this GPU write (a control word
/// written by the previous launch on the stream); never merged with another load of it.
///
/// # Safety
/// `p` points to an 8-byte-aligned, readable `u64` in global memory.
#[inline(always)]
pub unsafe fn ld_relaxed_gpu_u64(p: *const u64) -> u64 {
    let r: u64;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.relaxed.gpu.global.u64 {0}, [{1}];", out(reg64) r, in(reg64) p, options(nostack)) };
    r
}

/// `st.relaxed.gpu.global.u64 [p], v;` — as [`st_relaxed_gpu_u32`], 64 bits.
///
/// # Safety
/// `p` points to an 8-byte-aligned, writable `u64` in global memory.
#[inline(always)]
pub unsafe fn st_relaxed_gpu_u64(p: *mut u64, v: u64) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.relaxed.gpu.global.u64 [{0}], {1};", in(reg64) p, in(reg64) v, options(nostack)) };
}

/// `ld.relaxed.sys.global.u32 r, [p];` — a load of a word another GPU may write (a status word a
/// peer sets); never merged with another load of it.
///
/// # Safety
/// `p` points to a 4-byte-aligned, readable `u32` in global memory (local or a peer's).
#[inline(always)]
pub unsafe fn ld_relaxed_sys_u32(p: *const u32) -> u32 {
    let r: u32;
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.relaxed.sys.global.u32 {0}, [{1}];", out(reg32) r, in(reg64) p, options(nostack)) };
    r
}

/// `st.relaxed.sys.global.u32 [p], v;` — a store another GPU may read with a morally strong load.
///
/// # Safety
/// `p` points to a 4-byte-aligned, writable `u32` in global memory (local or a peer's).
#[inline(always)]
pub unsafe fn st_relaxed_sys_u32(p: *mut u32, v: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.relaxed.sys.global.u32 [{0}], {1};", in(reg64) p, in(reg32) v, options(nostack)) };
}
