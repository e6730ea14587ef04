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
