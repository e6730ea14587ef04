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
