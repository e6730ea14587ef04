//! Programmatic dependent launch (PDL) for kernels that run in chains — a model's decode step launches
//! ~300 short kernels, and each boundary costs the launch and the scheduling of the next grid's CTAs. A
//! kernel built for sm_90 with [`wait_then_release`] first is launched by the host with programmatic
//! stream serialization (`kernel_lab::runtime::gpu::launch_pdl`): its CTAs may be scheduled while the
//! previous grid finishes and wait there. HGEMM d9 brought the idea into the decode ladder; here it is
//! one prologue for any kernel.
//!
//! Measured (H200, the runner's batch-1 decode step, 3 processes each, session 55): 1.1% faster than the
//! same kernels launched plainly (bf16 4.472 against 4.523 ms, FP8 weights 3.202 against 3.236). An L2
//! prefetch of the weights before the wait (the first stages, or whole splits where the weights fit the
//! L2) gained nothing (4.491–4.497 ms) and was removed (commit a436301 has it); decode attention asking the
//! L2 for the O projection's weights while it runs made the step 1.034× slower (session 71, commit 0dbe580).
//!
//! The contract: nothing before [`wait_then_release`] reads or writes global memory, and every CTA
//! reaches it — but for reads the host has promised the previous grid does not write: d2/d24's and w1's
//! first weight stages (`BReady::AtLaunch`, below) and decode attention ad3's length, page table and older
//! cache rows (`CacheReady::AtLaunch`, session 70). In the sm_80 build it is empty: no PDL before sm_90, and the host launches those kernels
//! without the attribute.
//!
//! The split-K decode steps (d2, d24) use the two halves apart (session 63): [`wait`] first, [`release`]
//! after their K loop — released at the start, a following GEMM's CTAs waited on SM slots that this
//! grid's later waves needed (the runner's step 13 µs a layer slower with two GEMMs back to back) — and,
//! where the host promises the previous grid does not write B (`BReady::AtLaunch`: model weights), their
//! first weight stages are copied before the wait: the runner's batch-1 step 4.449 → 4.392 ms.

/// Waits for the previous grid on the stream (complete, its writes visible), then lets the next grid's
/// CTAs be scheduled: one kernel of look-ahead, so a chain never has more than one grid waiting.
#[inline(always)]
pub(crate) fn wait_then_release() {
    #[cfg(lab_sm90)]
    {
        crate::prim::sync::griddepcontrol_wait();
        crate::prim::sync::griddepcontrol_launch_dependents();
    }
}

/// The first half of [`wait_then_release`]: waits for the previous grid (complete, its writes visible).
/// A kernel that calls it calls [`release`] later (or exits).
#[inline(always)]
pub(crate) fn wait() {
    #[cfg(lab_sm90)]
    crate::prim::sync::griddepcontrol_wait();
}

/// Lets the next grid's CTAs be scheduled once every CTA of this grid has called it or exited.
#[inline(always)]
pub(crate) fn release() {
    #[cfg(lab_sm90)]
    crate::prim::sync::griddepcontrol_launch_dependents();
}
