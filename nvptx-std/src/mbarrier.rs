//! `mbarrier` (sm_90): a 64-bit shared-memory barrier object that counts arrivals and, for the TMA,
//! transaction bytes. A phase completes when the expected arrivals have arrived and the expected bytes
//! have landed; waiters poll for the phase's parity (0, 1, 0, … per completed phase).
use core::arch::asm;

/// `mbarrier.init.shared::cta.b64 [bar], count;`
///
/// # Safety
/// `bar` is an 8-byte-aligned `.shared` address of this CTA, initialized by one thread only, before any
/// other use, and made visible with [`fence_mbarrier_init`] / a block barrier.
#[inline(always)]
pub unsafe fn mbarrier_init(bar: u32, count: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("mbarrier.init.shared::cta.b64 [{0}], {1};", in(reg32) bar, in(reg32) count, options(nostack)) }
}

/// `fence.mbarrier_init.release.cluster;` — makes `mbarrier.init` visible to the async proxy (the TMA).
///
/// # Safety
/// sm_90. Always sound to execute; `unsafe` only because it is one of the barrier protocol's steps.
#[inline(always)]
pub unsafe fn fence_mbarrier_init() {
    // SAFETY: a fence; no operands.
    unsafe { asm!("fence.mbarrier_init.release.cluster;", options(nostack)) }
}

/// `fence.proxy.async.shared::cta;` — orders generic-proxy shared-memory accesses (ordinary `st.shared`)
/// with async-proxy ones (TMA, `wgmma`): needed e.g. before a TMA store reads what threads wrote.
///
/// # Safety
/// sm_90. A fence; `unsafe` for symmetry with the protocol it belongs to.
#[inline(always)]
pub unsafe fn fence_proxy_async_shared_cta() {
    // SAFETY: a fence; no operands.
    unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) }
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes;` — arrives once and adds `bytes` to the
/// transaction count the current phase waits for (the bytes the TMA loads about to be issued will deliver).
///
/// # Safety
/// `bar` is an initialized mbarrier of this CTA; the arrival count of the phase is not exceeded.
#[inline(always)]
pub unsafe fn mbarrier_arrive_expect_tx(bar: u32, bytes: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{0}], {1};", in(reg32) bar, in(reg32) bytes, options(nostack)) }
}

/// `mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], bytes;` — adds `bytes` to the transaction
/// count of the current phase **without arriving** (for loads issued before the arrival that
/// [`mbarrier_arrive_expect_tx`] makes for the rest of the phase's bytes: the count never drops below
/// zero when the expectation comes first).
///
/// # Safety
/// sm_90; `bar` is an initialized mbarrier of this CTA whose current phase has not completed (an arrival
/// is still due).
#[inline(always)]
pub unsafe fn mbarrier_expect_tx(bar: u32, bytes: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{0}], {1};", in(reg32) bar, in(reg32) bytes, options(nostack)) }
}

/// `mbarrier.arrive.shared::cta.b64 _, [bar];` — one arrival (e.g. a consumer freeing a stage).
///
/// # Safety
/// `bar` is an initialized mbarrier of this CTA; the arrival count of the phase is not exceeded.
#[inline(always)]
pub unsafe fn mbarrier_arrive(bar: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("mbarrier.arrive.shared::cta.b64 _, [{0}];", in(reg32) bar, options(nostack)) }
}

/// `mbarrier.try_wait.parity.shared::cta.b64 p, [bar], parity, suspend_ns;` — true once the phase with
/// `parity` has completed. While it is incomplete the thread may be suspended for up to `suspend_ns`
/// nanoseconds (woken early when the phase completes); without the hint operand the limit is short
/// and system-dependent. In a retry loop ptxas then emits `NANOSLEEP.SYNCS` after a failed try (the
/// SASS of attention a7 since this form), where the form without the hint retried back to back.
///
/// # Safety
/// `bar` is an initialized mbarrier of this CTA.
#[inline(always)]
pub unsafe fn mbarrier_try_wait_parity_suspend(bar: u32, parity: u32, suspend_ns: u32) -> bool {
    let done: u32;
    // SAFETY: forwarded to the caller. Not `pure`: the result changes over time and orders memory.
    unsafe {
        asm!("{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [{1}], {2}, {3}; selp.u32 {0}, 1, 0, p; }}",
             out(reg32) done, in(reg32) bar, in(reg32) parity, in(reg32) suspend_ns, options(nostack))
    };
    done != 0
}

/// The suspend-time hint of [`mbarrier_wait_parity`]: 10 ms, far longer than any wait of a working
/// pipeline (the thread wakes when the phase completes), so a waiting warp sleeps instead of retrying.
pub const WAIT_SUSPEND_NS: u32 = 10_000_000;

/// Waits until the phase with `parity` completes: [`mbarrier_try_wait_parity_suspend`] with
/// [`WAIT_SUSPEND_NS`] in a loop. Without the hint (measured on an H100, attention a7, `ncu`
/// source counters) a TMA producer waiting for a free stage retried `try_wait` ~250 times per K/V
/// tile: two issue slots per retry, taken from the consumer warps of its scheduler.
///
/// # Safety
/// As [`mbarrier_try_wait_parity_suspend`]; the phase must eventually complete or this never returns.
#[inline(always)]
pub unsafe fn mbarrier_wait_parity(bar: u32, parity: u32) {
    // SAFETY: forwarded to the caller.
    while !unsafe { mbarrier_try_wait_parity_suspend(bar, parity, WAIT_SUSPEND_NS) } {}
}
