//! `cp.async` (sm_80+): asynchronous 16-byte copies global → shared that bypass the registers, grouped
//! with `commit_group` and awaited with `wait_group`.
use core::arch::asm;

/// `cp.async.cg.shared.global [s_addr], [g_ptr], 16;` — copies 16 bytes, cached in L2 only (`.cg`).
///
/// # Safety
/// `s_addr` is a 16-byte-aligned `.shared` address of 16 writable bytes of this block's shared memory;
/// `g_ptr` points to 16 readable, 16-byte-aligned bytes of global memory. The bytes arrive only after a
/// [`cp_async_wait_group`] covering this copy's group (and a barrier before other threads read them).
#[inline(always)]
pub unsafe fn cp_async_cg_16(s_addr: u32, g_ptr: *const u8) {
    // SAFETY: forwarded to the caller. Writes shared memory asynchronously: default memory clobber.
    unsafe { asm!("cp.async.cg.shared.global [{0}], [{1}], 16;", in(reg32) s_addr, in(reg64) g_ptr,
                  options(nostack)) };
}

/// `cp.async.cg.shared.global [s_addr], [g_ptr], 16, src_bytes;` — copies `src_bytes` (0..=16) bytes and
/// zero-fills the rest of the 16: the predicated-edge load (with `src_bytes = 0`, `g_ptr` is not read).
///
/// # Safety
/// As [`cp_async_cg_16`], except that only `src_bytes` bytes at `g_ptr` need to be readable, and
/// `src_bytes <= 16`.
#[inline(always)]
pub unsafe fn cp_async_cg_16_zfill(s_addr: u32, g_ptr: *const u8, src_bytes: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("cp.async.cg.shared.global [{0}], [{1}], 16, {2};", in(reg32) s_addr, in(reg64) g_ptr,
                  in(reg32) src_bytes, options(nostack)) };
}

/// `cp.async.ca.shared.global [s_addr], [g_ptr], 4;` — copies one 4-byte word, cached in L1 and L2
/// (`.ca`: `.cg` takes only 16-byte copies): the element-wise copy of rows whose pitch is not a
/// multiple of 16 bytes.
///
/// # Safety
/// `s_addr` is a 4-byte-aligned `.shared` address of 4 writable bytes of this block's shared memory;
/// `g_ptr` points to 4 readable, 4-byte-aligned bytes of global memory. As [`cp_async_cg_16`], the word
/// arrives only after a [`cp_async_wait_group`] covering its group.
#[inline(always)]
pub unsafe fn cp_async_ca_4(s_addr: u32, g_ptr: *const u8) {
    // SAFETY: forwarded to the caller. Writes shared memory asynchronously: default memory clobber.
    unsafe { asm!("cp.async.ca.shared.global [{0}], [{1}], 4;", in(reg32) s_addr, in(reg64) g_ptr,
                  options(nostack)) };
}

/// `cp.async.ca.shared.global [s_addr], [g_ptr], 4, src_bytes;` — copies `src_bytes` (0 or 4) bytes and
/// zero-fills the rest of the word: the predicated element copy (with `src_bytes = 0`, `g_ptr` is not
/// read).
///
/// # Safety
/// As [`cp_async_ca_4`], except that `g_ptr` needs to be readable only when `src_bytes` is 4, and
/// `src_bytes <= 4`.
#[inline(always)]
pub unsafe fn cp_async_ca_4_zfill(s_addr: u32, g_ptr: *const u8, src_bytes: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("cp.async.ca.shared.global [{0}], [{1}], 4, {2};", in(reg32) s_addr, in(reg64) g_ptr,
                  in(reg32) src_bytes, options(nostack)) };
}

/// `cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];` — an arrival on `bar` triggered once every
/// `cp.async` this thread issued before it has completed (its copies then visible to the threads that
/// wait for the phase). `.noinc`: the arrival is one of the phase's expected arrivals (the count set at
/// `mbarrier.init` includes it), not an extra one.
///
/// # Safety
/// `bar` is an initialized mbarrier of this CTA whose phase expects this arrival (its count not exceeded).
#[inline(always)]
pub unsafe fn cp_async_mbarrier_arrive_noinc(bar: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [{0}];", in(reg32) bar, options(nostack)) };
}

/// `cp.async.commit_group;` — closes the group of this thread's `cp.async` issued since the last commit.
#[inline(always)]
pub fn cp_async_commit_group() {
    // SAFETY: no preconditions; it only marks a group boundary.
    unsafe { asm!("cp.async.commit_group;", options(nostack)) };
}

/// `cp.async.wait_group N;` — waits until at most `N` of this thread's committed groups are pending.
/// `N = 0` waits for all (`cp.async.wait_all` without the implicit commit).
#[inline(always)]
pub fn cp_async_wait_group<const N: u32>() {
    // SAFETY: no preconditions; the default memory clobber makes later shared reads stay after it.
    unsafe { asm!("cp.async.wait_group {n};", n = const N, options(nostack)) };
}

/// [`cp_async_wait_group`] with the count as an argument known at compile time (0..=3): what a
/// pipeline generic over a configuration type calls with `C::STAGES - 2`, which stable Rust cannot pass
/// as a const generic argument. Inlined with a constant `n`, the `match` folds to the one instruction.
#[inline(always)]
pub fn cp_async_wait_group_n(n: u32) {
    match n {
        0 => cp_async_wait_group::<0>(),
        1 => cp_async_wait_group::<1>(),
        2 => cp_async_wait_group::<2>(),
        3 => cp_async_wait_group::<3>(),
        _ => panic!("cp_async_wait_group_n: more than 3 pending groups"),
    }
}
