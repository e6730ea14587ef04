//! Thread-block clusters (sm_90): a cluster's CTAs run at once on one GPC and can read, write and
//! signal each other's shared memory (`shared::cluster` addresses). A kernel declares its cluster
//! shape with [`crate::cluster_dims!`] (`.reqnctapercluster`), so an ordinary launch forms the clusters.
//!
//! What the kernel lab uses them for: **TMA multicast** — one CTA's TMA load writes the same box into
//! several CTAs' shared memory and signals each one's mbarrier at the same offset
//! ([`crate::tma::cp_async_bulk_tensor_2d_g2s_multicast`]) — the mbarrier arrivals that tell a peer
//! its data has been consumed ([`mbarrier_arrive_cluster`]), and **distributed shared memory**: a CTA
//! reads a peer's shared memory at the address [`mapa_shared_cluster`] gives
//! ([`ld_shared_cluster_v4_f32`]), as HGEMM h8 and d28 sum their split-K partial tiles.
use core::arch::asm;

/// `%cluster_ctarank`: this CTA's rank in its cluster (0 .. cluster size).
#[inline(always)]
pub fn cluster_ctarank() -> u32 {
    let r: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {0}, %cluster_ctarank;", out(reg32) r, options(pure, nomem, nostack)) };
    r
}

/// `barrier.cluster.arrive.release; barrier.cluster.wait.acquire;` — every thread of every CTA of the
/// cluster meets here; shared-memory writes (and mbarrier initializations) before it are visible to
/// the whole cluster after it.
///
/// # Safety
/// sm_90, a cluster launch; every thread of the cluster executes it the same number of times (a CTA
/// must not exit while a peer may still access its shared memory: the kernels end with one).
#[inline(always)]
pub unsafe fn cluster_sync() {
    // SAFETY: forwarded to the caller. Not `pure`: orders memory, collective.
    unsafe { asm!("barrier.cluster.arrive.release;", "barrier.cluster.wait.acquire;", options(nostack)) }
}

/// `barrier.cluster.arrive.relaxed; barrier.cluster.wait;` — every thread of every CTA of the cluster
/// meets here, without the arrival's release: the kernels' first meeting, which only has to publish
/// mbarrier initializations, and those are published by their own `fence.mbarrier_init.release.cluster`
/// (CUTLASS's `cluster_arrive_relaxed` + `cluster_wait`). Measured (session 21, `call14`): with
/// [`cluster_sync`]'s `.release` arrival at that place a cluster launch of d7's body lost 7% at 1024³
/// (0.873× against 0.939× with no barrier at all); with this one 0.942×.
///
/// # Safety
/// As [`cluster_sync`]; orders no memory access of its own: shared-memory writes a peer will read need
/// [`cluster_sync`].
#[inline(always)]
pub unsafe fn cluster_sync_relaxed() {
    // SAFETY: forwarded to the caller. Not `pure`: collective.
    unsafe { asm!("barrier.cluster.arrive.relaxed;", "barrier.cluster.wait;", options(nostack)) }
}

/// `mapa.shared::cluster.u32 d, addr, rank; mbarrier.arrive.shared::cluster.b64 _, [d];` — one arrival
/// on the mbarrier at shared offset `bar` of CTA `rank` of this cluster (this CTA's own when `rank` is
/// its rank), with the default `.release.cta` semantics. What it publishes is "this warp's `wgmma`s no
/// longer read the stage" — reads that `wgmma.wait_group` already completed — so no memory fence is
/// needed; `.release.cluster` made ptxas put a `MEMBAR.ALL.GPU` before every arrival (measured: the
/// cluster FP8 steps ran at half speed).
///
/// # Safety
/// sm_90, a cluster launch of at least `rank + 1` CTAs; `bar` is an initialized mbarrier in every CTA
/// of the cluster (same offset) whose current phase expects this arrival; the target CTA has not exited.
#[inline(always)]
pub unsafe fn mbarrier_arrive_cluster(bar: u32, rank: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("{{ .reg .b32 ra; mapa.shared::cluster.u32 ra, {0}, {1}; mbarrier.arrive.shared::cluster.b64 _, [ra]; }}",
             in(reg32) bar, in(reg32) rank, options(nostack))
    }
}

/// `mapa.shared::cluster.u32 d, addr, rank;` — the `shared::cluster` address of shared offset `addr`
/// in CTA `rank` of this cluster (the same variable's copy there: every CTA of a kernel has the same
/// shared-memory layout). Only address arithmetic: nothing is accessed.
///
/// # Safety
/// sm_90, a cluster launch of at least `rank + 1` CTAs.
#[inline(always)]
pub unsafe fn mapa_shared_cluster(addr: u32, rank: u32) -> u32 {
    let d: u32;
    // SAFETY: forwarded to the caller; computes an address, reads nothing.
    unsafe { asm!("mapa.shared::cluster.u32 {0}, {1}, {2};", out(reg32) d, in(reg32) addr, in(reg32) rank, options(pure, nomem, nostack)) };
    d
}

/// `ld.shared::cluster.v4.f32` — 16 bytes from a `shared::cluster` address (a peer's shared memory,
/// or this CTA's own, by [`mapa_shared_cluster`]), over the SM-to-SM network when remote.
///
/// # Safety
/// sm_90, a cluster launch; `addr` from [`mapa_shared_cluster`], 16-byte aligned, inside the target
/// CTA's shared memory; the target has written those bytes before a cluster barrier this thread has
/// passed ([`cluster_sync`]: its release/acquire orders them) and does not exit or rewrite them until
/// a later one.
#[inline(always)]
pub unsafe fn ld_shared_cluster_v4_f32(addr: u32) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    // SAFETY: forwarded to the caller. Not `pure`: the bytes are written by other CTAs.
    unsafe {
        asm!("ld.shared::cluster.v4.f32 {{{0}, {1}, {2}, {3}}}, [{4}];", out(reg32) a, out(reg32) b, out(reg32) c, out(reg32) d, in(reg32) addr,
             options(nostack, readonly))
    };
    [a, b, c, d]
}
