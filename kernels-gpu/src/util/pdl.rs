//! Programmatic dependent launch (PDL) for kernels that run in chains — a model's decode step launches
//! ~300 short kernels, and each boundary costs the launch, the ramp of the first loads and the tail of
//! the last wave. A kernel built for sm_90 with [`wait_then_release`] in its prologue is launched by the
//! host with programmatic stream serialization (`kernel_lab::runtime::gpu::launch_pdl`): its CTAs may
//! become resident while the previous grid still runs, prefetch into L2 what they will read first, and
//! wait there. HGEMM d9 brought the idea into the decode ladder; here it is one prologue for any kernel.
//!
//! The contract: nothing before [`wait_then_release`] reads or writes global memory that another grid
//! may touch — only L2 prefetches (`prim::global::prefetch_global_l2`, `cp_async_bulk_prefetch_l2`),
//! which observe nothing (the L2 is where every SM's writes land, so a prefetched line is never stale)
//! — and every CTA reaches it. In the sm_80 build it is empty: no PDL before sm_90, and the host launches
//! those kernels without the attribute.

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
